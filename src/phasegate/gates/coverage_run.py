"""Measure coverage of a test run with coverage.py, across pytest-xdist workers too.

Each process that runs tests measures in memory (no data file is written by a worker); a
worker hands its data to the controller as bytes (``CoverageData.dumps``), the controller
merges them and saves the combined data to ``.phasegate/coverage/.coverage`` (what
``phasegate merge`` combines across CI shards, and what ``coverage report`` or
``coverage json --data-file=...`` turn into coverage.py's reports). The project's own coverage
configuration (``[tool.coverage]``, ``.coveragerc``) applies; when it names no ``source``, the
project's packages are measured. Branch coverage is always on.

The coverage check needs, per file, the executed and missing lines and branches. coverage.py
has no public call that gives them but its report writers, and its JSON report, which the check
used to read, also works out every function's and class's figures and writes them all to disk:
about a third of its time, for figures nobody read. So the figures are taken from the analyses
coverage.py's own reporters iterate over (``coverage.report_core.get_analysis_to_report``,
with the same path mapping, include and omit settings), in the shape of the JSON report's
``files`` and ``totals``. A coverage.py without those functions is a :class:`MeasurementError`
naming its version: never a guess.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Final, TypedDict

from phasegate.failures import relative_path
from phasegate.optional import require

if TYPE_CHECKING:
    import coverage
    from coverage.plugin import FileReporter
    from coverage.results import Analysis

    from phasegate.gates.coverage_share import ShareHelper

__all__ = [
    "COVERAGE_DATA",
    "NOTES_KEY",
    "CoverageFigures",
    "CoverageRun",
    "FileFigures",
    "MeasurementError",
    "read_data_file",
]

#: The key under which the figures handed to the check carry coverage.py's warnings.
NOTES_KEY: Final = "phasegate_notes"

#: Where the combined data goes, inside the artifacts folder.
COVERAGE_DATA = "coverage/.coverage"


class _FileLines(TypedDict):
    executed_lines: list[int]
    missing_lines: list[int]


class FileFigures(_FileLines, total=False):
    """One file's entry in coverage.py's JSON report, the keys the coverage check reads
    (branches only when branch coverage was measured)."""

    excluded_lines: list[int]
    executed_branches: list[list[int]]
    missing_branches: list[list[int]]


class CoverageMeta(TypedDict):
    """The ``meta`` of coverage.py's JSON report, as far as phasegate writes it."""

    version: str
    branch_coverage: bool


class CoverageTotals(TypedDict, total=False):
    """The ``totals`` of coverage.py's JSON report that the coverage check compares with its
    files (the branch counts only when branch coverage was measured)."""

    num_statements: int
    covered_lines: int
    num_branches: int
    covered_branches: int


class _CoverageReport(TypedDict):
    meta: CoverageMeta
    files: dict[str, FileFigures]
    totals: CoverageTotals


class CoverageFigures(_CoverageReport, total=False):
    """A measurement's figures in the shape of coverage.py's JSON report, with coverage.py's
    warnings under :data:`NOTES_KEY` (what :class:`~phasegate.gates.protocol.SessionData`
    hands the coverage check, which recognizes the shape again before it believes it)."""

    phasegate_notes: list[str]


