"""Random statements never break the design and plan loops, and every loop ends.

hypothesis draws the bounds and a sequence of statements (drafts changed or not, verdicts by
the designer or a critic, plan codes by the spec agent or the critic, plans changed or not, a
person resuming a BLOCKED instance). A refused statement must leave the instance exactly as
it was. Every statement that is taken strictly lowers a potential made of the bounds left
(lexicographic, each part bounded below), so no sequence of statements can go on for ever:
the loop ends with ACCEPT of the last module or PA, or the instance with FAILED.
"""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import example, given, settings
from hypothesis import strategies as st

from phasegate.model.loops import DesignLoop, Draft, PlanLoop
from phasegate.model.workflow import InstanceState, WorkflowInstance
from phasegate.workflow import design_loop, plan_loop
from phasegate.workflow.definition import LoopSpec, PhaseSpec, WorkflowDefinition
from phasegate.workflow.design_loop import LoopOutcome
from phasegate.workflow.machine import Machine, TransitionError

NOW = datetime(2030, 1, 1, tzinfo=timezone.utc)


def machine_for(kind: str, spec: LoopSpec, escalations: int) -> tuple[Machine, WorkflowInstance]:
    definition = WorkflowDefinition(
        name="loop", phases=["P"], phase={"P": PhaseSpec(loop=spec)}, max_escalations=escalations
    )
    machine = Machine(definition)
    inst = machine.create("i", NOW)
    machine.start(inst, NOW, "ann")
    return machine, inst


def settle(machine: Machine, inst: WorkflowInstance, outcome: LoopOutcome) -> None:
    if outcome.fail:
        machine.fail(inst, NOW, "x", outcome.fail)
    elif outcome.escalate:
        machine.escalate(inst, NOW, "x", outcome.escalate)


def blocked(inst: WorkflowInstance) -> int:
    return 1 if inst.state is InstanceState.BLOCKED else 0


def design_potential(
    inst: WorkflowInstance, loop: DesignLoop, spec: LoopSpec, escalations: int
) -> tuple[int, ...]:
    if inst.state is InstanceState.FAILED or loop.done_at is not None:
        return (0,)
    modules_left = sum(max(0, spec.max_rounds - m.rounds) for m in loop.modules)
    return (
        1,
        escalations + 1 - inst.escalations,
        spec.max_rejections + 1 - loop.rejections,
        max(0, spec.max_rounds - loop.architecture.rounds),
        modules_left,
        sum(1 for item in loop.items() if item.status != "accepted"),
        sum(1 for item in loop.items() if item.status == "submitted"),
        blocked(inst),
    )


_MODULE_LISTS: list[list[str]] = [[], ["a"], ["a", "b"], ["b", "c"]]
# Flat choices, verdicts repeated so that they come about as often as drafts.
DESIGN_STATEMENTS = st.sampled_from(
    [
        ("submit", changed, item, modules)
        for changed in (True, False)
        for item in (None, "architecture", "a", "b")
        for modules in _MODULE_LISTS
    ]
    + [
        ("verdict", decision, by, [])
        for decision in ("ACCEPT", "REVISE", "REJECT")
        for by in ("dan", "cora", "cora", "cora")
        for _ in range(3)
    ]
    + [("resume", False, None, [])] * 4
)


@settings(max_examples=300, deadline=None)
@given(
    max_rounds=st.integers(min_value=1, max_value=3),
    max_rejections=st.integers(min_value=0, max_value=2),
    escalations=st.integers(min_value=0, max_value=2),
    statements=st.lists(DESIGN_STATEMENTS, min_size=20, max_size=80),
)
@example(  # an accepted architecture changed and audited again and again
    max_rounds=1,
    max_rejections=0,
    escalations=1,
    statements=[("submit", True, None, ["a"]), ("verdict", "ACCEPT", "cora", [])] * 2
    + [("submit", True, "architecture", ["a", "b"]), ("verdict", "ACCEPT", "cora", [])] * 3,
)
def test_every_design_statement_taken_lowers_the_potential(
    max_rounds: int,
    max_rejections: int,
    escalations: int,
    statements: list[tuple[str, object, object, list[str]]],
) -> None:
    spec = LoopSpec(kind="design", max_rounds=max_rounds, max_rejections=max_rejections)
    machine, inst = machine_for("design", spec, escalations)
    inst.design_loops["P"] = design_loop.new_design_loop("i", "P", 1)
    versions: dict[str, int] = {}
    for kind, first, second, modules in statements:
        loop = inst.design_loops["P"]
        before = inst.model_copy(deep=True)
        potential = design_potential(inst, loop, spec, escalations)
        try:
            if kind == "resume":
                machine.resume(inst, NOW, "person", "")
            else:
                machine.require(inst, kind, {InstanceState.RUNNING})
                if kind == "submit":
                    due = design_loop.awaiting(loop) or design_loop.current_item(loop)
                    name = str(second) if second else (due.name if due else "architecture")
                    versions[name] = versions.get(name, 0) + (1 if first else 0)
                    draft = Draft(path=f"{name}.md", sha256=f"{name}-{versions[name]}",
                                  by="dan", at=NOW)  # fmt: skip
                    outcome = design_loop.submit(loop, spec, draft=draft, now=NOW,
                                                 item=second, modules=modules)  # type: ignore[arg-type]  # fmt: skip
                else:
                    outcome = design_loop.verdict(loop, spec, decision=first, by=str(second),
                                                  now=NOW)  # type: ignore[arg-type]  # fmt: skip
                settle(machine, inst, outcome)
        except TransitionError:
            assert inst == before, "a refused statement changed the instance"
            continue
        after = design_potential(inst, inst.design_loops["P"], spec, escalations)
        assert after < potential, (kind, first, second, potential, after)
        if after == (0,):
            break


