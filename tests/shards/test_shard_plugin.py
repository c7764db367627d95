"""pytest --gate --shard=K/N, and phasegate merge on real shard runs (coverage included)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from phasegate.gates.coverage_run import COVERAGE_DATA

TESTS = "\n".join(f"def test_{n}():\n    assert {n} >= 0\n" for n in range(5))


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyprojecttoml("[tool.phasegate]\n")
    pytester.makepyfile(test_five=TESTS)
    return pytester


def report(pytester: pytest.Pytester, folder: str = ".phasegate") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((pytester.path / folder / "report.json").read_text())
    return data


def test_a_shard_runs_its_part_and_says_which_it_was(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--gate=record", "--shard=2/2")
    result.assert_outcomes(passed=2, deselected=3)
    data = report(suite)
    assert [t["nodeid"].split("::")[1] for t in data["tests"]] == ["test_1", "test_3"]
    assert data["shard"]["index"] == 2
    assert data["shard"]["total"] == 2
    assert data["shard"]["suite_size"] == 5
    assert data["shard"]["gate"] == "record"
    assert data["incomplete"] is False


def test_the_environment_names_the_shard_too(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PHASEGATE_SHARD", "1/2")
    suite.runpytest("--gate=record").assert_outcomes(passed=3, deselected=2)
    assert report(suite)["shard"]["index"] == 1


def test_shard_without_gate_and_a_bad_shard_are_usage_errors(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--shard=1/2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--shard needs --gate=NAME*"])
    result = suite.runpytest("--gate=record", "--shard=3/2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--shard = '3/2': the shard number K must be from 1*"])


def test_a_shard_asked_for_by_the_settings_is_a_usage_error(suite: pytest.Pytester) -> None:
    """Review s17d, 13: ``addopts = "--shard=1/1"`` in the change's settings turned
    ``pytest --gate=NAME`` into a shard, which judges nothing: exit 0, no verdict."""
    suite.makepyprojecttoml('[tool.pytest.ini_options]\naddopts = "--shard=1/1"\n')
    result = suite.runpytest("--gate=record")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--shard=1/1 comes from the project's settings (addopts*"])
    assert not (suite.path / ".phasegate" / "report.json").exists()
    # Given on the command line (the settings' value comes first, the command line's wins).
    suite.runpytest("--gate=record", "--shard", "2/2").assert_outcomes(passed=2, deselected=3)
    assert report(suite)["shard"]["index"] == 2


def test_shards_under_xdist_record_the_whole_suite(suite: pytest.Pytester) -> None:
    result = suite.runpytest_subprocess(
        "--gate=record", "--shard=1/2", "-n", "2", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=3)
    data = report(suite)
    assert data["shard"]["suite_size"] == 5
    assert data["incomplete"] is False


GATE = """
name = "covered"
[checks.tests]
[checks.coverage]
fail_when = [{ metric = "line_rate", op = "<", value = 0.9 }]
"""


def phasegate(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "phasegate", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture
def covered(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyprojecttoml('[tool.phasegate]\ngate_paths = ["ci"]\n')
    pytester.mkdir("ci")
    (pytester.path / "ci" / "covered.toml").write_text(GATE)
    pytester.mkpydir("calc")
    (pytester.path / "calc" / "__init__.py").write_text(
        "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
    )
    pytester.makepyfile(
        test_calc="from calc import add, sub\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
        "\n\ndef test_sub():\n    assert sub(3, 2) == 1\n"
    )
    return pytester


@pytest.mark.slow
def test_merge_judges_the_gate_once_with_the_coverage_of_every_shard(
    covered: pytest.Pytester,
) -> None:
    for k in (1, 2):
        result = covered.runpytest_subprocess(
            "--gate=covered",
            f"--shard={k}/2",
            f"--phasegate-dir=shards/{k}",
            "-p",
            "no:cacheprovider",
        )
        assert result.ret == pytest.ExitCode.OK
        result.stdout.fnmatch_lines(
            [f"shard {k}/2 ran 1 of the suite's 2 tests; the gate covered is judged once*"]
        )
        assert (covered.path / "shards" / str(k) / COVERAGE_DATA).is_file()
        assert not (covered.path / "shards" / str(k) / "gates").exists()
    merged = phasegate(covered.path, "merge", "shards/1", "shards/2")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "phasegate: merged 2 shards: 2 collected: 2 passed" in merged.stdout
    assert "gate covered: SUFFICIENT" in merged.stdout
    verdict = json.loads((covered.path / ".phasegate/gates/covered.json").read_text())
    coverage = next(c for c in verdict["checks"] if c["id"] == "coverage")
    # each shard alone ran one of the two functions; merged, every line ran
    assert coverage["metrics"]["line_rate"] == 1.0
    assert coverage["metrics"]["lines"] == 4
    merged_report = json.loads((covered.path / ".phasegate/report.json").read_text())
    assert [s["index"] for s in merged_report["merged"]["shards"]] == [1, 2]
    assert (covered.path / ".phasegate/refinement.json").is_file()

    missing = phasegate(covered.path, "merge", "shards/1")
    assert missing.returncode == 4
    assert "shard 2/2 is missing" in missing.stderr
    twice = phasegate(covered.path, "merge", "shards/1", "shards/2", "shards/2")
    assert twice.returncode == 4
    assert "shard 2/2 was given twice" in twice.stderr
