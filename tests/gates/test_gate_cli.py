"""phasegate gate run / list / explain, as a user calls them from a shell."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

GATE = (
    'name = "small"\ndescription = "Three checks."\n'
    "[checks.syntax]\n[checks.tests]\n[checks.lint]\n"
)


def phasegate(
    root: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "phasegate", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=env,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.ruff.lint]\nselect = ["E", "F"]\n\n[tool.phasegate]\ngate_paths = ["ci"]\n'
    )
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "small.toml").write_text(GATE)
    (tmp_path / "test_calc.py").write_text("def test_add():\n    assert 1 + 1 == 2\n")
    return tmp_path


@pytest.mark.slow
def test_gate_run_shows_progress_then_the_table(project: Path) -> None:
    completed = phasegate(project, "gate", "run", "--gate", "small", "--", "-p", "no:cacheprovider")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    out = completed.stdout
    log = project / ".phasegate" / "gates" / "small.pytest.log"
    assert (
        "phasegate: gate small: running pytest --gate=small -p no:cacheprovider "
        f"(output kept in {log})"
    ) in out
    assert "  lint: started" in out
    assert "  lint: passed in " in out
    assert "  pytest: 1 of 1 tests run\n" in out  # the tests' progress, not only the checks'
    assert "gate small: SUFFICIENT" in out
    assert f"pytest output: {log}" in out
    assert "1 passed" in log.read_text()


@pytest.mark.slow
def test_gate_run_exits_1_and_names_the_failing_test(project: Path) -> None:
    (project / "test_bad.py").write_text("def test_bad():\n    assert 2 == 3\n")
    completed = phasegate(project, "gate", "run", "--gate", "small")
    assert completed.returncode == 1
    assert "FAILED test_bad.py::test_bad - AssertionError: assert 2 == 3" in completed.stdout
    assert "gate small: INSUFFICIENT" in completed.stdout
    verdict = json.loads((project / ".phasegate" / "gates" / "small.json").read_text())
    assert verdict["reasons"][0].startswith("tests: failed is 1")


@pytest.mark.slow
def test_gate_list_and_explain(project: Path) -> None:
    listed = phasegate(project, "gate", "list")
    assert listed.returncode == 0
    assert "  small          project" in listed.stdout
    assert "  twelve-check   built-in" in listed.stdout
    assert "  lint           built-in  ruff" in listed.stdout
    explained = phasegate(project, "gate", "explain", "twelve-check")
    assert explained.returncode == 0
    assert "fails when line_rate on new code < 0.8" in explained.stdout
    assert "review (peer review of this commit; required in a pull request, optional" in (
        explained.stdout
    )


@pytest.mark.slow
def test_gate_run_with_a_malformed_gate_exits_4(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    (project / "ci" / "small.toml").write_text("[checks.lint]\nrequird = false\n")
    temporary = tmp_path_factory.mktemp("tmpdir")
    completed = phasegate(
        project, "gate", "run", "--gate", "small", env={**os.environ, "TMPDIR": str(temporary)}
    )
    assert completed.returncode == 4
    assert "unknown key checks.lint.requird = False" in completed.stderr
    assert "did you mean 'required'" in completed.stderr
    # The pytest run that found it ended, and its log was removed.
    assert not list(temporary.glob("phasegate-gate-run-*"))
    assert not (project / ".phasegate" / "gates" / "small.pytest.log").exists()


@pytest.mark.slow
def test_gate_run_with_a_base_outside_git_exits_4_and_says_why(project: Path) -> None:
    completed = phasegate(project, "gate", "run", "--gate", "small", "--base", "main")
    assert completed.returncode == 4
    assert "--base 'main' needs a git work tree" in completed.stderr
    assert not (project / ".phasegate" / "gates" / "small.pytest.log").exists()


def _fake_start(code: str, project: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """Run ``code``, which stops at the start of pytest; what it printed.

    Its temporary files (the log pytest was to write) go to a folder of the test's own.
    """
    temporary = {"TMPDIR": str(tmp_path_factory.mktemp("tmpdir"))}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **temporary},
    )
    return done.stdout.strip()


def test_gate_run_starts_pytest_before_it_loads_pydantic(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # With the settings cached (as the pytest plugin leaves them), `gate run` starts pytest
    # at once; the gate and the full settings are checked while pytest starts up.
    warm = "from pathlib import Path; from phasegate.config import load_config\n"
    warm += "load_config(Path.cwd(), {'gate': ('--gate', 'small')}, cache=True)"
    subprocess.run([sys.executable, "-c", warm], cwd=project, check=True)
    code = (
        "import os, subprocess, sys\n"
        "def started(command, **options):\n"
        "    print('pydantic loaded:', 'pydantic' in sys.modules, command[3:], flush=True)\n"
        "    os._exit(0)\n"
        "subprocess.Popen = started\n"
        "from phasegate.cli import main\n"
        "main(['gate', 'run', '--gate', 'small'])\n"
    )
    assert _fake_start(code, project, tmp_path_factory) == "pydantic loaded: False ['--gate=small']"


def test_gate_run_with_a_gate_reads_no_settings_before_pytest(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # A cold run (no settings cache): pytest validates the settings; `gate run` does not.
    code = (
        "import os, subprocess, sys\n"
        "def started(command, **options):\n"
        "    print('pydantic loaded:', 'pydantic' in sys.modules, command[3:], flush=True)\n"
        "    os._exit(0)\n"
        "subprocess.Popen = started\n"
        "from phasegate.cli import main\n"
        "main(['gate', 'run', '--gate', 'small', '--', '-x'])\n"
    )
    started = _fake_start(code, project, tmp_path_factory)
    assert started == "pydantic loaded: False ['--gate=small', '-x']"
    assert not (project / ".phasegate").exists()  # nothing read, nothing written


def test_gate_run_keeps_the_log_where_pytest_named_its_folder(tmp_path: Path) -> None:
    from phasegate.cli.gate import _Display, _keep_log

    running = tmp_path / "running.log"
    running.write_text("1 passed\n")
    named: list[tuple[str, Path]] = []
    display = _Display(io.StringIO(), interactive=False, started=0.0)
    display.on_gate = lambda gate, artifacts: named.append((gate, artifacts))
    # Not the event pytest writes: no folder, or a relative one. The log stays where it is.
    for event in ({"gate": "small"}, {"gate": "small", "artifacts": "relative/.phasegate"}):
        display.event(json.dumps(event))
        assert display.gate is None
        assert _keep_log(running, display) == running
    artifacts = tmp_path / "project" / ".phasegate"
    display.event(json.dumps({"gate": "small", "artifacts": str(artifacts)}))
    assert named == [("small", artifacts)]
    kept = _keep_log(running, display)
    assert kept == artifacts / "gates" / "small.pytest.log"
    assert kept.read_text() == "1 passed\n"
    assert not running.exists()


def test_the_tests_progress_is_shown_in_a_log_as_lines() -> None:
    from phasegate.cli.gate import _Display

    out = io.StringIO()
    display = _Display(out, interactive=False, started=0.0)
    display.event('{"tests": {"collected": 4, "done": 0, "failed": 0}}')
    display.event('{"check": "lint", "state": "started"}')
    display.event("not json")  # a torn line is not a crash
    display.event('{"tests": {"collected": 4, "done": 4, "failed": 1}}')
    display.event('{"tests": {"collected": 4, "done": 4, "failed": 1}}')  # said once
    display.close()
    assert out.getvalue().splitlines() == [
        "  pytest: 0 of 4 tests run",
        "  lint: started",
        "  pytest: 4 of 4 tests run, 1 failed",
    ]


def test_events_of_another_shape_are_shown_without_their_odd_values() -> None:
    from phasegate.cli.gate import _Display

    out = io.StringIO()
    display = _Display(out, interactive=False, started=0.0)
    display.event('{"tests": {"collected": "4", "done": true, "failed": null}}')
    display.event('{"check": "lint", "status": "passed", "duration_s": "slow"}')
    display.event('{"verdict": {"gate": "small", "insufficient": "no", "lines": []}}')
    display.close()
    tests = "  pytest: 0 of 0 tests run"  # shown when it came, and at the end (never finished)
    assert out.getvalue().splitlines() == [tests, "  lint: passed in 0.0s", tests]
    assert display.verdict is None


def test_the_tests_progress_is_written_for_gate_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyprojecttoml('[tool.phasegate]\ngate_paths = ["ci"]\n')
    pytester.mkdir("ci")
    (pytester.path / "ci" / "only-tests.toml").write_text('name = "only-tests"\n[checks.tests]\n')
    pytester.makepyfile(test_a="def test_a():\n    pass\n\ndef test_b():\n    assert 0\n")
    events = pytester.path / "events.jsonl"
    monkeypatch.setenv("PHASEGATE_PROGRESS_FILE", str(events))
    pytester.runpytest("--gate=only-tests")
    tests = [e["tests"] for e in map(json.loads, events.read_text().splitlines()) if "tests" in e]
    assert tests[0] == {"collected": 2, "done": 0, "failed": 0}
    assert tests[-1] == {"collected": 2, "done": 2, "failed": 1}


def test_the_gate_and_its_verdict_are_written_for_gate_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `gate run` prints what pytest leaves in the feed: it loads no gate and no verdict itself.
    pytester.makepyprojecttoml('[tool.phasegate]\ngate_paths = ["ci"]\n')
    pytester.mkdir("ci")
    (pytester.path / "ci" / "file.toml").write_text('name = "only-tests"\n[checks.tests]\n')
    pytester.makepyfile(test_a="def test_a():\n    pass\n\ndef test_b():\n    assert 0\n")
    events = pytester.path / "events.jsonl"
    monkeypatch.setenv("PHASEGATE_PROGRESS_FILE", str(events))
    pytester.runpytest("--gate=ci/file.toml").assert_outcomes(passed=1, failed=1)
    written = [json.loads(line) for line in events.read_text().splitlines()]
    # The gate file's own name and the artifacts folder, before any test.
    assert written[0] == {"gate": "only-tests", "artifacts": str(pytester.path / ".phasegate")}
    verdict = written[-1]["verdict"]
    assert verdict["gate"] == "only-tests"
    assert verdict["insufficient"] is True
    assert verdict["lines"][0] == "  FAILED test_a.py::test_b - AssertionError: assert 0"
    assert verdict["lines"][1].startswith("gate only-tests: INSUFFICIENT")


def test_gate_run_says_not_judged_without_a_sound_verdict_event(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from phasegate.cli.gate import _Display, _finish

    for last in (
        "",  # pytest ended (crashed, was killed) before the verdict
        '{"verdict": {"gate": "small", "insufficient": "no", "lines": []}}',  # wrong shape
        '{"verdict": {"gate": "other", "insufficient": false, "lines": ["ok"]}}',  # not this gate
    ):
        display = _Display(io.StringIO(), interactive=False, started=0.0)
        display.event('{"gate": "small", "artifacts": "/p/.phasegate"}')
        display.event(last)
        assert _finish(display, 0, Path("small.pytest.log")) == 1
        assert "the gate was not judged (pytest exit status 0)" in capsys.readouterr().out


def test_gate_run_before_the_gate_loaded_fails(tmp_path: Path) -> None:
    from phasegate.cli.gate import _not_started
    from phasegate.errors import UsageError

    log = tmp_path / ".running-1.pytest.log"
    log.write_text("ERROR: phasegate: ci/small.toml: unknown key checks.lint.requird\n")
    with pytest.raises(UsageError, match=r"^ci/small.toml: unknown key checks.lint.requird$"):
        _not_started(log, 4)
    assert not log.exists()  # as if nothing had started
    for output, returncode in (("", 0), ("garbage\n", 0), ("Traceback ...\n", 1)):
        log.write_text(output)
        assert _not_started(log, returncode) == 1  # never a pass without a verdict
        assert log.exists()  # kept for the user to read
