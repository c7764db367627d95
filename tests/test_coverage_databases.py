"""Every coverage data phasegate opens has its database closed when phasegate is done with it.

A coverage data file is an SQLite database, and coverage.py keeps an in-memory one open until
it is closed (it closes its own only at exit, and only for a measurement it started). Python
3.13 warns about a connection that is collected open (``ResourceWarning: unclosed database``),
which the suite's ``filterwarnings = ["error"]`` turns into a failure of whichever test runs
when the garbage collector does. Here each path is run with every connection counted (Python
3.11 does not warn, so the count is what fails there), then the garbage collected with
``ResourceWarning`` as an error.
"""

from __future__ import annotations

import gc
import itertools
import json
import sqlite3
import sys
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import coverage
import pytest

from phasegate.autodebug.localize import CONTEXTS_DATA_ENV, collect_spectrum
from phasegate.autodebug.project import Project, TestFiles
from phasegate.autodebug.runner import RunResult
from phasegate.autodebug.settings import DEFAULT_TEST_FILES
from phasegate.gates.coverage_run import CoverageRun, open_data, read_data_file
from phasegate.gates.coverage_share import serve
from phasegate.gates.mutation_runs import read_contexts
from phasegate.shards.merge import MergeError, merge_coverage, read_shards
from tests.shards.test_merge import shard_report

SOURCE = "def sign(value):\n    if value > 0:\n        return 1\n    return 0\n"


class _Counted(sqlite3.Connection):
    """A connection that notes in its record whether it was closed."""

    record: dict[int, bool]
    number: int

    def close(self) -> None:
        self.record[self.number] = True
        super().close()


