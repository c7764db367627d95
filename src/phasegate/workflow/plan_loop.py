"""The DPTR plan loop: the spec agent and the spec critic talk until the plan is accepted.

::

    round r:  spec agent: PC (plan created, round 0) | PR (plan revised) | DG (disagrees)
              critic:     NR (needs revision: round r+1) | PA (plan accepted: done)
                          | EN (escalation needed: BLOCKED) | DA (dialogue active: the spec
                          agent answers in the same round)

The rules, each a pure function of the loop's state and of what the engine read from disk
(the plan's hash, and what the plan check found wrong with it):

* turns alternate: a code of the spec agent, then one of the critic; the critic is not the
  spec agent who spoke last;
* ``PC`` opens the loop and needs the plan file; ``PR`` needs the plan changed since the spec
  agent's last statement (after ``PA``, a ``PR`` reopens the loop for another round); ``DG``
  answers a critique (``NR``, ``DA`` or ``EN``) and leaves the plan as it was (a changed plan
  is a ``PR``);
* the critic judges the plan the spec agent put forward: if the file changed since, the
  critic's code is refused until the spec agent says ``PR``;
* ``PA`` is refused while the plan check finds the plan wrong (an estimate over the limit, a
  cyclic or unknown dependency, no retry budget): a critic cannot accept a plan gate 3 would
  refuse;
* bounds: ``max_dialogue`` ``DA`` per round; an ``NR`` (or a ``PR`` reopening an accepted
  plan) that starts round ``max_rounds`` or later escalates the instance (as ``EN`` does), and
  escalations are bounded by the workflow's ``max_escalations``. So the loop always ends
  (``tests/workflow/test_loop_properties.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from phasegate.model.loops import CRITIC_CODES, SPEC_CODES, Draft, LoopTurn, PlanLoop
from phasegate.workflow.definition import LoopSpec
from phasegate.workflow.design_loop import LoopOutcome
from phasegate.workflow.machine import Emitted, TransitionError

__all__ = ["EVENTS", "changed_since_accepted", "new_plan_loop", "say", "waiting"]

#: The event each code emits.
EVENTS = {
    "PC": "plan.created",
    "PR": "plan.revised",
    "DG": "plan.disagreed",
    "NR": "plan.needs_revision",
    "PA": "plan.accepted",
    "EN": "plan.escalation_needed",
    "DA": "plan.dialogue",
}


def new_plan_loop(instance_id: str, phase: str, cycle: int) -> PlanLoop:
    """An empty loop for one pass through ``phase``."""
    return PlanLoop(session=f"PLAN_{instance_id}_{phase}_{cycle}", phase=phase, cycle=cycle)


def say(
    loop: PlanLoop,
    spec: LoopSpec,
    *,
    code: str,
    by: str,
    now: datetime,
    plan: Draft | None,
    problems: Sequence[str] = (),
    note: str = "",
) -> LoopOutcome:
    """Apply one code; ``plan`` is the plan file as it is now (None: missing)."""
    if code not in EVENTS:
        allowed = ", ".join((*SPEC_CODES, *CRITIC_CODES))
        raise TransitionError(f"{code!r} is not a plan-loop code; allowed: {allowed}")
    reopened = loop.turn == "done"
    if reopened:
        _reopen(loop, code, plan)
    if code in SPEC_CODES:
        _spec(loop, code, by, plan)
    else:
        _critic(loop, spec, code, by, plan, problems)
    outcome = LoopOutcome([_record_turn(loop, code, by, note, plan, now)])
    if reopened and loop.round >= spec.max_rounds:
        outcome.escalate = (
            f"the accepted plan was revised into round {loop.round} (max_rounds = "
            f"{spec.max_rounds}); a person decides how to go on"
        )
    _take_effect(loop, spec, code, plan, note, outcome)
    return outcome


def _record_turn(
    loop: PlanLoop, code: str, by: str, note: str, plan: Draft | None, now: datetime
) -> Emitted:
    """The turn in the loop's history, and the event that reports it."""
    sha256 = plan.sha256 if plan else None
    loop.turns.append(
        LoopTurn(round=loop.round, agent=by, role="spec" if code in SPEC_CODES else "critic",
                 status=code, content=note, sha256=sha256, at=now)
    )  # fmt: skip
    data = {"code": code, "round": loop.round, "by": by, "note": note, "session": loop.session,
            "sha256": sha256}  # fmt: skip
    return Emitted(EVENTS[code], data)


def _take_effect(
    loop: PlanLoop, spec: LoopSpec, code: str, plan: Draft | None, note: str, outcome: LoopOutcome
) -> None:
    """What a code does to the loop: whose turn it is, the round, the accepted plan."""
    if code in SPEC_CODES:
        if code != "DG":
            loop.plan = plan
        loop.turn = "critic"
        return
    loop.turn = "spec"
    if code == "NR":
        _next_round(loop, spec, outcome)
    elif code == "PA":
        loop.accepted = loop.plan
        loop.turn = "done"
    elif code == "EN":
        outcome.escalate = f"the spec critic asks for escalation (EN): {note or 'no reason given'}"
    else:  # DA
        loop.dialogue += 1


def _next_round(loop: PlanLoop, spec: LoopSpec, outcome: LoopOutcome) -> None:
    """NR: the critic asks for another round; past ``max_rounds`` a person decides."""
    loop.round += 1
    loop.dialogue = 0
    if loop.round >= spec.max_rounds:
        outcome.escalate = (
            f"the plan was not accepted in {loop.round} round(s) (max_rounds = "
            f"{spec.max_rounds}); a person decides how to go on"
        )


