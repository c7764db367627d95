"""Peer reviews: records in ``.phasegate/reviews.jsonl`` and GitHub review payloads.

A review is appended as a :class:`~phasegate.model.review.ReviewRecord` (the file the
``review`` gate check reads), with its mapping to a workflow outcome stored beside the
reviewer, subject, commit and time: approved -> ``accepted``, changes_requested ->
``rework``, rejected -> ``discarded``.

A GitHub ``pull_request_review`` event maps ``APPROVED`` to approved and
``CHANGES_REQUESTED`` to changes_requested. A ``COMMENTED`` review carries no outcome: it is
skipped (nothing is written) and the caller is told so, because a comment must neither approve
nor block, and a status the review check does not know would make older readers set the line
aside. ``DISMISSED`` and any other state are skipped the same way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from phasegate.errors import UsageError
from phasegate.model.review import OUTCOMES, REVIEWS_FILE, ReviewRecord, ReviewStatus
from phasegate.store import Store

__all__ = ["GITHUB_STATES", "GithubImport", "parse_status", "read_github_event", "record_review"]

#: GitHub review states that carry an outcome.
GITHUB_STATES: dict[str, ReviewStatus] = {
    "APPROVED": ReviewStatus.APPROVED,
    "CHANGES_REQUESTED": ReviewStatus.CHANGES_REQUESTED,
}


def parse_status(value: str) -> ReviewStatus:
    """The status named by ``value``, or a usage error naming it and the allowed ones."""
    try:
        return ReviewStatus(value)
    except ValueError:
        allowed = ", ".join(status.value for status in ReviewStatus)
        raise UsageError(f"unknown review status {value!r}; allowed: {allowed}") from None


def record_review(store: Store, record: ReviewRecord) -> ReviewRecord:
    """Append the review, with its workflow outcome filled in."""
    record = record.model_copy(update={"outcome": OUTCOMES[record.status]})
    store.append_jsonl(REVIEWS_FILE, record)
    return record


class GithubImport:
    """What a ``pull_request_review`` payload became: a record, or why it was skipped."""

    def __init__(self, record: ReviewRecord | None, skipped: str = "") -> None:
        self.record = record
        self.skipped = skipped


def read_github_event(path: Path) -> GithubImport:
    """Map a ``pull_request_review`` event payload (the file ``GITHUB_EVENT_PATH`` names)."""
    payload = _read_payload(path)
    review = _table(payload, "review", path)
    pull = _table(payload, "pull_request", path)
    state = str(review.get("state", "")).upper()
    if state in ("COMMENTED", "DISMISSED", "PENDING"):
        return GithubImport(None, f"a {state} review carries no outcome, so nothing was recorded")
    if state not in GITHUB_STATES:
        raise UsageError(
            f"{path}: key review.state = {review.get('state')!r} is not a review state; "
            "expected APPROVED, CHANGES_REQUESTED, COMMENTED or DISMISSED"
        )
    number = pull.get("number")
    record = ReviewRecord(
        subject=f"PR #{number}" if number is not None else str(pull.get("html_url", "PR")),
        commit=_optional_text(review, "commit_id", path),
        reviewer=_reviewer(review, path),
        status=GITHUB_STATES[state],
        recorded_at=_submitted_at(review, path),
        note=str(review.get("body") or ""),
        source="github",
        pull_request=number if isinstance(number, int) else None,
        url=_optional_text(review, "html_url", path),
    )
    return GithubImport(record)


def _read_payload(path: Path) -> object:
    """The event file's JSON; a usage error naming the file when it is missing or not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{path}: not a JSON event payload: {exc}") from exc


_NEEDS = "a pull_request_review payload needs review.user.login and review.submitted_at"


def _reviewer(review: Mapping[str, object], path: Path) -> str:
    user = review.get("user") or {}
    reviewer = user.get("login") if isinstance(user, dict) else None
    if not reviewer:
        raise UsageError(f"{path}: {_NEEDS}")
    return str(reviewer)


def _submitted_at(review: Mapping[str, object], path: Path) -> datetime:
    submitted = review.get("submitted_at")
    if not submitted:
        raise UsageError(f"{path}: {_NEEDS}")
    try:
        return datetime.fromisoformat(str(submitted).replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"{path}: key review.submitted_at = {submitted!r} is not an ISO 8601 time"
        ) from None


def _optional_text(review: Mapping[str, object], key: str, path: Path) -> str | None:
    """A review's optional text field: None when it is absent or empty."""
    value = review.get(key)
    if not value:
        return None
    if not isinstance(value, str):
        raise UsageError(f"{path}: key review.{key} = {value!r} is not text")
    return value


def _table(payload: object, key: str, path: Path) -> dict[str, object]:
    value = payload.get(key) if isinstance(payload, dict) else None
    if not isinstance(value, dict):
        raise UsageError(
            f"{path}: key {key} is missing; this is not a pull_request_review event payload"
        )
    return value
