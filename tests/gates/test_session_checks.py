"""The session checks (tests, coverage, review) on runs and data built for each case.

The perf check has its own file, ``test_perf.py``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from phasegate.gates.checks.coverage import CoverageCheck, coverage_metrics
from phasegate.gates.checks.review import ReviewCheck
from phasegate.gates.checks.tests import TestsCheck
from phasegate.gates.newcode import NewCode
from phasegate.gates.protocol import CheckContext, CheckError, NoOptions, SessionData
from phasegate.model.gate import BaseInfo
from phasegate.model.review import ReviewRecord, ReviewStatus
from phasegate.model.run import RunReport
from phasegate.recording import PhaseReport, build_test_records, count
from phasegate.store import Store
from tests.conftest import git

MakeContext = Callable[..., CheckContext]


def run_report(*tests: tuple[str, str, list[str], float], incomplete: bool = False) -> RunReport:
    """A run report of (nodeid, outcome of the call phase, markers, seconds) tests."""
    phases = [
        PhaseReport(
            nodeid,
            "call",
            outcome,
            seconds,
            (nodeid.split("::")[0], 3, nodeid.split("::")[-1]),
            markers=markers,
            failure=None
            if outcome != "failed"
            else {
                "phase": "call",
                "exc_type": "AssertionError",
                "message": "assert 1 == 2",
                "path": "tests/test_a.py",
                "line": 9,
                "traceback": "",
                "traceback_truncated": False,
            },
        )
        for nodeid, outcome, markers, seconds in tests
    ]
    records = build_test_records(phases)
    now = datetime.now(timezone.utc).isoformat()
    return RunReport.model_validate(
        {
            "run_id": "r",
            "started_at": now,
            "finished_at": now,
            "duration_s": 1,
            "environment": {
                "python": "3",
                "implementation": "cpython",
                "platform": "x",
                "pytest": "9",
                "phasegate": "0",
            },
            "invocation": {"args": [], "invocation_dir": "/", "rootdir": "/"},
            "exit_status": 0,
            "counts": count(records, collected=len(records)),
            "incomplete": incomplete,
            "incomplete_reasons": ["1 collected test(s) have no result: x"] if incomplete else [],
            "tests": records,
        }
    )


def session(run: RunReport, coverage: dict[str, Any] | None = None) -> SessionData:
    return SessionData(run=run, coverage_json=coverage)


def test_tests_check_counts_and_points_at_the_failure(make_context: MakeContext) -> None:
    run = run_report(
        ("tests/test_a.py::test_ok", "passed", [], 0.1),
        ("tests/test_a.py::test_bad", "failed", [], 0.1),
    )
    measurement = TestsCheck().measure(make_context(session=session(run)), NoOptions())
    assert measurement.metrics["failed"] == 1
    assert measurement.metrics["pass_rate"] == 0.5
    (finding,) = measurement.findings
    assert (finding.rule, finding.path, finding.line) == ("test-failed", "tests/test_a.py", 9)
    assert "tests/test_a.py::test_bad: AssertionError: assert 1 == 2" in finding.message
    assert "1 of 2 tests failed or erred, first tests/test_a.py::test_bad" in measurement.summary


def test_tests_check_reports_an_empty_and_an_incomplete_run(make_context: MakeContext) -> None:
    empty = TestsCheck().measure(make_context(session=session(run_report())), NoOptions())
    assert empty.metrics["collected"] == 0
    assert "no test was collected" in empty.summary
    partial = run_report(("tests/test_a.py::test_ok", "passed", [], 0.1), incomplete=True)
    cut = TestsCheck().measure(make_context(session=session(partial)), NoOptions())
    assert cut.metrics["incomplete"] is True
    assert cut.summary.startswith("the run is incomplete")


def test_tests_check_needs_a_run(make_context: MakeContext) -> None:
    with pytest.raises(CheckError, match="needs a test run"):
        TestsCheck().measure(make_context(), NoOptions())


COVERAGE = {
    "meta": {"format": 3, "version": "7.6", "branch_coverage": True},
    "files": {
        "src/pkg/a.py": {
            "executed_lines": [1, 2, 3, 4],
            "missing_lines": [5, 6, 9],
            "executed_branches": [[3, 4]],
            "missing_branches": [[3, 5], [8, 9]],
        },
        "src/pkg/b.py": {"executed_lines": [1, 2], "missing_lines": [], "executed_branches": []},
    },
    "totals": {"num_statements": 9, "covered_lines": 6, "num_branches": 3, "covered_branches": 1},
}


def test_coverage_metrics_in_total_and_on_changed_lines() -> None:
    overall = coverage_metrics(COVERAGE["files"].items(), lambda _path: None)
    assert overall == {
        "line_rate": round(6 / 9, 4),
        "branch_rate": round(1 / 3, 4),
        "lines": 9,
        "lines_covered": 6,
        "branches": 3,
        "branches_covered": 1,
    }
    changed = {"src/pkg/a.py": frozenset({3, 5, 6})}
    new = coverage_metrics(COVERAGE["files"].items(), lambda path: changed.get(path, frozenset()))
    assert (new["lines"], new["lines_covered"], new["line_rate"]) == (3, 1, round(1 / 3, 4))
    assert (new["branches"], new["branches_covered"]) == (2, 1)


def test_coverage_check_reports_uncovered_new_lines(make_context: MakeContext) -> None:
    new_code = NewCode(
        BaseInfo(ref="main", available=True), {"src/pkg/a.py": frozenset({4, 5, 6, 9})}
    )
    context = make_context(new_code=new_code, session=session(run_report(), COVERAGE))
    measurement = CoverageCheck().measure(context, NoOptions())
    assert measurement.new_code_metrics["line_rate"] == 0.25
    assert [(f.path, f.line, f.message) for f in measurement.findings] == [
        ("src/pkg/a.py", 5, "lines 5-6 never ran in the tests"),
        ("src/pkg/a.py", 9, "line 9 never ran in the tests"),
    ]
    assert "new code 25.0% of 4 changed lines" in measurement.summary


def test_coverage_not_measured_is_an_error_with_its_reason(make_context: MakeContext) -> None:
    data = SessionData(run=run_report(), coverage_problem="coverage is not installed")
    with pytest.raises(CheckError, match="coverage is not installed"):
        CoverageCheck().measure(make_context(session=data), NoOptions())


def review(status: ReviewStatus, commit: str, minutes: int) -> ReviewRecord:
    return ReviewRecord(
        subject="pr-1",
        commit=commit,
        reviewer="Robin",
        status=status,
        recorded_at=datetime(2026, 11, 1, tzinfo=timezone.utc) + timedelta(minutes=minutes),
    )


def test_review_takes_the_latest_review_of_the_commit(
    make_context: MakeContext, tmp_path: Path
) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "a.py").write_text("x = 1\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "feat: a")
    head = git(tmp_path, "rev-parse", "HEAD")
    context = make_context()
    none_yet = ReviewCheck().measure(context, NoOptions())
    assert none_yet.metrics["approved"] is False
    assert f"no review is recorded for commit {head[:12]}" in none_yet.summary
    context.store.append_jsonl(
        "reviews.jsonl",
        [
            review(ReviewStatus.CHANGES_REQUESTED, head, 1),
            review(ReviewStatus.APPROVED, "0" * 40, 2),  # another commit: ignored
        ],
    )
    asked = ReviewCheck().measure(context, NoOptions())
    assert (asked.metrics["approved"], asked.metrics["changes_requested"]) == (False, 1)
    assert asked.findings[0].rule == "review-changes_requested"
    context.store.append_jsonl("reviews.jsonl", review(ReviewStatus.APPROVED, head, 3))
    approved = ReviewCheck().measure(context, NoOptions())
    assert approved.metrics == {
        "approved": True,
        "reviews": 2,
        "changes_requested": 1,
        "rejected": 0,
    }


def test_reviews_committed_to_git_are_not_believed(
    make_context: MakeContext, tmp_path: Path
) -> None:
    """Review s16r: records match by a 7-character prefix; a committed approval of a prefix
    the change ground its own commit id to would approve it."""
    git(tmp_path, "init", "-q")
    (tmp_path / "a.py").write_text("x = 1\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "feat: a")
    head = git(tmp_path, "rev-parse", "HEAD")
    context = make_context()
    context.store.append_jsonl("reviews.jsonl", review(ReviewStatus.APPROVED, head, 1))
    assert ReviewCheck().measure(context, NoOptions()).metrics["approved"] is True
    git(tmp_path, "add", "-f", ".phasegate/reviews.jsonl")
    with pytest.raises(CheckError, match=r"\.phasegate/reviews\.jsonl is committed to git"):
        ReviewCheck().measure(context, NoOptions())


@pytest.mark.parametrize("length", [7, 12, 39])
def test_a_review_naming_a_prefix_of_the_commit_does_not_approve_it(
    make_context: MakeContext, tmp_path: Path, length: int
) -> None:
    """Review s17r: a record matched HEAD by any prefix of 7 characters or more, so an
    approval of ``c0ffee1`` approved every commit ground to that prefix. Full ids only."""
    git(tmp_path, "init", "-q")
    (tmp_path / "a.py").write_text("x = 1\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "feat: a")
    head = git(tmp_path, "rev-parse", "HEAD")
    context = make_context()
    context.store.append_jsonl("reviews.jsonl", review(ReviewStatus.APPROVED, head[:length], 1))
    measured = ReviewCheck().measure(context, NoOptions())
    assert (measured.metrics["approved"], measured.metrics["reviews"]) == (False, 0)
    assert f"names it by the short id {head[:length]}" in measured.summary


def test_reviews_kept_outside_the_repository_are_read(
    make_context: MakeContext, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Review of s16, finding 5: with the artifacts folder outside the repository (docs: it
    "may point anywhere"), asking git whether it tracks the reviews file failed (exit 128) and
    the review check was an error on every run. No commit can bring such a file."""
    git(tmp_path, "init", "-q")
    (tmp_path / "a.py").write_text("x = 1\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "feat: a")
    head = git(tmp_path, "rev-parse", "HEAD")
    elsewhere = Store(tmp_path_factory.mktemp("artifacts"))
    context = dataclasses.replace(make_context(), store=elsewhere)
    elsewhere.append_jsonl("reviews.jsonl", review(ReviewStatus.APPROVED, head, 1))
    assert ReviewCheck().measure(context, NoOptions()).metrics["approved"] is True


def committed_project(folder: Path) -> str:
    git(folder, "init", "-q")
    (folder / "a.py").write_text("x = 1\n")
    git(folder, "add", ".")
    git(folder, "commit", "-qm", "feat: a")
    return git(folder, "rev-parse", "HEAD")


def test_a_review_removed_while_the_tests_run_still_counts(
    make_context: MakeContext, tmp_path: Path
) -> None:
    """Review s17d, 1: the reviews kept as the run began only filtered the file as it was at
    the end, so the change's code could delete a later request for changes and pass on the
    earlier approval. The kept bytes are judged."""
    head = committed_project(tmp_path)
    context = make_context()
    approval = review(ReviewStatus.APPROVED, head, 1)
    context.store.append_jsonl(
        "reviews.jsonl", [approval, review(ReviewStatus.CHANGES_REQUESTED, head, 2)]
    )
    kept = context.store.path("reviews.jsonl").read_bytes()
    session = SessionData(run=run_report(), reviews_at_start=kept, tests_ran_here=True)
    context = dataclasses.replace(context, session=session)
    honest = ReviewCheck().measure(context, NoOptions())
    assert (honest.metrics["approved"], honest.metrics["changes_requested"]) == (False, 1)
    assert "while the tests ran" not in honest.summary
    context.store.path("reviews.jsonl").write_text(approval.model_dump_json() + "\n")
    deleted = ReviewCheck().measure(context, NoOptions())
    assert (deleted.metrics["approved"], deleted.metrics["changes_requested"]) == (False, 1)
    assert "1 review(s) removed or changed while the tests ran" in deleted.summary


def test_an_approval_with_a_line_separator_in_its_note_is_believed(
    make_context: MakeContext, tmp_path: Path
) -> None:
    """Review s17d, 11: the kept bytes were split by ``str.splitlines``, which breaks at
    U+2028 that the store writes raw: an honest approval was not believed."""
    head = committed_project(tmp_path)
    context = make_context()
    approval = review(ReviewStatus.APPROVED, head, 1).model_copy(
        update={"note": "looks good\u2028ship it"}
    )
    context.store.append_jsonl("reviews.jsonl", approval)
    kept = context.store.path("reviews.jsonl").read_bytes()
    assert "\u2028".encode() in kept
    session = SessionData(run=run_report(), reviews_at_start=kept, tests_ran_here=True)
    measured = ReviewCheck().measure(dataclasses.replace(context, session=session), NoOptions())
    assert measured.metrics["approved"] is True, measured.summary
    assert "while the tests ran" not in measured.summary


def test_no_review_is_believed_when_the_tests_ran_and_none_was_kept(
    make_context: MakeContext, tmp_path: Path
) -> None:
    """Review s17d, 18: when the run that judges kept no reviews file, every review of the
    file at the end was believed, those the tests' code wrote too."""
    head = committed_project(tmp_path)
    context = make_context()
    context.store.append_jsonl("reviews.jsonl", review(ReviewStatus.APPROVED, head, 1))
    merged = SessionData(run=run_report())  # `phasegate merge`: the tests ran elsewhere
    read = ReviewCheck().measure(dataclasses.replace(context, session=merged), NoOptions())
    assert read.metrics["approved"] is True
    here = SessionData(run=run_report(), tests_ran_here=True)
    measured = ReviewCheck().measure(dataclasses.replace(context, session=here), NoOptions())
    assert measured.metrics["approved"] is False
    assert "the reviews file was not kept as the run began" in measured.summary


def test_review_outside_git_cannot_run(make_context: MakeContext) -> None:
    with pytest.raises(CheckError, match="not a git repository"):
        ReviewCheck().measure(make_context(), NoOptions())
