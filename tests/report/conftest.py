"""An artifacts folder with a failing run and its verdict, written from the factories."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.model.gate import CheckStatus, GateVerdict, Severity
from phasegate.model.run import Outcome, RunReport
from tests.factories import check, finding, record, run_report, verdict


def sample_run() -> RunReport:
    return run_report(
        [
            record("tests/test_core.py::test_add"),
            record(
                "tests/test_core.py::test_div",
                Outcome.FAILED,
                exc_type="ZeroDivisionError",
                message="division by zero",
            ),
            record(
                "tests/test_core.py::test_db", Outcome.ERROR, exc_type="OSError", message="no db"
            ),
        ]
    )


def sample_verdict() -> GateVerdict:
    return verdict(
        [
            check(
                "tests",
                CheckStatus.FAILED,
                score=0.33,
                reasoning="failed is 1, fails when > 0",
                findings=[
                    finding(
                        "test-failed",
                        "tests/test_core.py",
                        12,
                        severity=Severity.HIGH,
                        message="tests/test_core.py::test_div: ZeroDivisionError",
                    ),
                ],
                metrics={"collected": 3, "failed": 1},
            ),
            check(
                "coverage",
                CheckStatus.FAILED,
                score=0.6,
                reasoning="line_rate on new code is 0.6, fails when < 0.8",
                findings=[
                    finding("uncovered", "src/app/core.py", 7, message="lines 7-9 never ran")
                ],
                metrics={"line_rate": 0.9, "lines": 100, "lines_covered": 90, "branch_rate": 0.8},
                new_code_metrics={
                    "line_rate": 0.6,
                    "lines": 10,
                    "lines_covered": 6,
                    "branch_rate": None,
                },
            ),
            check(
                "lint",
                CheckStatus.FAILED,
                score=0.9,
                findings=[
                    finding("F401", "src/app/core.py", 1),
                    finding(
                        "E501",
                        "src/app/old.py",
                        40,
                        severity=Severity.LOW,
                        new=False,
                        message="line too long",
                    ),
                ],
            ),
            check(
                "review", CheckStatus.PASSED, requirement="optional", reasoning="approved by sam"
            ),
        ]
    )


def write_artifacts(folder: Path, run: RunReport, gate: GateVerdict) -> Path:
    (folder / "gates").mkdir(parents=True, exist_ok=True)
    (folder / "report.json").write_text(run.model_dump_json())
    (folder / "gates" / f"{gate.gate}.json").write_text(gate.model_dump_json())
    return folder


@pytest.fixture
def artifacts(tmp_path: Path) -> Path:
    return write_artifacts(tmp_path / ".phasegate", sample_run(), sample_verdict())
