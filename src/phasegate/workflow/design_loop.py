"""The DPTR design loop: the architecture, then each module, each until a critic accepts it.

::

    designer: architecture draft -> critic: ACCEPT | REVISE | REJECT
      ACCEPT: for each module the architecture names, in its order:
        designer: module draft -> critic: ACCEPT (next module, or the loop is done)
                                          REVISE (the designer revises this draft)
                                          REJECT (the draft is discarded; design it anew)

The rules, each a pure function of the loop's state:

* one draft at a time awaits a verdict; the designer submits the current item (the
  architecture until it is accepted, then the first module not accepted), or again an
  accepted item whose document changed since (it is audited again);
* the critic is not the draft's author;
* a draft after REVISE must differ from the revised one, and a draft a REJECT discarded may
  not come back unchanged;
* bounds: an item not accepted after ``max_rounds`` drafts escalates the instance (BLOCKED,
  for a person), and so does every draft of an item beyond ``max_rounds`` (a document
  changed again and again after its acceptance, too); the escalations are bounded by the
  workflow's ``max_escalations``. More than ``max_rejections`` REJECT verdicts in one loop
  fail it. So the loop always ends (``tests/workflow/test_loop_properties.py``).

Nothing here reads a file: the engine (:mod:`phasegate.workflow.loops`) hashes the drafts and
reads the architecture's module list, and hands both in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from phasegate.model.loops import DesignItem, DesignLoop, DesignVerdict, Draft, LoopTurn
from phasegate.workflow.definition import LoopSpec
from phasegate.workflow.machine import Emitted, TransitionError

__all__ = [
    "LoopOutcome",
    "changed_since_accepted",
    "current_item",
    "new_design_loop",
    "submit",
    "verdict",
    "waiting",
]


@dataclass
class LoopOutcome:
    """What a loop action did: its events, and whether the instance must escalate or fail."""

    events: list[Emitted] = field(default_factory=list)
    escalate: str | None = None
    fail: str | None = None


def new_design_loop(instance_id: str, phase: str, cycle: int) -> DesignLoop:
    """An empty loop for one pass through ``phase``."""
    return DesignLoop(session=f"DESIGN_{instance_id}_{phase}_{cycle}", phase=phase, cycle=cycle)


def current_item(loop: DesignLoop) -> DesignItem | None:
    """The item due now: the architecture until accepted, then the first module not accepted."""
    return next((item for item in loop.items() if item.status != "accepted"), None)


def awaiting(loop: DesignLoop) -> DesignItem | None:
    """The item whose draft awaits the critic's verdict, if any."""
    return next((item for item in loop.items() if item.status == "submitted"), None)


def submit(
    loop: DesignLoop,
    spec: LoopSpec,
    *,
    draft: Draft,
    now: datetime,
    item: str | None = None,
    modules: Sequence[str] = (),
    note: str = "",
) -> LoopOutcome:
    """The designer puts a draft forward (for the architecture: with the modules it names)."""
    pending = awaiting(loop)
    if pending is not None:
        raise TransitionError(
            f"the draft of {pending.name} (round {pending.rounds}) awaits the critic's verdict; "
            "one draft is audited at a time"
        )
    target = _target(loop, item, draft)
    _require_new_draft(target, draft)
    if target is loop.architecture:
        _take_modules(loop, modules, draft.path)
    target.status = "submitted"
    target.rounds += 1
    target.draft = draft
    target.accepted = None
    loop.done_at = None
    loop.turns.append(
        LoopTurn(round=target.rounds, agent=draft.by, role="designer", status="submitted",
                 item=target.name, content=note, sha256=draft.sha256, at=now)
    )  # fmt: skip
    data = {"item": target.name, "round": target.rounds, "path": draft.path,
            "sha256": draft.sha256, "session": loop.session}  # fmt: skip
    if target is loop.architecture:
        data["modules"] = [module.name for module in loop.modules]
    outcome = LoopOutcome([Emitted("design.submitted", data)])
    if target.rounds > spec.max_rounds:
        outcome.escalate = (
            f"draft {target.rounds} of {target.name} is more than max_rounds = "
            f"{spec.max_rounds} allows; a person decides how to go on"
        )
    return outcome


def _require_new_draft(target: DesignItem, draft: Draft) -> None:
    """A draft rejected before, or unchanged since a REVISE, is not audited again."""
    if draft.sha256 in target.discarded:
        raise TransitionError(
            f"this draft of {target.name} ({draft.path}, sha256 {draft.sha256[:12]}) was "
            "rejected and discarded already; a rejected design comes back changed"
        )
    if target.revisions and target.draft is not None and target.draft.sha256 == draft.sha256:
        raise TransitionError(
            f"{draft.path} is unchanged since the critic asked to REVISE it; revise the "
            "document, then submit it"
        )


def verdict(
    loop: DesignLoop,
    spec: LoopSpec,
    *,
    decision: DesignVerdict,
    by: str,
    now: datetime,
    note: str = "",
) -> LoopOutcome:
    """The critic's verdict on the draft awaiting one."""
    target = awaiting(loop)
    if target is None or target.draft is None:
        due = current_item(loop)
        raise TransitionError(
            "no design draft awaits a verdict; "
            + (f"the designer submits {due.name} first" if due else "the design loop is done")
        )
    if by == target.draft.by:
        raise TransitionError(
            f"{by} wrote this draft of {target.name}; the verdict is given by a critic who "
            "did not write it"
        )
    loop.turns.append(
        LoopTurn(round=target.rounds, agent=by, role="critic", status=decision,
                 item=target.name, content=note, sha256=target.draft.sha256, at=now)
    )  # fmt: skip
    data: dict[str, object] = {"item": target.name, "round": target.rounds, "by": by,
                            "note": note, "session": loop.session}  # fmt: skip
    if decision == "ACCEPT":
        return _accept(loop, target, data, now)
    return _send_back(loop, spec, target, decision, data)