class CoverageRun:
    """One process's measurement, started as early as possible."""

    def __init__(self, root: Path, packages: Sequence[Path]) -> None:
        module = require("coverage", what="the coverage check", package="coverage", extra="gate")
        self._coverage_module = module
        self.root = root
        probe = module.Coverage(data_file=None, config_file=_config_file(root))
        has_source = bool(probe.get_option("run:source") or probe.get_option("run:source_pkgs"))
        self._cov = module.Coverage(
            data_file=None,
            branch=True,
            config_file=_config_file(root),
            source=None if has_source else [str(path) for path in packages],
        )
        self._started = False
        self.notes: list[str] = []

    def start(self) -> None:
        """Start measuring this process.

        coverage.py warns (here and when data is read) about measured modules that were
        imported before it started: their import-time lines cannot count as run. Such a
        warning must not stop a test run, and a warnings filter of the project may turn it into
        an error: it is kept as a note for the coverage check instead.
        """
        with self._warnings_as_notes():
            self._cov.start()
        self._started = True

    def stop(self) -> None:
        """Stop measuring (safe to call twice)."""
        if self._started:
            self._cov.stop()
            self._started = False

    def switch_context(self, name: str) -> None:
        """Record what runs from now on under ``name`` (a test's node id): per-test contexts,
        which the mutation check reads to run each mutant against only its tests."""
        if self._started:
            self._cov.switch_context(name)

    def contexts(self, relpaths: Sequence[str]) -> dict[str, dict[int, frozenset[str]]]:
        """``{path: {line: contexts that ran it}}`` for the files (relative to the root) that
        were measured; ``""`` is the context of code run outside any test (imports)."""
        data = self._cov.get_data()
        wanted = {str((self.root / relpath).resolve()): relpath for relpath in relpaths}
        found: dict[str, dict[int, frozenset[str]]] = {}
        for filename in data.measured_files():
            relpath = wanted.get(str(Path(filename).resolve()))
            if relpath is not None:
                by_line = data.contexts_by_lineno(filename)
                found[relpath] = {line: frozenset(names) for line, names in by_line.items()}
        return found

    def dumps(self) -> bytes:
        """This process's data as bytes, for the controller."""
        self.stop()
        with self._warnings_as_notes():
            data: bytes = self._cov.get_data().dumps()
        return data

    def merge(self, payload: bytes) -> None:
        """Add a worker's data to this measurement."""
        other = self._coverage_module.CoverageData(no_disk=True)
        try:
            other.loads(payload)
            self._cov.get_data().update(other)
        finally:
            other.close(force=True)  # in memory: only a forced close closes it

    def report(
        self, *, data_path: Path | None = None, helper: ShareHelper | None = None
    ) -> CoverageFigures:
        """The figures of this measurement (and its data saved to ``data_path``), analysed
        with ``helper`` taking part of the files when there is one
        (:mod:`phasegate.gates.coverage_share`).

        File names in the figures are relative to the project root.
        """
        self.stop()
        with self._warnings_as_notes():
            if data_path is not None:
                data_path.parent.mkdir(parents=True, exist_ok=True)
                if data_path.exists():
                    data_path.unlink()  # a data file is a database: start anew, not merged
                with contextlib.closing(
                    self._coverage_module.CoverageData(basename=str(data_path))
                ) as saved:
                    saved.update(self._cov.get_data())
                    saved.write()
            if helper is not None and data_path is not None and _here_at(self.root):
                from phasegate.gates.coverage_share import shared_figures

                figures = shared_figures(
                    self._cov, self._coverage_module, self.root, data_path, helper
                )
            else:
                figures = _figures(self._cov, self._coverage_module, self.root)
        figures[NOTES_KEY] = list(dict.fromkeys(self.notes))
        return figures

    def close(self) -> None:
        """Stop measuring and close the data's database: nothing is read from this
        measurement after."""
        self.stop()
        with self._warnings_as_notes():
            _close_data(self._cov)

    @contextlib.contextmanager
    def _warnings_as_notes(self) -> Iterator[None]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
        self.notes.extend(str(warning.message) for warning in caught)


class MeasurementError(Exception):
    """Coverage was measured but nothing could be reported."""


def read_data_file(root: Path, data_file: Path | None) -> CoverageFigures:
    """The figures of an existing data file (merged shards; ``None``: the one the project's
    coverage configuration names, as pytest-cov writes it)."""
    module = require("coverage", what="the coverage check", package="coverage", extra="gate")
    with open_data(module, root, data_file) as cov:
        return _figures(cov, module, root)


def _figures(cov: coverage.Coverage, module: ModuleType, root: Path) -> CoverageFigures:
    """Per file, the executed, missing and excluded lines and the executed and missing
    branches, with the totals, in the shape of coverage.py's JSON report."""
    with prepared(cov, module) as analyses:
        has_arcs = bool(cov.get_data().has_arcs())
        entries = [
            # coverage.py names files relative to the current folder; the checks want the root.
            (relative_path(Path(reporter.filename).resolve(), root), *_entry(analysis, has_arcs))
            for reporter, analysis in analyses(None)
        ]
    return figures_of(cov, module, entries)


Analyses = Callable[[Sequence[str] | None], Iterable[tuple["FileReporter", "Analysis"]]]


@contextlib.contextmanager
def prepared(cov: coverage.Coverage, module: ModuleType) -> Iterator[Analyses]:
    """``cov``'s data mapped as its reports map it (``[paths]``), and coverage.py's iterator
    over the analyses of the files it reports (of the files named, or of all measured)."""
    try:
        from coverage.report_core import get_analysis_to_report

        prepare = cov._prepare_data_for_reporting  # the [paths] mapping its reports apply
    except (ImportError, AttributeError) as exc:
        raise MeasurementError(
            f"coverage.py {module.__version__} does not analyse files as phasegate reads them "
            f"({exc}); install a coverage.py from 7.11 on that has them"
        ) from exc
    cov.set_option("report:ignore_errors", True)  # a file that no longer parses is left out
    prepare()

    def analyses(files: Sequence[str] | None) -> Iterable[tuple[FileReporter, Analysis]]:
        return get_analysis_to_report(cov, list(files) if files is not None else None)

    try:
        yield analyses
    except module.exceptions.NoDataError as exc:
        raise MeasurementError(f"coverage.py measured no code: {exc}") from exc