def _reopen(loop: PlanLoop, code: str, plan: Draft | None) -> None:
    """After PA only a revised plan (PR) reopens the loop, for another round."""
    accepted = loop.accepted
    if code != "PR" or plan is None or accepted is None or plan.sha256 == accepted.sha256:
        raise TransitionError(
            "the plan was accepted (PA) already; the plan loop is done (after changing the "
            "plan, the spec agent says PR to take it through the loop again)"
        )
    loop.accepted = None
    loop.round += 1
    loop.dialogue = 0
    loop.turn = "spec"


def _spec(loop: PlanLoop, code: str, by: str, plan: Draft | None) -> None:
    if loop.turn != "spec":
        raise TransitionError(
            f"{code} is the spec agent's, and it is the critic's turn (NR, PA, EN or DA) on "
            f"round {loop.round}"
        )
    if code == "PC":
        _check_pc(loop, plan)
        return
    if loop.plan is None:
        raise TransitionError(f"{code} answers a critique; the loop opens with PC")
    if code == "PR":
        _check_pr(loop.plan, plan)
    else:
        _check_dg(loop, loop.plan, plan)


def _check_pc(loop: PlanLoop, plan: Draft | None) -> None:
    if plan is None:
        raise TransitionError("PC needs the plan file, and there is none yet")
    if loop.plan is not None:
        raise TransitionError(
            "PC opens the loop, and the plan was put forward already: say PR (revised) or "
            "DG (disagree with the critique)"
        )


def _check_pr(stated: Draft, plan: Draft | None) -> None:
    if plan is None:
        raise TransitionError("PR needs the plan file, and there is none")
    if plan.sha256 == stated.sha256:
        raise TransitionError(
            f"PR says the plan was revised, but {stated.path} is unchanged since the last "
            "statement; revise it, or say DG to disagree with the critique"
        )


def _check_dg(loop: PlanLoop, stated: Draft, plan: Draft | None) -> None:
    last = loop.last("critic")
    if last is None or last.status not in ("NR", "DA", "EN"):
        raise TransitionError("DG disagrees with a critique (NR, DA or EN), and there is none yet")
    if plan is None or plan.sha256 != stated.sha256:
        raise TransitionError(
            f"DG leaves the plan as it was, but {stated.path} changed since; say PR"
        )


def _critic(
    loop: PlanLoop,
    spec: LoopSpec,
    code: str,
    by: str,
    plan: Draft | None,
    problems: Sequence[str],
) -> None:
    _refuse_out_of_turn_critic(loop, code, by)
    stated = loop.plan
    if stated is not None and (plan is None or plan.sha256 != stated.sha256):
        raise TransitionError(
            f"{stated.path} changed after the spec agent put it forward; the spec agent says "
            "PR before the critic judges it"
        )
    _check_verdict(loop, spec, code, problems)


def _refuse_out_of_turn_critic(loop: PlanLoop, code: str, by: str) -> None:
    """A TransitionError unless it is the critic's turn and ``by`` is not who put the plan
    forward (the critique comes from another agent)."""
    if loop.turn != "critic":
        raise TransitionError(
            f"{code} is the critic's, and it is the spec agent's turn (PC, PR or DG) on round "
            f"{loop.round}"
        )
    spoke = loop.last("spec")
    if spoke is not None and spoke.agent == by:
        raise TransitionError(
            f"{by} spoke for the plan last; the critique comes from another agent"
        )


def _check_verdict(loop: PlanLoop, spec: LoopSpec, code: str, problems: Sequence[str]) -> None:
    """PA only for a plan the plan check accepts; DA only up to ``max_dialogue`` a round."""
    if code == "PA" and problems:
        raise TransitionError(
            "PA refused: the plan check finds the plan wrong: " + "; ".join(problems[:5])
        )
    if code == "DA" and loop.dialogue >= spec.max_dialogue:
        raise TransitionError(
            f"DA was said {loop.dialogue} time(s) in round {loop.round} (max_dialogue = "
            f"{spec.max_dialogue}); give a verdict: NR, PA or EN"
        )


def waiting(loop: PlanLoop | None, phase: str, instance_id: str) -> list[str]:
    """What the loop still needs before its phase may be left."""
    if loop is None:
        return [
            f"{phase} is held by a plan loop that has not started: the spec agent puts the plan "
            f"forward (phasegate plan say {instance_id} PC --by AGENT)"
        ]
    if loop.turn == "done":
        return []
    if loop.turn == "critic":
        return [
            f"round {loop.round} of the plan awaits the critic (phasegate plan say "
            f"{instance_id} NR|PA|EN|DA --by CRITIC)"
        ]
    return [
        f"round {loop.round} of the plan awaits the spec agent (phasegate plan say "
        f"{instance_id} PC|PR|DG --by AGENT)"
    ]


def changed_since_accepted(loop: PlanLoop, sha_now: str | None, instance_id: str) -> list[str]:
    """The accepted plan's file, if its content is no longer what was accepted."""
    accepted = loop.accepted
    if loop.turn != "done" or accepted is None or sha_now == accepted.sha256:
        return []
    what = "is gone" if sha_now is None else "changed"
    return [
        f"{accepted.path} {what} since the plan was accepted (PA); the spec agent takes the "
        f"plan through the loop again (phasegate plan say {instance_id} PR --by AGENT)"
    ]
