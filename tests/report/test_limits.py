"""A report with thousands of failures and findings stays within every GitHub limit."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from phasegate.model.gate import CheckStatus, Severity
from phasegate.model.run import Outcome
from phasegate.report.annotations import render_annotations
from phasegate.report.bundle import Bundle
from phasegate.report.limits import COMMENT, COMMENT_MAX_CHARS, SUMMARY, SUMMARY_MAX_BYTES
from phasegate.report.markdown import MarkdownOptions, render_markdown
from phasegate.report.sarif import render_sarif
from tests.factories import check, finding, record, run_report, verdict

FAILURES = 3000
FINDINGS = 5000


@pytest.fixture(scope="module")
def huge() -> Bundle:
    long = "x" * 3000 + " \u00e9\u00e8 " * 200  # multi-byte text: bytes outgrow characters
    tests = [
        record(f"tests/test_{n % 50}.py::test_case_{n}", Outcome.FAILED, message=f"{n} {long}")
        for n in range(FAILURES)
    ] + [record(f"tests/test_ok.py::test_{n}") for n in range(2000)]
    for test in tests:
        if test.failure is not None:
            test.failure.traceback = "\n".join(f"line {i} {long[:200]}" for i in range(60))
    severities = list(Severity)
    findings = [
        finding(
            f"R{n % 40}",
            f"src/pkg/mod_{n % 300}.py",
            n % 500 + 1,
            severity=severities[n % 4],
            message=f"problem {n}: {long[:300]}",
            new=n % 3 == 0,
        )
        for n in range(FINDINGS)
    ]
    checks = [
        check("tests", CheckStatus.FAILED, findings=findings[:1000]),
        check("lint", CheckStatus.FAILED, findings=findings[1000:]),
        check("security", CheckStatus.FAILED, findings=findings[:200]),
    ]
    return Bundle(Path("."), verdict(checks), run_report(tests))


def test_the_comment_fits_and_names_what_it_left_out(huge: Bundle) -> None:
    rendered = render_markdown(
        huge,
        MarkdownOptions(budget=COMMENT, max_failures=3000, max_findings=5000, traceback_lines=60),
    )
    assert len(rendered.text) <= COMMENT_MAX_CHARS
    assert rendered.left_out or rendered.compacted
    said = rendered.left_out + rendered.compacted
    assert any(name.startswith("Failing tests") for name in said)
    assert "GitHub's 65,536-character comment limit" in rendered.text or (
        "Shortened to fit" in rendered.text
    )


def test_the_summary_fits_in_one_mebibyte(huge: Bundle) -> None:
    rendered = render_markdown(
        huge,
        MarkdownOptions(budget=SUMMARY, max_failures=3000, max_findings=5000, traceback_lines=60),
    )
    assert len(rendered.text.encode("utf-8")) <= SUMMARY_MAX_BYTES
    assert "Failing tests" in rendered.compacted, "3,000 tracebacks of 12 KB cannot fit in 1 MiB"
    assert "Shortened to fit: Failing tests" in rendered.text
    assert "\u2026 and 2980 more, listed in" in rendered.text


def test_annotations_stay_within_the_caps_and_count_the_rest(huge: Bundle) -> None:
    assert huge.verdict is not None
    output = render_annotations(huge.verdict)
    levels = [line.split(" ", 1)[0].split("::")[1] for line in output.lines]
    assert levels.count("error") == 10
    assert levels.count("warning") == 10
    assert levels.count("notice") <= 10
    assert len(output.lines) <= 50
    assert output.left_out == 5200 - output.shown
    assert f"the other {output.left_out} are in" in output.lines[-1]


def test_sarif_fits_the_upload_limit(huge: Bundle) -> None:
    assert huge.verdict is not None
    output = render_sarif(huge.verdict, max_gzip_bytes=50_000)
    packed = gzip.compress(output.dumps().encode("utf-8"))
    assert len(packed) <= 50_000
    assert output.left_out["findings beyond the results kept per run"] > 0
    assert output.results + sum(output.left_out.values()) == 5200