def _entry(analysis: Analysis, has_arcs: bool) -> tuple[FileFigures, tuple[int, int, int, int]]:
    """One analysis as a file's entry of the JSON report, with its four counts."""
    entry: FileFigures = {
        "executed_lines": sorted(analysis.executed),
        "missing_lines": sorted(analysis.missing),
        "excluded_lines": sorted(analysis.excluded),
    }
    numbers = analysis.numbers
    if has_arcs:
        entry["executed_branches"] = _arcs(analysis.executed_branch_arcs())
        entry["missing_branches"] = _arcs(analysis.missing_branch_arcs())
    counts = (
        numbers.n_statements,
        numbers.n_executed,
        numbers.n_branches if has_arcs else 0,
        numbers.n_executed_branches if has_arcs else 0,
    )
    return entry, counts


def file_analysis(
    cov: coverage.Coverage, module: ModuleType, analyses: Analyses, name: str
) -> tuple[FileFigures, tuple[int, int, int, int]] | None:
    """One measured file's entry and counts (``analyses`` from :func:`prepared`); None when
    coverage.py's reports leave it out (its report settings omit it, or it no longer parses)."""
    try:
        found = list(analyses([name]))
    except module.exceptions.NoDataError:
        return None  # the report settings leave it out
    return _entry(found[0][1], bool(cov.get_data().has_arcs())) if found else None


def figures_of(
    cov: coverage.Coverage,
    module: ModuleType,
    entries: Sequence[tuple[str, FileFigures, Sequence[int]]],
) -> CoverageFigures:
    """The figures document of the files' entries, with their totals."""
    has_arcs = bool(cov.get_data().has_arcs())
    totals: CoverageTotals = {
        "num_statements": sum(entry[2][0] for entry in entries),
        "covered_lines": sum(entry[2][1] for entry in entries),
    }
    if has_arcs:
        totals["num_branches"] = sum(entry[2][2] for entry in entries)
        totals["covered_branches"] = sum(entry[2][3] for entry in entries)
    files = {relpath: figures for relpath, figures, _counts in entries}
    meta: CoverageMeta = {"version": module.__version__, "branch_coverage": has_arcs}
    return {"meta": meta, "files": files, "totals": totals}


@contextlib.contextmanager
def open_data(
    module: ModuleType, root: Path, data_file: Path | None
) -> Iterator[coverage.Coverage]:
    """A coverage.py with the project's settings and the data saved in ``data_file`` (``None``:
    the one the project's coverage configuration names), its data closed at the end."""
    if data_file is None:
        cov: coverage.Coverage = module.Coverage(config_file=_config_file(root))
    else:
        cov = module.Coverage(data_file=str(data_file), config_file=_config_file(root))
    try:
        cov.load()
        yield cov
    finally:
        _close_data(cov)


def _close_data(cov: coverage.Coverage) -> None:
    """Close the databases of ``cov``'s data. coverage.py closes them only at exit, and only
    for a measurement it started; a measurement never started, and a report's copy mapped by
    ``[paths]``, hold them in memory, which only a forced close closes. Python 3.13 warns
    (``ResourceWarning``) about a database collected open.

    ``get_data`` gives the data reports read (the mapped copy, once there is one); the data
    it replaced is only on the list coverage.py keeps to close at exit (``_data_to_close``,
    there from 7.11 on, read only if it is there)."""
    for data in [cov.get_data(), *getattr(cov, "_data_to_close", [])]:
        data.close(force=True)


def _here_at(root: Path) -> bool:
    """Whether this process works in ``root``, as the static checks' process does (file names
    relative to the current folder mean the same there)."""
    try:
        return Path.cwd().resolve() == root.resolve()
    except OSError:
        return False


def _arcs(branch_arcs: dict[int, list[int]]) -> list[list[int]]:
    return [[source, target] for source, targets in branch_arcs.items() for target in targets]


def _config_file(root: Path) -> str | bool:
    """The project's coverage configuration file, found from the root (not the cwd)."""
    markers = {
        ".coveragerc": "",
        "pyproject.toml": "[tool.coverage",
        "setup.cfg": "[coverage:",
        "tox.ini": "[coverage:",
    }
    for name, marker in markers.items():
        path = root / name
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if marker in text:
            return str(path)
    return False