@pytest.fixture
def unclosed(monkeypatch: pytest.MonkeyPatch) -> Callable[[], list[str]]:
    """Count the connections opened from here on; call it for the ones never closed (after a
    garbage collection that turns a ``ResourceWarning`` into a failure)."""
    record: dict[int, bool] = {}
    numbers = itertools.count()
    connect = sqlite3.connect

    def counted(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        connection = connect(*args, factory=_Counted, **kwargs)  # coverage.py names no factory
        connection.record, connection.number = record, next(numbers)
        record[connection.number] = False
        return connection

    monkeypatch.setattr(sqlite3, "connect", counted)
    collected_open: list[str] = []

    def unraisable(hook: Any) -> None:
        collected_open.append(repr(hook.exc_value))

    def left_open() -> list[str]:
        monkeypatch.setattr(sys, "unraisablehook", unraisable)
        with warnings.catch_warnings():
            warnings.simplefilter("error", ResourceWarning)
            gc.collect()
        left = [f"connection {number}" for number, closed in record.items() if not closed]
        return left + collected_open

    return left_open


def _data_file(path: Path, lines: Mapping[str, list[int]], context: str = "") -> Path:
    data = coverage.CoverageData(basename=str(path))
    data.set_context(context)
    data.add_lines({name: dict.fromkeys(numbers) for name, numbers in lines.items()})
    data.write()
    data.close()
    return path


def _project(root: Path) -> Path:
    (root / "shapes").mkdir()
    (root / "shapes" / "__init__.py").write_text("")
    (root / "shapes" / "core.py").write_text(SOURCE)
    return root / "shapes" / "core.py"


def _shard_folders(tmp_path: Path) -> list[Path]:
    """Two shards' artifacts folders, their coverage data still to be written."""
    folders = [tmp_path / f"s{k}" for k in (1, 2)]
    for k, folder in enumerate(folders, start=1):
        (folder / "coverage").mkdir(parents=True)
        (folder / "report.json").write_text(shard_report(k, 2).model_dump_json())
    return folders


def test_merging_shards_closes_each_shards_data_and_the_merged_data(
    tmp_path: Path, unclosed: Callable[[], list[str]]
) -> None:
    folders = _shard_folders(tmp_path)
    for k, folder in enumerate(folders, start=1):
        _data_file(folder / "coverage" / ".coverage", {str(tmp_path / "m.py"): [k]})
    target = merge_coverage(
        read_shards(folders), tmp_path / "merged" / ".coverage", rootdir=tmp_path
    )
    assert unclosed() == []
    merged = coverage.CoverageData(basename=str(target))
    merged.read()
    assert merged.lines(str(tmp_path / "m.py")) in ([1, 2], [2, 1])
    merged.close()


def test_a_shard_whose_data_cannot_be_read_still_has_it_closed(
    tmp_path: Path, unclosed: Callable[[], list[str]]
) -> None:
    folders = _shard_folders(tmp_path)
    for folder in folders:
        (folder / "coverage" / ".coverage").write_bytes(b"SQLite format 3\x00")
    with pytest.raises(MergeError, match="coverage data of shard 1/2"):
        merge_coverage(read_shards(folders), tmp_path / "merged" / ".coverage", rootdir=tmp_path)
    assert unclosed() == []


def test_the_mutation_checks_contexts_are_read_and_closed(
    tmp_path: Path, unclosed: Callable[[], list[str]]
) -> None:
    module = _project(tmp_path)
    data = _data_file(tmp_path / "contexts.coverage", {str(module): [1, 2]}, "test_s.py::test_a")
    assert read_contexts(data, tmp_path) == {
        "shapes/core.py": {1: frozenset({"test_s.py::test_a"}), 2: frozenset({"test_s.py::test_a"})}
    }
    assert unclosed() == []


class _ContextsRun:
    """A test runner whose one run writes the contexts plugin's data file, as a run would (or,
    ``torn``, only the first bytes of one)."""

    def __init__(self, module: Path, *, torn: bool = False) -> None:
        self.module = module
        self.torn = torn
        self.runs = 0

    def run(self, selection: object = None, **options: Any) -> RunResult:
        self.runs += 1
        path = Path(options["env"][CONTEXTS_DATA_ENV])
        if self.torn:
            path.write_bytes(b"SQLite format 3\x00")
        else:
            _data_file(path, {str(self.module): [1, 2]}, "test_s.py::test_a")
        return RunResult(outcomes={"test_s.py::test_a": "failed"})


def test_the_localization_spectrum_is_read_and_closed(
    tmp_path: Path, unclosed: Callable[[], list[str]]
) -> None:
    module = _project(tmp_path)
    project = Project(tmp_path, TestFiles(DEFAULT_TEST_FILES))
    spectrum = collect_spectrum(_ContextsRun(module), project, tmp_path / "scratch")  # type: ignore[arg-type]
    assert spectrum.covered == {("shapes/core.py", "sign", 1): {"test_s.py::test_a"}}
    assert unclosed() == []


def test_a_localization_spectrum_that_cannot_be_read_is_its_error_and_closed(
    tmp_path: Path, unclosed: Callable[[], list[str]]
) -> None:
    module = _project(tmp_path)
    project = Project(tmp_path, TestFiles(DEFAULT_TEST_FILES))
    spectrum = collect_spectrum(_ContextsRun(module, torn=True), project, tmp_path / "scratch")  # type: ignore[arg-type]
    assert spectrum.covered == {}
    assert spectrum.error is not None
    assert spectrum.error.startswith("its per-test coverage data could not be read: ")
    assert "contexts-1.coverage" in spectrum.error
    assert unclosed() == []


@pytest.fixture
def measured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project measured into its ``.coverage``, with a ``[paths]`` mapping (coverage.py maps
    the data into a database in memory before it reports)."""
    monkeypatch.chdir(tmp_path)  # coverage.py names files from the current folder
    module = _project(tmp_path)
    (tmp_path / ".coveragerc").write_text("[paths]\nsource =\n    shapes/\n    */shapes/\n")
    return _data_file(tmp_path / ".coverage", {str(module): [1, 2, 3]})


def test_the_figures_of_a_data_file_are_read_and_closed(
    measured: Path, unclosed: Callable[[], list[str]]
) -> None:
    figures = read_data_file(measured.parent, measured)
    assert figures["files"]["shapes/core.py"]["missing_lines"] == [4]
    assert unclosed() == []


def test_the_coverage_helper_closes_what_it_analysed(
    measured: Path, unclosed: Callable[[], list[str]]
) -> None:
    root = measured.parent
    files = [str(root / "shapes" / "core.py")]
    (root / "claims").mkdir()
    request = {"root": str(root), "data_file": str(measured), "files": files}
    serve(json.dumps(request | {"claims": str(root / "claims"), "out": str(root / "out.json")}))
    assert (root / "out.json").is_file()
    with open_data(coverage, root, measured) as cov:
        assert cov.get_data().measured_files() == set(files)
    assert unclosed() == []


def test_a_measurement_merged_with_a_workers_and_saved_is_closed(
    measured: Path, unclosed: Callable[[], list[str]]
) -> None:
    root = measured.parent
    worker = coverage.CoverageData(no_disk=True)
    worker.add_lines({str(root / "shapes" / "core.py"): dict.fromkeys([1, 2, 4])})
    payload = worker.dumps()
    worker.close(force=True)
    run = CoverageRun(root, [root / "shapes"])  # never started: it holds the workers' data
    run.merge(payload)
    figures = run.report(data_path=root / ".phasegate" / "coverage" / ".coverage")
    assert figures["files"]["shapes/core.py"]["missing_lines"] == [3]
    run.close()
    assert unclosed() == []
