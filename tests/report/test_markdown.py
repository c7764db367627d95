"""The Markdown report: what a reviewer sees in the comment and the job summary."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from phasegate.model.gate import CheckStatus
from phasegate.model.refine import LoopSettings
from phasegate.model.run import Outcome
from phasegate.refine.loop import advance
from phasegate.refine.router import decide
from phasegate.report.bundle import Bundle, load_bundle
from phasegate.report.limits import Budget
from phasegate.report.markdown import MARKER, MarkdownOptions, diagnose, render_markdown
from tests.factories import T0, check, record, run_report, verdict
from tests.report.conftest import sample_run, sample_verdict


def bundle_with_rounds() -> Bundle:
    settings = LoopSettings(threshold=0.85, alpha=0.3, early_stop=0.95, max_rounds=20)
    state = None
    gate, run = sample_verdict(), sample_run()
    for n in range(3):
        state = advance(
            state,
            gate,
            run,
            task="default@feature",
            settings=settings,
            now=T0 + timedelta(minutes=n),
        ).state
    assert state is not None
    state.next_action = state.rounds[-1].decision = decide(state, gate, run)
    return Bundle(source=Path(".phasegate"), verdict=gate, run=run, refinement=state)


def test_the_report_shows_verdict_checks_failures_coverage_and_trend() -> None:
    text = render_markdown(bundle_with_rounds()).text
    assert text.startswith(MARKER)
    assert "### \u274c phasegate gate `default`: **insufficient**" in text
    assert "score **0.61**" in text
    assert "tests: 3 collected: 1 passed, 1 failed, 1 errors" in text
    assert "**Next action: route to debug** `tests/test_core.py::test_div`" in text
    assert "| \u274c | `lint` | failed | 0.90 |" in text
    assert "<code>tests/test_core.py::test_div</code>: ZeroDivisionError: division by zero" in text
    assert "Diagnosis: a division by zero at tests/test\\_core.py:4." in text
    assert "```python\n    def test():" in text
    assert "| new code | 60.0% | 6 of 10 | n/a |" in text
    assert "- `src/app/core.py`: lines 7-9 never ran" in text
    assert "```mermaid\nxychart-beta" in text
    assert "    x-axis [1, 2, 3]" in text
    assert "    bar [0.610, 0.610, 0.610]" in text
    assert "| 3 | insufficient | 0.61 | 0.61 | route to debug |" in text
    assert "- review check: passed: approved by sam" in text
    assert "| medium (new) | lint | `src/app/core.py:1` | `F401` |" in text
    assert "Left out" not in text


def test_untrusted_text_cannot_break_out() -> None:
    nasty = "tests/t.py::test_x[a|b`c]"
    run = run_report(
        [record(nasty, Outcome.FAILED, message="<script>alert(1)</script> ping @octocat ```")]
    )
    assert run.tests[0].failure is not None
    traceback = run.tests[0].failure.traceback
    run.tests[0].failure.traceback = traceback + "```\n"
    gate = verdict([check("tests", CheckStatus.FAILED)])
    text = render_markdown(Bundle(Path("."), gate, run)).text
    outside_fences = text.split("````python")[0]
    assert "<script>" not in outside_fences
    assert "&lt;script&gt;" in outside_fences
    assert "<code>tests/t.py::test_x[a|b`c]</code>" in text
    assert "@octocat" not in outside_fences
    assert "@\u2060octocat" in outside_fences
    # the traceback fence is longer than the backticks inside it
    assert "````python" in text


def test_a_large_report_is_cut_by_whole_sections_and_says_so() -> None:
    tests = [record(f"tests/test_{n}.py::test_{n}", Outcome.FAILED) for n in range(400)]
    bundle = Bundle(Path("."), verdict([check("tests", CheckStatus.FAILED)]), run_report(tests))
    small = Budget("a 2,500-character test budget", max_chars=2500)
    rendered = render_markdown(bundle, MarkdownOptions(budget=small, artifact_hint="the artifact"))
    assert len(rendered.text) <= 2500
    assert rendered.left_out == ["Failing tests (400 failing tests)"]
    assert (
        "**Left out** to stay within a 2,500-character test budget: Failing tests (400 "
        "failing tests). Everything is in the artifact." in rendered.text
    )
    roomier = Budget("roomier", max_chars=4000)
    rendered = render_markdown(bundle, MarkdownOptions(budget=roomier))
    assert rendered.compacted == ["Failing tests"]
    assert "\u2026 and 380 more" in rendered.text


def test_diagnosis_names_the_kind_and_the_place() -> None:
    failed = record("t.py::test_a", Outcome.FAILED, exc_type="KeyError", message="'id'")
    assert diagnose(failed) == "a key missing from a mapping at t.py:4"
    errored = record("t.py::test_b", Outcome.ERROR, exc_type="pkg.DbError", message="down")
    assert (
        diagnose(errored)
        == "the setup of the test failed (a fixture): DbError was raised at t.py:4"
    )


def test_a_run_without_a_gate_still_reports(artifacts: Path) -> None:
    (artifacts / "gates" / "default.json").unlink()
    text = render_markdown(load_bundle(artifacts)).text
    assert "### phasegate: run recorded (no gate evaluated)" in text
    assert "#### Failing tests (2)" in text
