"""pytest --gate=NAME end to end: verdict, exit status, terminal table, bad gates, xdist."""

from __future__ import annotations

import gc
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.conftest import REPO_ROOT, git

SCHEMA = json.loads((REPO_ROOT / "docs/schema/gate-verdict.schema.json").read_text())

GATE = """
name = "small"
[checks.syntax]
[checks.tests]
[checks.lint]
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyprojecttoml(
        """
        [tool.ruff.lint]
        select = ["E", "F"]

        [tool.phasegate]
        gate_paths = ["ci"]
        """
    )
    pytester.mkdir("ci")
    (pytester.path / "ci" / "small.toml").write_text(GATE)
    pytester.makepyfile(test_calc="def test_add():\n    assert 1 + 1 == 2\n")
    return pytester


def verdict_of(pytester: pytest.Pytester, gate: str = "small") -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (pytester.path / ".phasegate" / "gates" / f"{gate}.json").read_text()
    )
    return data


def test_a_clean_project_passes_and_the_table_says_so(project: pytest.Pytester) -> None:
    result = project.runpytest("--gate=small")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "*= phasegate gate small =*",
            "gate small: SUFFICIENT (score 1.00, *",
            "  syntax  passed *all * Python files compile",
            "  tests   passed *all 1 tests passed*",
            "  lint    passed *ruff found nothing*",
            "verdict: .phasegate/gates/small.json",
        ]
    )
    verdict = verdict_of(project)
    jsonschema.validate(verdict, SCHEMA, cls=jsonschema.Draft202012Validator)
    assert verdict["verdict"] == "sufficient"
    assert (
        verdict["run_id"]
        == json.loads((project.path / ".phasegate/report.json").read_text())["run_id"]
    )


#: A conftest's exit handler, registered before the gate's: it runs after it and says whether
#: the interpreter's objects were frozen for its last collections.
SAYS_FROZEN = """
import atexit
import gc
import pathlib

def say() -> None:
    pathlib.Path("frozen.txt").write_text(str(gc.get_freeze_count()))

atexit.register(say)
"""


def test_the_gate_freezes_the_runs_objects_as_the_interpreter_exits_and_plain_pytest_does_not(
    project: pytest.Pytester,
) -> None:
    project.makeconftest(SAYS_FROZEN)

    plain = project.runpytest_subprocess()
    assert plain.ret == pytest.ExitCode.OK
    assert (project.path / "frozen.txt").read_text() == "0"

    gated = project.runpytest_subprocess("--gate=small")
    assert gated.ret == pytest.ExitCode.OK
    assert int((project.path / "frozen.txt").read_text()) > 10_000
    assert verdict_of(project)["verdict"] == "sufficient"


def test_a_gate_failure_fails_a_run_whose_tests_passed(project: pytest.Pytester) -> None:
    project.makepyfile(sloppy="import os\n")
    result = project.runpytest("--gate=small")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "gate small: INSUFFICIENT *",
            "  lint    failed *violations on new code is 1, fails when > 0*",
        ]
    )
    verdict = verdict_of(project)
    assert verdict["reasons"][0].startswith("lint: violations on new code is 1")
    (finding,) = verdict["checks"][2]["findings"]
    assert (finding["rule"], finding["path"], finding["line"]) == ("F401", "sloppy.py", 1)


def test_failing_tests_make_the_gate_insufficient(project: pytest.Pytester) -> None:
    project.makepyfile(test_bad="def test_bad():\n    assert 2 == 3\n")
    result = project.runpytest("--gate=small", "-q")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["gate small: INSUFFICIENT *", "  tests: failed is 1, fails when > 0*"]
    )


def test_verbose_lists_the_findings(project: pytest.Pytester) -> None:
    project.makepyfile(sloppy="import os\n")
    result = project.runpytest("--gate=small", "-v")
    result.stdout.fnmatch_lines(["      sloppy.py:1 F401 new: `os` imported but unused"])


@pytest.mark.slow
def test_a_missing_tool_fails_closed_and_says_how_to_install(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every Python process of this run (pytest, and the one running the static checks) starts
    # with sitecustomize, which makes ruff look uninstalled: sys.modules["ruff"] = None.
    hide = project.mkdir("hide_ruff")
    (hide / "sitecustomize.py").write_text("import sys\nsys.modules['ruff'] = None\n")
    monkeypatch.setenv("PYTHONPATH", str(hide))
    result = project.runpytest_subprocess("--gate=small", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    lint = verdict_of(project)["checks"][2]
    assert lint["status"] == "error"
    assert lint["reasoning"] == "ruff is not installed, so this check cannot run"
    assert "pip install 'pytest-phasegate[gate]'" in lint["fix"]
    result.stdout.fnmatch_lines(["*lint    error *ruff is not installed*"])


def test_a_malformed_gate_file_is_a_usage_error_naming_file_and_key(
    project: pytest.Pytester,
) -> None:
    (project.path / "ci" / "small.toml").write_text(
        'name = "small"\n[checks.tests]\n'
        'fail_when = [{ metric = "failed", op = "=>", value = 0 }]\n'
    )
    result = project.runpytest("--gate=small")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*ci/small.toml: key checks.tests.fail_when.0.op = '=>' is not allowed*"]
    )


def test_an_unknown_gate_lists_the_known_ones(project: pytest.Pytester) -> None:
    result = project.runpytest("--gate=strict")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*unknown gate 'strict'; known gates: default, dptr-tdd, pre-commit, record*"]
    )


def test_an_unknown_base_is_a_usage_error(project: pytest.Pytester) -> None:
    from tests.conftest import git

    git(project.path, "init", "-q")
    git(project.path, "add", ".")
    git(project.path, "commit", "-qm", "feat: start")
    result = project.runpytest("--gate=small", "--base=nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--base 'nope' is not a commit in this repository*"])


#: A root conftest.py of the change that takes the pull request away from the environment.
FORGETS_THE_PULL_REQUEST = """
import os

