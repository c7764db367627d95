"""Child instances for subtasks: spawned in a spawning phase, integrated through review.

In a phase with ``spawns_children`` (EDRR's EXPAND) the work is decomposed into subtasks, each
with a complexity; a subtask above ``complexity_threshold`` gets a child instance of its own
(the definition's ``child_workflow``, else the same workflow), the others stay with the parent.
In a phase with ``integrates_children`` (EDRR's REFINE) the parent may leave only when every
child came back:

* COMPLETE, and the latest review whose subject is the child's id (recorded without
  ``--instance``: a review of the child's result, not of one of its phases) approved it:
  integrated;
* FAILED: it falls back to the parent, with the child's failure recorded as the error;
* anything else: the parent waits, and ``phase advance`` says which child it waits for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from phasegate.errors import UsageError
from phasegate.model.review import ReviewRecord, ReviewStatus
from phasegate.model.workflow import ChildLink, InstanceState, WorkflowInstance

__all__ = ["Subtask", "child_id", "parse_subtask", "settle", "split_subtasks"]


@dataclass(frozen=True)
class Subtask:
    """A piece of a decomposed task and how complex it is."""

    name: str
    complexity: int


def parse_subtask(text: str) -> Subtask:
    """``NAME:COMPLEXITY`` (complexity a whole number), or a usage error naming the text."""
    name, sep, number = text.rpartition(":")
    if not sep or not name.strip() or not number.strip().isdigit():
        raise UsageError(
            f"subtask {text!r} is not NAME:COMPLEXITY (e.g. 'parse input:7'); the complexity "
            "is a whole number"
        )
    return Subtask(name.strip(), int(number))


def split_subtasks(
    subtasks: Sequence[Subtask], threshold: int
) -> tuple[list[Subtask], list[Subtask]]:
    """(those that get a child instance, those the parent keeps)."""
    spawn = [s for s in subtasks if s.complexity > threshold]
    keep = [s for s in subtasks if s.complexity <= threshold]
    return spawn, keep


def child_id(parent: WorkflowInstance, taken: Sequence[str]) -> str:
    """The next free ``<parent>-c<N>`` id (cut so that it stays a valid id)."""
    number = len(parent.children) + 1
    while True:
        candidate = f"{parent.id[:58]}-c{number}"
        if candidate not in taken:
            return candidate
        number += 1


def settle(link: ChildLink, child: WorkflowInstance, reviews: Sequence[ReviewRecord]) -> ChildLink:
    """The link once the child's state and reviews are known (unchanged while it works)."""
    if child.state is InstanceState.FAILED:
        return link.model_copy(
            update={"status": "fallen_back", "error": child.failure_reason or "the child failed"}
        )
    if child.state is not InstanceState.COMPLETE:
        return link
    mine = sorted(
        (r for r in reviews if r.subject == child.id and r.instance is None),
        key=lambda r: r.recorded_at,
    )
    if mine and mine[-1].status is ReviewStatus.APPROVED:
        return link.model_copy(update={"status": "integrated"})
    return link
