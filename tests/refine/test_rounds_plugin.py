"""Each pytest --gate run is a round: state and metrics on disk, the next action on screen."""

from __future__ import annotations

import json
from typing import Any

import pytest

GATE = 'name = "small"\n[checks.tests]\n'


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyprojecttoml(
        '[tool.phasegate]\ngate_paths = ["ci"]\n\n[tool.phasegate.refine]\ntask = "calc"\n'
    )
    pytester.mkdir("ci")
    (pytester.path / "ci" / "small.toml").write_text(GATE)
    return pytester


def state(pytester: pytest.Pytester) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (pytester.path / ".phasegate" / "refinement.json").read_text()
    )
    return data


def test_a_failing_round_then_a_passing_one(project: pytest.Pytester) -> None:
    project.makepyfile(test_calc="def test_add():\n    assert 1 + 1 == 3\n")
    result = project.runpytest("--gate=small")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "round 1 of calc (loop 1, at most 20 rounds): score 0.00, moving average 0.00; "
            "refining",
            "next: route to debug test_calc.py::test_add: 1 test(s) fail, error or cannot be "
            "collected; debug them, starting with test_calc.py::test_add",
        ]
    )
    first = state(project)
    assert first["rounds"][0]["failing_tests"] == ["test_calc.py::test_add"]
    assert first["next_action"]["action"] == "route_to_debug"

    # A different size: a rewrite of the same size within the second would reuse the cached
    # bytecode of the first version.
    project.makepyfile(test_calc="def test_add():\n    assert 1 + 1 == 2  # fixed\n")
    result = project.runpytest("--gate=small", "-q")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["next: proceed: the gate small is sufficient*"])
    second = state(project)
    assert [r["score"] for r in second["rounds"]] == [0.0, 1.0]
    assert second["rounds"][1]["ema"] == 0.3
    assert second["status"] == "passed"
    assert second["feedback"][0]["resolved_round"] == 2
    metrics = json.loads((project.path / ".phasegate/metrics/calc.loop1.json").read_text())
    assert metrics["refinement_rounds"] == 2
    assert metrics["completed_without_intervention"] is True
    assert metrics["errors_auto_resolved"] == 2


def test_a_corrupt_state_file_is_moved_aside_not_overwritten(project: pytest.Pytester) -> None:
    project.makepyfile(test_calc="def test_add():\n    assert True\n")
    (project.path / ".phasegate").mkdir()
    (project.path / ".phasegate" / "refinement.json").write_text('{"task": ')
    result = project.runpytest("--gate=small")
    assert result.ret == pytest.ExitCode.OK
    aside = list((project.path / ".phasegate").glob("refinement.json.corrupt-*"))
    assert len(aside) == 1
    assert aside[0].read_text() == '{"task": '
    result.stdout.fnmatch_lines(
        ["warning: .phasegate/refinement.json could not be read: it is not valid JSON*"]
    )
    assert state(project)["rounds"][0]["round"] == 1


def test_the_loop_can_be_turned_off(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml(
        '[tool.phasegate]\ngate_paths = ["ci"]\n[tool.phasegate.refine]\nenabled = false\n'
    )
    pytester.mkdir("ci")
    (pytester.path / "ci" / "small.toml").write_text(GATE)
    pytester.makepyfile(test_calc="def test_add():\n    assert True\n")
    pytester.runpytest("--gate=small").assert_outcomes(passed=1)
    assert not (pytester.path / ".phasegate" / "refinement.json").exists()


def test_a_bad_refine_setting_names_the_key(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml("[tool.phasegate.refine]\nalpha = 2\n")
    result = pytester.runpytest("--gate=record")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*key tool.phasegate.refine.alpha = 2 is not allowed*"])


@pytest.mark.slow
def test_a_round_records_the_phase_auto_debugs_iterations_and_the_context_queries(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.mkpydir("calc")
    (project.path / "calc" / "ops.py").write_text("def add_numbers(a, b):\n    return a + b\n")
    (project.path / "calc" / "main.py").write_text(
        "def total(values):\n    result = 0\n    for v in values:\n"
        "        result = sum_numbers(result, v)\n    return result\n"
    )
    project.makepyfile(
        test_calc="from calc.main import total\n\n\ndef test_total():\n"
        "    assert total([1, 2]) == 3\n"
    )
    monkeypatch.setenv("PHASEGATE_WORKFLOW_PHASE", "EXECUTE")
    result = project.runpytest_subprocess("--gate=small", "--autodebug", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = json.loads((project.path / ".phasegate" / "autodebug.json").read_text())
    metrics = json.loads((project.path / ".phasegate/metrics/calc.loop1.json").read_text())
    assert metrics["phase"] == "EXECUTE"
    assert metrics["debug_iterations"] == [len(f["attempts"]) for f in report["failures"]]
    assert metrics["debug_iterations"][0] >= 1
    assert metrics["context_queries"] == report["context"]["queries"] >= 1
    assert metrics["avg_context_latency_ms"] > 0
    assert len(metrics["context_relevance_scores"]) == metrics["context_queries"]


def test_without_a_loop_configured_the_round_shows_only_with_verbose(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyprojecttoml('[tool.phasegate]\ngate_paths = ["ci"]\n')
    pytester.mkdir("ci")
    (pytester.path / "ci" / "small.toml").write_text(GATE)
    pytester.makepyfile(test_calc="def test_add():\n    assert 1 + 1 == 2\n")
    quiet = pytester.runpytest("--gate=small")
    assert quiet.ret == pytest.ExitCode.OK
    quiet.stdout.no_fnmatch_line("round 1 of *")
    quiet.stdout.no_fnmatch_line("next: *")
    assert (pytester.path / ".phasegate" / "refinement.json").is_file()  # still recorded
    verbose = pytester.runpytest("--gate=small", "-v")
    verbose.stdout.fnmatch_lines(["round * of small@* moving average *", "next: proceed: *"])


@pytest.mark.slow
def test_what_records_the_round_is_loaded_before_the_wait_for_the_static_checks(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # After the wait it would be on the gate's critical path when the static checks end last.
    import sys

    from phasegate.gates.static_process import StaticChecksProcess

    loaded_at_the_wait: list[bool] = []
    judgements = StaticChecksProcess.judgements

    def recording(self: StaticChecksProcess) -> Any:
        loaded_at_the_wait.append("phasegate.refine.state" in sys.modules)
        return judgements(self)

    monkeypatch.setattr(StaticChecksProcess, "judgements", recording)
    monkeypatch.delitem(sys.modules, "phasegate.refine.state", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # this test may run in a worker
    (project.path / "ci" / "small.toml").write_text(GATE + "[checks.syntax]\n")
    project.makepyfile(test_calc="def test_add():\n    assert 1 + 1 == 2\n")
    result = project.runpytest("--gate=small", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    assert loaded_at_the_wait == [True]
    assert [r["score"] for r in state(project)["rounds"]] == [1.0]
