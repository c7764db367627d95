"""Annotations: escaped workflow commands, changed lines first, within GitHub's caps."""

from __future__ import annotations

from phasegate.model.gate import CheckStatus, Severity
from phasegate.report.annotations import escape_data, escape_property, render_annotations
from tests.factories import check, finding, verdict


def test_escaping_follows_the_runner() -> None:
    assert escape_data("50%\r\nnext") == "50%25%0D%0Anext"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"


def test_a_finding_becomes_one_command_with_file_line_and_title() -> None:
    gate = verdict(
        [
            check(
                "lint",
                CheckStatus.FAILED,
                findings=[
                    finding("F401", "src/a,b.py", 3, message="unused\nimport: os"),
                ],
            )
        ]
    )
    (line,) = render_annotations(gate, path_prefix="pkg").lines
    assert line == (
        "::warning file=pkg/src/a%2Cb.py,line=3,title=phasegate lint%3A F401 (new code)"
        "::unused%0Aimport: os"
    )


def test_changed_lines_come_first_and_the_rest_is_counted() -> None:
    old = [finding("E1", "src/old.py", n, severity=Severity.HIGH, new=False) for n in range(1, 8)]
    new = [finding("E2", "src/new.py", n, severity=Severity.HIGH) for n in range(1, 8)]
    gate = verdict([check("lint", CheckStatus.FAILED, findings=old + new)])
    output = render_annotations(gate)
    errors = [line for line in output.lines if line.startswith("::error")]
    assert len(errors) == 10
    assert all("src/new.py" in line for line in errors[:7])
    assert output.left_out == 4
    assert output.lines[-1].startswith("::notice title=phasegate::phasegate showed 10 of 14")


def test_findings_without_a_file_are_annotations_without_a_file() -> None:
    gate = verdict(
        [
            check(
                "tests",
                CheckStatus.FAILED,
                findings=[
                    finding(
                        "incomplete", None, None, severity=Severity.LOW, message="2 tests never ran"
                    ),
                ],
            )
        ]
    )
    assert render_annotations(gate).lines == [
        "::notice title=phasegate tests%3A incomplete (new code)::2 tests never ran"
    ]
