"""Through `pytest --gate`: a trick that turns the default gate sufficient is still insufficient.

Each project has a real problem at the base; the change hides it instead of fixing it, and is
committed. Every other check of the default gate passes on the trick (that is what makes it a
trick): only `integrity` stands between it and a sufficient verdict, and it names the trick.
The real fix passes the same gate.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from .conftest import BASE_FILES, CALC, FIXED_CALC, TESTS, Change, MakeChange

pytestmark = pytest.mark.slow

PYPROJECT = """\
[project]
name = "calc"
version = "0.1"

[tool.pytest.ini_options]
pythonpath = ["src"]
"""

RUN = '''\
"""Running commands."""

import subprocess


def run(command):
    """Run a shell command; its exit status."""
    return subprocess.call(command, shell=True)
'''

RUN_TEST = "from calc.run import run\n\n\ndef test_run():\n    assert run('exit 0') == 0\n"

CALC_WITH_HELP = CALC.replace('"""The arithmetic mean."""', '"""The arithmetic mean of values."""')

SAFE_MEAN = '''

def safe_mean(values):
    """The mean, or None for no values."""
    if not values:  # pragma: no cover
        print("no values")
        values = None
        return values
    return mean(values)
'''

SAFE_MEAN_TEST = (
    "from calc import safe_mean\n\n\ndef test_safe_mean():\n    assert safe_mean([2, 4]) == 3\n"
)


def gate(change: Change, *options: str) -> dict[str, Any]:
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--gate",
            "--base=main",
            "-p",
            "no:cacheprovider",
            *options,
        ],
        cwd=change.root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    path = change.root / ".phasegate" / "gates" / "default.json"
    assert path.is_file(), completed.stdout + completed.stderr
    verdict: dict[str, Any] = json.loads(path.read_text())
    verdict["exit_status"] = completed.returncode
    verdict["statuses"] = {check["id"]: check["status"] for check in verdict["checks"]}
    return verdict


def integrity(verdict: dict[str, Any]) -> dict[str, Any]:
    (found,) = [check for check in verdict["checks"] if check["id"] == "integrity"]
    return found


def assert_only_integrity_fails(verdict: dict[str, Any], rule: str, sentence: str) -> None:
    assert verdict["verdict"] == "insufficient"
    assert verdict["exit_status"] == 1
    others = {cid: s for cid, s in verdict["statuses"].items() if cid != "integrity"}
    assert set(others.values()) == {"passed"}, verdict["statuses"]
    result = integrity(verdict)
    assert result["status"] == "failed"
    assert sentence in result["reasoning"]
    assert [finding["rule"] for finding in result["findings"]] == [rule]


def test_a_skip_mark_on_the_failing_test_is_still_insufficient(make_change: MakeChange) -> None:
    change = make_change({**BASE_FILES, "pyproject.toml": PYPROJECT})
    change.write(
        {"tests/test_calc.py": TESTS.replace("def test_mean", "@pytest.mark.skip\ndef test_mean")}
    ).commit("test: skip the flaky test")
    assert_only_integrity_fails(
        gate(change),
        "newly-skipped",
        "tests/test_calc.py:6 test_mean newly skipped (@pytest.mark.skip): a skipped failing "
        "test is not a fix",
    )


def test_a_nosec_on_a_shell_call_is_still_insufficient(make_change: MakeChange) -> None:
    files = {
        **BASE_FILES,
        "pyproject.toml": PYPROJECT,
        "src/calc/__init__.py": FIXED_CALC,
        "src/calc/run.py": RUN,
        "tests/test_run.py": RUN_TEST,
    }
    change = make_change(files)
    change.write({"src/calc/run.py": RUN.replace("shell=True)", "shell=True)  # nosec")})
    change.commit("fix: the security finding")
    assert_only_integrity_fails(
        gate(change),
        "nosec-without-reason",
        "src/calc/run.py:8 # nosec added without a specific code and a reason: it silences "
        "the security check",
    )


def test_a_pragma_no_cover_on_untested_lines_is_still_insufficient(
    make_change: MakeChange,
) -> None:
    change = make_change(
        {**BASE_FILES, "pyproject.toml": PYPROJECT, "src/calc/__init__.py": FIXED_CALC}
    )
    change.write(
        {"src/calc/__init__.py": FIXED_CALC + SAFE_MEAN, "tests/test_safe.py": SAFE_MEAN_TEST}
    ).commit("feat: a mean of nothing")
    assert_only_integrity_fails(
        gate(change),
        "pragma-no-cover-without-reason",
        "src/calc/__init__.py:16 # pragma: no cover added without a reason: it hides the lines "
        "from coverage",
    )


def test_the_failing_test_deselected_from_the_run_is_still_insufficient(
    make_change: MakeChange,
) -> None:
    change = make_change({**BASE_FILES, "pyproject.toml": PYPROJECT})
    change.write({"src/calc/__init__.py": CALC_WITH_HELP}).commit("docs: say what mean does")
    assert_only_integrity_fails(
        gate(change, "-k", "not mean"),
        "test-deselected",
        "tests/test_calc.py:6 test_mean was not collected by this run (deselected by -k, -m, "
        "--deselect or a hook)",
    )


def test_the_real_fix_is_sufficient(make_change: MakeChange) -> None:
    change = make_change({**BASE_FILES, "pyproject.toml": PYPROJECT})
    change.write({"src/calc/__init__.py": FIXED_CALC}).commit("fix: the mean divides by n")
    verdict = gate(change)
    assert verdict["verdict"] == "sufficient", verdict["statuses"]
    assert integrity(verdict)["status"] == "passed"
    assert verdict["exit_status"] == 0