os.environ.pop("GITHUB_BASE_REF", None)
os.environ.pop("GITHUB_EVENT_NAME", None)
"""


def test_a_conftest_cannot_take_the_pull_requests_base_away(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review s16r: 85c6079 makes a pull request's base win over ``base = "HEAD"``, but the
    main process read ``GITHUB_BASE_REF`` after the change's conftest.py had popped it: the
    change was judged against itself. The environment is the one the run began with."""
    git(project.path, "init", "-q", "-b", "main")
    git(project.path, "add", "-A")
    git(project.path, "commit", "-qm", "feat: calc")
    git(project.path, "checkout", "-qb", "change")
    pyproject = project.path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().rstrip() + '\nbase = "HEAD"\n')
    project.makeconftest(FORGETS_THE_PULL_REQUEST)
    git(project.path, "add", "-A")
    git(project.path, "commit", "-qm", "test: steadier runs")
    monkeypatch.setenv("GITHUB_BASE_REF", "main")
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    project.runpytest("--gate=small")
    base = verdict_of(project)["base"]
    assert base["ref"] == "main", base
    assert (
        "the base given, 'HEAD', would leave commits of the pull request unjudged" in (base["note"])
    )


#: A root conftest.py of the change that has the pull request judged against its own head.
JUDGES_THE_HEAD = """
import os

os.environ["GITHUB_BASE_REF"] = "change"
"""


def test_a_conftest_cannot_move_the_static_checks_base_when_the_gate_is_not_named(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review of s16, finding 3: with ``--gate`` and no name the static checks' process was
    started after the conftest files were imported, in the environment one of them changed:
    judged against the pull request's own head, a new lint finding was not new code."""
    pyproject = project.path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().rstrip() + '\ngate = "small"\n')
    git(project.path, "init", "-q", "-b", "main")
    git(project.path, "add", "-A")
    git(project.path, "commit", "-qm", "feat: calc")
    git(project.path, "checkout", "-qb", "change")
    project.makepyfile(calc="import os\n")  # F401: a new lint finding
    project.makeconftest(JUDGES_THE_HEAD)
    git(project.path, "add", "-A")
    git(project.path, "commit", "-qm", "feat: calc uses os")
    monkeypatch.setenv("GITHUB_BASE_REF", "main")
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    result = project.runpytest("--gate")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    lint = {check["id"]: check for check in verdict_of(project)["checks"]}["lint"]
    assert lint["status"] == "failed", lint


