"""Peer-review outcomes, one JSON line each in ``.phasegate/reviews.jsonl``.

The three outcomes and what they mean for the work reviewed: ``approved`` (accepted and
kept), ``changes_requested`` (kept, marked for rework in the next cycle) and ``rejected``
(discarded; the phase repeats).
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import ClassVar, Literal

from pydantic import Field

from phasegate.model.base import ArtifactModel

__all__ = ["OUTCOMES", "REVIEWS_FILE", "ReviewOutcome", "ReviewRecord", "ReviewStatus"]

#: Where review outcomes are appended, inside the artifacts folder.
REVIEWS_FILE = "reviews.jsonl"


class ReviewStatus(str, Enum):
    """The outcome of one review."""

    APPROVED = "approved"
    CHANGES_REQUESTED = "changes_requested"
    REJECTED = "rejected"


#: What a review outcome means for a workflow phase.
ReviewOutcome = Literal["accepted", "rework", "discarded"]

#: approved -> accepted and persisted; changes_requested -> kept, marked for rework in the next
#: cycle; rejected -> discarded, and the phase repeats.
OUTCOMES: dict[ReviewStatus, ReviewOutcome] = {
    ReviewStatus.APPROVED: "accepted",
    ReviewStatus.CHANGES_REQUESTED: "rework",
    ReviewStatus.REJECTED: "discarded",
}


class ReviewRecord(ArtifactModel):
    """One review of one subject at one commit."""

    KIND: ClassVar[str] = "review"

    kind: Literal["review"] = "review"
    subject: str = Field(description="what was reviewed: a pull request, a cycle, a phase")
    commit: str | None = Field(default=None, description="the commit the review applies to")
    reviewer: str
    status: ReviewStatus
    recorded_at: datetime
    note: str = ""
    source: str = Field(default="cli", description="cli, github, or a tool's name")
    outcome: ReviewOutcome | None = Field(
        default=None, description="what the status means for a workflow phase (see OUTCOMES)"
    )
    instance: str | None = Field(default=None, description="the workflow instance reviewed")
    phase: str | None = Field(default=None, description="the instance's phase when reviewed")
    pull_request: int | None = Field(default=None, description="the pull request's number")
    url: str | None = Field(default=None, description="where the review can be read")
