"""The gates on real open-source projects, each with a committed change whose verdict is known.

The projects (``tests/realprojects.py``): more-itertools 11.2.1 (flat layout, a unittest-style
suite with ``subTest``), python-dateutil 4.0.0 (``src/`` layout, freezegun) and attrs 26.1.0
(``src/`` layout, two packages, coverage ``patch = ["subprocess"]``). Each is unpacked from its
cached sdist into a git repository with one commit; a test skips when the sdist is not cached
(``python tests/realprojects.py fetch`` caches them; tests never use the network).

Each suite runs a fast subset of its tests, named in :data:`SUBSETS`, so that this module
costs about a minute, not the tens of minutes of the full suites.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.realprojects import PROJECTS, git_commit, require, unpack

pytestmark = pytest.mark.slow

#: The tests each project's runs are limited to: fast, and including what matters here
#: (more-itertools' GrouperTests use self.subTest; dateutil's test_utils uses freeze_time).
SUBSETS: dict[str, list[str]] = {
    "more-itertools": [
        "tests/test_recipes.py",
        "-k",
        "Grouper or Pairwise or Take or Tabulate or Tail",
    ],
    "python-dateutil": [
        "tests/test_utils.py",
        "tests/test_easter.py",
        "tests/test_relativedelta.py",
    ],
    "attrs": ["tests/test_validators.py", "tests/test_filters.py"],
}

#: The gate the changes are judged by: the run, coverage of new code, and the public API.
GATE = 'name = "real"\n[checks.tests]\n[checks.coverage]\n[checks.breaking]\n'


def checkout(name: str, into: Path) -> Path:
    require(name)
    return unpack(name, into)


def pytest_in(root: Path, name: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m pytest`` on the project's subset, as its own CI would run it."""
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith("PHASEGATE_")
    }
    if PROJECTS[name].layout == "src":
        environment["PYTHONPATH"] = str(root / "src")  # before the installed copy, if any
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *SUBSETS[name], *args],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def outcomes(path: Path) -> dict[str, str]:
    """Each test's outcome, from pytest-json-report's file."""
    report = json.loads(path.read_text())
    return {test["nodeid"]: test["outcome"] for test in report["tests"]}


def verdict(root: Path, gate: str = "real") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / ".phasegate" / "gates" / f"{gate}.json").read_text())
    return data


def check(data: dict[str, Any], check_id: str) -> dict[str, Any]:
    (found,) = [c for c in data["checks"] if c["id"] == check_id]
    return dict(found)


def summary_counts(stdout: str) -> str:
    """The counts of pytest's last summary line, without its duration and padding."""
    return stdout.splitlines()[-1].split(" in ")[0].strip("= ")


@pytest.mark.parametrize("name", list(SUBSETS))
def test_plain_pytest_and_the_gate_give_the_same_outcomes(name: str, tmp_path: Path) -> None:
    root = checkout(name, tmp_path)
    plain = pytest_in(root, name, "--json-report", "--json-report-file=plain.json")
    gated = pytest_in(root, name, "--gate", "--json-report", "--json-report-file=gated.json")
    assert "INTERNALERROR" not in gated.stdout + gated.stderr, gated.stderr[-2000:]
    assert outcomes(root / "gated.json") == outcomes(root / "plain.json")
    assert len(outcomes(root / "plain.json")) > 10
    summaries = [
        {k: v for k, v in json.loads((root / f).read_text())["summary"].items() if k != "duration"}
        for f in ("plain.json", "gated.json")
    ]
    assert summaries[0] == summaries[1]
    # pytest's own summary line, "18 passed, 127 deselected, 26 subtests passed", without the
    # duration and the "=" padding whose width depends on how long the duration is written
    assert summary_counts(plain.stdout) == summary_counts(gated.stdout)
    report = json.loads((root / ".phasegate" / "report.json").read_text())
    assert report["counts"]["collected"] == len(outcomes(root / "plain.json"))
    assert (report["counts"]["failed"] + report["counts"]["errors"] > 0) == (plain.returncode == 1)
    # The gate may fail a run whose tests passed (coverage of all code, say), never the reverse.
    assert gated.returncode in ((plain.returncode,) if plain.returncode else (0, 1))


