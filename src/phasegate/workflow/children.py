"""Child instances for subtasks: spawned in a spawning phase, integrated through review.

In a phase with ``spawns_children`` (EDRR's EXPAND) the member holding the leading role (the
primus) decomposes the work into subtasks, each named with the files it touches; its
complexity is measured from those files (:mod:`phasegate.workflow.spawning`). A subtask above
``complexity_threshold`` gets a child instance of its own (the definition's
``child_workflow``, else the same workflow), the others stay with the parent.
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

__all__ = ["Subtask", "SubtaskRequest", "child_id", "parse_subtask", "settle", "split_subtasks"]


@dataclass(frozen=True)
class SubtaskRequest:
    """A piece of a decomposed task, named with the files it touches."""

    name: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class Subtask:
    """A piece of a decomposed task and its measured complexity."""

    name: str
    complexity: int
    files: tuple[str, ...] = ()


def parse_subtask(text: str) -> SubtaskRequest:
    """``NAME=FILE[,FILE...]``, or a usage error naming the text."""
    name, sep, listed = text.partition("=")
    files = tuple(part.strip() for part in listed.split(",") if part.strip())
    if not sep or not name.strip() or not files:
        raise UsageError(
            f"subtask {text!r} is not NAME=FILE[,FILE...] (e.g. 'parser=src/app/parse.py'): "
            "a subtask names the files it touches, and its complexity is measured from them"
        )
    return SubtaskRequest(name.strip(), files)


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
    if child.state is InstanceState.COMPLETE and _approved(child, reviews):
        return link.model_copy(update={"status": "integrated"})
    return link


def _approved(child: WorkflowInstance, reviews: Sequence[ReviewRecord]) -> bool:
    """Whether the latest review of the child (as a subject, not a phase review) approves it."""
    mine = sorted(
        (r for r in reviews if r.subject == child.id and r.instance is None),
        key=lambda r: r.recorded_at,
    )
    return bool(mine) and mine[-1].status is ReviewStatus.APPROVED