def test_a_base_outside_git_is_a_usage_error(project: pytest.Pytester) -> None:
    result = project.runpytest("--gate=small", "--base=main")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--base 'main' needs a git work tree*"])
    assert not (project.path / ".phasegate" / "gates" / "small.json").exists()


def test_record_evaluates_no_gate(project: pytest.Pytester) -> None:
    project.makepyfile(sloppy="import os\n")
    result = project.runpytest("--gate=record")
    assert result.ret == pytest.ExitCode.OK
    assert not (project.path / ".phasegate" / "gates").exists()


COVERAGE_GATE = """
name = "covered"
[checks.tests]
[checks.coverage]
fail_when = [{ metric = "line_rate", op = "<", value = 0.9 }]
"""


@pytest.fixture
def covered(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyprojecttoml('[tool.phasegate]\ngate_paths = ["ci"]\n')
    pytester.mkdir("ci")
    (pytester.path / "ci" / "covered.toml").write_text(COVERAGE_GATE)
    pytester.mkpydir("calc")
    (pytester.path / "calc" / "__init__.py").write_text(
        "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
    )
    pytester.makepyfile(
        test_calc="from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    )
    return pytester


@pytest.mark.slow
def test_coverage_is_measured_in_the_same_run(covered: pytest.Pytester) -> None:
    result = covered.runpytest_subprocess("--gate=covered", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    coverage = verdict_of(covered, "covered")["checks"][1]
    # calc/__init__.py: 4 statements (2 defs, 2 returns); sub's return never ran.
    assert coverage["metrics"]["lines"] == 4
    assert coverage["metrics"]["lines_covered"] == 3
    assert coverage["metrics"]["line_rate"] == 0.75
    assert coverage["findings"][0]["path"] == "calc/__init__.py"
    assert coverage["findings"][0]["line"] == 6
    assert (covered.path / ".phasegate" / "coverage" / ".coverage").is_file()


@pytest.mark.slow
def test_coverage_under_xdist_matches_a_serial_run(covered: pytest.Pytester) -> None:
    covered.makepyfile(
        test_more="from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 2) == 1\n"
    )
    covered.runpytest_subprocess("--gate=covered", "-p", "no:cacheprovider")
    serial = verdict_of(covered, "covered")["checks"][1]["metrics"]
    result = covered.runpytest_subprocess("--gate=covered", "-n", "2", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    parallel = verdict_of(covered, "covered")["checks"][1]["metrics"]
    assert parallel == serial
    assert parallel["line_rate"] == 1.0


def test_collections_are_paused_inside_and_restored_as_they_were() -> None:
    from phasegate.collector_pause import collections_paused

    assert gc.isenabled()
    seen: list[bool] = []

    def judge() -> None:
        with collections_paused():
            seen.append(gc.isenabled())
            raise RuntimeError("the judging failed")

    with pytest.raises(RuntimeError):
        judge()
    assert seen == [False]
    assert gc.isenabled()

    gc.disable()
    try:
        with collections_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # it was off before: it stays off
    finally:
        gc.enable()


def test_a_gate_run_in_this_process_leaves_the_collector_on(project: pytest.Pytester) -> None:
    result = project.runpytest("--gate=small")

    assert result.ret == pytest.ExitCode.OK
    assert verdict_of(project)["verdict"] == "sufficient"
    assert gc.isenabled()


#: A conftest.py of the change recording an approval of the commit while the gate runs.
APPROVES_ITSELF = """
import subprocess
import sys

subprocess.run(
    [sys.executable, "-m", "phasegate", "review", "record", "--subject", "pr",
     "--status", "approved", "--reviewer", "lead", "--commit", "HEAD"],
    check=True, capture_output=True,
)
"""


def test_a_review_recorded_while_the_tests_run_is_not_believed(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review s17r: a conftest.py (or a test) of the change ran ``phasegate review record``
    during the run, and the review check, reading the file at the end, passed on it: a pull
    request approved itself. Only the reviews the file held before the tests' code ran count.

    Review s17d, 18: with ``PYTEST_XDIST_WORKER`` in the environment (a shell's, a workflow's,
    or this suite's own xdist worker), the run kept no reviews and believed every one."""
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw9")  # the environment's, not a real worker
    (project.path / "ci" / "reviewed.toml").write_text('name = "reviewed"\n[checks.review]\n')
    project.makeconftest(APPROVES_ITSELF)
    git(project.path, "init", "-q", "-b", "main")
    git(project.path, "add", "-A")
    git(project.path, "commit", "-qm", "feat: calc")
    project.runpytest("--gate=reviewed")
    review = verdict_of(project, "reviewed")["checks"][0]
    assert (review["id"], review["status"]) == ("review", "failed"), review
    assert "1 review(s) recorded while the tests ran are not believed" in review["reasoning"]
    # Recorded before the run (the conftest.py gone), the same approval counts.
    (project.path / "conftest.py").unlink()
    project.runpytest("--gate=reviewed")
    assert verdict_of(project, "reviewed")["checks"][0]["status"] == "passed"


def reviewed_project(project: pytest.Pytester, addopts: str = "") -> None:
    (project.path / "ci" / "reviewed.toml").write_text('name = "reviewed"\n[checks.review]\n')
    settings = (project.path / "pyproject.toml").read_text()
    ini = f'\n[tool.pytest.ini_options]\naddopts = "{addopts}"\n' if addopts else ""
    (project.path / "pyproject.toml").write_text(settings + ini)
    git(project.path, "init", "-q", "-b", "main")
    git(project.path, "add", "-A")
    git(project.path, "commit", "-qm", "feat: calc")


def phasegate_cli(root: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "phasegate", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_a_review_recorded_by_a_plugin_loaded_before_the_run_is_refused(
    project: pytest.Pytester,
) -> None:
    """Review s17d, 2: pytest imports ``-p`` plugins (from the change's ``addopts``) and the
    ``pytest11`` entry points before phasegate keeps the reviews file: such a module recording
    an approval of HEAD on import was believed. The digest handed over on the command line,
    taken before pytest started, no longer matches."""
    (project.path / "approve_on_import.py").write_text(APPROVES_ITSELF)
    project.syspathinsert()
    reviewed_project(project, addopts="-p approve_on_import")
    digest = phasegate_cli(project.path, "review", "digest")
    assert digest == hashlib.sha256(b"").hexdigest()  # no review before the run
    result = project.runpytest("--gate=reviewed", f"--reviews-sha256={digest}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*reviews.jsonl changed after it was handed over*"])
    assert not (project.path / ".phasegate" / "gates" / "reviewed.json").exists()


def test_reviews_handed_over_unchanged_are_believed(project: pytest.Pytester) -> None:
    reviewed_project(project)
    phasegate_cli(
        project.path, "review", "record", "--subject", "pr", "--status", "approved",
        "--reviewer", "lead", "--commit", "HEAD",
    )  # fmt: skip
    digest = phasegate_cli(project.path, "review", "digest")
    assert (
        digest
        == hashlib.sha256((project.path / ".phasegate" / "reviews.jsonl").read_bytes()).hexdigest()
    )
    result = project.runpytest("--gate=reviewed", f"--reviews-sha256={digest}")
    assert result.ret == pytest.ExitCode.OK
    assert verdict_of(project, "reviewed")["checks"][0]["status"] == "passed"
    # Given by the settings rather than the command line, a digest counts for nothing.
    reviewed = project.path / "pyproject.toml"
    forged = f'\n[tool.pytest.ini_options]\naddopts = "--reviews-sha256={"0" * 64}"\n'
    reviewed.write_text(reviewed.read_text() + forged)
    assert project.runpytest("--gate=reviewed").ret == pytest.ExitCode.OK


def test_a_conftest_cannot_turn_the_run_into_a_shard(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review s17r: a conftest.py setting ``PHASEGATE_SHARD`` made ``pytest --gate=small`` a
    shard, which judges nothing: exit 0 with a skipped failing test and no verdict. The
    environment is the one the run began with."""
    monkeypatch.setenv("PHASEGATE_SHARD", "")  # the in-process conftest's value is undone after
    project.makeconftest('import os\n\nos.environ["PHASEGATE_SHARD"] = "1/1"\n')
    result = project.runpytest("--gate=small")
    assert "shard 1/1" not in result.stdout.str()
    assert verdict_of(project)["verdict"] == "sufficient"
