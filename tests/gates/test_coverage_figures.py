"""The coverage figures read from coverage.py's data agree with coverage.py's own JSON report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from phasegate.gates.coverage_run import MeasurementError, read_data_file

MODULE = """\
def sign(value):
    if value > 0:
        return 1
    if value < 0:
        return -1
    return 0


def unused(values):
    for value in values:
        if value:
            return value
    return None


def excluded():  # pragma: no cover
    return "never"
"""

SCRIPT = "from shapes.core import sign\n\nassert sign(3) == 1\nassert sign(0) == 0\n"


def measure(root: Path, *, branch: bool) -> Path:
    """Run a script under coverage.py in a process of its own; return the data file."""
    (root / "shapes").mkdir()
    (root / "shapes" / "__init__.py").write_text("")
    (root / "shapes" / "core.py").write_text(MODULE)
    (root / "run.py").write_text(SCRIPT)
    command = [sys.executable, "-m", "coverage", "run", "--source=shapes", "run.py"]
    if branch:
        command.insert(4, "--branch")
    subprocess.run(command, cwd=root, check=True, capture_output=True)
    return root / ".coverage"


def coverage_json(root: Path, data: Path) -> dict[str, object]:
    out = root / "report.json"
    subprocess.run(
        [sys.executable, "-m", "coverage", "json", "-q", f"--data-file={data}", "-o", str(out)],
        cwd=root,
        check=True,
        capture_output=True,
    )
    loaded: dict[str, object] = json.loads(out.read_text())
    return loaded


@pytest.mark.parametrize("branch", [True, False])
def test_the_figures_are_coverage_pys_json_report_without_what_nobody_reads(
    tmp_path: Path, branch: bool
) -> None:
    data = measure(tmp_path, branch=branch)
    figures = read_data_file(tmp_path, data)
    report = coverage_json(tmp_path, data)
    files = report["files"]
    assert isinstance(files, dict)
    assert sorted(figures["files"]) == sorted(files) == ["shapes/__init__.py", "shapes/core.py"]
    keys = ["executed_lines", "missing_lines", "excluded_lines"]
    keys += ["executed_branches", "missing_branches"] if branch else []
    for name, entry in files.items():
        assert {key: entry[key] for key in keys} == figures["files"][name]
    core = figures["files"]["shapes/core.py"]
    assert 5 in core["missing_lines"]  # sign() never saw a negative value
    totals = report["totals"]
    assert isinstance(totals, dict)
    assert figures["totals"] == {key: totals[key] for key in figures["totals"]}
    assert ("num_branches" in figures["totals"]) is branch
    assert figures["meta"]["branch_coverage"] is branch


def test_a_data_file_that_measured_nothing_is_an_error(tmp_path: Path) -> None:
    import coverage

    data = coverage.CoverageData(basename=str(tmp_path / ".coverage"))
    data.write()
    data.close()
    with pytest.raises(MeasurementError, match="measured no code"):
        read_data_file(tmp_path, tmp_path / ".coverage")


def test_a_coverage_py_without_its_analysis_is_an_error_naming_its_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = measure(tmp_path, branch=True)
    monkeypatch.setitem(sys.modules, "coverage.report_core", None)
    with pytest.raises(MeasurementError, match=r"coverage\.py \d+\.\d+.* does not analyse files"):
        read_data_file(tmp_path, data)
