"""The ``tdd`` check of the quality gate: fails when the ledger shows a violation in the change.

"The change" is the part of the ledger recorded on top of the base (``--base``, or a pull
request's base): from the first run whose commit is not an ancestor of the base (or is the
base itself with uncommitted changes) to the end. Without a base, the whole ledger is the
change. The ledger is only in CI if the project commits it (``git add -f
.phasegate/tdd/ledger.jsonl``); without a ledger the check is skipped, with that reason.

A failed run is *resolved* when a later run of the same phase for the same cycles passed
(for a refactor, a rollback resolves it too); it still counts in ``failed_runs``, and an
integrity violation (tests edited at green, source changed at red, a test green without
having been red, assertions removed, behaviour in phase 0) still counts in ``violations``.
The default conditions fail the check on unresolved failures in the change, on cycles left
red, and on cycles awaiting a required review.

The ledger is also verified (:mod:`phasegate.tdd.verify`): its hash chain, and, in a git
project, each red of the change run again in the tree it recorded. What does not verify counts
in ``unverified`` (a finding each; the default conditions fail on it), and so does an entry of
the change written without the chain. A verification that cannot run (a recorded tree missing
from the repository, a replay that hangs) makes the check an error.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import ValidationError

from phasegate.gates.definition import ConditionSpec
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec, NoOptions
from phasegate.model.gate import Finding, MetricValue, Severity, ToolInfo
from phasegate.model.tdd import (
    FINISHED_STATUSES,
    AcceptEntry,
    CycleState,
    LedgerLine,
    RollbackEntry,
    RunEntry,
    TddState,
    Violation,
)
from phasegate.settings import describe_errors
from phasegate.store import JsonlRead
from phasegate.tdd.config import TddConfig
from phasegate.tdd.ledger import Entry, Ledger
from phasegate.tdd.rules import INTEGRITY_RULES
from phasegate.tdd.state import derive
from phasegate.tomlfile import table_in

if TYPE_CHECKING:
    from phasegate.tdd.verify import Problem

__all__ = ["TddCheck", "change_start", "resolutions"]

_GIT_TIMEOUT_S = 30.0
_MAX_FINDINGS = 200


class TddCheck:
    """Red/green/refactor proven in the ledger for the change under review."""

    id: ClassVar[str] = "tdd"
    title: ClassVar[str] = "TDD cycles"
    kind: ClassVar[Literal["static", "session"]] = "session"
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("runs", "judged pytest --tdd runs"),
        MetricSpec("cycles_completed", "cycles that reached green (GC)"),
        MetricSpec("failed_runs", "runs whose verdict failed, resolved or not"),
        MetricSpec("unresolved", "failed runs no later passing run of that phase resolved"),
        MetricSpec("violations", "integrity violations (attempts on the proof), resolved or not"),
        MetricSpec("open_red_cycles", "cycles still red at the end of the ledger"),
        MetricSpec("unreviewed_cycles", "green cycles awaiting a required review"),
        MetricSpec(
            "unapproved_cycles",
            "cycles that reached green without an approving review (open, or closed by the "
            "next red): the DPTR rule 'all cycles approved before the next batch'",
        ),
        MetricSpec("accepted_tests", "tests accepted without a red"),
        MetricSpec(
            "unverified",
            "ledger problems tdd verify found: a broken chain, a red that does not fail again "
            "as recorded in its tree, an entry of the change without the chain",
        ),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="unresolved", scope="new", op=">", value=0),
        ConditionSpec(metric="open_red_cycles", scope="overall", op=">", value=0),
        ConditionSpec(metric="unreviewed_cycles", scope="overall", op=">", value=0),
        ConditionSpec(metric="unverified", scope="new", op=">", value=0),
    )
    options_model: ClassVar[type[NoOptions]] = NoOptions

    def tool_info(self) -> ToolInfo | None:
        """No external tool: the check reads phasegate's own ledger."""
        return None

    def cache_inputs(self, ctx: CheckContext, options: NoOptions) -> Sequence[Path] | None:
        """Not cached: the result depends on git history as well as on the ledger."""
        return None

    def measure(self, ctx: CheckContext, options: NoOptions) -> Measurement:
        """Read the ledger, find the change, count what failed and what was resolved."""
        ledger = Ledger(ctx.store)
        if not ledger.path.is_file():
            return Measurement(
                summary="no TDD ledger",
                skipped=f"there is no TDD ledger ({ledger.path.name} in {ledger.path.parent}): "
                "no cycle was driven with pytest --tdd here, or the ledger was not committed",
            )
        config = _tdd_config(ctx)
        entries, read = ledger.read_all()
        state = derive(entries)
        start = change_start(entries, ctx)
        resolved = resolutions(entries)
        overall = _metrics(entries, range(len(entries)), resolved, state, config)
        in_change = range(start, len(entries))
        new = _metrics(entries, in_change, resolved, state, config)
        verified = _verify(ctx, config, entries, start)
        overall["unverified"] = new["unverified"] = len(verified.findings)
        findings = [
            *_set_aside(read),
            *verified.findings,
            *_findings(entries, in_change, resolved),
        ]
        return Measurement(
            summary=_summary(new, overall) + verified.note,
            score=_score(new),
            metrics=overall,
            new_code_metrics=new,
            findings=findings[:_MAX_FINDINGS],
        )


