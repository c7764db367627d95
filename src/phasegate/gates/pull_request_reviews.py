"""Bring a pull request's reviews into ``.phasegate/reviews.jsonl``, for the review check in CI.

The review check reads the artifacts folder, which is not committed (``.phasegate/`` is
ignored), so in CI it would find no review. The reviews of a pull request live on GitHub:
``phasegate review import-pr`` (the GitHub Action runs it before the gate in a pull request)
reads them from the REST API (``GET /repos/{repo}/pulls/{number}/reviews``, every page) and
records each outcome: ``APPROVED`` as approved, ``CHANGES_REQUESTED`` as changes_requested;
``COMMENTED``, ``DISMISSED`` and ``PENDING`` carry no outcome and are left out. Each review
keeps the commit it was given on, so an approval of an earlier push does not approve the
latest one. A review already recorded (the same address) is not recorded twice.
"""

from __future__ import annotations

from datetime import datetime

from phasegate.errors import PhasegateError
from phasegate.jsonvalues import value_at
from phasegate.model.review import REVIEWS_FILE, ReviewRecord, ReviewStatus
from phasegate.report.comment import GitHubClient
from phasegate.store import Store

__all__ = ["ReviewImportError", "fetch_reviews", "import_reviews"]

_STATES = {"APPROVED": ReviewStatus.APPROVED, "CHANGES_REQUESTED": ReviewStatus.CHANGES_REQUESTED}
_SKIPPED = frozenset({"COMMENTED", "DISMISSED", "PENDING"})
_PAGE = 100
#: More pages than this is not a pull request's reviews but a loop: stop and say so.
_MAX_PAGES = 50


class ReviewImportError(PhasegateError):
    """GitHub's answer was not a list of reviews phasegate recognises."""


def fetch_reviews(client: GitHubClient, number: int) -> list[ReviewRecord]:
    """The outcomes of pull request ``number``'s reviews, oldest first."""
    records: list[ReviewRecord] = []
    for page in range(1, _MAX_PAGES + 1):
        path = f"/repos/{client.repository}/pulls/{number}/reviews?per_page={_PAGE}&page={page}"
        answer = client.request("GET", path)
        if not isinstance(answer, list):
            raise ReviewImportError(f"GitHub answered GET {path} with {answer!r:.200}, not a list")
        for review in answer:
            record = _record(review, number, path)
            if record is not None:
                records.append(record)
        if len(answer) < _PAGE:
            return sorted(records, key=lambda record: record.recorded_at)
    raise ReviewImportError(f"pull request #{number} has more than {_MAX_PAGES} pages of reviews")


def import_reviews(store: Store, records: list[ReviewRecord]) -> list[ReviewRecord]:
    """Append the records not already in the reviews file; return those appended."""
    known = {entry.url for entry in store.read_jsonl(REVIEWS_FILE, ReviewRecord).entries}
    added = [record for record in records if record.url not in known]
    for record in added:
        store.append_jsonl(REVIEWS_FILE, record)
    return added


def _submitted_at(submitted: object, path: str) -> datetime:
    """GitHub's ``submitted_at`` as a time; an import error naming it when it is not one."""
    try:
        return datetime.fromisoformat(str(submitted).replace("Z", "+00:00"))
    except ValueError as exc:
        raise ReviewImportError(f"GET {path}: submitted_at {submitted!r} is not a time") from exc


def _record(review: object, number: int, path: str) -> ReviewRecord | None:
    if not isinstance(review, dict):
        raise ReviewImportError(f"GET {path}: a review is {review!r:.200}, not an object")
    state = str(review.get("state", "")).upper()
    if state in _SKIPPED:
        return None
    status = _STATES.get(state)
    login = value_at(review.get("user"), "login")
    commit, url, submitted = (
        review.get("commit_id"),
        review.get("html_url"),
        review.get("submitted_at"),
    )
    if status is None or not all((login, commit, url, submitted)):
        raise ReviewImportError(
            f"GET {path}: review {review.get('id')!r} lacks what a review has (state "
            f"{review.get('state')!r}, user, commit_id, html_url, submitted_at)"
        )
    recorded_at = _submitted_at(submitted, path)
    return ReviewRecord(
        subject=f"pull request #{number}",
        commit=str(commit),
        reviewer=str(login),
        status=status,
        recorded_at=recorded_at,
        note=str(review.get("body") or "")[:500],
        source="github",
        pull_request=number,
        url=str(url),
    )
