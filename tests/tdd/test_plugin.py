"""``pytest --tdd``: verdicts, exit statuses, the ledger and bad input, end to end with pytester."""

from __future__ import annotations

import json
import sys

import pytest

from phasegate.errors import MissingDependencyError
from phasegate.store import Store
from phasegate.tdd import complexity
from phasegate.tdd.config import TddConfig
from phasegate.tdd.cycles import TddProject
from tests.conftest import git, read_report

CALC = "def add(a, b):\n    return a + b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
SUB_TEST = "\n\ndef test_sub():\n    from calc import sub\n    assert sub(3, 2) == 1\n"


@pytest.fixture(autouse=True)
def no_bytecode(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files change between runs faster than byte-code caches notice: do not write any."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project with one passing test and a recorded starting point."""
    pytester.makepyprojecttoml(
        '[tool.pytest.ini_options]\npythonpath = ["src"]\ntestpaths = ["tests"]\n'
    )
    (pytester.path / "src").mkdir()
    (pytester.path / "src" / "calc.py").write_text(CALC)
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_calc.py").write_text(TESTS)
    result = pytester.runpytest("--tdd=green")
    assert result.ret == pytest.ExitCode.OK
    return pytester


def ledger(pytester: pytest.Pytester) -> list[dict[str, object]]:
    text = (pytester.path / ".phasegate" / "tdd" / "ledger.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def add_sub_test(pytester: pytest.Pytester) -> None:
    (pytester.path / "tests" / "test_calc.py").write_text(TESTS + SUB_TEST)


def test_the_starting_point_is_shown(project: pytest.Pytester) -> None:
    result = project.runpytest("--tdd=green")  # no cycle is red now: nothing to make green
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*= phasegate tdd =*",
            "GREEN: FAILED (1 violation)",
            "  - [[]green-no-red-cycle] no cycle is red*pytest --tdd=red first",
            "ledger: .phasegate/tdd/ledger.jsonl (run *)",
        ]
    )
    assert ledger(project)[0]["starting_point"] is True


def test_a_right_reason_red_exits_0_although_its_test_fails(project: pytest.Pytester) -> None:
    add_sub_test(project)
    result = project.runpytest("--tdd=red", "tests/test_calc.py::test_sub")
    result.assert_outcomes(failed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "RED c1: passed (RC)",
            "  cycle c1 is red: 1 test fails for the right reason*",
            "  tests/test_calc.py::test_sub: right reason, missing-symbol: ImportError at "
            "tests/test_calc.py:9: cannot import name 'sub' from 'calc'*(calc.sub is not "
            "written yet)",
        ]
    )


def test_a_red_that_passes_exits_1(project: pytest.Pytester) -> None:
    result = project.runpytest("--tdd=red", "tests/test_calc.py::test_add")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["RED c1: FAILED (1 violation)", "*[[]red-no-new-test]*"])


def test_green_then_refactor(project: pytest.Pytester) -> None:
    add_sub_test(project)
    project.runpytest("--tdd=red")
    (project.path / "src" / "calc.py").write_text(CALC + "\n\ndef sub(a, b):\n    return a - b\n")
    green = project.runpytest("--tdd=green")
    green.assert_outcomes(passed=2)
    assert green.ret == pytest.ExitCode.OK
    green.stdout.fnmatch_lines(["GREEN c1: passed (GC)"])
    (project.path / "src" / "calc.py").write_text(
        CALC + "\n\ndef sub(a, b):\n    return add(a, -b)\n"
    )
    refactor = project.runpytest("--tdd=refactor", "-v")
    assert refactor.ret == pytest.ExitCode.OK
    refactor.stdout.fnmatch_lines(
        [
            "REFACTOR c1: passed (RIC)",
            "  2 tests pass; complexity max 1 -> 1, mean 1.0 -> 1.0",
            "  complexity at green: max 1, mean 1.0, total 2 over 2 blocks",
        ]
    )


def test_the_ledger_entry_names_the_run_and_each_test(project: pytest.Pytester) -> None:
    add_sub_test(project)
    project.runpytest("--tdd=red", "--tdd-cycle", "sub", "--tdd-actor", "qa-agent")
    entry = ledger(project)[-1]
    assert entry["run_id"] == read_report(project)["run_id"]
    command = ["pytest", "--tdd=red", "--tdd-cycle", "sub", "--tdd-actor", "qa-agent"]
    assert entry["command"][:6] == command  # type: ignore[index]  # pytester adds --basetemp
    assert entry["actor"] == "qa-agent"
    assert entry["files"] == {
        "source": {"src/calc.py": entry["files"]["source"]["src/calc.py"]},  # type: ignore[index]
        "tests": {"tests/test_calc.py": entry["files"]["tests"]["tests/test_calc.py"]},  # type: ignore[index]
    }
    outcomes = {t["nodeid"]: (t["outcome"], t.get("failure_class")) for t in entry["tests"]}  # type: ignore[attr-defined]
    assert outcomes == {
        "tests/test_calc.py::test_add": ("passed", None),
        "tests/test_calc.py::test_sub": ("failed", "missing-symbol"),
    }
    project_ = TddProject(project.path, TddConfig(), Store(project.path / ".phasegate"))
    last = project_.session_log("sub")[-1]
    assert (last.actor, last.status, last.run_id) == ("qa-agent", "RC", entry["run_id"])


def test_quiet_output_is_the_verdict_alone(project: pytest.Pytester) -> None:
    add_sub_test(project)
    result = project.runpytest("--tdd=red", "-q")
    result.stdout.no_fnmatch_line("*= phasegate tdd =*")
    result.stdout.no_fnmatch_line("ledger: *")
    result.stdout.fnmatch_lines(["RED c1: passed (RC)"])


