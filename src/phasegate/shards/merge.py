"""Merge shard runs into one run report and one coverage data file, refusing any gap.

The checks, each an error that names the folders involved (never a silent pass):

* every folder holds a shard report (``report.json`` with ``shard``), of a schema this
  phasegate reads (a newer major is refused), whose counts agree with its own test records
  (a report whose counts say more passed than its records hold was edited, or is corrupt);
* the shards agree on N, on the gate, on the suite (size and digest of its node ids) and on the
  commit; each K from 1 to N appears exactly once (a missing shard would pass its tests unseen,
  a duplicated one would count them twice);
* no test is reported by two shards, and the shards' tests add up to the whole suite.

Coverage data files are combined with coverage.py's own ``CoverageData.update``, with each
shard's file names moved from the shard's project root to this one (CI jobs may check out to
different folders). A data file coverage.py cannot read (or an empty one) is an error naming
the shard.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from phasegate.errors import UsageError
from phasegate.gates.coverage_run import COVERAGE_DATA
from phasegate.model.run import (
    CollectionError,
    CollectionSkip,
    Counts,
    Invocation,
    MergedShard,
    MergeInfo,
    RunReport,
    ShardInfo,
    TestRecord,
)
from phasegate.optional import require
from phasegate.report.bundle import read_artifact
from phasegate.store import RUN_REPORT_FILE

if TYPE_CHECKING:
    from coverage import CoverageData

__all__ = ["MergeError", "Shard", "merge_coverage", "merge_reports", "read_shards"]


class MergeError(UsageError):
    """The shards given do not make up one whole suite."""


@dataclass(frozen=True)
class Shard:
    """One shard's artifacts folder and its run report."""

    folder: Path
    report: RunReport

    @property
    def info(self) -> ShardInfo:
        """The shard's identity (always set: :func:`read_shards` checks it)."""
        if self.report.shard is None:  # pragma: no cover - read_shards refuses these
            raise MergeError(f"{self.folder} is not a shard")
        return self.report.shard

    @property
    def label(self) -> str:
        """``2/3 (folder)``."""
        return f"{self.info.index}/{self.info.total} ({self.folder})"


def read_shards(folders: Sequence[Path]) -> list[Shard]:
    """Read and check the shards; return them ordered by K."""
    if not folders:
        raise MergeError("no shard folder was given; pass the shards' artifacts folders")
    shards: list[Shard] = []
    for folder in folders:
        path = folder / RUN_REPORT_FILE
        if not path.is_file():
            raise MergeError(
                f"{folder} holds no {RUN_REPORT_FILE}; give the artifacts folder of each shard "
                "(what `pytest --gate=NAME --shard=K/N` wrote, uploaded whole, hidden files "
                "included)"
            )
        report = read_artifact(path, RunReport)
        if report.shard is None:
            raise MergeError(
                f"{path} is not a shard's report (it has no shard); run each shard with "
                "--shard=K/N or PHASEGATE_SHARD=K/N"
            )
        _check_own_records(path, report)
        shards.append(Shard(folder, report))
    _check_same(shards)
    _check_each_once(shards)
    return sorted(shards, key=lambda s: s.info.index)


def _check_own_records(path: Path, report: RunReport) -> None:
    """A MergeError unless the report's counts are what its own records add up to."""
    wrong = _counts_unlike_records(report)
    if wrong:
        raise MergeError(
            f"{path}: its counts disagree with its own test records ({'; '.join(wrong)}); "
            "the report was edited or is corrupt: run the shard again"
        )


def _counts_unlike_records(report: RunReport) -> list[str]:
    """Each count of the report that is not what its records add up to, and what they hold."""
    tally = Counter(test.outcome.value for test in report.tests)
    counts = report.counts
    expected = {
        "passed": tally["passed"],
        "failed": tally["failed"],
        "errors": tally["error"],
        "skipped": tally["skipped"],
        "xfailed": tally["xfailed"],
        "xpassed": tally["xpassed"],
        "collection_errors": len(report.collection_errors),
        "skipped_at_collection": len(report.collection_skips),
    }
    wrong = [
        f"{name} {getattr(counts, name)} but its records hold {value}"
        for name, value in expected.items()
        if getattr(counts, name) != value
    ]
    held = len(report.tests)
    if counts.collected < held or (counts.collected != held and not report.incomplete):
        wrong.append(f"collected {counts.collected} but its records hold {held} tests")
    return wrong


def _check_same(shards: list[Shard]) -> None:
    first = shards[0]
    for shard in shards[1:]:
        if shard.info.total != first.info.total:
            raise MergeError(
                f"the shards disagree on how many there are: {first.label} and {shard.label}"
            )
        if shard.info.gate != first.info.gate:
            raise MergeError(
                f"the shards name different gates: {first.info.gate!r} in {first.label} and "
                f"{shard.info.gate!r} in {shard.label}"
            )
        if shard.info.suite_digest != first.info.suite_digest:
            raise MergeError(
                f"the shards collected different suites: {first.info.suite_size} tests in "
                f"{first.label}, {shard.info.suite_size} in {shard.label}; were they run on "
                "different commits or with different options?"
            )
        _check_same_commit(first, shard)