def _set_aside(read: JsonlRead[LedgerLine]) -> list[Finding]:
    """A finding for the unreadable ledger lines the read moved aside, if any."""
    if not read.rejected:
        return []
    where = read.moved_to.name if read.moved_to else "a side file"
    message = f"{len(read.rejected)} unreadable ledger line(s) were moved to {where}"
    return [Finding(rule="tdd/ledger-lines-set-aside", severity=Severity.MEDIUM, message=message)]


def _score(new: dict[str, MetricValue]) -> float:
    """The share of the change's judged runs whose failure was resolved (1 with no run)."""
    runs = int(new["runs"] or 0)
    unresolved = int(new["unresolved"] or 0)
    return 1.0 if runs == 0 else max(0.0, (runs - unresolved) / runs)


@dataclass(frozen=True)
class _Verified:
    findings: list[Finding]
    note: str


def _verify(
    ctx: CheckContext, config: TddConfig, entries: Sequence[Entry], start: int
) -> _Verified:
    """The problems ``tdd verify`` finds: the chain always, the reds of the change in git."""
    problems, replayed = _verify_problems(ctx, config, start)
    findings = [
        Finding(rule=p.rule, severity=Severity.HIGH, message=f"ledger line {p.line}: {p.message}")
        for p in problems
    ]
    findings += [
        Finding(
            rule="tdd/ledger-unchained",
            severity=Severity.HIGH,
            message=f"{_named(entry)} of the change is not chained to the ledger (no previous "
            "digest): it was not written by pytest --tdd or phasegate tdd",
        )
        for entry in entries[start:]
        if entry.previous is None
    ]
    note = (
        f"; {replayed} red run(s) replayed in their recorded trees"
        if ctx.project.in_git
        else "; not in git: the chain was checked, no red was replayed"
    )
    return _Verified(findings, note)


def _verify_problems(ctx: CheckContext, config: TddConfig, start: int) -> tuple[list[Problem], int]:
    """What ``tdd verify`` finds and how many reds it replayed (none outside git, where only
    the chain is checked); a verify that cannot run is a :class:`CheckError`."""
    from phasegate.tdd.verify import VerifyError, chain_of, verify_ledger

    try:
        if not ctx.project.in_git:
            _entries, _unchained, problems = chain_of(Ledger(ctx.store).path.read_bytes())
            return problems, 0
        report = verify_ledger(
            ctx.project.root, ctx.store, config, timeout_s=ctx.timeout_s, replay_from=start
        )
    except (VerifyError, OSError) as exc:
        raise CheckError(
            f"the TDD ledger could not be verified: {exc}",
            fix="run phasegate tdd verify to see why; in CI, fetch the refs that keep the "
            "runs' trees: git fetch origin 'refs/phasegate/tdd/*:refs/phasegate/tdd/*'",
        ) from exc
    return report.problems, report.replayed


