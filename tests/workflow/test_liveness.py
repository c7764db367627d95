"""Crashed instances, phase inputs and outputs, and who may spawn subagents at what cost."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from phasegate.errors import UsageError
from phasegate.model.workflow import InstanceState, WorkflowInstance
from phasegate.workflow.children import SubtaskRequest
from phasegate.workflow.contracts import mismatches, put_outputs
from phasegate.workflow.definition import PhaseSpec, WorkflowDefinition
from phasegate.workflow.liveness import crash, heartbeat, is_crashed
from phasegate.workflow.machine import Machine, TransitionError
from phasegate.workflow.spawning import file_complexity, measure, require_primus

NOW = datetime(2030, 1, 1, tzinfo=timezone.utc)


def started(**phase: PhaseSpec) -> tuple[Machine, WorkflowInstance]:
    definition = WorkflowDefinition(name="w", phases=["a", "b"], phase=dict(phase))
    machine = Machine(definition, max_crash_retries=1)
    inst = machine.create("w1", NOW, members=["ann", "bob"])
    machine.start(inst, NOW, "ann")
    return machine, inst


def test_an_idle_instance_is_retried_then_failed() -> None:
    machine, inst = started()
    assert inst.owner == "ann"
    later = NOW + timedelta(minutes=61)
    assert not is_crashed(inst, NOW + timedelta(minutes=59), 60)
    assert is_crashed(inst, later, 60)
    events = crash(machine, inst, later, "sweep", 60)
    assert [e.event for e in events] == ["stale", "retried"]
    assert events[0].data["owner"] == "ann"
    assert (inst.state, inst.owner, inst.crash_retries) == (InstanceState.RUNNING, "", 1)
    assert not is_crashed(inst, later, 60)
    again = later + timedelta(minutes=61)
    events = crash(machine, inst, again, "sweep", 60)
    assert [e.event for e in events] == ["stale", "failed"]
    assert inst.state is InstanceState.FAILED
    assert "no sign of life for 61 min (crash timeout 60 min) in a, after 1 crash retry" in (
        inst.failure_reason
    )


def test_a_heartbeat_is_a_sign_of_life_and_blocked_instances_are_not_crashes() -> None:
    machine, inst = started()
    assert [e.event for e in heartbeat(machine, inst, NOW + timedelta(minutes=50), "bob")] == [
        "owner.changed"
    ]
    assert heartbeat(machine, inst, NOW + timedelta(minutes=55), "bob") == []
    assert not is_crashed(inst, NOW + timedelta(minutes=100), 60)
    machine.escalate(inst, NOW, "ann", "which database?")
    assert not is_crashed(inst, NOW + timedelta(days=3), 60)
    with pytest.raises(TransitionError, match="sweep is allowed only when it is RUNNING"):
        crash(machine, inst, NOW + timedelta(days=3), "sweep", 60)


@pytest.mark.parametrize(
    ("context", "declared", "problems"),
    [
        ({"a": "x"}, {"a": "string"}, []),
        ({}, {"a": "string"}, ["a is missing (declared: string)"]),
        ({"a": "3"}, {"a": "integer"}, ["a = '3' is not an integer"]),
        ({"a": True}, {"a": "integer"}, ["a = True is not an integer"]),
        ({"a": True}, {"a": "number"}, ["a = True is not a number"]),
        ({"a": 2.5}, {"a": "number"}, []),
        ({"a": [1]}, {"a": "object"}, ["a = [1] is not an object"]),
        ({"a": {"k": 1}}, {"a": "object"}, []),
        ({"a": None}, {"a": "any"}, []),
        ({"a": "yes"}, {"a": "boolean"}, ["a = 'yes' is not a boolean"]),
    ],
)
def test_context_values_are_checked_strictly(
    context: dict[str, object], declared: dict[str, str], problems: list[str]
) -> None:
    assert mismatches(context, declared) == problems


def test_inputs_block_on_entry_outputs_hold_the_exit_and_resume_checks_again() -> None:
    machine, inst = started(
        a=PhaseSpec(outputs={"design": "object"}),
        b=PhaseSpec(inputs={"design": "object", "ticket": "integer"}),
    )
    assert machine.waiting_for(inst) == [
        "a must produce design is missing (declared: object) (phasegate phase output w1 KEY=VALUE)"
    ]
    put_outputs(inst, NOW, "ann", {"design": {"parts": 2}})
    assert machine.waiting_for(inst) == []
    events = machine.advance(inst, NOW, "ann")
    assert "context.invalid" in [e.event for e in events]
    assert inst.state is InstanceState.BLOCKED
    assert inst.blocked_reason == "invalid context for b: ticket is missing (declared: integer)"
    with pytest.raises(TransitionError, match="still does not match the inputs of b: ticket"):
        machine.resume(inst, NOW, "ann", "")
    put_outputs(inst, NOW, "ann", {"ticket": 7})
    machine.resume(inst, NOW, "ann", "")
    assert inst.state is InstanceState.RUNNING


def test_only_the_primus_spawns() -> None:
    machine, inst = started()
    leader = machine.role_names()[0]
    holder = inst.roles[leader][0]
    require_primus(inst, leader, holder)
    other = "bob" if holder == "ann" else "ann"
    with pytest.raises(TransitionError, match=f"{other} may not spawn subagents"):
        require_primus(inst, leader, other)
    lonely = machine.create("w2", NOW)
    machine.start(lonely, NOW, "ann")
    with pytest.raises(TransitionError, match="nobody holds the primus role"):
        require_primus(lonely, leader, "ann")


def test_complexity_is_measured_with_radon_from_the_files(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text(
        "def f(x):\n    if x:\n        return 1\n    return 2\n\n\n"
        "class C:\n    def m(self, y):\n        return [i for i in y if i]\n"
    )
    (tmp_path / "src" / "bad.py").write_text("def broken(:\n")
    assert file_complexity(tmp_path, "src/a.py") == 5  # f: 2, C.m: 3 (the comprehension)
    assert file_complexity(tmp_path, "src/new.py") == 0
    measured = measure(tmp_path, [SubtaskRequest("x", ("src/a.py", "src/new.py"))])
    assert [(s.name, s.complexity) for s in measured] == [("x", 5)]
    again = ("src/a.py", "src/a.py", "./src/a.py", "src/../src/a.py")
    measured = measure(tmp_path, [SubtaskRequest("y", again)])  # one file, however named
    assert [(s.name, s.complexity) for s in measured] == [("y", 5)]
    with pytest.raises(UsageError, match=r"src/bad\.py cannot be measured: it does not parse"):
        file_complexity(tmp_path, "src/bad.py")
    with pytest.raises(UsageError, match="is outside the project root"):
        file_complexity(tmp_path, "../elsewhere.py")
    (tmp_path / "src" / "pkg.py").mkdir()
    with pytest.raises(UsageError, match=r"src/pkg\.py cannot be measured: it cannot be read"):
        file_complexity(tmp_path, "src/pkg.py")
    with pytest.raises(UsageError, match="subtask\\(s\\) named twice: x"):
        measure(tmp_path, [SubtaskRequest("x", ("src/a.py",))] * 2)
