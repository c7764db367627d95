"""The gate's tdd check, measured directly: violations in the change under review fail it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from phasegate.gates.newcode import NewCode
from phasegate.gates.project import GateProject
from phasegate.gates.protocol import CheckContext, CheckError, NoOptions
from phasegate.model.gate import BaseInfo, Severity
from phasegate.model.tdd import LedgerGit
from phasegate.store import Store
from phasegate.tdd.check import TddCheck
from tests.tdd.flow import PEEK, POP, POP_CODE, POP_TEST, PUSH, STACK, TESTS, Flow, failed, passed


def context(root: Path, base_sha: str | None = None) -> CheckContext:
    if base_sha is None:
        new_code = NewCode(BaseInfo(note="no base: all code is new"))
    else:
        new_code = NewCode(BaseInfo(ref="main", sha=base_sha, available=True), {}, frozenset())
    return CheckContext(
        project=GateProject(root), new_code=new_code, store=Store(root / ".phasegate"), timeout_s=60
    )


def measure(root: Path, base_sha: str | None = None):  # type: ignore[no-untyped-def]
    return TddCheck().measure(context(root, base_sha), NoOptions())


def test_the_check_declares_what_the_gate_needs() -> None:
    check = TddCheck()
    assert (check.id, check.kind, check.tool_info()) == ("tdd", "session", None)
    names = {metric.name for metric in check.metrics}
    assert {condition.metric for condition in check.default_conditions} <= names


def test_without_a_ledger_the_check_is_skipped_with_the_reason(tmp_path: Path) -> None:
    measurement = measure(tmp_path)
    assert measurement.skipped is not None
    assert "no TDD ledger (ledger.jsonl" in measurement.skipped


def test_a_clean_walk_passes(tmp_path: Path) -> None:
    flow = Flow(tmp_path)
    flow.full_cycle()
    measurement = measure(tmp_path)
    assert measurement.skipped is None
    assert measurement.new_code_metrics["runs"] == 3
    assert measurement.new_code_metrics["cycles_completed"] == 1
    assert measurement.new_code_metrics["unresolved"] == 0
    assert measurement.score == 1.0
    assert measurement.findings == []


def test_a_resolved_violation_is_counted_but_does_not_fail(tmp_path: Path) -> None:
    flow = Flow(tmp_path)
    flow.start()
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    flow.run("red", failed(POP), cycle="pop")
    flow.write("tests/test_stack.py", TESTS + POP_TEST.replace("== 1", "is None"))
    flow.run("green", passed(PUSH), passed(PEEK), passed(POP))  # green-changed-tests
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    flow.write("src/stack.py", STACK + POP_CODE)
    flow.run("green", passed(PUSH), passed(PEEK), passed(POP))
    metrics = measure(tmp_path).new_code_metrics
    assert (metrics["failed_runs"], metrics["unresolved"], metrics["violations"]) == (1, 0, 1)
    (finding,) = measure(tmp_path).findings
    assert finding.rule == "tdd/green-changed-tests"
    assert finding.severity == Severity.MEDIUM
    assert finding.message.endswith("(resolved by run04)")
    assert finding.path == "tests/test_stack.py"


def test_an_unresolved_failure_and_an_open_red_cycle_are_reported(tmp_path: Path) -> None:
    flow = Flow(tmp_path)
    flow.start()
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    flow.run("red", failed(POP), cycle="pop")
    flow.run("green", passed(PUSH), passed(PEEK), failed(POP))
    measurement = measure(tmp_path)
    assert measurement.new_code_metrics["unresolved"] == 1
    assert measurement.metrics["open_red_cycles"] == 1
    assert measurement.score == pytest.approx(2 / 3)
    assert measurement.findings[0].severity == Severity.HIGH
    assert "1 unresolved failure(s)" in measurement.summary
    assert "1 cycle(s) still red" in measurement.summary


def test_a_rollback_resolves_a_refactor_regression(tmp_path: Path) -> None:
    flow = Flow(tmp_path)
    flow.full_cycle()
    flow.write("src/stack.py", STACK + POP_CODE.replace("pop()", "pop(0)"))
    flow.run("refactor", passed(PUSH), passed(PEEK), failed(POP))
    assert measure(tmp_path).new_code_metrics["unresolved"] == 1
    flow.project.rollback()
    assert measure(tmp_path).new_code_metrics["unresolved"] == 0


def test_required_reviews_count_until_approved(tmp_path: Path) -> None:
    flow = Flow(tmp_path)
    flow.full_cycle()
    (tmp_path / "pyproject.toml").write_text("[tool.phasegate.tdd]\nrequire_review = true\n")
    assert measure(tmp_path).metrics["unreviewed_cycles"] == 1
    flow.project.review("pop", "approved", "ana")
    assert measure(tmp_path).metrics["unreviewed_cycles"] == 0


def test_a_bad_tdd_table_makes_the_check_unable_to_run(tmp_path: Path) -> None:
    Flow(tmp_path).start()
    (tmp_path / "pyproject.toml").write_text("[tool.phasegate.tdd]\nbatch_size = 9\n")
    with pytest.raises(CheckError, match=r"tool\.phasegate\.tdd\.batch_size = 9 is not allowed"):
        measure(tmp_path)


def git(root: Path, *args: str) -> str:
    completed = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    )
    return completed.stdout.strip()


def test_only_the_ledger_of_the_change_counts(tmp_path: Path) -> None:
    flow = Flow(tmp_path)
    (tmp_path / ".gitignore").write_text(".phasegate/\n")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    base = git(tmp_path, "rev-parse", "HEAD")
    # Before the change: a failed run on the clean base commit.
    flow.judge("green", passed(PUSH), failed(PEEK), git=LedgerGit(sha=base, dirty=False))
    flow.judge("green", passed(PUSH), passed(PEEK), git=LedgerGit(sha=base, dirty=False))
    # The change: work on top of the base, then a commit.
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    flow.judge("red", failed(POP), cycle="pop", git=LedgerGit(sha=base, dirty=True))
    git(tmp_path, "commit", "-qam", "red")
    head = git(tmp_path, "rev-parse", "HEAD")
    flow.judge(
        "green", passed(PUSH), passed(PEEK), failed(POP), git=LedgerGit(sha=head, dirty=True)
    )

    change = measure(tmp_path, base_sha=base)
    assert change.new_code_metrics["runs"] == 2
    assert change.new_code_metrics["failed_runs"] == 1
    assert change.metrics["runs"] == 4
    assert change.metrics["failed_runs"] == 2
