"""integrity: what the change does to the evidence, judged against its base.

The front end of :mod:`phasegate.integrity`. The base is the run's base (``--base``, or the
pull request's base: the merge base with HEAD). With no base there is nothing to judge the
change against: the check says so and is skipped (``missing_base = "error"`` makes that an
error instead); a base that was named but that git could not diff against is an error.
Each trick is one finding, at its file and line, with one sentence naming it; by default any
one fails the check.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field, field_validator

from phasegate.gates.checks.review import approving_review
from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import score_from_count
from phasegate.gates.git import git_toplevel
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec
from phasegate.integrity import DEFAULT_REASON_PATTERN
from phasegate.model.gate import BaseInfo, Finding, MetricValue, Severity, ToolInfo
from phasegate.settings import Section

if TYPE_CHECKING:
    from phasegate.integrity.sources import ChangedSources
    from phasegate.integrity.trick import Family, Trick

__all__ = ["IntegrityCheck", "IntegrityOptions"]

#: The metric counting each family's tricks.
FAMILY_METRICS: dict[Family, str] = {
    "evidence": "evidence_weakened",
    "suppressions": "suppressions_added",
    "configuration": "configuration_weakened",
}


class IntegrityOptions(Section):
    """Options of the integrity check."""

    missing_base: Literal["skip", "error"] = Field(
        default="skip",
        description='without a base: "skip" (the check is skipped, saying why) or "error"',
    )
    suppression_needs_code: bool = Field(
        default=True,
        description="an added suppression must name what it silences (noqa: S602), where the "
        "directive takes codes",
    )
    suppression_reason: str = Field(
        default=DEFAULT_REASON_PATTERN,
        min_length=1,
        description="a regular expression the written reason after an added suppression must "
        "match (searched); the default asks for at least two words",
    )

    approved_review_allows: Literal["gate", "configuration", "nothing"] = Field(
        default="gate",
        description="what an approved review recorded for the commit allows: changes to the "
        'gate itself ("gate": gate files, [tool.phasegate], the baseline), every configuration '
        'change ("configuration"), or "nothing"',
    )

    @field_validator("suppression_reason")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"{pattern!r} is not a regular expression: {exc}") from exc
        return pattern


class IntegrityCheck:
    """Tricks that hide a problem instead of fixing it; by default any one fails the check."""

    id: ClassVar[str] = "integrity"
    title: ClassVar[str] = "the change does not weaken the evidence"
    kind: ClassVar[Literal["static", "session"]] = "session"
    options_model: ClassVar[type[IntegrityOptions]] = IntegrityOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("tricks", "ways the change weakens the evidence, all families"),
        MetricSpec("evidence_weakened", "tests deleted, skipped, deselected or weakened"),
        MetricSpec("suppressions_added", "suppressions added without the code and reason asked"),
        MetricSpec("configuration_weakened", "settings, gates and baselines loosened"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="tricks", scope="overall", op=">", value=0),
    )

    def tool_info(self) -> ToolInfo | None:
        return None

    def cache_inputs(self, ctx: CheckContext, options: IntegrityOptions) -> Sequence[Path] | None:
        return None  # it reads the base commit and this run's collection

    def measure(self, ctx: CheckContext, options: IntegrityOptions) -> Measurement:
        """Compare each changed file with the base; one finding per trick."""
        base = ctx.new_code.base
        if not base.available or not base.sha:
            return _without_base(base, options)
        # Imported where a change is judged: planning the gate, and a run without a base
        # (the check is skipped), read no file of the change.
        from phasegate.integrity.gatechanges import excluded_at_base
        from phasegate.integrity.sources import ChangedSources

        project = ctx.project
        at_base = ChangedSources(project.root, base.sha, timeout_s=ctx.timeout_s)
        sources = ChangedSources(
            project.root,
            base.sha,
            timeout_s=ctx.timeout_s,
            exclude_patterns=excluded_at_base(at_base, project.exclude_patterns),
            excluded=project.excluded,
        )
        sources.check_listed()
        if not sources.paths:
            _confirm_no_change(ctx, sources)
        tricks, allowed = _allowed_by_review(ctx, options, _tricks(ctx, options, sources))
        return _measurement(tricks, base.ref or base.sha[:12], len(sources.paths), allowed)


def _without_base(base: BaseInfo, options: IntegrityOptions) -> Measurement:
    """A base named but unreadable is an error; none at all skips, or is an error when the
    options say so."""
    if base.ref:
        raise CheckError(
            f"the base {base.ref!r} is named, but the change against it could not be "
            f"read: {base.note}",
            fix="check that the base commit is fetched (actions/checkout with fetch-depth: 0)",
        )
    reason = f"no base to judge the change against ({base.note})"
    if options.missing_base == "error":
        raise CheckError(reason, fix="give --base, or run in a pull request")
    return _skipped(reason)


def _tricks(ctx: CheckContext, options: IntegrityOptions, sources: ChangedSources) -> list[Trick]:
    """Every trick of every family in the changed files."""
    # The families are imported only to judge a change: planning the gate, and a run without
    # a base (the check is skipped), need none of them.
    from phasegate.integrity.configuration import configuration_tricks
    from phasegate.integrity.evidence import evidence_tricks
    from phasegate.integrity.gatechanges import gate_tricks
    from phasegate.integrity.shadows import shadow_tricks
    from phasegate.integrity.special_cases import special_case_tricks
    from phasegate.integrity.suppressions import SuppressionPolicy, suppression_tricks

    collected = [record.nodeid for record in ctx.session.run.tests] if ctx.session else None
    packages = [ctx.project.relative(path) for path in ctx.project.package_dirs]
    return [
        *evidence_tricks(sources, frozenset(ctx.project.top_level_names), collected),
        *shadow_tricks(sources, packages),
        *special_case_tricks(ctx.project, ctx.new_code),
        *_artifact_tricks(ctx, sources),
        *suppression_tricks(
            sources,
            SuppressionPolicy(options.suppression_needs_code, options.suppression_reason),
        ),
        *configuration_tricks(sources),
        *gate_tricks(sources),
    ]


def _artifact_tricks(ctx: CheckContext, sources: ChangedSources) -> list[Trick]:
    """The TDD ledger rewritten, and other artifacts committed, when the artifacts folder is
    inside the project."""
    from phasegate.integrity.artifacts import artifact_tricks
    from phasegate.integrity.tddledger import ledger_tricks
    from phasegate.tdd.ledger import LEDGER_FILE

    folder = ctx.project.relative(ctx.store.root)
    if folder.startswith("../") or Path(folder).is_absolute():
        return []
    ledger = f"{folder}/{LEDGER_FILE}"
    return [*ledger_tricks(sources, ledger), *artifact_tricks(sources, folder, ledger)]


def _allowed_by_review(
    ctx: CheckContext, options: IntegrityOptions, tricks: list[Trick]
) -> tuple[list[Trick], str]:
    """The tricks left once the policy's approved review allowed its share, and a note."""
    policy = options.approved_review_allows
    allowed = [trick for trick in tricks if _allowable(trick, policy)]
    if not allowed:
        return tricks, ""
    review = approving_review(ctx)
    if review is None:
        return tricks, ""
    note = (
        f"; {len(allowed)} change(s) to the {'gate' if policy == 'gate' else 'configuration'} "
        f"allowed by {review.reviewer}'s approving review"
    )
    return [trick for trick in tricks if trick not in allowed], note


