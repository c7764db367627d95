"""On a real project, the coverage figures analysed by the pytest process and the static
checks' process side by side are coverage.py's own report on the same data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import coverage
import pytest

from phasegate.gates.coverage_run import open_data
from phasegate.gates.coverage_share import shared_figures
from phasegate.gates.static_process import StaticChecksProcess
from tests.real.test_real_projects import SUBSETS, checkout


@pytest.mark.slow
def test_figures_shared_with_the_static_process_are_coverage_pys_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = checkout("python-dateutil", tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PHASEGATE_")}
    env["PYTHONPATH"] = str(root / "src")
    run = [sys.executable, "-m", "coverage", "run", "--branch", "--source=src/dateutil"]
    tests = ["-m", "pytest", "-q", "-p", "no:cacheprovider", *SUBSETS["python-dateutil"]]
    tests += ["-W", "ignore::pytest.PytestUnknownMarkWarning"]
    subprocess.run([*run, *tests], cwd=root, env=env, capture_output=True, timeout=900)
    data = root / ".coverage"
    out = tmp_path / "report.json"
    subprocess.run(
        [sys.executable, "-m", "coverage", "json", "-q", f"--data-file={data}", "-o", str(out)],
        cwd=root,
        check=True,
        capture_output=True,
    )
    report = json.loads(out.read_text())
    (tmp_path / "syntax.toml").write_text('name = "syntax"\n[checks.syntax]\n')

    monkeypatch.chdir(root)
    process = StaticChecksProcess(
        root=root,
        gate=str(tmp_path / "syntax.toml"),
        artifacts_dir=tmp_path / "artifacts",
        base=None,
        timeout_s=600,
    )
    process.start()
    with open_data(coverage, root, data) as cov:
        figures = shared_figures(cov, coverage, root, data, process)
    assert set(process.judgements()) == {"syntax"}

    assert len(report["files"]) > 10
    assert list(figures["files"]) == sorted(report["files"])
    for name, entry in report["files"].items():
        assert {key: entry[key] for key in figures["files"][name]} == figures["files"][name]
    assert figures["totals"] == {key: report["totals"][key] for key in figures["totals"]}
    assert len(figures["totals"]) == 4