def test_a_collection_error_is_a_wrong_reason_red(project: pytest.Pytester) -> None:
    (project.path / "tests" / "test_calc.py").write_text(TESTS.replace("add\n", "add, sub\n", 1))
    result = project.runpytest("--tdd=red")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "RED c1: FAILED (1 violation, TI)",
            "  - [[]collection-error] tests/test_calc.py could not be collected "
            "(collection-error: ImportError at tests/test_calc.py:1: cannot import name 'sub'*"
            "import it inside the test, or declare it first (pytest --tdd=phase0)",
        ]
    )


def test_a_corrupt_ledger_line_is_reported_kept_aside_and_nothing_else_is_lost(
    project: pytest.Pytester,
) -> None:
    add_sub_test(project)
    project.runpytest("--tdd=red", "--tdd-cycle", "sub")
    path = project.path / ".phasegate" / "tdd" / "ledger.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], '{"kind": "tdd-run", "run_id": 4', lines[1]]) + "\n")
    (project.path / "src" / "calc.py").write_text(CALC + "\n\ndef sub(a, b):\n    return a - b\n")

    result = project.runpytest("--tdd=green")

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "warning: .phasegate/tdd/ledger.jsonl: 1 unreadable line(s) (line 2) moved to "
            "ledger.jsonl.corrupt-*; 2 valid entries kept",
            "GREEN sub: passed (GC)",
        ]
    )
    (aside,) = path.parent.glob("ledger.jsonl.corrupt-*")
    assert json.loads(aside.read_text())["text"] == '{"kind": "tdd-run", "run_id": 4'
    assert [entry["phase"] for entry in ledger(project)] == ["green", "red", "green"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tdd-cycle", "x"], "*phasegate: --tdd-cycle needs --tdd=PHASE*"),
        (
            ["--tdd=red", "--tdd-cycle", "no spaces"],
            "*--tdd-cycle 'no spaces' is not a valid cycle name*",
        ),
        (["--tdd=blue"], "*argument --tdd: invalid choice: 'blue'*"),
    ],
)
def test_bad_options_are_usage_errors(
    project: pytest.Pytester, args: list[str], message: str
) -> None:
    result = project.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_refactor_without_radon_says_how_to_install_it(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing(module: str, *, what: str, package: str, extra: str) -> None:
        raise MissingDependencyError(what, package, extra)

    # The module object itself: pytester's in-process runs import from sys.modules.
    monkeypatch.setattr(complexity, "require", missing)
    result = project.runpytest("--tdd=refactor")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*the TDD refactor rule (complexity must not rise) needs radon*pytest-phasegate[[]gate]*"]
    )


def test_an_engine_failure_is_reported_and_fails_the_run(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(TddProject, "record_run", broken)
    result = project.runpytest("--tdd=refactor")
    assert result.ret == pytest.ExitCode.INTERNAL_ERROR
    result.stdout.fnmatch_lines(["error: the TDD rules could not run: RuntimeError: disk on fire"])
    assert read_report(project)["exit_status"] == 3


def test_gate_without_tdd_writes_no_ledger(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_a():\n    pass\n")
    pytester.runpytest("--gate")
    assert not (pytester.path / ".phasegate" / "tdd").exists()
    assert pytester.parseconfigure("--gate").pluginmanager.get_plugin("phasegate-tdd") is None


@pytest.mark.slow
def test_under_xdist_the_controller_judges(project: pytest.Pytester) -> None:
    add_sub_test(project)
    red = project.runpytest_subprocess("--tdd=red", "-n", "2", "-p", "no:cacheprovider")
    assert red.ret == pytest.ExitCode.OK
    red.stdout.fnmatch_lines(
        ["RED c1: passed (RC)", "*test_sub: right reason, missing-symbol: ImportError*"]
    )
    (project.path / "src" / "calc.py").write_text(CALC + "\n\ndef sub(a, b):\n    return b - a\n")
    green = project.runpytest_subprocess("--tdd=green", "-n", "2", "-p", "no:cacheprovider")
    assert green.ret == pytest.ExitCode.TESTS_FAILED
    green.stdout.fnmatch_lines(
        ["GREEN c1: FAILED (1 violation)", "*[[]green-still-failing] cycle c1 is not green yet*"]
    )
    entries = ledger(project)
    assert len(entries) == 3  # the starting point, the red, the green: written once each
    assert entries[-1]["run_id"] == read_report(project)["run_id"]
    assert read_report(project)["invocation"]["workers"] == 2


def test_a_red_refused_while_its_test_was_untracked_is_in_the_change(
    project: pytest.Pytester,
) -> None:
    # The base commit holds the project; the red adds a test file git does not track yet.
    git(project.path, "init", "-q", "-b", "main")
    git(project.path, "add", ".")
    git(project.path, "commit", "-qm", "base")
    base = git(project.path, "rev-parse", "HEAD")
    (project.path / "tests" / "test_mul.py").write_text("def test_mul():\n    assert 2 * 2 == 4\n")

    red = project.runpytest("--tdd=red", "tests/test_mul.py")

    assert red.ret == pytest.ExitCode.TESTS_FAILED  # refused: the new test passes at red
    assert ledger(project)[-1]["git"] == {"sha": base, "branch": "main", "dirty": True}
    (project.path / "ci").mkdir()
    (project.path / "ci" / "tdd-only.toml").write_text('name = "tdd-only"\n[checks.tdd]\n')
    gate = project.runpytest("--gate=ci/tdd-only.toml", f"--base={base}", "-v")
    assert gate.ret == pytest.ExitCode.TESTS_FAILED
    gate.stdout.fnmatch_lines(["*tdd*failed*unresolved on new code is 1, fails when > 0*"])
