"""review: the recorded peer-review outcome for the commit under check.

Reviews are lines of ``.phasegate/reviews.jsonl`` (``phasegate review record``, imported from
a GitHub ``pull_request_review`` event, or from a pull request's reviews by ``phasegate
review import-pr``, which the GitHub Action runs in a pull request). The latest review of the
current commit, named by its full id, decides: ``approved`` passes; ``changes_requested``
and ``rejected`` fail; no review fails. In a pull request the current commit is the merge
GitHub made of it, and the reviews of its second parent, the pull request's head, count as its
own.

Only the reviews recorded before the tests' code ran are believed in a test run: the change's
own conftest.py or tests could record an approval of the commit while the gate runs (review
s17r), or remove a later request for changes (review s17d). The plugin keeps the file as the
run began (``SessionData.reviews_at_start``), and the check judges those bytes, not the file
as it is at the end; when they were not kept, no review is believed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, Literal

from phasegate.gates.definition import ConditionSpec
from phasegate.gates.git import NO_SUCH_REVISION, NOT_A_REPOSITORY, git_text
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec, NoOptions
from phasegate.model.gate import Finding, MetricValue, Severity, ToolInfo
from phasegate.model.review import REVIEWS_FILE, ReviewRecord, ReviewStatus

__all__ = ["ReviewCheck", "approving_review"]


class ReviewCheck:
    """Passes when the latest review of HEAD approved it."""

    id: ClassVar[str] = "review"
    title: ClassVar[str] = "peer review of this commit"
    kind: ClassVar[Literal["static", "session"]] = "session"
    options_model: ClassVar[type[NoOptions]] = NoOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("approved", "the latest review of the commit approved it", "bool"),
        MetricSpec("reviews", "reviews recorded for the commit"),
        MetricSpec("changes_requested", "reviews asking for changes"),
        MetricSpec("rejected", "reviews rejecting the change"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="approved", op="==", value=False),
    )

    def tool_info(self) -> ToolInfo | None:
        return None

    def cache_inputs(self, ctx: CheckContext, options: NoOptions) -> Sequence[Path] | None:
        return None  # cheap, and it depends on the commit checked out

    def measure(self, ctx: CheckContext, options: NoOptions) -> Measurement:
        commit = _head(ctx.project.root)
        if commit is None:
            raise CheckError(
                "the review check needs the current commit, and this is not a git "
                "repository with a commit",
                fix="run the gate in a git work tree",
            )
        recorded = _recorded_reviews(ctx)
        believed = _believed(ctx, recorded)
        reviewed = _reviewed_commits(ctx, commit)
        mine = _reviews_of(believed, reviewed)
        latest = mine[-1] if mine else None
        approved = latest is not None and latest.status is ReviewStatus.APPROVED
        metrics: dict[str, MetricValue] = {
            "approved": approved,
            "reviews": len(mine),
            "changes_requested": sum(r.status is ReviewStatus.CHANGES_REQUESTED for r in mine),
            "rejected": sum(r.status is ReviewStatus.REJECTED for r in mine),
        }
        return Measurement(
            summary=_summary(commit, latest)
            + _short_ids_note(believed, reviewed)
            + _during_run_note(ctx, recorded, believed),
            score=1.0 if approved else 0.0,
            metrics=metrics,
            new_code_metrics=dict(metrics),
            findings=[] if latest is None or approved else [_unapproved(latest)],
        )


def _unapproved(latest: ReviewRecord) -> Finding:
    """The finding for a latest review that did not approve."""
    return Finding(
        rule=f"review-{latest.status.value}",
        severity=Severity.HIGH,
        message=f"{latest.reviewer}: {latest.note or latest.status.value}",
    )


def _reviewed_commits(ctx: CheckContext, commit: str) -> list[str]:
    """The commit checked out and, in a pull request, the head reviewers approved."""
    reviewed = [commit]
    if ctx.in_pull_request:
        # actions/checkout checks out the pull request merged into its base: the commit
        # reviewers approved is that merge's second parent, the pull request's head.
        head = _head(ctx.project.root, "HEAD^2")
        if head is not None:
            reviewed.append(head)
    return reviewed


def _recorded_reviews(ctx: CheckContext) -> list[ReviewRecord]:
    """Every review of the reviews file, refused when a commit brought the file."""
    _refuse_committed_reviews(ctx)
    return ctx.store.read_jsonl(REVIEWS_FILE, ReviewRecord).entries


def _believed(ctx: CheckContext, recorded: list[ReviewRecord]) -> list[ReviewRecord]:
    """The reviews the file held before the tests' code ran, read from the bytes kept then
    (not the file at the end filtered by them: a review removed meanwhile would stay
    removed) by the store's own line reader; none when they were not kept; every recorded
    review outside a test run."""
    if not _tests_ran_here(ctx):
        return recorded
    kept = ctx.session.reviews_at_start if ctx.session is not None else None
    if kept is None:
        return []
    return ctx.store.entries_in(REVIEWS_FILE, kept, ReviewRecord)


def _tests_ran_here(ctx: CheckContext) -> bool:
    return ctx.session is not None and ctx.session.tests_ran_here


def _short_id(recorded: str, commits: list[str]) -> bool:
    """Whether ``recorded`` is a prefix of one of ``commits``, not the full id."""
    short = bool(recorded) and recorded not in commits
    return short and any(one.startswith(recorded) for one in commits)


def _during_run_note(
    ctx: CheckContext, recorded: list[ReviewRecord], believed: list[ReviewRecord]
) -> str:
    """What the tests' process did to the reviews file, which the check did not believe."""
    if not _tests_ran_here(ctx):
        return ""
    if ctx.session is not None and ctx.session.reviews_at_start is None:
        return (
            "; the reviews file was not kept as the run began, so none of its reviews is "
            "believed: the change's own code runs in the tests' process"
        )
    added = sum(review not in believed for review in recorded)
    removed = sum(review not in recorded for review in believed)
    return _counted(added, "recorded while the tests ran are not believed") + _counted(
        removed, "removed or changed while the tests ran are judged as the run began"
    )


