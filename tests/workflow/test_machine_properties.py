"""Random action sequences never break the state machine, and every instance ends.

hypothesis draws a workflow shape (phases, which phases need a review and where they loop
back to, the bounds) and a sequence of actions (advance with the gate passing or failing,
each review outcome, rewinds, escalations, resumes, time passing, failing). After every
action the instance is checked against the invariants; a refused action must leave it exactly
as it was. The termination argument is checked directly: a potential made of the bounds left
(escalations, rewinds, rejections, phases, retries) never grows, and shrinks on every action
that moves the instance; so the moves any instance can make are bounded.
"""

from __future__ import annotations

import contextlib
from datetime import datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from phasegate.model.review import ReviewStatus
from phasegate.model.workflow import InstanceState, WorkflowInstance
from phasegate.workflow.definition import PhaseSpec, WorkflowDefinition
from phasegate.workflow.machine import TERMINAL, Machine, TransitionError
from phasegate.workflow.settings import RetryPolicy

START = datetime(2030, 1, 1, tzinfo=timezone.utc)

ACTIONS = st.sampled_from(
    [
        "gate-pass",
        "gate-fail",
        "approve",
        "changes",
        "reject",
        "rewind",
        "escalate",
        "resume",
        "wait",
        "fail",
        "queue",
    ]
)


@st.composite
def definitions(draw: st.DrawFn) -> WorkflowDefinition:
    count = draw(st.integers(min_value=1, max_value=5))
    phases = [f"p{i}" for i in range(count)]
    table: dict[str, PhaseSpec] = {}
    for index, phase in enumerate(phases):
        if draw(st.booleans()):
            target = phases[draw(st.integers(min_value=0, max_value=index))]
            table[phase] = PhaseSpec(review=True, on_reject=target)
    return WorkflowDefinition(
        name="random",
        phases=phases,
        phase=table,
        max_rejections=draw(st.integers(min_value=0, max_value=3)),
        max_rewinds=draw(st.integers(min_value=0, max_value=3)),
        max_escalations=draw(st.integers(min_value=0, max_value=2)),
    )


def potential(inst: WorkflowInstance, machine: Machine) -> tuple[int, ...]:
    """Bounds left, most significant first; it must never grow."""
    definition = machine.definition
    # Any phase can be reviewed (a review is only *required* where review = true), and
    # every phase's rejections are bounded.
    rejections_left = sum(
        definition.max_rejections + 1 - inst.rejections.get(phase, 0) for phase in definition.phases
    )
    phases_left = len(definition.phases) - max(inst.phase_index, -1)
    retries_left = machine.policy.max_retries + 1 - inst.attempts
    terminal = 0 if inst.state in TERMINAL else 1
    return (
        terminal,
        definition.max_escalations + 1 - inst.escalations,
        definition.max_rewinds - inst.rewinds,
        rejections_left,
        phases_left,
        retries_left,
    )


def check_invariants(inst: WorkflowInstance, machine: Machine) -> None:
    definition = machine.definition
    assert inst.state in set(InstanceState)
    started = any(entry.action == "start" for entry in inst.history)
    if inst.state is InstanceState.CREATED or not started:
        assert inst.phase is None  # never started (it may be BLOCKED or FAILED from CREATED)
    else:
        assert inst.phase in definition.phases
        assert inst.phase_index == definition.index(inst.phase)
    if inst.state is InstanceState.COMPLETE:
        assert inst.phase == definition.phases[-1]
    assert 0 <= inst.attempts <= machine.policy.max_retries + 1
    assert inst.rewinds <= definition.max_rewinds
    assert inst.escalations <= definition.max_escalations + 1
    for _phase, count in inst.rejections.items():
        assert count <= definition.max_rejections + 1
        if count > definition.max_rejections:
            assert inst.state is InstanceState.FAILED
    assert (inst.state is InstanceState.BLOCKED) == bool(inst.blocked_reason)
    assert (inst.state is InstanceState.FAILED) == bool(inst.failure_reason)
    for entry in inst.history:
        if entry.action == "rewind":
            assert entry.by
            assert entry.reason


