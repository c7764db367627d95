"""phasegate report diff BASE HEAD: failures, coverage, score, findings and durations."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.cli import main
from phasegate.model.gate import CheckStatus
from phasegate.model.run import Outcome
from phasegate.report.bundle import load_bundle
from phasegate.report.diff import diff_bundles
from tests.factories import check, finding, record, run_report, verdict
from tests.report.conftest import write_artifacts


@pytest.fixture
def two_runs(tmp_path: Path) -> tuple[Path, Path]:
    base = write_artifacts(
        tmp_path / "base",
        run_report(
            [
                record("t.py::test_a", Outcome.FAILED),
                record("t.py::test_b"),
                record("t.py::test_slow", duration=0.2),
                record("t.py::test_gone"),
            ]
        ),
        verdict(
            [
                check("coverage", metrics={"line_rate": 0.8}, new_code_metrics={"line_rate": 0.9}),
                check("lint", CheckStatus.FAILED, findings=[finding("F401", "src/a.py", 1)]),
            ],
            score=0.8,
        ),
    )
    head = write_artifacts(
        tmp_path / "head",
        run_report(
            [
                record("t.py::test_a"),
                record("t.py::test_b", Outcome.FAILED, exc_type="KeyError", message="'k'"),
                record("t.py::test_slow", duration=0.9),
                record("t.py::test_new"),
            ]
        ),
        verdict(
            [
                check("coverage", metrics={"line_rate": 0.85}, new_code_metrics={"line_rate": 0.7}),
                check(
                    "lint",
                    CheckStatus.FAILED,
                    findings=[
                        finding("F401", "src/a.py", 30),
                        finding("B006", "src/b.py", 2),
                    ],
                ),
            ],
            score=0.75,
        ),
    )
    return base, head


def test_the_diff_finds_what_changed(two_runs: tuple[Path, Path]) -> None:
    base, head = two_runs
    diff = diff_bundles(load_bundle(base), load_bundle(head))
    assert [c.nodeid for c in diff.new_failures] == ["t.py::test_b"]
    assert diff.new_failures[0].detail == "KeyError: 'k'"
    assert [c.nodeid for c in diff.fixed_failures] == ["t.py::test_a"]
    assert diff.removed_tests == ["t.py::test_gone"]
    assert diff.added_tests == 1
    assert diff.score_delta == -0.05
    assert diff.coverage == {"line_rate_overall": [0.8, 0.85], "line_rate_new": [0.9, 0.7]}
    # F401 moved from line 1 to 30: the same finding, not a new one
    assert [(c.check, c.finding.rule) for c in diff.new_findings] == [("lint", "B006")]
    assert diff.fixed_findings == 0
    assert [(c.nodeid, c.ratio) for c in diff.slower] == [("t.py::test_slow", 4.5)]


def test_the_diff_command_prints_it(
    two_runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = two_runs
    assert main(["report", "diff", str(base), str(head)]) == 0
    out = capsys.readouterr().out
    assert "failures: 1 new, 1 fixed, 0 still failing" in out
    assert "  new: t.py::test_b: KeyError: 'k'" in out
    assert "coverage line_rate_new: 90.0% -> 70.0%" in out
    assert "  new: lint B006 src/b.py:2: `os` imported but unused" in out
    assert "  slower: t.py::test_slow: 0.200s -> 0.900s (x4.50)" in out
    assert main(["report", "diff", str(base), str(head), "--format", "markdown"]) == 0
    assert "#### Changes against the base" in capsys.readouterr().out


def test_a_missing_folder_is_a_usage_error(
    two_runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "diff", str(tmp_path / "nope"), str(two_runs[1])]) == 4
    assert "nope is not a folder" in capsys.readouterr().err