def _counted(count: int, what: str) -> str:
    if not count:
        return ""
    return f"; {count} review(s) {what}: the change's own code runs in the tests' process"


def _reviews_of(recorded: list[ReviewRecord], commits: list[str]) -> list[ReviewRecord]:
    """The reviews that name one of ``commits`` by its full id, oldest first.

    A prefix is never enough (review s17r): an approval of ``c0ffee1`` would approve every
    commit whose id was ground to begin with it.
    """
    return sorted(
        (review for review in recorded if review.commit in commits),
        key=lambda review: review.recorded_at,
    )


def _short_ids_note(recorded: list[ReviewRecord], commits: list[str]) -> str:
    """A sentence naming the reviews that name a reviewed commit by a short id; else ''."""
    named = {review.commit or "" for review in recorded}
    short = sorted(commit for commit in named if _short_id(commit, commits))
    if not short:
        return ""
    return (
        f"; a review names it by the short id {', '.join(short)}, which is not "
        "matched (a prefix can be ground to): record reviews with the full id, "
        "`--commit $(git rev-parse HEAD)`"
    )


def _refuse_committed_reviews(ctx: CheckContext) -> None:
    """A CheckError when git tracks the reviews file: reviews are recorded on this machine
    (``phasegate review record``) or imported from the pull request, never brought by a commit.

    A commit could bring approvals of anything, the commit it makes included (review s16r).
    """
    in_work_tree = _in_work_tree(ctx, ctx.store.path(REVIEWS_FILE))
    if in_work_tree is None:
        return  # the artifacts folder is outside the repository: no commit can bring the file
    name = ctx.project.relative(ctx.store.path(REVIEWS_FILE))
    if git_text(in_work_tree[0], ["ls-files", "--", in_work_tree[1]], timeout_s=30):
        raise CheckError(
            f"{name} is committed to git: a review that came with a commit is not one recorded "
            "here, and none of the file's reviews is believed",
            fix=f"git rm --cached {name}; record reviews with `phasegate review record`, or "
            "import the pull request's with `phasegate review import-pr`",
        )


def _in_work_tree(ctx: CheckContext, path: Path) -> tuple[Path, str] | None:
    """The git work tree's top folder and ``path`` relative to it, both resolved (git refuses
    a path outside the work tree); ``None`` when ``path`` lies outside it."""
    toplevel = ctx.project.git_toplevel
    resolved = path.resolve()
    if toplevel is None or not resolved.is_relative_to(toplevel.resolve()):
        return None
    return toplevel, resolved.relative_to(toplevel.resolve()).as_posix()


def _summary(commit: str, latest: ReviewRecord | None) -> str:
    if latest is None:
        return (
            f"no review is recorded for commit {commit[:12]}; record one with "
            f"`phasegate review record`"
        )
    return (
        f"the latest review of {commit[:12]} is {latest.status.value} by "
        f"{latest.reviewer} ({latest.recorded_at:%Y-%m-%d %H:%M} UTC)"
    )


def approving_review(ctx: CheckContext) -> ReviewRecord | None:
    """The latest review of the commit under check, when it approved it; else ``None``.

    The commit is HEAD, and in a pull request also the pull request's head (HEAD's second
    parent), as :class:`ReviewCheck` reads them.
    """
    commit = _head(ctx.project.root)
    if commit is None:
        return None
    believed = _believed(ctx, _recorded_reviews(ctx))
    mine = _reviews_of(believed, _reviewed_commits(ctx, commit))
    if mine and mine[-1].status is ReviewStatus.APPROVED:
        return mine[-1]
    return None


_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _head(root: Path, revision: str = "HEAD") -> str | None:
    """The commit ``revision`` names; None outside a repository, before the first commit, or
    when it names nothing (``HEAD^2`` of a commit that is not a merge).

    Any other failure of git, or an answer that is not a commit id, is a CheckError.
    """
    head = git_text(
        root,
        ["rev-parse", "--verify", f"{revision}^{{commit}}"],
        timeout_s=30,
        none_when=(*NOT_A_REPOSITORY, *NO_SUCH_REVISION),
    )
    if head is not None and not _SHA.fullmatch(head):
        raise CheckError(
            f"git rev-parse {revision} answered {head!r:.100}, which is not a commit id"
        )
    return head
