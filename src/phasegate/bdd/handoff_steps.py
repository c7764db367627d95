"""Steps of the handoff: plan tasks, dependencies at claim, inboxes, gates run for a task.

Loaded by :mod:`phasegate.bdd.steps`; they drive the engine's
:class:`~phasegate.workflow.handoff.Handoff`, as ``phasegate task`` does.
"""

from __future__ import annotations

from pytest_bdd import parsers, step, then

from phasegate.bdd.world import WorkflowWorld, split_names
from phasegate.model.workflow import GateRecord, TaskStatus
from phasegate.store import Store

__all__: list[str] = []


@step(parsers.parse('"{worker}" claims the task "{task}"'))
def _claim_named(workflow_world: WorkflowWorld, worker: str, task: str) -> None:
    workflow_world.attempt(lambda engine: engine.handoff.claim(worker, task))


@then("nothing was claimed")
def _nothing(workflow_world: WorkflowWorld) -> None:
    assert workflow_world.error is None, workflow_world.error
    assert workflow_world.last is None, workflow_world.last


@then(parsers.parse("no task is ready, {task} waiting for {dependency}"))
def _blocked(workflow_world: WorkflowWorld, task: str, dependency: str) -> None:
    held = {
        t.id: [d for d, _ in unmet] for t, unmet in workflow_world.engine().handoff.queue.blocked()
    }
    assert dependency.strip('"') in held.get(task.strip('"'), []), held


@step(parsers.parse('"{worker}" submits the task "{task}"'))
def _submit(workflow_world: WorkflowWorld, worker: str, task: str) -> None:
    workflow_world.attempt(lambda engine: engine.handoff.submit(task, by=worker))


@step(parsers.parse('"{who}" approves the task "{task}"'))
def _approve(workflow_world: WorkflowWorld, who: str, task: str) -> None:
    workflow_world.attempt(lambda engine: engine.handoff.complete(task, by=who))


@step(parsers.parse('"{who}" rejects the task "{task}" saying "{feedback}"'))
def _reject(workflow_world: WorkflowWorld, who: str, task: str, feedback: str) -> None:
    workflow_world.attempt(lambda engine: engine.handoff.reject(task, by=who, feedback=feedback))


@step(parsers.parse('"{who}" asks about the task "{task}": "{question}"'))
def _ask(workflow_world: WorkflowWorld, who: str, task: str, question: str) -> None:
    workflow_world.attempt(lambda engine: engine.handoff.ask(task, by=who, question=question))


@step(parsers.parse('"{who}" runs the gate "{gate}" on the task "{task}"'))
def _gate(workflow_world: WorkflowWorld, who: str, gate: str, task: str) -> None:
    workflow_world.attempt(
        lambda engine: engine.handoff.gate(
            task, gate, lambda for_id: engine.run_gate(gate, for_id), by=who
        )
    )


@step(parsers.parse('"{who}" queues the tasks of the plan of "{instance}"'))
def _plan_tasks(workflow_world: WorkflowWorld, who: str, instance: str) -> None:
    workflow_world.attempt(lambda engine: workflow_world.loops().plan_tasks(instance, by=who))


@then(parsers.parse('the task "{task}" is in {folder:w}/'))
def _in(workflow_world: WorkflowWorld, task: str, folder: str) -> None:
    found = workflow_world.engine().handoff.queue.find(task, missing_ok=True)
    assert found is not None, f"no task {task}"
    assert found.status is TaskStatus(folder), found.status


@then(
    parsers.parse('the task "{task}" depends on {dependencies} and may be retried {count:d} times')
)
def _depends(workflow_world: WorkflowWorld, task: str, dependencies: str, count: int) -> None:
    record, _, _ = workflow_world.engine().handoff.queue.show(task)
    expected = [] if dependencies == "nothing" else split_names(dependencies)
    assert (record.depends_on, record.max_retries) == (expected, count), record


@then(parsers.parse('"{instance}" generated the tasks {tasks}'))
def _generated(workflow_world: WorkflowWorld, instance: str, tasks: str) -> None:
    assert workflow_world.engine().load(instance).tasks == split_names(tasks)


@then(parsers.parse("the {box:w} inbox holds {kinds}"))
def _inbox(workflow_world: WorkflowWorld, box: str, kinds: str) -> None:
    messages = workflow_world.engine().handoff.inbox.messages(box)  # type: ignore[arg-type]
    assert [message.type for message in messages] == split_names(kinds)


@then(parsers.parse('the {box:w} inbox tells "{to}" about "{task}": "{text}"'))
def _told(workflow_world: WorkflowWorld, box: str, to: str, task: str, text: str) -> None:
    messages = workflow_world.engine().handoff.inbox.messages(box)  # type: ignore[arg-type]
    assert any(m.to == to and m.task == task and text in m.body for m in messages), messages


@then(parsers.parse('the task "{task}" kept the verdicts {verdicts}'))
def _task_verdicts(workflow_world: WorkflowWorld, task: str, verdicts: str) -> None:
    queue = workflow_world.engine().handoff.queue
    _, _, history = queue.show(task)
    assert history is not None
    _assert_kept(history.gate_results, verdicts, queue.store)


@then(parsers.parse('"{instance}" kept the verdicts {verdicts} of the gate "{gate}"'))
def _instance_verdicts(
    workflow_world: WorkflowWorld, instance: str, verdicts: str, gate: str
) -> None:
    engine = workflow_world.engine()
    results = [r for r in engine.load(instance).gate_results if r.gate == gate]
    _assert_kept(results, verdicts, engine.store)
    assert [r.attempt for r in results] == list(range(1, len(results) + 1))


def _assert_kept(results: list[GateRecord], verdicts: str, store: Store) -> None:
    """The gate runs gave ``verdicts`` in order, each kept in a verdict file of its own."""
    shown = ["sufficient" if r.sufficient else "insufficient" for r in results]
    assert shown == split_names(verdicts), results
    paths = [store.path(r.verdict_path) for r in results]
    assert len(set(paths)) == len(paths), "each run keeps its own file"
    assert all(path.is_file() for path in paths), paths
