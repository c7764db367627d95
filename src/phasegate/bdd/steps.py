"""The step library: Given/When/Then steps that drive phasegate's workflow engine for real.

Load it as a pytest plugin (``pytest_plugins = ["phasegate.bdd.steps"]`` in ``conftest.py``);
every step is listed with an example in ``docs/bdd.md``. Each scenario gets its own project
folder (under pytest's ``tmp_path``) and :class:`~phasegate.bdd.world.WorkflowWorld`.
Gates are real: a phase's exit gate runs the gate engine's checks on the scenario's files.
The steps of the design and plan loops, of the handoff (plan tasks, inboxes, task gates),
of crashes, contexts and metrics, and of TDD batches are in the modules this one loads.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, step, then, when

from phasegate.bdd.world import WorkflowWorld, split_names
from phasegate.model.review import REVIEWS_FILE, ReviewRecord
from phasegate.model.workflow import (
    InstanceState,
    MemoryUpdate,
    Priority,
    TaskRecord,
    TaskStatus,
)
from phasegate.workflow.engine import WorkflowEngine
from phasegate.workflow.events import EVENTS_FILE
from phasegate.workflow.memory_queue import (
    MEMORY_FILE,
    JsonlMemoryStore,
    flush_memory_queue,
    restore_memory_queue,
)
from phasegate.workflow.queue import HandoffQueue
from phasegate.workflow.reviews import parse_status

__all__ = ["workflow_world"]

pytest_plugins = [
    "phasegate.bdd.loop_steps",
    "phasegate.bdd.handoff_steps",
    "phasegate.bdd.care_steps",
    "phasegate.bdd.tdd_steps",
]


_names = split_names


@pytest.fixture
def workflow_world(tmp_path: Path) -> WorkflowWorld:
    """A fresh project folder, clock and engine for one scenario."""
    return WorkflowWorld(tmp_path / "project")


# -- the project ---------------------------------------------------------------------------


@given(parsers.parse('the team "{members}"'))
def _team(workflow_world: WorkflowWorld, members: str) -> None:
    workflow_world.settings["members"] = _names(members)
    workflow_world.write_config()


@given(parsers.parse('"{member}" is an expert in {phase}'))
def _expert(workflow_world: WorkflowWorld, member: str, phase: str) -> None:
    phases = workflow_world.table("expertise").setdefault(member, [])
    assert isinstance(phases, list), phases
    phases.append(phase)
    workflow_world.write_config()


@given(parsers.parse('a workflow file "{name}":'))
def _workflow_file(workflow_world: WorkflowWorld, name: str, docstring: str) -> None:
    workflow_world.write(f"workflows/{name}", docstring)


@given(parsers.parse('a gate "{name}" that requires the {check} check'))
def _gate(workflow_world: WorkflowWorld, name: str, check: str) -> None:
    workflow_world.write(f"gates/{name}.toml", f'name = "{name}"\n\n[checks.{check}]\n')


@step(parsers.parse('the file "{path}" contains:'))
def _file(workflow_world: WorkflowWorld, path: str, docstring: str) -> None:
    workflow_world.write(path, docstring + "\n")


@given(parsers.parse("the retry policy allows {retries:d} retries, {delay:g} seconds apart"))
def _retry_policy(workflow_world: WorkflowWorld, retries: int, delay: float) -> None:
    workflow_world.settings["retry"] = {"max_retries": retries, "retry_delay_s": delay}
    workflow_world.write_config()


@given(parsers.parse("spent retries {action}"))
def _on_max_retries(workflow_world: WorkflowWorld, action: str) -> None:
    workflow_world.table("retry")["on_max_retries"] = "escalate" if "escalate" in action else "fail"
    workflow_world.write_config()


@given("no memory store is configured")
def _no_memory_store(workflow_world: WorkflowWorld) -> None:
    workflow_world.settings["memory_store"] = False
    workflow_world.write_config()


@given("the memory store cannot be written")
def _broken_memory_store(workflow_world: WorkflowWorld) -> None:
    # A folder where the store's file should be: every append fails, as a full disk would.
    (workflow_world.root / ".phasegate" / MEMORY_FILE).mkdir(parents=True)


@when("the memory store is mended")
def _mended_memory_store(workflow_world: WorkflowWorld) -> None:
    (workflow_world.root / ".phasegate" / MEMORY_FILE).rmdir()


@given(parsers.parse("the complexity threshold is {threshold:d}"))
def _threshold(workflow_world: WorkflowWorld, threshold: int) -> None:
    workflow_world.settings["complexity_threshold"] = threshold
    workflow_world.write_config()


# -- instances -----------------------------------------------------------------------------


@step(parsers.parse('an instance "{instance}" of the "{workflow}" workflow'))
@step(parsers.parse('"{who}" starts an instance "{instance}" of the "{workflow}" workflow'))
def _start(workflow_world: WorkflowWorld, instance: str, workflow: str, who: str = "ann") -> None:
    workflow_world.attempt(lambda engine: engine.start(workflow, instance_id=instance, by=who))


@step(parsers.parse('"{who}" advances "{instance}"'))
def _advance(workflow_world: WorkflowWorld, who: str, instance: str) -> None:
    workflow_world.result = workflow_world.attempt(lambda engine: engine.advance(instance, by=who))


@step(parsers.parse('"{instance}" has advanced to {phase}'))
def _advanced_to(workflow_world: WorkflowWorld, instance: str, phase: str) -> None:
    engine = workflow_world.engine()
    for _ in range(20):
        current = engine.load(instance)
        if current.phase == phase:
            return
        definition, _ = engine.definition(current.workflow)
        if definition.spec(current.phase or "").review:
            engine.review(subject=instance, status=parse_status("approved"),
                          reviewer="setup", instance_id=instance)  # fmt: skip
        result = engine.advance(instance, by="setup")
        assert result.moved, f"{instance} halted in {current.phase}: {result.diagnosis}"
    raise AssertionError(f"{instance} never reached {phase}")


@step(parsers.parse('"{reviewer}" reviews "{instance}" as {status} saying "{note}"'))
@step(parsers.parse('"{reviewer}" reviews "{instance}" as {status}'))
def _review(
    workflow_world: WorkflowWorld, reviewer: str, instance: str, status: str, note: str = ""
) -> None:
    workflow_world.attempt(
        lambda engine: engine.review(
            subject=instance,
            status=parse_status(status),
            reviewer=reviewer,
            note=note,
            instance_id=instance,
        )
    )


@step(parsers.parse('"{reviewer}" approves the result of "{child}"'))
def _approve_child(workflow_world: WorkflowWorld, reviewer: str, child: str) -> None:
    workflow_world.attempt(
        lambda engine: engine.review(
            subject=child, status=parse_status("approved"), reviewer=reviewer
        )
    )


@when(parsers.parse('"{who}" rewinds "{instance}" to {phase} because "{reason}"'))
def _rewind(
    workflow_world: WorkflowWorld, who: str, instance: str, phase: str, reason: str
) -> None:
    workflow_world.attempt(lambda engine: engine.rewind(instance, to=phase, by=who, reason=reason))


@step(parsers.parse('"{who}" escalates "{instance}" because "{reason}"'))
def _escalate(workflow_world: WorkflowWorld, who: str, instance: str, reason: str) -> None:
    workflow_world.attempt(lambda engine: engine.escalate(instance, by=who, reason=reason))


@when(parsers.parse('"{who}" resumes "{instance}"'))
def _resume(workflow_world: WorkflowWorld, who: str, instance: str) -> None:
    workflow_world.attempt(lambda engine: engine.resume(instance, by=who, note="looked at it"))


@step(parsers.parse('"{who}" fails "{instance}" because "{reason}"'))
def _fail(workflow_world: WorkflowWorld, who: str, instance: str, reason: str) -> None:
    workflow_world.attempt(lambda engine: engine.fail(instance, by=who, reason=reason))


@when(parsers.parse("{seconds:g} seconds pass"))
def _time_passes(workflow_world: WorkflowWorld, seconds: float) -> None:
    workflow_world.pass_time(seconds)


@step(parsers.parse('"{who}" queues the update "{key}" = "{value}" on "{instance}"'))
def _queue_update(
    workflow_world: WorkflowWorld, who: str, key: str, value: str, instance: str
) -> None:
    workflow_world.attempt(
        lambda engine: engine.queue_update(instance, key=key, value=value, by=who)
    )


@when(parsers.parse('"{who}" spawns children of "{instance}" for {subtasks}'))
def _spawn(workflow_world: WorkflowWorld, who: str, instance: str, subtasks: str) -> None:
    from phasegate.workflow.children import parse_subtask

    parsed = [parse_subtask(text.replace(";", ",")) for text in _names(subtasks)]
    workflow_world.attempt(lambda engine: engine.spawn(instance, parsed, by=who))


@when(parsers.parse('the workflow file "{name}" is loaded'))
def _load_workflow(workflow_world: WorkflowWorld, name: str) -> None:
    workflow_world.attempt(lambda engine: engine.definition(name.removesuffix(".toml")))


# -- the memory queue, directly ------------------------------------------------------------


@given(parsers.parse("a memory queue holding {keys}"), target_fixture="memory_queue")
def _memory_queue(workflow_world: WorkflowWorld, keys: str) -> list[MemoryUpdate]:
    return [
        MemoryUpdate(key=key, value=index, phase="EXPAND", queued_at=workflow_world.now)
        for index, key in enumerate(_names(keys))
    ]


@when("the queue is flushed to the memory store", target_fixture="flushed")
def _flush(workflow_world: WorkflowWorld, memory_queue: list[MemoryUpdate]) -> list[MemoryUpdate]:
    store = JsonlMemoryStore(workflow_world.engine().store)
    return flush_memory_queue(memory_queue, store, "direct")


@when(parsers.parse('"{key}" is queued and the flushed items are restored'))
def _restore(
    workflow_world: WorkflowWorld,
    memory_queue: list[MemoryUpdate],
    flushed: list[MemoryUpdate],
    key: str,
) -> None:
    memory_queue.append(MemoryUpdate(key=key, phase="EXPAND", queued_at=workflow_world.now))
    restore_memory_queue(memory_queue, flushed)


@then(parsers.parse("the flushed items are {keys}, in that order"))
def _flushed_items(flushed: list[MemoryUpdate], keys: str) -> None:
    assert [item.key for item in flushed] == _names(keys)


@then(parsers.parse("the memory queue holds {keys}"))
def _queue_holds(memory_queue: list[MemoryUpdate], keys: str) -> None:
    expected = [] if keys == "nothing" else _names(keys)
    assert [item.key for item in memory_queue] == expected


# -- the handoff queue ---------------------------------------------------------------------


def _tasks(world: WorkflowWorld) -> HandoffQueue:
    return world.engine().handoff.queue


@given(parsers.parse('the task "{task}" with priority {priority:w} after {dependencies}'))
@given(parsers.parse('the task "{task}" with priority {priority:w}'))
def _task(workflow_world: WorkflowWorld, task: str, priority: str, dependencies: str = "") -> None:
    _tasks(workflow_world).add(task, task_id=task, priority=Priority(priority), by="lead",
                               depends_on=_names(dependencies))  # fmt: skip


@when(parsers.parse('"{worker}" claims a task'))
def _claim(workflow_world: WorkflowWorld, worker: str) -> None:
    workflow_world.attempt(lambda engine: engine.handoff.claim(worker))


@then(parsers.parse('"{worker}" holds the task "{task}"'))
def _holds(workflow_world: WorkflowWorld, worker: str, task: str) -> None:
    assert workflow_world.last is not None, "nothing was claimed"
    claimed = workflow_world.last_as(TaskRecord)
    assert (claimed.id, claimed.claimed_by) == (task, worker)


@when(parsers.parse('the task "{task}" is submitted and rejected {times:d} times'))
def _rejected(workflow_world: WorkflowWorld, task: str, times: int) -> None:
    queue = _tasks(workflow_world)
    for attempt in range(times):
        claimed = queue.claim("worker")
        assert claimed is not None
        assert claimed.id == task
        queue.submit(task, by="worker")
        queue.reject(task, by="supervisor", feedback=f"not yet ({attempt + 1})")


@then(parsers.parse('the task "{task}" is in {folder}/ with {retries:d} retries recorded'))
def _task_in(workflow_world: WorkflowWorld, task: str, folder: str, retries: int) -> None:
    record, status, history = _tasks(workflow_world).show(task)
    assert status is TaskStatus(folder)
    assert record.retries == retries
    assert history is not None
    assert history.retries == retries
    assert history.status is TaskStatus(folder)


# -- outcomes ------------------------------------------------------------------------------


def _engine(world: WorkflowWorld) -> WorkflowEngine:
    return world.engine()


@then(parsers.re(r'"(?P<instance>[^"]+)" is (?P<state>CREATED|RUNNING|BLOCKED|COMPLETE|FAILED)$'))
def _state(workflow_world: WorkflowWorld, instance: str, state: str) -> None:
    current = _engine(workflow_world).load(instance)
    assert current.state is InstanceState(state), (current.state, current.diagnosis)


@then(parsers.parse('"{instance}" is in phase {phase}'))
def _phase(workflow_world: WorkflowWorld, instance: str, phase: str) -> None:
    assert _engine(workflow_world).load(instance).phase == phase


@then(parsers.parse('the advance halted with a diagnosis mentioning "{text}"'))
def _halted(workflow_world: WorkflowWorld, text: str) -> None:
    result = workflow_world.result
    assert workflow_world.error is None, workflow_world.error
    assert result is not None
    assert not result.moved
    assert any(text in line for line in result.diagnosis), result.diagnosis


@then("the advance moved on")
def _moved(workflow_world: WorkflowWorld) -> None:
    assert workflow_world.error is None, workflow_world.error
    assert workflow_world.result is not None
    assert workflow_world.result.moved


@then(parsers.parse('it was refused with an error mentioning "{text}"'))
def _refused(workflow_world: WorkflowWorld, text: str) -> None:
    assert workflow_world.error is not None, "the action was not refused"
    assert text in str(workflow_world.error), str(workflow_world.error)


@then(parsers.parse('the history of "{instance}" records a {action} by "{who}" because "{why}"'))
def _history(workflow_world: WorkflowWorld, instance: str, action: str, who: str, why: str) -> None:
    entry = _engine(workflow_world).load(instance).last(action)
    assert entry is not None, f"no {action} in the history"
    assert entry.by == who
    assert why in entry.reason


@then(parsers.parse('"{member}" holds the {role} role of "{instance}"'))
def _role(workflow_world: WorkflowWorld, member: str, role: str, instance: str) -> None:
    assert member in _engine(workflow_world).load(instance).roles[role]


@then(parsers.parse('the roles of "{instance}" were assessed {count:d} times'))
def _role_count(workflow_world: WorkflowWorld, instance: str, count: int) -> None:
    assert len(_engine(workflow_world).load(instance).role_history) == count


@then(parsers.parse('the events of "{instance}" include {events}'))
def _events(workflow_world: WorkflowWorld, instance: str, events: str) -> None:
    current = _engine(workflow_world).load(instance)
    prefix = f"workflow.{current.workflow}.{instance}."
    log = (workflow_world.root / ".phasegate" / EVENTS_FILE).read_text(encoding="utf-8")
    written = [json.loads(line)["name"] for line in log.splitlines()]
    observed = [event.name for event in workflow_world.observer.events]
    for name in _names(events):
        assert prefix + name in written, (name, written)
        assert prefix + name in observed, (name, observed)


@then(parsers.parse('the memory store holds "{key}" from "{instance}"'))
def _memory_holds(workflow_world: WorkflowWorld, key: str, instance: str) -> None:
    path = workflow_world.root / ".phasegate" / MEMORY_FILE
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert any(e["instance_id"] == instance and e["update"]["key"] == key for e in lines)


@then(parsers.parse('the final sync hook received "{key}" for {phase}'))
def _sync_received(workflow_world: WorkflowWorld, key: str, phase: str) -> None:
    syncs = [items for _, p, items in workflow_world.observer.syncs if p == phase]
    assert syncs, f"the sync hook was not called for {phase}"
    last = syncs[-1]
    assert last is not None, "the sync hook was called with None"
    assert key in [item.key for item in last], last


@then(parsers.parse("the final sync hook was called with None for {phase}"))
def _sync_none(workflow_world: WorkflowWorld, phase: str) -> None:
    assert (phase, None) in [(p, items) for _, p, items in workflow_world.observer.syncs]


@then(parsers.parse('"{instance}" still has {count:d} queued update(s)'))
def _queued(workflow_world: WorkflowWorld, instance: str, count: int) -> None:
    assert len(_engine(workflow_world).load(instance).memory_queue) == count


@then(parsers.parse('the last review of "{subject}" is stored as {status} with outcome {outcome}'))
def _stored_review(workflow_world: WorkflowWorld, subject: str, status: str, outcome: str) -> None:
    store = _engine(workflow_world).store
    mine = [r for r in store.read_jsonl(REVIEWS_FILE, ReviewRecord).entries if r.subject == subject]
    assert mine, f"no review of {subject}"
    assert (mine[-1].status.value, mine[-1].outcome) == (status, outcome)
    assert mine[-1].reviewer
    assert mine[-1].recorded_at


@then(parsers.parse('"{instance}" has rework due in {phase}'))
def _rework(workflow_world: WorkflowWorld, instance: str, phase: str) -> None:
    items = _engine(workflow_world).load(instance).rework
    assert any(r.phase == phase and r.resolved_at is None for r in items), items


@then(parsers.parse('"{instance}" kept {count:d} outcome(s) of {phase}'))
def _kept(workflow_world: WorkflowWorld, instance: str, count: int, phase: str) -> None:
    accepted = _engine(workflow_world).load(instance).accepted
    assert len([a for a in accepted if a.phase == phase]) == count


@then(parsers.parse('"{instance}" has {count:d} child instance(s)'))
def _children(workflow_world: WorkflowWorld, instance: str, count: int) -> None:
    assert len(_engine(workflow_world).load(instance).children) == count


@then(parsers.parse('the child "{child}" of "{instance}" is {status}'))
def _child_status(workflow_world: WorkflowWorld, child: str, instance: str, status: str) -> None:
    links = {c.instance_id: c for c in _engine(workflow_world).load(instance).children}
    assert links[child].status == status.replace(" ", "_"), links[child]


@then(parsers.parse('the error "{text}" of "{child}" is recorded in "{instance}"'))
def _child_error(workflow_world: WorkflowWorld, text: str, child: str, instance: str) -> None:
    current = _engine(workflow_world).load(instance)
    link = next(c for c in current.children if c.instance_id == child)
    assert text in link.error
    assert any(text in h.reason for h in current.history if h.action == "fallback")