def plan_potential(
    inst: WorkflowInstance, loop: PlanLoop, spec: LoopSpec, escalations: int
) -> tuple[int, ...]:
    if inst.state is InstanceState.FAILED:
        return (0,)
    return (
        1,
        escalations + 1 - inst.escalations,
        max(0, spec.max_rounds - loop.round),
        0 if loop.turn == "done" else 1,
        spec.max_dialogue - loop.dialogue,
        1 if loop.turn == "spec" else 0,
        blocked(inst),
    )


# Flat choices: the spec agent (sam) mostly says the spec codes and the critic (cleo) the
# critic's; a revision (PR) mostly comes with a changed plan, other codes mostly without; the
# plan check mostly finds nothing wrong.
PLAN_STATEMENTS = st.sampled_from(
    [
        (code, by, changed, wrong)
        for code in ("PC", "PR", "DG", "NR", "PA", "EN", "DA")
        for by in (
            ("sam",) * 3 + ("cleo",) if code in ("PC", "PR", "DG") else ("cleo",) * 3 + ("sam",)
        )
        for changed in ((True, True, False) if code == "PR" else (False, False, True))
        for wrong in (False, False, False, True)
    ]
    + [("resume", "person", False, False)] * 12
)


@settings(max_examples=300, deadline=None)
@given(
    max_rounds=st.integers(min_value=1, max_value=3),
    max_dialogue=st.integers(min_value=0, max_value=2),
    escalations=st.integers(min_value=0, max_value=2),
    statements=st.lists(PLAN_STATEMENTS, min_size=20, max_size=80),
)
@example(  # needs revision, disagreement, needs revision... past max_rounds
    max_rounds=1,
    max_dialogue=0,
    escalations=1,
    statements=[("PC", "sam", False, False)]
    + [("NR", "cleo", False, False), ("DG", "sam", False, False)] * 4,
)
@example(  # accepted, revised, accepted, revised... past max_rounds
    max_rounds=1,
    max_dialogue=0,
    escalations=1,
    statements=[("PC", "sam", False, False)]
    + [("PA", "cleo", False, False), ("PR", "sam", True, False)] * 4,
)
def test_every_plan_statement_taken_lowers_the_potential(
    max_rounds: int,
    max_dialogue: int,
    escalations: int,
    statements: list[tuple[str, str, bool, bool]],
) -> None:
    spec = LoopSpec(kind="plan", max_rounds=max_rounds, max_dialogue=max_dialogue)
    machine, inst = machine_for("plan", spec, escalations)
    inst.plan_loops["P"] = plan_loop.new_plan_loop("i", "P", 1)
    version = 0
    for code, by, changed, wrong in statements:
        loop = inst.plan_loops["P"]
        version += 1 if changed else 0
        before = inst.model_copy(deep=True)
        potential = plan_potential(inst, loop, spec, escalations)
        try:
            if code == "resume":
                machine.resume(inst, NOW, "person", "")
            else:
                machine.require(inst, "plan", {InstanceState.RUNNING})
                plan = Draft(path="plan.toml", sha256=f"p{version}", by=by, at=NOW)
                problems = ["task T1 is estimated at 90 min"] if wrong else []
                outcome = plan_loop.say(loop, spec, code=code, by=by, now=NOW, plan=plan,
                                        problems=problems)  # fmt: skip
                settle(machine, inst, outcome)
        except TransitionError:
            assert inst == before, "a refused statement changed the instance"
            continue
        after = plan_potential(inst, inst.plan_loops["P"], spec, escalations)
        assert after < potential, (code, by, potential, after)
        if inst.plan_loops["P"].turn == "done":
            accepted = inst.plan_loops["P"].accepted
            assert accepted is not None
            assert not wrong, "a plan the plan check finds wrong was accepted"
