"""The mutation check: when it applies, how tests are chosen, how results are judged, and end to
end on a small git project whose tests miss a bug (and the honest control that catches it)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from phasegate.gates.checks.mutation import MutationCheck, MutationOptions, _measurement
from phasegate.gates.mutants import Mutant
from phasegate.gates.mutation_runner import MutantResult, classify
from phasegate.gates.mutation_runs import TestRun, covering_tests
from phasegate.gates.protocol import CheckError, SessionData
from phasegate.model.run import RunReport
from tests.conftest import git
from tests.factories import record, run_report
from tests.gates.conftest import MakeContext, WriteFiles

PACKAGE = '''\
"""Shares."""


def share(part: int, whole: int) -> float:
    """``part`` as a fraction of ``whole``; 0.0 when nothing was counted."""
    if whole <= 0:
        return 0.0
    return part / whole
'''
WEAK_TEST = """\
from calc import share


def test_share_is_positive():
    assert share(1, 4) > 0
"""
STRONG_TEST = """\
from calc import share


def test_share():
    assert share(1, 4) == 0.25
    assert share(1, 1) == 1.0


def test_nothing_counted():
    assert share(3, 0) == 0.0
"""


def repository(root: Path, write_files: WriteFiles) -> Path:
    write_files(
        {
            "pyproject.toml": '[project]\nname = "calc"\nversion = "0"\n\n'
            '[tool.pytest.ini_options]\npythonpath = ["src"]\ntestpaths = ["tests"]\n\n'
            '[tool.phasegate]\ngate_paths = ["ci"]\n',
            "ci/mutation.toml": 'name = "mutation"\n[checks.mutation]\n',
            "src/calc/__init__.py": '"""Calc."""\n\nfrom calc.share import share\n\n'
            '__all__ = ["share"]\n',
            "src/calc/share.py": '"""Shares."""\n',
            "tests/test_nothing.py": "def test_nothing():\n    assert True\n",
            ".gitignore": ".phasegate/\n",
        },
        root,
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "feat: start")
    git(root, "checkout", "-qb", "change")
    return root


def session_of(*nodeids: str) -> SessionData:
    return SessionData(run=run_report([record(nodeid) for nodeid in nodeids]))


def test_without_a_base_the_check_is_skipped_and_says_why(
    tmp_path: Path, write_files: WriteFiles, make_context: MakeContext
) -> None:
    root = repository(tmp_path, write_files)
    measured = MutationCheck().measure(make_context(root), MutationOptions())
    assert measured.skipped is not None
    assert "needs the lines a change adds" in measured.skipped


def test_a_change_outside_the_package_is_skipped(
    tmp_path: Path, write_files: WriteFiles, make_context: MakeContext
) -> None:
    root = repository(tmp_path, write_files)
    write_files({"tests/test_more.py": "def test_more():\n    assert 1 == 1\n"}, root)
    measured = MutationCheck().measure(make_context(root, base="main"), MutationOptions())
    assert measured.skipped == "no line of the package changed against main"


def test_a_change_with_nothing_to_mutate_is_skipped(
    tmp_path: Path, write_files: WriteFiles, make_context: MakeContext
) -> None:
    root = repository(tmp_path, write_files)
    write_files({"src/calc/share.py": '"""Shares, of counts."""\n\nimport math\n'}, root)
    measured = MutationCheck().measure(make_context(root, base="main"), MutationOptions())
    assert measured.skipped is not None
    assert "hold no condition" in measured.skipped


def test_mutants_need_the_runs_tests(
    tmp_path: Path, write_files: WriteFiles, make_context: MakeContext
) -> None:
    root = repository(tmp_path, write_files)
    write_files({"src/calc/share.py": PACKAGE}, root)
    with pytest.raises(CheckError, match="needs this run's tests"):
        MutationCheck().measure(make_context(root, base="main"), MutationOptions())


def test_the_run_records_per_test_contexts_only_when_a_package_line_changed(
    tmp_path: Path, write_files: WriteFiles
) -> None:
    # Recording which test ran each line costs the whole test run about 14% on a suite of many
    # short tests: only a change the mutation check will mutate pays for it.
    from phasegate.config import load_config
    from phasegate.extensions import make_plugin_manager
    from phasegate.gates.runner_factory import make_runner
    from phasegate.store import Store

    root = repository(tmp_path, write_files)

    def wants(base: str | None) -> bool:
        loaded = load_config(root)
        runner = make_runner(
            loaded,
            Store(loaded.artifacts_path),
            make_plugin_manager([]),
            "mutation",
            base=base,
            environment={},
        )
        return runner.wants_test_contexts

    write_files({"tests/test_more.py": "def test_more():\n    assert 1 == 1\n"}, root)
    assert not wants("main")  # only tests changed: nothing to mutate
    write_files({"src/calc/share.py": PACKAGE}, root)
    assert not wants(None)  # no base: nothing is mutated either
    assert wants("main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "feat: shares")
    assert wants("main")  # committed on the branch: still changed against the base


def test_a_line_is_tested_by_the_tests_whose_context_ran_it() -> None:
    by_line = {
        5: frozenset({"t.py::a", "t.py::b"}),
        6: frozenset({"t.py::b"}),
        1: frozenset({""}),
        9: frozenset(),
    }
    assert covering_tests(by_line, 6) == {"t.py::b"}
    assert covering_tests(by_line, 5) == {"t.py::a", "t.py::b"}
    # Run only at import: every test that ran the file imported it.
    assert covering_tests(by_line, 1) == {"t.py::a", "t.py::b"}
    assert covering_tests(by_line, 9) == set()
    assert covering_tests(by_line, 42) == set()


MUTANT = Mutant("src/calc/share.py", 6, "flip-comparison", "if a < b:", "if a >= b:", "")


def test_a_failing_test_kills_and_a_hung_run_kills_and_says_so() -> None:
    killed = classify(MUTANT, ["t::a"], TestRun("failed", failing=["t::a"]), 10.0)
    hung = classify(MUTANT, ["t::a"], TestRun("timeout", "late", duration_s=10.0), 10.0)
    assert (killed.status, hung.status) == ("killed", "timeout")


@pytest.mark.parametrize("reason", ["wrote no report", "does not recognize"])
def test_a_run_that_cannot_be_judged_makes_the_check_an_error(
    reason: str, tmp_path: Path, make_context: MakeContext
) -> None:
    errored = classify(MUTANT, ["t::a"], TestRun("error", reason), 10.0)
    assert errored.status == "error"
    outcomes = [MutantResult(MUTANT, "killed", 1), errored]
    with pytest.raises(CheckError, match=f"1 of 2 mutant runs could not be judged.*{reason}"):
        _measurement(make_context(tmp_path), outcomes, 2)


def test_a_run_cut_short_by_the_checks_own_time_is_not_counted_as_killed(
    tmp_path: Path, make_context: MakeContext
) -> None:
    cut = classify(MUTANT, ["t::a"], TestRun("timeout", "late", duration_s=2.0), 10.0)
    assert cut.status == "not-run"
    with pytest.raises(CheckError, match="ran out of time"):
        _measurement(make_context(tmp_path), [cut], 1)


def test_the_score_counts_timeouts_as_killed_and_survivors_as_findings(
    tmp_path: Path, make_context: MakeContext
) -> None:
    outcomes = [
        MutantResult(MUTANT, "killed", 2),
        MutantResult(MUTANT, "timeout", 2, "late"),
        MutantResult(MUTANT, "survived", 2),
        MutantResult(MUTANT, "not-covered", 0),
    ]
    measured = _measurement(make_context(tmp_path), outcomes, 9)
    assert measured.metrics["mutation_score_new"] == 0.5
    assert measured.metrics["timed_out"] == 1
    assert measured.metrics["not_covered"] == 1
    assert "(1 by timeout: the mutant's run hung)" in measured.summary
    messages = [f.message for f in measured.findings]
    assert messages == [
        "mutant survived (flip-comparison): if a < b:  ->  if a >= b:; the 2 tests that run "
        "this line still pass",
        "mutant survived (flip-comparison): if a < b:  ->  if a >= b:; no test runs this line",
    ]
    assert {(f.path, f.line) for f in measured.findings} == {("src/calc/share.py", 6)}


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and ".phasegate" not in path.parts and ".git" not in path.parts:
            digest.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return digest.hexdigest()


def gate(root: Path, *extra: str) -> dict[str, Any]:
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--gate=mutation",
            "--base=main",
            "-p",
            "no:cacheprovider",
            *extra,
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    path = root / ".phasegate" / "gates" / "mutation.json"
    assert path.is_file(), completed.stdout + completed.stderr
    verdict: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    # A gate file of the project is judged by integrity too when there is a base (23aec6b).
    (check,) = [check for check in verdict["checks"] if check["id"] == "mutation"]
    check["exit_status"] = completed.returncode
    return check


@pytest.mark.slow
def test_tests_that_miss_a_bug_leave_a_surviving_mutant_shown_as_a_diff(
    tmp_path: Path, write_files: WriteFiles
) -> None:
    root = repository(tmp_path, write_files)
    write_files({"src/calc/share.py": PACKAGE, "tests/test_share.py": WEAK_TEST}, root)
    git(root, "add", ".")
    git(root, "commit", "-qm", "feat: shares")
    before = tree_digest(root)
    check = gate(root)
    assert check["status"] == "failed"
    assert check["exit_status"] == 1
    assert "per this run's coverage contexts" in check["reasoning"]
    assert check["metrics"]["survived"] >= 1
    messages = {(f["path"], f["line"], f["message"]) for f in check["findings"]}
    assert (
        "src/calc/share.py",
        7,
        "mutant survived (replace-return): return 0.0  ->  return None; no test runs this line",
    ) in messages
    assert tree_digest(root) == before  # the user's tree was never written


@pytest.mark.slow
def test_tests_that_catch_every_bug_score_one(tmp_path: Path, write_files: WriteFiles) -> None:
    root = repository(tmp_path, write_files)
    write_files({"src/calc/share.py": PACKAGE, "tests/test_share.py": STRONG_TEST}, root)
    git(root, "add", ".")
    git(root, "commit", "-qm", "feat: shares")
    check = gate(root, "-n", "2")  # the contexts come from the pytest-xdist workers
    assert check["status"] == "passed", check
    assert "per this run's coverage contexts" in check["reasoning"]
    assert check["metrics"]["mutation_score_new"] == 1.0
    assert check["metrics"]["mutants"] == 4
    assert check["findings"] == []


@pytest.mark.slow
def test_without_the_runs_contexts_a_traced_run_in_a_copy_finds_the_tests(
    tmp_path: Path, write_files: WriteFiles, make_context: MakeContext
) -> None:
    root = repository(tmp_path, write_files)
    write_files({"src/calc/share.py": PACKAGE, "tests/test_share.py": WEAK_TEST}, root)
    git(root, "add", ".")
    git(root, "commit", "-qm", "feat: shares")
    recorded = tmp_path / "record"
    subprocess.run(
        [sys.executable, "-m", "pytest", "--gate=record", f"--phasegate-dir={recorded}"],
        cwd=root,
        capture_output=True,
        check=True,
        timeout=600,
    )
    run = RunReport.model_validate_json((recorded / "report.json").read_text(encoding="utf-8"))
    context = make_context(root, base="main", session=SessionData(run=run))
    measured = MutationCheck().measure(context, MutationOptions())
    assert "per a traced run in a copy" in measured.summary
    survivors = {(f.line, f.rule) for f in measured.findings}
    assert (7, "mutant-replace-return") in survivors
    assert measured.metrics["killed"] >= 1
