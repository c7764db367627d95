"""The gate's table in a terminal: whole sentences where they matter, at any width."""

from __future__ import annotations

import pytest

from phasegate.model.gate import CheckStatus
from phasegate.report.terminal import gate_lines
from tests.factories import check, verdict

COVERAGE = (
    "line_rate on new code is 0.234, fails when < 0.8. line coverage 23.4%, branch 6.1% "
    "(no base: all code counts as new code)"
)


@pytest.mark.parametrize("width", [40, 80, 400])
def test_a_failing_checks_sentence_is_printed_whole_at_any_width(width: int) -> None:
    table = verdict(
        [
            check("coverage", CheckStatus.FAILED, reasoning=COVERAGE, fix="write tests"),
            check("lint", reasoning="ruff found nothing " + "and nothing more " * 10),
        ]
    )
    lines = [text for text, _style in gate_lines(table, None, verbosity=0, width=width)]
    coverage_rows = lines[1 : lines.index(next(t for t in lines if t.startswith("  lint")))]
    words = " ".join(" ".join(coverage_rows).split()[3:])  # after "coverage failed 0.1s"
    assert words == f"{COVERAGE} Fix: write tests"
    assert all(len(text) <= max(width, 60) for text in coverage_rows if " " in text.strip())
    (lint,) = [text for text in lines if text.startswith("  lint")]
    assert lint.endswith("...") == (width < 400)  # a passing check's sentence may be cut


def test_an_optional_check_that_did_not_pass_is_a_warning_not_a_failure() -> None:
    table = verdict(
        [
            check("tests"),
            check("docs", CheckStatus.FAILED, requirement="optional", reasoning="2 missing"),
        ]
    )
    lines = [text for text, _style in gate_lines(table, None, verbosity=0)]
    assert lines[0].startswith("gate default: SUFFICIENT")
    (docs,) = [text for text in lines if text.startswith("  docs")]
    assert docs.split()[:2] == ["docs", "warning"]
    assert docs.endswith("optional: 2 missing")
    assert not any(" failed " in text for text in lines)
