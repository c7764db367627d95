"""coverage: line and branch coverage of the run, in total and on new code (coverage.py).

Coverage is measured in the same run as the tests (see :mod:`phasegate.gates.coverage_run`);
this check reads its figures, per file as coverage.py's JSON report gives them (``files`` and
``totals``), taken from coverage.py's analysis without writing that report. New-code coverage
counts only executable lines that changed against the base, and branches that start on such
lines. Each run of uncovered new lines is a finding.

The report is recognized before it is believed: coverage.py's ``meta``, ``files`` and
``totals``, each file with its executed and missing lines as lists of line numbers, and totals
that agree with the files (as many statements and covered lines, and branches when measured).
``{}``, a report of another shape, or totals that do not add up are an error; so is a report
measuring no file at all while the project has source files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import ClassVar, Literal, TypeGuard

from phasegate.gates.coverage_run import NOTES_KEY, CoverageFigures, FileFigures
from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import locate
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec, NoOptions
from phasegate.gates.tools import INSTALL_HINT
from phasegate.model.gate import Finding, MetricValue, Severity, ToolInfo

__all__ = ["CoverageCheck", "coverage_metrics"]


class CoverageCheck:
    """Fails by default when less than 80% of the new executable lines ran."""

    id: ClassVar[str] = "coverage"
    title: ClassVar[str] = "coverage.py, line and branch"
    kind: ClassVar[Literal["static", "session"]] = "session"
    options_model: ClassVar[type[NoOptions]] = NoOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("line_rate", "executed lines / executable lines", "rate"),
        MetricSpec("branch_rate", "branches taken / branches", "rate"),
        MetricSpec("lines", "executable lines"),
        MetricSpec("lines_covered", "executable lines that ran"),
        MetricSpec("branches", "branches"),
        MetricSpec("branches_covered", "branches taken"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="line_rate", scope="new", op="<", value=0.8),
    )

    def tool_info(self) -> ToolInfo | None:
        import importlib.metadata

        try:
            return ToolInfo(name="coverage", version=importlib.metadata.version("coverage"))
        except importlib.metadata.PackageNotFoundError:
            raise CheckError("coverage is not installed", fix=INSTALL_HINT) from None

    def cache_inputs(self, ctx: CheckContext, options: NoOptions) -> Sequence[Path] | None:
        return None  # it reads this run

    def measure(self, ctx: CheckContext, options: NoOptions) -> Measurement:
        document = _measured(ctx)
        files = _recognized(document)
        if not files and ctx.project.source_files:
            raise CheckError(
                f"coverage.py measured no file, though the project has "
                f"{len(ctx.project.source_files)} source files",
                fix="check [tool.coverage.run] source and omit, and that the tests import the "
                "project's code",
            )
        notes = [str(note) for note in document.get(NOTES_KEY, [])]
        overall = coverage_metrics(files.items(), lambda _path: None)
        new = coverage_metrics(files.items(), ctx.new_code.lines_of)
        findings = list(_uncovered_new_lines(ctx, files))
        rate = new["line_rate"] if new["line_rate"] is not None else overall["line_rate"]
        return Measurement(
            summary=_summary(overall, new, ctx.new_code.all_new)
            + "".join(f" Note: {note}" for note in notes[:3]),
            score=float(rate) if isinstance(rate, float) else 1.0,
            metrics=overall,
            new_code_metrics=new,
            findings=findings,
        )


def _measured(ctx: CheckContext) -> CoverageFigures:
    """The coverage figures of this run, or an error saying why there are none."""
    session = ctx.session
    if session is not None and session.coverage_json is not None:
        return session.coverage_json
    problem = session.coverage_problem if session else None
    raise CheckError(
        f"coverage was not measured for this run: {problem or 'no coverage data'}",
        fix=f"run the gate from pytest (pytest --gate=...) with coverage installed "
        f"({INSTALL_HINT})",
    )


#: The totals coverage.py's report gives, in the order they are checked against the files.
_TOTALS = ("num_statements", "covered_lines", "num_branches", "covered_branches")


def _recognized(document: object) -> dict[str, FileFigures]:
    """The ``files`` of a coverage.py JSON report, once its shape and totals check out."""
    if not isinstance(document, dict):
        raise _not_coverage(f"it is {type(document).__name__}, not an object")
    meta, files, totals = document.get("meta"), document.get("files"), document.get("totals")
    if not isinstance(meta, dict) or not isinstance(files, dict) or not isinstance(totals, dict):
        raise _not_coverage("it lacks meta, files or totals")
    recognized = {str(path): _file_figures(str(path), entry) for path, entry in files.items()}
    sums = dict.fromkeys(_TOTALS, 0)
    for figures in recognized.values():
        for key, count in _file_totals(figures).items():
            sums[key] += count
    _refuse_other_totals(totals, sums, branch_coverage=bool(meta.get("branch_coverage")))
    return recognized


def _not_coverage(what: str) -> CheckError:
    return CheckError(
        f"the coverage report is not one coverage.py writes: {what}",
        fix="delete the artifacts folder's coverage/ and run the gate again",
    )


def _file_figures(path: str, entry: object) -> FileFigures:
    """One file's lines and branches, once they are lists of line numbers and of pairs."""
    if not isinstance(entry, dict):
        raise _not_coverage(f"{path} has no list of executed and missing line numbers")
    executed, missing = entry.get("executed_lines"), entry.get("missing_lines")
    if not _numbers(executed) or not _numbers(missing):
        raise _not_coverage(f"{path} has no list of executed and missing line numbers")
    return {
        "executed_lines": executed,
        "missing_lines": missing,
        "executed_branches": _arcs(path, entry.get("executed_branches", []), "executed"),
        "missing_branches": _arcs(path, entry.get("missing_branches", []), "missing"),
    }