def _named(entry: Entry) -> str:
    return f"run {entry.run_id}" if isinstance(entry, RunEntry) else f"a {entry.kind} entry"


def resolutions(entries: Sequence[Entry]) -> dict[int, int | None]:
    """For each failed run (by index): the index of the entry that resolved it, or ``None``."""
    found: dict[int, int | None] = {}
    for index, entry in enumerate(entries):
        if not isinstance(entry, RunEntry) or entry.verdict == "passed":
            continue
        later = range(index + 1, len(entries))
        found[index] = next((i for i in later if _resolves(entry, entries[i])), None)
    return found


def change_start(entries: Sequence[Entry], ctx: CheckContext) -> int:
    """The index of the first ledger entry of the change under review."""
    base = ctx.new_code.base
    if ctx.new_code.all_new or not base.sha:
        return 0
    verdicts: dict[tuple[str, bool], bool] = {}
    for index, entry in enumerate(entries):
        if isinstance(entry, RunEntry) and _run_in_change(
            entry, ctx.project.root, base.sha, verdicts
        ):
            return index
    return len(entries)


def _run_in_change(
    entry: RunEntry, root: Path, base_sha: str, verdicts: dict[tuple[str, bool], bool]
) -> bool:
    """Whether a run belongs to the change (``verdicts`` keeps git's answer per commit)."""
    if entry.git is None or entry.git.sha is None:
        return True  # no commit recorded: it cannot be shown to predate the change
    key = (entry.git.sha, bool(entry.git.dirty))
    if key not in verdicts:
        verdicts[key] = _in_change(root, key[0], key[1], base_sha)
    return verdicts[key]


def _resolves(failed: RunEntry, later: Entry) -> bool:
    if isinstance(later, RollbackEntry):
        return failed.phase == "refactor" and later.failed_run == failed.run_id
    if not isinstance(later, RunEntry) or later.verdict != "passed" or later.phase != failed.phase:
        return False
    return not failed.cycles or bool(set(failed.cycles) & set(later.cycles))