def _allowable(trick: Trick, policy: str) -> bool:
    """Whether an approving review may allow ``trick`` under ``approved_review_allows``."""
    if policy == "gate":
        return trick.gate_change
    return policy == "configuration" and trick.family == "configuration"


def _confirm_no_change(ctx: CheckContext, sources: ChangedSources) -> None:
    """A CheckError when git listed no changed file but the run's new-code diff found some.

    An empty list is an answer only if the diff that found the new code agrees: both come
    from git, by different commands, and a git that prints nothing must not pass the check.
    """
    toplevel = git_toplevel(ctx.project.root, timeout_s=ctx.timeout_s)
    if toplevel is None:
        raise CheckError(f"git no longer sees {ctx.project.root} as a work tree")
    changed = [name for name in _new_code_files(ctx, toplevel) if not sources.is_excluded(name)]
    if changed:
        raise CheckError(
            "git diff listed no changed file, yet the run's new-code diff found "
            f"{len(changed)}: git's answers disagree, so the change cannot be judged"
        )


def _new_code_files(ctx: CheckContext, toplevel: Path) -> list[str]:
    """The files the run's new-code diff found in the project, relative to its root (git
    names changed files from the top of the repository)."""
    prefix = Path(os.path.relpath(ctx.project.root.resolve(), toplevel.resolve())).as_posix()
    inside = "" if prefix == "." else prefix + "/"
    return [
        *(
            name.removeprefix(inside)
            for name in ctx.new_code.changed or {}
            if name.startswith(inside)
        ),
        *ctx.new_code.whole_files,
    ]


def _skipped(reason: str) -> Measurement:
    empty: dict[str, MetricValue] = {"tricks": None, **dict.fromkeys(FAMILY_METRICS.values())}
    return Measurement(summary=reason, skipped=reason, metrics=empty, new_code_metrics=empty)


def _measurement(tricks: list[Trick], base: str, files: int, allowed: str = "") -> Measurement:
    metrics: dict[str, MetricValue] = {"tricks": len(tricks)}
    for family, metric in FAMILY_METRICS.items():
        metrics[metric] = sum(trick.family == family for trick in tricks)
    findings = [
        Finding(
            rule=trick.rule,
            severity=Severity.HIGH,
            message=trick.message,
            path=trick.path,
            line=trick.line,
            new=True,
        )
        for trick in tricks
    ]
    if tricks:
        summary = (
            f"{len(tricks)} trick(s) weaken the evidence since {base}; first: {tricks[0].sentence}"
        )
    else:
        summary = f"the change since {base} ({files} file(s)) weakens none of the evidence"
    summary += allowed
    return Measurement(
        summary=summary,
        score=score_from_count(len(tricks), scale=1),
        metrics=metrics,
        # Every trick is measured against the base: all of it is new.
        new_code_metrics=dict(metrics),
        findings=findings,
    )
