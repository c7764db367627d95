"""Post or update the one sticky phasegate comment on a pull request (GitHub's REST API).

The comment is found again by :data:`~phasegate.report.markdown.MARKER`, which opens every
report, and by its author (``github-actions[bot]`` by default), so a comment someone else
wrote with the marker is never taken over. When the job runs from ``workflow_run`` (the
fork-safe pattern), the pull request's number comes from the untrusted artifact, so the
pull request's current head commit is checked against the workflow run's first: a mismatch
means a newer push or a forged number, and nothing is posted.

The standard library's ``urllib`` is enough for four REST calls; a client library would add a
dependency to every install for them.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass

from phasegate.errors import PhasegateError
from phasegate.jsonvalues import is_int, value_at
from phasegate.report.limits import COMMENT_MAX_CHARS
from phasegate.report.markdown import MARKER

__all__ = ["CommentError", "GitHubClient", "StaleHead", "upsert_comment"]

_PER_PAGE = 100
_TIMEOUT_S = 30.0
#: ``owner/name`` as GitHub allows them: it goes into every request's path.
_REPOSITORY = re.compile(r"[A-Za-z0-9-]+/(?!\.\.?\Z)[A-Za-z0-9_.-]+")


class CommentError(PhasegateError):
    """GitHub refused or failed a request; the message names it and GitHub's answer."""


class StaleHead(PhasegateError):
    """The pull request's head is not the commit the report is about."""


@dataclass(frozen=True)
class GitHubClient:
    """Just enough of GitHub's REST API, for one repository."""

    api_url: str
    repository: str
    token: str

    def __post_init__(self) -> None:
        if not _REPOSITORY.fullmatch(self.repository):
            raise CommentError(
                f"the repository {self.repository!r} (GITHUB_REPOSITORY) is not of the form "
                "owner/name (letters, digits, '-', and '_' or '.' in the name)"
            )
        parts = urllib.parse.urlsplit(self.api_url)
        loopback = parts.hostname in ("127.0.0.1", "::1", "localhost")
        if parts.scheme != "https" and not (parts.scheme == "http" and loopback):
            raise CommentError(
                f"the GitHub API URL {self.api_url!r} is not allowed: it must be https "
                "(http only to a loopback address, for tests)"
            )

    def request(self, method: str, path: str, body: Mapping[str, object] | None = None) -> object:
        """Send one request; return the decoded JSON answer (any JSON value: the caller
        narrows it)."""
        url = f"{self.api_url.rstrip('/')}{path}"
        data = json.dumps(body).encode("utf-8") if body is not None else None
        # The scheme was checked in __post_init__: https, or http to loopback.
        request = urllib.request.Request(url, data=data, method=method)  # noqa: S310  # nosec B310
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("X-GitHub-Api-Version", "2022-11-28")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=_TIMEOUT_S) as response:  # noqa: S310  # nosec B310
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            raise _refused(exc, method, path) from exc
        except (urllib.error.URLError, TimeoutError, ValueError) as exc:
            raise CommentError(f"{method} {url} failed: {exc}") from exc


def _refused(exc: urllib.error.HTTPError, method: str, path: str) -> CommentError:
    """GitHub's refusal, with a hint when it reads like a fork's read-only token."""
    detail = exc.read().decode("utf-8", "replace")[:300]
    hint = (
        " (a read-only token, as pull requests from forks get: comment from a "
        "workflow_run job instead, see docs/github-actions.md)"
        if exc.code in (403, 404)
        else ""
    )
    return CommentError(f"GitHub answered {exc.code} to {method} {path}: {detail}{hint}")


def upsert_comment(
    client: GitHubClient,
    number: int,
    body: str,
    *,
    author: str = "github-actions[bot]",
    expect_head_sha: str | None = None,
) -> tuple[str, int]:
    """Update the sticky comment or create it; return ``("updated"|"created", comment id)``."""
    _refuse_body(body)
    repo = client.repository
    if expect_head_sha:
        _require_head(client, number, expect_head_sha)
    existing = _find(client, number, author)
    if existing is not None:
        client.request("PATCH", f"/repos/{repo}/issues/comments/{existing}", {"body": body})
        return "updated", existing
    path = f"/repos/{repo}/issues/{number}/comments"
    created = client.request("POST", path, {"body": body})
    return "created", _id_of(created, f"POST {path}")


def _refuse_body(body: str) -> None:
    """A CommentError unless ``body`` is a phasegate report within GitHub's size limit."""
    if not body.startswith(MARKER):
        raise CommentError(f"the comment body must start with the report marker {MARKER}")
    if len(body) > COMMENT_MAX_CHARS:
        raise CommentError(
            f"the comment body has {len(body):,} characters, more than GitHub's "
            f"{COMMENT_MAX_CHARS:,}; render it with `phasegate report markdown --target comment`"
        )


def _require_head(client: GitHubClient, number: int, expected: str) -> None:
    """:class:`StaleHead` unless the pull request's head is still the commit reported on."""
    pull = client.request("GET", f"/repos/{client.repository}/pulls/{number}")
    head = value_at(value_at(pull, "head"), "sha")
    if head != expected:
        raise StaleHead(
            f"pull request #{number}'s head is {head}, not {expected}, the commit "
            "the report is about; nothing was posted"
        )


def _find(client: GitHubClient, number: int, author: str) -> int | None:
    page = 1
    while True:
        path = (
            f"/repos/{client.repository}/issues/{number}/comments?per_page={_PER_PAGE}&page={page}"
        )
        comments = client.request("GET", path)
        if comments is None:
            return None
        if not isinstance(comments, list):
            raise CommentError(f"GitHub answered GET {path} with {comments!r:.200}, not a list")
        found = _marked(comments, author, path)
        if found is not None:
            return found
        if len(comments) < _PER_PAGE:  # the last page (an empty one too)
            return None
        page += 1


def _marked(comments: list[object], author: str, path: str) -> int | None:
    """The id of the first of ``comments`` that ``author`` wrote and phasegate's marker opens."""
    for comment in comments:
        login = value_at(value_at(comment, "user"), "login")
        if login == author and str(value_at(comment, "body") or "").startswith(MARKER):
            return _id_of(comment, f"GET {path}")
    return None


def _id_of(comment: object, answered: str) -> int:
    """A comment's id; a CommentError when GitHub's answer holds none."""
    found = value_at(comment, "id")
    if not is_int(found):
        raise CommentError(
            f"GitHub answered {answered} with a comment without an id: {comment!r:.200}"
        )
    return found
