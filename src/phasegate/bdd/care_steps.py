"""Steps of crashed work, contexts, subagents and task metrics (loaded by the step library).

Crashes are driven by the scenario's clock (``When 31 minutes pass``) and ``phase sweep``'s
engine method; contexts by ``phase start --context`` and ``phase output``; the metrics by the
refinement round a gate run records, fed with a verdict and an auto-debug report written as a
gate run and ``pytest --autodebug`` would write them.
"""

from __future__ import annotations

import json
from datetime import timedelta

from pydantic import JsonValue
from pytest_bdd import given, parsers, step, then, when

from phasegate.bdd.world import WorkflowWorld, split_names
from phasegate.model.workflow import TaskStatus
from phasegate.workflow.engine import Swept

__all__: list[str] = []


# -- crashes -------------------------------------------------------------------------------


@given(parsers.parse("the crash timeout is {minutes:g} minutes with {retries:d} crash retries"))
def _crash_policy(workflow_world: WorkflowWorld, minutes: float, retries: int) -> None:
    workflow_world.settings["crash_timeout_min"] = minutes
    workflow_world.settings["max_crash_retries"] = retries
    workflow_world.write_config()


@when(parsers.parse("{minutes:g} minutes pass"))
def _minutes(workflow_world: WorkflowWorld, minutes: float) -> None:
    workflow_world.now += timedelta(minutes=minutes)


@step("the sweep runs")
def _sweep(workflow_world: WorkflowWorld) -> None:
    workflow_world.attempt(lambda engine: engine.sweep())


@step(parsers.parse('"{who}" sends a heartbeat for "{instance}"'))
def _heartbeat(workflow_world: WorkflowWorld, who: str, instance: str) -> None:
    workflow_world.attempt(lambda engine: engine.heartbeat(instance, by=who))


@step(parsers.parse('"{worker}" sends a heartbeat for the task "{task}"'))
def _task_heartbeat(workflow_world: WorkflowWorld, worker: str, task: str) -> None:
    workflow_world.attempt(lambda engine: engine.handoff.heartbeat(task, worker=worker))


@then(parsers.parse('"{instance}" is owned by "{who}"'))
def _owned(workflow_world: WorkflowWorld, instance: str, who: str) -> None:
    assert workflow_world.engine().load(instance).owner == who


@then(parsers.parse('"{instance}" has no owner after {retries:d} crash retry'))
@then(parsers.parse('"{instance}" has no owner after {retries:d} crash retries'))
def _no_owner(workflow_world: WorkflowWorld, instance: str, retries: int) -> None:
    inst = workflow_world.engine().load(instance)
    assert (inst.owner, inst.crash_retries) == ("", retries), (inst.owner, inst.crash_retries)


@then(parsers.parse('the failure of "{instance}" says "{text}"'))
def _failure(workflow_world: WorkflowWorld, instance: str, text: str) -> None:
    assert text in workflow_world.engine().load(instance).failure_reason


@then(parsers.parse("the sweep gave the task {task} back to {folder:w}/"))
def _swept_task(workflow_world: WorkflowWorld, task: str, folder: str) -> None:
    swept = workflow_world.last_as(Swept)
    moved = {item.task: item.status for item in swept.tasks}
    assert moved.get(task.strip('"')) is TaskStatus(folder), moved


# -- contexts ------------------------------------------------------------------------------


def _json(text: str) -> JsonValue:
    try:
        value: JsonValue = json.loads(text)
    except ValueError:
        return text
    return value


@step(
    parsers.parse(
        '"{who}" starts an instance "{instance}" of the "{workflow}" workflow with {key} = {value}'
    )
)
def _start_with(
    workflow_world: WorkflowWorld, who: str, instance: str, workflow: str, key: str, value: str
) -> None:
    workflow_world.attempt(
        lambda engine: engine.start(
            workflow, instance_id=instance, by=who, context={key: _json(value)}
        )
    )


@step(parsers.parse('"{who}" outputs {key} = {value} on "{instance}"'))
def _output(workflow_world: WorkflowWorld, who: str, key: str, value: str, instance: str) -> None:
    workflow_world.attempt(lambda engine: engine.put_outputs(instance, {key: _json(value)}, by=who))


@then(parsers.parse('the context of "{instance}" holds {keys}'))
def _context(workflow_world: WorkflowWorld, instance: str, keys: str) -> None:
    context = workflow_world.engine().load(instance).context
    assert all(key in context for key in split_names(keys)), context


# -- subagents -----------------------------------------------------------------------------


@then(parsers.parse('the child "{child}" of "{instance}" was measured at complexity {value:d}'))
def _measured(workflow_world: WorkflowWorld, child: str, instance: str, value: int) -> None:
    links = {c.instance_id: c for c in workflow_world.engine().load(instance).children}
    assert links[child].complexity == value, links[child]


@then(parsers.parse('"{instance}" keeps the subtask "{name}" measured at complexity {value:d}'))
def _kept(workflow_world: WorkflowWorld, instance: str, name: str, value: int) -> None:
    kept = workflow_world.engine().load(instance).context.get("subtasks", [])
    assert isinstance(kept, list)
    assert {"name": name, "complexity": value} in [
        {"name": k.get("name"), "complexity": k.get("complexity")}
        for k in kept
        if isinstance(k, dict)
    ], kept