def _check_same_commit(first: Shard, shard: Shard) -> None:
    """A MergeError when both shards name their commit and the commits differ."""
    sha, other = _sha(first), _sha(shard)
    if sha and other and sha != other:
        raise MergeError(
            f"the shards tested different commits: {sha[:12]} in {first.label}, "
            f"{other[:12]} in {shard.label}"
        )


def _check_each_once(shards: list[Shard]) -> None:
    total = shards[0].info.total
    seen: dict[int, Shard] = {}
    for shard in shards:
        earlier = seen.get(shard.info.index)
        if earlier is not None:
            raise MergeError(
                f"shard {shard.info.index}/{total} was given twice: {earlier.folder} (run "
                f"{earlier.report.run_id}) and {shard.folder} (run {shard.report.run_id}); "
                "give each shard once"
            )
        seen[shard.info.index] = shard
    _check_none_missing(shards, seen)


def _check_none_missing(shards: list[Shard], seen: dict[int, Shard]) -> None:
    total = shards[0].info.total
    missing = [k for k in range(1, total + 1) if k not in seen]
    if missing:
        names = ", ".join(f"{k}/{total}" for k in missing)
        given = ", ".join(shard.label for shard in sorted(shards, key=lambda s: s.info.index))
        raise MergeError(
            f"shard {names} is missing (given: {given}); the tests of a missing shard would "
            "never be judged"
        )


def _sha(shard: Shard) -> str | None:
    return shard.report.git.sha if shard.report.git else None


def merge_reports(shards: Sequence[Shard], *, rootdir: Path) -> RunReport:
    """One run report holding every shard's tests, with counts that add up."""
    tests = _tests_once(shards)
    suite = shards[0].info
    first = shards[0].report
    errors = _collection_errors(shards)
    skips = _collection_skips(shards)
    counts = _counts(shards, _collected(shards), errors=len(errors), skips=len(skips))
    reasons = _reasons(shards)
    started = min(s.report.started_at for s in shards)
    finished = max(s.report.finished_at for s in shards)
    merged_at = datetime.now(timezone.utc)
    return RunReport(
        run_id=f"{merged_at:%Y%m%dT%H%M%SZ}-merged-{suite.suite_digest[:8]}",
        started_at=started,
        finished_at=finished,
        duration_s=(finished - started).total_seconds(),
        environment=first.environment,
        git=first.git,
        invocation=_invocation(shards, rootdir),
        exit_status=_exit_status(shards, counts),
        counts=counts,
        incomplete=bool(reasons),
        incomplete_reasons=reasons,
        tests=tests,
        collection_errors=errors,
        collection_skips=skips,
        warnings=_warnings(shards),
        merged=_merge_info(shards),
    )


def _invocation(shards: Sequence[Shard], rootdir: Path) -> Invocation:
    """The first shard's invocation, from the merge's root, with every shard's workers."""
    return shards[0].report.invocation.model_copy(
        update={
            "rootdir": str(rootdir),
            "workers": sum(s.report.invocation.workers for s in shards),
        }
    )


def _warnings(shards: Sequence[Shard]) -> list[str]:
    """Every shard's warnings, each naming its shard."""
    return [
        f"shard {s.info.index}/{s.info.total}: {warning}"
        for s in shards
        for warning in s.report.warnings
    ]


def _tests_once(shards: Sequence[Shard]) -> list[TestRecord]:
    """Every shard's tests, in shard order; a MergeError if two shards report one test."""
    owner: dict[str, Shard] = {}
    tests: list[TestRecord] = []
    doubled: list[str] = []
    for shard in shards:
        for test in shard.report.tests:
            earlier = owner.setdefault(test.nodeid, shard)
            if earlier is shard:
                tests.append(test)
            else:
                doubled.append(
                    f"{test.nodeid} (shards {earlier.info.index} and {shard.info.index})"
                )
    if doubled:
        shown = "; ".join(doubled[:5]) + (
            f" and {len(doubled) - 5} more" if len(doubled) > 5 else ""
        )
        raise MergeError(f"{len(doubled)} test(s) were reported by more than one shard: {shown}")
    return tests


def _collected(shards: Sequence[Shard]) -> int:
    """How many tests the shards collected together; a MergeError unless the whole suite."""
    suite = shards[0].info
    collected = sum(s.report.counts.collected for s in shards)
    if collected != suite.suite_size:
        raise MergeError(
            f"the shards collected {collected} tests together, but the suite has "
            f"{suite.suite_size}: "
            + ", ".join(f"{s.label}: {s.report.counts.collected}" for s in shards)
        )
    return collected