def act(machine: Machine, inst: WorkflowInstance, action: str, now: datetime, pick: int) -> None:
    phases = machine.definition.phases
    if action == "gate-pass":
        if inst.state is InstanceState.CREATED:
            machine.start(inst, now, "a")
            return
        machine.check_backoff(inst, now)
        waiting = machine.waiting_for(inst)
        if waiting:
            machine.wait(inst, now, "a", waiting)
        else:
            machine.advance(inst, now, "a")
    elif action == "gate-fail":
        machine.check_backoff(inst, now)
        machine.halt(inst, now, "a", ["gate g: a check failed"])
    elif action in ("approve", "changes", "reject"):
        status = {
            "approve": ReviewStatus.APPROVED,
            "changes": ReviewStatus.CHANGES_REQUESTED,
            "reject": ReviewStatus.REJECTED,
        }[action]
        machine.review(inst, now, status=status, reviewer="r")
    elif action == "rewind":
        machine.rewind(inst, now, to=phases[pick % len(phases)], by="c", reason="why")
    elif action == "escalate":
        machine.escalate(inst, now, "c", "stuck")
    elif action == "resume":
        machine.resume(inst, now, "c", "")
    elif action == "fail":
        machine.fail(inst, now, "c", "given up")
    elif action == "queue":
        machine.queue_update(inst, now, key="k", value=pick, by="a")


@settings(max_examples=300, deadline=None)
@given(
    definition=definitions(),
    retries=st.integers(min_value=0, max_value=3),
    escalate=st.booleans(),
    steps=st.lists(
        st.tuples(ACTIONS, st.integers(min_value=0, max_value=9), st.booleans()),
        max_size=80,
    ),
)
def test_random_actions_keep_every_invariant_and_the_potential_never_grows(
    definition: WorkflowDefinition,
    retries: int,
    escalate: bool,
    steps: list[tuple[str, int, bool]],
) -> None:
    policy = RetryPolicy(
        max_retries=retries,
        retry_delay_s=5.0,
        on_max_retries="escalate" if escalate else "fail",
    )
    machine = Machine(definition, policy)
    now = START
    inst = machine.create("x", now, members=["ann", "bob"])
    moves = 0
    for action, pick, later in steps:
        if later:
            now += timedelta(seconds=60)
        before = inst.model_copy(deep=True)
        was = potential(inst, machine)
        try:
            act(machine, inst, action, now, pick)
        except TransitionError:
            assert inst == before, f"a refused {action} changed the instance"
            continue
        check_invariants(inst, machine)
        after = potential(inst, machine)
        moved = (inst.phase, inst.state, inst.attempts) != (
            before.phase,
            before.state,
            before.attempts,
        )
        if action == "resume":
            # A person resumes: only an escalation (a bound spent) can have led here.
            assert after[:2] == was[:2]
        else:
            assert after <= was, (action, was, after)
            if moved and action != "wait":
                assert after < was, (action, was, after)
        moves += moved
        if inst.state in TERMINAL:
            for probe in ("gate-pass", "approve", "rewind", "escalate", "resume", "queue"):
                frozen = inst.model_copy(deep=True)
                with contextlib.suppress(TransitionError):
                    act(machine, inst, probe, now + timedelta(days=1), 0)
                assert inst == frozen, f"{probe} changed a {inst.state.value} instance"
            break


@settings(max_examples=200, deadline=None)
@given(definition=definitions(), retries=st.integers(min_value=0, max_value=3))
def test_with_gates_always_failing_every_instance_ends_within_its_bounds(
    definition: WorkflowDefinition, retries: int
) -> None:
    machine = Machine(definition, RetryPolicy(max_retries=retries, retry_delay_s=1.0))
    now = START
    inst = machine.create("x", now)
    machine.start(inst, now, "a")
    for attempt in range(retries + 1):
        now += timedelta(hours=1)
        machine.check_backoff(inst, now)
        machine.halt(inst, now, "a", ["failing"])
        if attempt < retries:
            assert inst.state is InstanceState.RUNNING
    assert inst.state is InstanceState.FAILED
    assert f"max_retries = {retries}" in inst.failure_reason


@settings(max_examples=200, deadline=None)
@given(definition=definitions())
def test_with_every_review_rejected_every_instance_ends_within_its_bounds(
    definition: WorkflowDefinition,
) -> None:
    machine = Machine(definition, RetryPolicy(retry_delay_s=0))
    now = START
    inst = machine.create("x", now)
    machine.start(inst, now, "a")
    reviewed = [p for p in definition.phases if definition.spec(p).review]
    bound = (len(reviewed) * (definition.max_rejections + 1) + 1) * (len(definition.phases) + 1)
    for _ in range(bound):
        if inst.state in TERMINAL:
            break
        if definition.spec(inst.phase or "").review:
            machine.review(inst, now, status=ReviewStatus.REJECTED, reviewer="r")
        else:
            machine.advance(inst, now, "a")
    assert inst.state in TERMINAL
    assert inst.state is (InstanceState.FAILED if reviewed else InstanceState.COMPLETE)