def test_a_failed_subtest_fails_the_gate_as_it_fails_pytest(tmp_path: Path) -> None:
    # One line of grouper changed: unittest's subTest failures, which pytest counts.
    root = checkout("more-itertools", tmp_path)
    recipes = root / "more_itertools" / "recipes.py"
    recipes.write_text(
        recipes.read_text().replace(
            "return zip_longest(*iterators, fillvalue=fillvalue)", "return zip(*iterators)"
        )
    )
    (tmp_path / "real.toml").write_text('name = "real"\n[checks.tests]\n')
    plain = pytest_in(root, "more-itertools")
    gated = pytest_in(root, "more-itertools", f"--gate={tmp_path / 'real.toml'}")
    assert plain.returncode == gated.returncode == 1
    tests = check(verdict(root), "tests")
    assert tests["status"] == "failed"
    assert tests["metrics"]["failed"] >= 1
    assert "GrouperTests" in tests["reasoning"]


def judge_change(root: Path, gate: Path, name: str) -> dict[str, Any]:
    completed = pytest_in(root, name, f"--gate={gate}", "--base=HEAD~1")
    assert "INTERNALERROR" not in completed.stdout + completed.stderr, completed.stderr[-2000:]
    return verdict(root)


#: A public function's parameter renamed, and its body with it: (file, [(old, new), ...]).
RENAMES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "more-itertools": (
        "more_itertools/recipes.py",
        [
            ("def take(n, iterable):", "def take(count, iterable):"),
            ("return list(islice(iterable, n))", "return list(islice(iterable, count))"),
        ],
    ),
    "python-dateutil": (
        "src/dateutil/utils.py",
        [
            ("def today(tzinfo=None):", "def today(tz=None):"),
            ("dt = datetime.now(tzinfo)", "dt = datetime.now(tz)"),
            ("time(0, tzinfo=tzinfo))", "time(0, tzinfo=tz))"),
        ],
    ),
}


@pytest.mark.parametrize("name", list(RENAMES))
def test_a_renamed_public_parameter_fails_breaking_in_both_layouts(
    name: str, tmp_path: Path
) -> None:
    root = checkout(name, tmp_path / "project")
    relative, replacements = RENAMES[name]
    source = root / relative
    text = source.read_text()
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    source.write_text(text)
    git_commit(root, "refactor: rename a parameter")
    (tmp_path / "real.toml").write_text(GATE)
    data = judge_change(root, tmp_path / "real.toml", name)
    breaking = check(data, "breaking")
    assert data["verdict"] == "insufficient"
    assert breaking["status"] == "failed"
    assert breaking["metrics"]["breaking_changes"] >= 1
    assert "parameter-removed" in {finding["rule"] for finding in breaking["findings"]}
    assert check(data, "tests")["status"] == "passed"  # only the API broke


def test_an_untested_new_function_fails_coverage_on_new_code(tmp_path: Path) -> None:
    root = checkout("attrs", tmp_path / "project")
    module = root / "src" / "attr" / "validators.py"
    module.write_text(
        module.read_text()
        + "\n\ndef _never_called(value):\n    if value:\n        return value * 2\n    return 0\n"
    )
    git_commit(root, "feat: a helper no test calls")
    (tmp_path / "real.toml").write_text(GATE)
    data = judge_change(root, tmp_path / "real.toml", "attrs")
    coverage = check(data, "coverage")
    assert data["verdict"] == "insufficient"
    assert coverage["status"] == "failed"
    # Of its four new lines only the def ran (when the module was imported).
    assert coverage["new_code_metrics"]["line_rate"] == 0.25
    assert check(data, "tests")["status"] == "passed"
    assert check(data, "breaking")["status"] == "passed"
    # The project's coverage patch = subprocess does not measure the gate's own helpers.
    assert not list(root.glob(".coverage.*"))


def test_a_clean_change_passes(tmp_path: Path) -> None:
    root = checkout("python-dateutil", tmp_path / "project")
    module = root / "src" / "dateutil" / "utils.py"
    module.write_text(
        module.read_text() + '\n\ndef is_leap(year):\n    """Whether ``year`` is a leap year."""\n'
        "    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\n"
    )
    tests = root / "tests" / "test_utils.py"
    tests.write_text(
        tests.read_text() + "\n\ndef test_is_leap():\n    assert utils.is_leap(2000)\n"
        "    assert not utils.is_leap(1900)\n"
    )
    git_commit(root, "feat: is_leap")
    (tmp_path / "real.toml").write_text(GATE)
    data = judge_change(root, tmp_path / "real.toml", "python-dateutil")
    assert data["verdict"] == "sufficient", data["reasons"]
    assert check(data, "coverage")["new_code_metrics"]["line_rate"] == 1.0
    assert check(data, "breaking")["metrics"]["breaking_changes"] == 0