def _in_change(root: Path, sha: str, dirty: bool, base: str) -> bool:
    if sha == base:
        return dirty
    try:
        completed = subprocess.run(
            ["git", "merge-base", "--is-ancestor", sha, base],
            cwd=root,
            capture_output=True,
            timeout=_GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CheckError(
            f"git could not tell whether {sha[:12]} predates the base: {exc}",
            fix="run the gate where git and the repository's history are available",
        ) from exc
    # 0: an ancestor of the base (before the change); 1: not; 128: unknown (rebased away).
    return completed.returncode != 0


def _metrics(
    entries: Sequence[Entry],
    indexes: range,
    resolved: dict[int, int | None],
    state: TddState,
    config: TddConfig,
) -> dict[str, MetricValue]:
    runs = [(i, entry) for i in indexes if isinstance(entry := entries[i], RunEntry)]
    accepted = sum(
        len(entry.tests) for i in indexes if isinstance(entry := entries[i], AcceptEntry)
    )
    return {
        **_run_metrics(runs, resolved),
        **_cycle_metrics(state, config),
        "accepted_tests": accepted,
    }


def _run_metrics(
    runs: list[tuple[int, RunEntry]], resolved: dict[int, int | None]
) -> dict[str, MetricValue]:
    """How many runs, cycles turned green, failed and unresolved runs, integrity breaches."""
    failed = [i for i, entry in runs if entry.verdict == "failed"]
    completed = {cycle for _, entry in runs if "GC" in entry.status for cycle in entry.cycles}
    return {
        "runs": len(runs),
        "cycles_completed": len(completed),
        "failed_runs": len(failed),
        "unresolved": sum(1 for i in failed if resolved.get(i) is None),
        "violations": sum(_integrity_breaches(entry) for _, entry in runs),
    }


def _integrity_breaches(entry: RunEntry) -> int:
    """How many of a run's violations were attempts on the proof itself."""
    return sum(1 for violation in entry.violations if violation.rule in INTEGRITY_RULES)


def _cycle_metrics(state: TddState, config: TddConfig) -> dict[str, MetricValue]:
    """How many cycles are red, await review (when ``require_review``), were never approved."""
    cycles = state.cycles.values()
    unreviewed = sum(1 for cycle in cycles if cycle.status in FINISHED_STATUSES)
    return {
        "open_red_cycles": sum(1 for cycle in cycles if cycle.status == "red"),
        "unreviewed_cycles": unreviewed if config.require_review else 0,
        "unapproved_cycles": sum(1 for cycle in cycles if _unapproved(cycle)),
    }


def _unapproved(cycle: CycleState) -> bool:
    """A cycle that reached green and was never approved (closed by a red, or still open)."""
    if cycle.status in FINISHED_STATUSES:
        return True
    approved = any(review.status == "approved" for review in cycle.reviews)
    return cycle.status == "closed" and cycle.green_run is not None and not approved


def _findings(
    entries: Sequence[Entry], indexes: range, resolved: dict[int, int | None]
) -> list[Finding]:
    findings: list[Finding] = []
    for index in indexes:
        entry = entries[index]
        if not isinstance(entry, RunEntry) or entry.verdict == "passed":
            continue
        fixed = resolved.get(index)
        later = entries[fixed] if fixed is not None else None
        findings += [_finding(entry, violation, later) for violation in entry.violations]
    return findings


def _finding(entry: RunEntry, violation: Violation, later: Entry | None) -> Finding:
    """One violation of a failed run, weighed by whether a later entry resolved it."""
    severity, suffix = _weight(violation, later)
    return Finding(
        rule=f"tdd/{violation.rule}",
        severity=severity,
        message=f"{entry.phase} run {entry.run_id}: {violation.message}{suffix}",
        path=violation.paths[0] if violation.paths else None,
    )


def _weight(violation: Violation, later: Entry | None) -> tuple[Severity, str]:
    """An unresolved violation is high; a resolved one low, or medium for an integrity rule."""
    if later is None:
        return Severity.HIGH, " (unresolved)"
    what = later.run_id if isinstance(later, RunEntry) else "a rollback"
    severity = Severity.MEDIUM if violation.rule in INTEGRITY_RULES else Severity.LOW
    return severity, f" (resolved by {what})"


def _summary(new: dict[str, MetricValue], overall: dict[str, MetricValue]) -> str:
    parts = [
        f"{new['runs']} judged run(s) in the change, {new['cycles_completed']} cycle(s) green",
        f"{new['unresolved']} unresolved failure(s)",
        f"{new['violations']} integrity violation(s)",
    ]
    if overall["open_red_cycles"]:
        parts.append(f"{overall['open_red_cycles']} cycle(s) still red")
    if overall["unreviewed_cycles"]:
        parts.append(f"{overall['unreviewed_cycles']} cycle(s) awaiting review")
    return "; ".join(parts)


def _tdd_config(ctx: CheckContext) -> TddConfig:
    table = table_in(ctx.project.pyproject, "tool", "phasegate").get("tdd", {})
    try:
        return TddConfig.model_validate(table)
    except ValidationError as exc:
        where = str(ctx.project.root / "pyproject.toml")
        message = describe_errors(exc, model=TddConfig, where=where, table="tool.phasegate.tdd")
        raise CheckError(message, fix="correct [tool.phasegate.tdd] in pyproject.toml") from exc