def _accept(
    loop: DesignLoop, target: DesignItem, data: dict[str, object], now: datetime
) -> LoopOutcome:
    """The draft is the item's accepted design; the loop is done once every item is."""
    target.status = "accepted"
    target.accepted = target.draft
    outcome = LoopOutcome([Emitted("design.accepted", data)])
    if current_item(loop) is None:
        loop.done_at = now
        outcome.events.append(Emitted("design.done", {"modules": [m.name for m in loop.modules]}))
    return outcome


def _send_back(
    loop: DesignLoop, spec: LoopSpec, target: DesignItem, decision: str, data: dict[str, object]
) -> LoopOutcome:
    """REVISE (the draft stays the base) or REJECT (it is discarded), within the bounds."""
    target.status = "open"
    if decision == "REVISE":
        target.revisions += 1
        outcome = LoopOutcome([Emitted("design.revise", data)])
    else:
        target.rejections += 1
        loop.rejections += 1
        if target.draft is not None:
            target.discarded.append(target.draft.sha256)
        target.draft = None
        outcome = LoopOutcome([Emitted("design.rejected", data)])
        if loop.rejections > spec.max_rejections:
            outcome.fail = (
                f"the design was rejected {loop.rejections} times in this loop "
                f"(max_rejections = {spec.max_rejections})"
            )
            return outcome
    if target.rounds >= spec.max_rounds:
        outcome.escalate = (
            f"the design of {target.name} was not accepted in {target.rounds} draft(s) "
            f"(max_rounds = {spec.max_rounds}); a person decides how to go on"
        )
    return outcome


def waiting(loop: DesignLoop | None, phase: str, instance_id: str) -> list[str]:
    """What the loop still needs before its phase may be left."""
    if loop is None:
        return [
            f"{phase} is held by a design loop that has not started: the designer submits the "
            f"architecture (phasegate design submit {instance_id})"
        ]
    if loop.done_at is not None:
        return []
    pending = awaiting(loop)
    if pending is not None:
        return [
            f"the design of {pending.name} (draft {pending.rounds}) awaits the critic's "
            f"verdict (phasegate design verdict {instance_id} ACCEPT|REVISE|REJECT --by CRITIC)"
        ]
    due = current_item(loop)
    name = due.name if due else "?"
    return [
        f"the design of {name} is due from the designer (phasegate design submit {instance_id})"
    ]


def changed_since_accepted(
    loop: DesignLoop, now: Mapping[str, str | None], instance_id: str
) -> list[str]:
    """Accepted documents whose content is no longer what was accepted (``now``: path -> sha)."""
    changed: list[str] = []
    for item in loop.items():
        accepted = item.accepted
        if item.status != "accepted" or accepted is None:
            continue
        if now.get(accepted.path) != accepted.sha256:
            what = "is gone" if now.get(accepted.path) is None else "changed"
            changed.append(
                f"{accepted.path} {what} since the design of {item.name} was accepted; submit "
                f"it again for a verdict (phasegate design submit {instance_id} --item {item.name})"
            )
    return changed


def _target(loop: DesignLoop, name: str | None, draft: Draft) -> DesignItem:
    """The item a draft is for: the one due, or the one named (due, or accepted and changed)."""
    due = current_item(loop)
    if name is None:
        if due is None:
            raise TransitionError(
                "every design item is accepted; to have one audited again after changing its "
                "document, name it (--item NAME)"
            )
        return due
    return _named_target(loop, name, due, draft)


def _named_target(loop: DesignLoop, name: str, due: DesignItem | None, draft: Draft) -> DesignItem:
    """The item named for a draft: the one due, or one accepted whose document changed."""
    target = loop.item(name)
    if target is None:
        known = ", ".join(item.name for item in loop.items())
        raise TransitionError(f"no design item {name!r}; the items are: {known}")
    if target is due:
        return target
    if target.status != "accepted":
        raise TransitionError(
            f"{target.name} is not due: the design of {due.name if due else '?'} comes first "
            "(modules are designed one after another, in the architecture's order)"
        )
    if _accepted_as_is(target, draft):
        raise TransitionError(
            f"{target.name} is accepted and its document is unchanged; nothing to audit"
        )
    return target


def _accepted_as_is(item: DesignItem, draft: Draft) -> bool:
    return item.accepted is not None and item.accepted.sha256 == draft.sha256


def _take_modules(loop: DesignLoop, modules: Sequence[str], path: str) -> None:
    """The architecture's modules as the loop's items, in its order (each keeps its progress)."""
    _check_modules(modules, path)
    known = {item.name: item for item in loop.modules}
    loop.modules = [known.get(name) or DesignItem(name=name) for name in modules]


def _check_modules(modules: Sequence[str], path: str) -> None:
    """The module list of the architecture at ``path``: some, each named once, none
    named ``architecture``; else a :class:`TransitionError` saying which."""
    if not modules:
        raise TransitionError(
            f"{path} names no module: list them under a '## Modules' heading, one list item "
            "each (e.g. '- parser: reads the input')"
        )
    twice = sorted(name for name, seen in Counter(modules).items() if seen > 1)
    if twice:
        raise TransitionError(f"{path} lists the module(s) {', '.join(twice)} twice")
    if "architecture" in modules:
        raise TransitionError(f"{path}: 'architecture' cannot be the name of a module")