def _arcs(path: str, arcs: object, which: str) -> list[list[int]]:
    """A file's ``which`` branches, each a pair of line numbers (from, to)."""
    pairs = (
        [arc for arc in arcs if _numbers(arc) and len(arc) == 2] if isinstance(arcs, list) else []
    )
    if not isinstance(arcs, list) or len(pairs) != len(arcs):
        raise _not_coverage(f"{path} has {which} branches that are not pairs of line numbers")
    return pairs


def _file_totals(figures: FileFigures) -> dict[str, int]:
    """What one file adds to each of the report's totals."""
    executed, missing = figures["executed_lines"], figures["missing_lines"]
    taken = len(figures.get("executed_branches", ()))
    return {
        "num_statements": len(executed) + len(missing),
        "covered_lines": len(executed),
        "num_branches": taken + len(figures.get("missing_branches", ())),
        "covered_branches": taken,
    }


def _refuse_other_totals(
    totals: Mapping[str, object], sums: dict[str, int], *, branch_coverage: bool
) -> None:
    """Refuse totals that are not what the files add up to (branches only when measured)."""
    for key in _TOTALS:
        given = totals.get(key)
        if key.endswith("branches") and given is None and not branch_coverage:
            continue
        if isinstance(given, bool) or given != sums[key]:
            raise _not_coverage(f"totals.{key} is {given!r}, but its files add up to {sums[key]}")


def _numbers(value: object) -> TypeGuard[list[int]]:
    return isinstance(value, list) and all(
        isinstance(item, int) and not isinstance(item, bool) for item in value
    )


def coverage_metrics(
    files: Iterable[tuple[str, FileFigures]], new_lines: Callable[[str], frozenset[int] | None]
) -> dict[str, MetricValue]:
    """Line and branch figures; ``new_lines(path)`` gives a file's new lines (None: all)."""
    lines = covered = branches = taken = 0
    for path, entry in files:
        wanted: frozenset[int] | None = new_lines(path)
        executed = _counted(entry["executed_lines"], wanted)
        missing = _counted(entry["missing_lines"], wanted)
        lines += len(executed) + len(missing)
        covered += len(executed)
        arcs_taken = _counted_arcs(entry.get("executed_branches", ()), wanted)
        branches += arcs_taken + _counted_arcs(entry.get("missing_branches", ()), wanted)
        taken += arcs_taken
    return {
        "line_rate": round(covered / lines, 4) if lines else None,
        "branch_rate": round(taken / branches, 4) if branches else None,
        "lines": lines,
        "lines_covered": covered,
        "branches": branches,
        "branches_covered": taken,
    }


def _counted(lines: Iterable[int], wanted: frozenset[int] | None) -> set[int]:
    """The distinct ``lines`` among the ``wanted`` ones (None: all of them)."""
    return set(lines) if wanted is None else set(lines) & wanted


def _counted_arcs(arcs: Iterable[Sequence[int]], wanted: frozenset[int] | None) -> int:
    """How many ``arcs`` start on a ``wanted`` line (None: all of them)."""
    return sum(1 for arc in arcs if wanted is None or arc[0] in wanted)


def _uncovered_new_lines(ctx: CheckContext, files: dict[str, FileFigures]) -> Iterable[Finding]:
    for path, entry in sorted(files.items()):
        wanted = ctx.new_code.lines_of(path)
        missing = sorted(
            line for line in entry["missing_lines"] if wanted is None or line in wanted
        )
        for first, last in _runs(missing):
            span = f"line {first}" if first == last else f"lines {first}-{last}"
            yield locate(
                ctx.project,
                ctx.new_code,
                rule="uncovered",
                severity=Severity.MEDIUM,
                message=f"{span} never ran in the tests",
                path=ctx.project.root / path,
                line=first,
            )


def _runs(lines: list[int]) -> Iterable[tuple[int, int]]:
    if not lines:
        return
    start = previous = lines[0]
    for line in lines[1:]:
        if line != previous + 1:
            yield start, previous
            start = line
        previous = line
    yield start, previous


def _summary(overall: dict[str, MetricValue], new: dict[str, MetricValue], all_new: bool) -> str:
    def pct(value: MetricValue) -> str:
        return "n/a" if not isinstance(value, float) else f"{value:.1%}"

    text = f"line coverage {pct(overall['line_rate'])}, branch {pct(overall['branch_rate'])}"
    if all_new:
        return text + " (no base: all code counts as new code)"
    if new["lines"] == 0:
        return text + "; no executable line changed"
    return text + f"; new code {pct(new['line_rate'])} of {new['lines']} changed lines"
