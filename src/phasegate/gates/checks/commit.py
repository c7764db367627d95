"""commit: every commit since the base follows Conventional Commits 1.0.0.

The commits are those of ``git log <base>..HEAD`` when the run has a base (``--base`` or the
pull request's base); without one, only the last commit is checked, and the summary says so.
Merge commits are skipped (their messages are written by git or the forge), and so is git's
own ``Revert "..."`` message. ``fixup!`` and ``squash!`` commits do not conform: they are
meant to be squashed before merging.

The header is parsed with one regular expression: the specification is a short grammar
(``type(scope)!: description``, a blank line before the body, ``BREAKING CHANGE:`` footers),
and a parsing library would weigh more than the rule it checks. Types compare without case,
as the specification asks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field, field_validator

from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import score_from_count
from phasegate.gates.git import git_text
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec
from phasegate.model.gate import Finding, Severity, ToolInfo
from phasegate.settings import Section

__all__ = ["DEFAULT_TYPES", "CommitCheck", "CommitOptions", "problems_of"]

DEFAULT_TYPES = (
    "feat",
    "fix",
    "docs",
    "style",
    "refactor",
    "perf",
    "test",
    "build",
    "ci",
    "chore",
    "revert",
)

_HEADER = re.compile(
    r"^(?P<type>[A-Za-z][\w-]*)(?:\((?P<scope>[^()\r\n]+)\))?(?P<bang>!)?: (?P<subject>\S.*)$"
)
_BREAKING_FOOTER = re.compile(r"^BREAKING[ -]CHANGE: \S", re.MULTILINE)
_LOWERCASE_BREAKING = re.compile(r"^breaking[ -]change:", re.MULTILINE | re.IGNORECASE)
_GIT_REVERT = re.compile(r'^Revert ".*"$')
#: The line ``git revert`` writes in the body: a first line alone only looks like a revert.
_REVERTS = re.compile(r"^This reverts commit [0-9a-f]{7,64}\b", re.MULTILINE)
_AUTOSQUASH = re.compile(r"^(fixup|squash|amend)! ")
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


class CommitOptions(Section):
    """Options of the commit check."""

    types: list[str] = Field(
        default_factory=lambda: list(DEFAULT_TYPES),
        min_length=1,
        description="the commit types allowed (compared without case)",
    )
    max_subject_length: int = Field(
        default=100, ge=10, description="the longest first line of a message, in characters"
    )

    @field_validator("types")
    @classmethod
    def _words(cls, value: list[str]) -> list[str]:
        for name in value:
            if not re.fullmatch(r"[A-Za-z][\w-]*", name):
                raise ValueError(f"{name!r} is not a commit type (a word such as 'feat')")
        return value


@dataclass(frozen=True)
class _Commit:
    sha: str
    parents: int
    message: str

    @property
    def header(self) -> str:
        return self.message.split("\n", 1)[0].strip()


def problems_of(message: str, options: CommitOptions) -> tuple[list[str], bool]:
    """What is wrong with a commit message, and whether it declares a breaking change."""
    lines = message.strip("\n").split("\n")
    header = lines[0].strip()
    if _AUTOSQUASH.match(header):
        return ["a fixup/squash commit: squash it before merging"], False
    if _GIT_REVERT.match(header) and _REVERTS.search(message):
        return [], False
    problems, bang = _header_problems(header, options)
    if len(lines) > 1 and lines[1].strip():
        problems.append("the body must be separated from the first line by a blank line")
    footer, footer_problems = _breaking_footer(message)
    return problems + footer_problems, bang or footer


def _breaking_footer(message: str) -> tuple[bool, list[str]]:
    """Whether the message has a ``BREAKING CHANGE:`` footer, and the problem of one that is
    spelt otherwise."""
    if _BREAKING_FOOTER.search(message) is not None:
        return True, []
    if _LOWERCASE_BREAKING.search(message):
        return False, ["a breaking-change footer must read 'BREAKING CHANGE: <description>'"]
    return False, []


def _header_problems(header: str, options: CommitOptions) -> tuple[list[str], bool]:
    """What is wrong with the first line, and whether it has the breaking ``!``."""
    problems: list[str] = []
    match = _HEADER.match(header)
    if match is None:
        problems.append("the first line is not 'type(scope)!: description'")
    elif match.group("type").lower() not in {name.lower() for name in options.types}:
        problems.append(f"type {match.group('type')!r} is not one of {', '.join(options.types)}")
    if len(header) > options.max_subject_length:
        problems.append(
            f"the first line has {len(header)} characters, more than {options.max_subject_length}"
        )
    return problems, match is not None and match.group("bang") is not None


class CommitCheck:
    """Conventional Commits over base..HEAD; by default any non-conforming commit fails."""

    id: ClassVar[str] = "commit"
    title: ClassVar[str] = "Conventional Commits"
    kind: ClassVar[Literal["static", "session"]] = "static"
    options_model: ClassVar[type[CommitOptions]] = CommitOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("nonconforming", "commits whose message does not follow the convention"),
        MetricSpec("commits", "commits checked (merge commits are skipped)"),
        MetricSpec("breaking", "commits that declare a breaking change (! or BREAKING CHANGE)"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="nonconforming", scope="overall", op=">", value=0),
    )

    def tool_info(self) -> ToolInfo | None:
        """None: the check needs git only."""
        return None

    def cache_inputs(self, ctx: CheckContext, options: CommitOptions) -> Sequence[Path] | None:
        """None: git history decides, and it is quicker to read than to fingerprint."""
        return None

    def measure(self, ctx: CheckContext, options: CommitOptions) -> Measurement:
        """Read the commits since the base (or the last one) and check each message."""
        if not _has_commits(ctx):
            return Measurement(
                summary="the repository has no commits yet",
                skipped="the repository has no commits yet, so there is no message to check",
                metrics={"nonconforming": None, "commits": 0, "breaking": None},
                new_code_metrics={"nonconforming": None, "commits": 0, "breaking": None},
            )
        revisions, where = _range(ctx)
        commits = _log(ctx.project.root, revisions, ctx.timeout_s)
        checked = [commit for commit in commits if commit.parents <= 1]
        findings, breaking = _judged(checked, options)
        metrics: dict[str, int | None] = {
            "nonconforming": len(findings),
            "commits": len(checked),
            "breaking": breaking,
        }
        return Measurement(
            summary=_summary(findings, len(checked), len(commits) - len(checked), where),
            score=score_from_count(len(findings), scale=2),
            metrics=dict(metrics),
            # Every commit checked is new: it is not in the base.
            new_code_metrics=dict(metrics),
            findings=findings,
        )


def _judged(commits: list[_Commit], options: CommitOptions) -> tuple[list[Finding], int]:
    """A finding for each commit whose message is wrong, and how many declare a breaking
    change."""
    findings: list[Finding] = []
    breaking = 0
    for commit in commits:
        problems, declares = problems_of(commit.message, options)
        breaking += declares
        if problems:
            findings.append(_finding(commit, problems))
    return findings, breaking


def _has_commits(ctx: CheckContext) -> bool:
    """Whether HEAD exists; a CheckError outside a git work tree."""
    if not ctx.project.in_git:
        raise CheckError(
            f"{ctx.project.root} is not in a git work tree, so there are no commit messages to "
            "check",
            fix="run the gate in a git clone (in CI: actions/checkout with fetch-depth: 0), "
            "or drop the commit check from the gate",
        )
    return ctx.project.head is not None


def _range(ctx: CheckContext) -> tuple[list[str], str]:
    """The revisions for git log, and how to say which they are."""
    base = ctx.new_code.base
    if base.available and base.sha:
        return [f"{base.sha}..HEAD"], f"since {base.ref or base.sha[:12]}"
    return ["-1", "HEAD"], "in the last commit only (no base ref)"


def _log(root: Path, revisions: list[str], timeout_s: float) -> list[_Commit]:
    output = git_text(
        root,
        ["log", "--format=%H%x00%P%x00%B%x1e", *revisions, "--"],
        timeout_s=timeout_s,
        strip=False,
        fix="check that the base commit is fetched (actions/checkout with fetch-depth: 0)",
    )
    records = [record.lstrip("\n") for record in output.split("\x1e")]
    commits = [_commit_of(record) for record in records if record]
    if revisions[0] == "-1" and len(commits) != 1:
        raise CheckError(f"git log -1 HEAD printed {len(commits)} commits, not one")
    return commits


def _commit_of(record: str) -> _Commit:
    """One record of git log's ``%H%x00%P%x00%B``: the commit, its parents and its message."""
    sha, parents, message = [*record.split("\x00", 2), "", ""][:3]
    if not _SHA.fullmatch(sha):
        raise CheckError(f"git log printed a record that is not a commit: {record[:200]!r}")
    return _Commit(sha=sha, parents=len(parents.split()), message=message)


def _finding(commit: _Commit, problems: list[str]) -> Finding:
    return Finding(
        rule="conventional-commit",
        severity=Severity.MEDIUM,
        message=f"{commit.sha[:7]} {commit.header!r}: {'; '.join(problems)}",
        path=None,
        new=True,
    )


def _summary(findings: list[Finding], commits: int, merges: int, where: str) -> str:
    skipped = f" ({merges} merge commit(s) skipped)" if merges else ""
    if not commits:
        return f"no commit to check {where}{skipped}"
    if not findings:
        return f"all {commits} commit message(s) {where} follow Conventional Commits{skipped}"
    return (
        f"{len(findings)} of {commits} commit message(s) {where} do not follow Conventional "
        f"Commits{skipped}; first {findings[0].message}"
    )