#: The counts of tests that each shard ran, added up over the shards.
_ADDED = ("passed", "failed", "errors", "skipped", "xfailed", "xpassed")


def _counts(shards: Sequence[Shard], collected: int, *, errors: int, skips: int) -> Counts:
    """The shards' counts added up; collection errors and skips counted once."""
    suite_size = shards[0].info.suite_size
    first = shards[0].report.counts
    added = {name: sum(getattr(s.report.counts, name) for s in shards) for name in _ADDED}
    return Counts(
        collected=collected,
        **added,
        # Each shard deselected the others' tests; what is left was deselected by the user.
        deselected=max(0, first.deselected - (suite_size - first.collected)),
        collection_errors=errors,
        skipped_at_collection=skips,
    )


def _merge_info(shards: Sequence[Shard]) -> MergeInfo:
    suite = shards[0].info
    return MergeInfo(
        shards=[
            MergedShard(
                index=s.info.index,
                total=s.info.total,
                run_id=s.report.run_id,
                source=str(s.folder),
                collected=s.report.counts.collected,
                duration_s=s.report.duration_s,
            )
            for s in shards
        ],
        suite_size=suite.suite_size,
        suite_digest=suite.suite_digest,
    )


def _collection_errors(shards: Sequence[Shard]) -> list[CollectionError]:
    """Each shard collects the whole suite, so each reports the same collection errors."""
    found: dict[str, CollectionError] = {}
    for shard in shards:
        for error in shard.report.collection_errors:
            found.setdefault(error.nodeid, error)
    return list(found.values())


def _collection_skips(shards: Sequence[Shard]) -> list[CollectionSkip]:
    """Each shard collects the whole suite, so each reports the same skipped collectors."""
    found: dict[str, CollectionSkip] = {}
    for shard in shards:
        for skip in shard.report.collection_skips:
            found.setdefault(skip.nodeid, skip)
    return list(found.values())


def _reasons(shards: Sequence[Shard]) -> list[str]:
    by_reason: dict[str, list[str]] = {}
    for shard in shards:
        for reason in shard.report.incomplete_reasons:
            by_reason.setdefault(reason, []).append(f"{shard.info.index}/{shard.info.total}")
    return [
        f"shard{'s' if len(names) > 1 else ''} {', '.join(names)}: {reason}"
        for reason, names in by_reason.items()
    ]


def _exit_status(shards: Sequence[Shard], counts: Counts) -> int:
    if counts.failed or counts.errors or counts.collection_errors:
        return 1
    statuses = [s.report.exit_status for s in shards if not _got_no_test(s)]
    return max(statuses, default=5)


def _got_no_test(shard: Shard) -> bool:
    """A shard that got no test (a suite smaller than N) exits 5; that is not a failure."""
    return shard.report.exit_status == 5 and shard.report.counts.collected == 0


def merge_coverage(shards: Sequence[Shard], target: Path, *, rootdir: Path) -> Path:
    """Combine the shards' coverage data into ``target`` (a new data file)."""
    coverage = require("coverage", what="merging coverage data", package="coverage", extra="gate")
    missing = [s.label for s in shards if not (s.folder / COVERAGE_DATA).is_file()]
    if missing:
        raise MergeError(
            f"no coverage data ({COVERAGE_DATA}) in shard {', '.join(missing)}; the gate "
            "measures coverage, so every shard must keep it: run the shards with "
            "--gate=NAME (not --gate=record) and upload their artifacts folders whole, "
            "hidden files included"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        target.unlink()  # a data file is a database: start anew, never merge into an old one
    with contextlib.closing(coverage.CoverageData(basename=str(target))) as combined:
        for shard in shards:
            with contextlib.closing(_read_coverage(coverage, shard)) as data:
                move = _mover(Path(shard.report.invocation.rootdir), rootdir)
                combined.update(data, map_path=move)
        combined.write()
    return target


def _read_coverage(coverage: ModuleType, shard: Shard) -> CoverageData:
    """The shard's coverage data, or a MergeError naming the shard."""
    path = shard.folder / COVERAGE_DATA
    data: CoverageData = coverage.CoverageData(basename=str(path))
    try:
        if path.stat().st_size == 0:
            raise OSError(f"{path} is empty, not a coverage data file")
        data.read()
    except (coverage.exceptions.CoverageException, OSError) as exc:
        data.close()
        raise MergeError(
            f"the coverage data of shard {shard.label} cannot be read: {exc}; run the "
            "shard again, or upload its artifacts folder whole"
        ) from exc
    return data


def _mover(source: Path, target: Path) -> Callable[[str], str]:
    def move(name: str) -> str:
        path = Path(name)
        try:
            return str(target / path.relative_to(source))
        except ValueError:
            return name  # outside the shard's project: left as measured

    return move
