"""``pytest --autodebug`` end to end with pytester: real failures, real re-runs, real files."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.conftest import REPO_ROOT

SCHEMA = json.loads((REPO_ROOT / "docs/schema/autodebug-report.schema.json").read_text())

STATS = """
def mean(values):
    length = len(values)
    values = list(values)
    total = sum(values)
    return total / length


def double(x):
    return x * 2
"""

TESTS = """
from stats import double, mean


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_double():
    assert double(2) == 4
"""


def make_project(pytester: pytest.Pytester, files: dict[str, str]) -> None:
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    for relpath, text in files.items():
        path = pytester.path / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the project except phasegate's artifacts and bytecode."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in root.rglob("*")
        if path.is_file() and ".phasegate" not in path.parts and "__pycache__" not in path.parts
    }


def read(pytester: pytest.Pytester) -> dict[str, Any]:
    report: dict[str, Any] = json.loads((pytester.path / ".phasegate/autodebug.json").read_text())
    jsonschema.validate(report, SCHEMA, cls=jsonschema.Draft202012Validator)
    return report


@pytest.mark.slow
def test_suggest_writes_a_validated_diff_and_leaves_the_tree_untouched(
    pytester: pytest.Pytester,
) -> None:
    make_project(
        pytester,
        {
            "src/stats.py": STATS.replace("total / length", "total / lenght"),
            "tests/test_stats.py": TESTS,
        },
    )
    before = snapshot(pytester.path)
    result = pytester.runpytest("--autodebug", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*= phasegate autodebug =*",
            "01-name repaired: NameError: `lenght` is not defined; did you mean `length` "
            "(defined 3 lines above)?",
            "    tests: tests/test_stats.py::test_mean",
            "    diff: .phasegate/autodebug/01-name.diff, not applied*",
            "autodebug (suggest): 1 failure(s): 1 repaired; report .phasegate/autodebug.json",
        ]
    )
    assert snapshot(pytester.path) == before
    report = read(pytester)
    (failure,) = report["failures"]
    assert (failure["error_class"], failure["outcome"]) == ("name", "repaired")
    assert failure["repair"]["applied"] is False
    (attempt,) = failure["attempts"]
    assert [s["stage"] for s in attempt["stages"]] == ["targets", "suite"]
    assert all(s["passed"] for s in attempt["stages"])
    diff = (pytester.path / ".phasegate/autodebug/01-name.diff").read_text()
    assert "-    return total / lenght\n+    return total / length\n" in diff
    assert diff.startswith("--- a/src/stats.py\n+++ b/src/stats.py\n")


@pytest.mark.slow
def test_apply_leaves_the_repair_in_place_and_never_touches_tests(
    pytester: pytest.Pytester,
) -> None:
    make_project(
        pytester,
        {
            "src/stats.py": STATS.replace("def double(x):", "def double(x)"),
            "tests/test_stats.py": TESTS,
        },
    )
    tests_before = (pytester.path / "tests/test_stats.py").read_bytes()
    result = pytester.runpytest("--autodebug=apply", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED  # the collection error of this run
    result.stdout.fnmatch_lines(["01-syntax repaired: *", "    diff: *, applied"])
    assert (pytester.path / "src/stats.py").read_text() == STATS.lstrip("\n")
    assert (pytester.path / "tests/test_stats.py").read_bytes() == tests_before
    again = pytester.runpytest("-p", "no:cacheprovider")
    again.assert_outcomes(passed=2)


@pytest.mark.slow
def test_a_run_that_fails_after_a_repair_was_applied_names_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As an interrupted run does: the files the run changed are said, not left unmentioned.
    from phasegate.autodebug.engine import Engine

    def broken(*_args: object) -> None:
        raise RuntimeError("localization broke")

    monkeypatch.setattr(Engine, "_localize", broken)
    make_project(
        pytester,
        {
            "src/stats.py": STATS.replace("def double(x):", "def double(x)"),
            "tests/test_stats.py": TESTS,
        },
    )
    result = pytester.runpytest("--autodebug=apply", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        [
            "*auto-debug failed: RuntimeError: localization broke; the repairs it had kept stay "
            "applied: 01-syntax (src/stats.py); their diffs are in *autodebug*"
        ]
    )
    assert (pytester.path / "src/stats.py").read_text() == STATS.lstrip("\n")


def test_a_none_that_flows_on_to_a_wrong_value_gets_its_lost_guard_back(
    pytester: pytest.Pytester,
) -> None:
    # The deleted guard's None fails nowhere: the test sees a wrong label, an assertion. The
    # ranking points at `label`, where `prefix` may be None and nothing tests it any more.
    code = (
        "def label(name, prefix=None):\n    if prefix is None:\n        prefix = 'item'\n"
        "    return f'{prefix}-{name}'\n\n\ndef tag(name, prefix='item'):\n"
        "    return prefix + name\n"
    )
    tests = (
        "from labels import label, tag\n\n\ndef test_label():\n"
        "    assert label('a') == 'item-a'\n\n\ndef test_named():\n"
        "    assert label('a', 'x') == 'x-a'\n\n\ndef test_tag():\n"
        "    assert tag('a') == 'itema'\n"
    )
    faulty = code.replace("    if prefix is None:\n        prefix = 'item'\n", "")
    make_project(pytester, {"src/labels.py": faulty, "tests/test_labels.py": tests})
    result = pytester.runpytest("--autodebug=apply", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        ["01-assertion repaired: AssertionError: a None flows on where a guard was lost; *"]
    )
    assert (pytester.path / "src/labels.py").read_text() == code
    (failure,) = read(pytester)["failures"]
    assert failure["suspicious"][0]["function"] == "label"
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)


@pytest.mark.slow
def test_a_second_failure_the_first_ones_lost_guard_fixed_is_said_so(
    pytester: pytest.Pytester,
) -> None:
    # Two assertions meet the same None that flows on: the guard kept for the first makes the
    # second pass too; it is fixed by that repair, not flaky.
    code = "def label(name, prefix=None):\n    if prefix is None:\n        prefix = 'item'\n"
    code += "    return f'{prefix}-{name}'\n\n\ndef tag(name, prefix='item'):\n"
    code += "    return prefix + name\n"
    tests = (
        "from labels import label\n\n\ndef test_label():\n"
        "    assert label('a') == 'item-a'\n\n\ndef test_named():\n"
        "    assert label('a', 'x') == 'x-a'\n\n\ndef test_upper():\n"
        "    assert label('b').upper() == 'ITEM-B'\n"
    )
    faulty = code.replace("    if prefix is None:\n        prefix = 'item'\n", "")
    make_project(pytester, {"src/labels.py": faulty, "tests/test_labels.py": tests})
    result = pytester.runpytest("--autodebug=apply", "-p", "no:cacheprovider")
    assert (pytester.path / "src/labels.py").read_text() == code
    first, second = read(pytester)["failures"]
    assert first["outcome"] == "repaired"
    assert second["outcome"] == "fixed-by-another-repair"
    assert "the tests pass since an earlier repair of this run" in second["explanation"]
    assert "flaky" not in second["explanation"]
    result.stdout.fnmatch_lines(["*1 repaired*1 fixed by another repair*"])


@pytest.mark.slow
@pytest.mark.needs_columns
def test_an_other_failure_a_none_repair_fixed_stays_fixed_by_it(pytester: pytest.Pytester) -> None:
    # `Strict` raises its own error on the None that `Field.serialize` no longer stops (as
    # `Text.serialize` does): the guard put back there for the `int(None)` failure fixes it
    # too, and localization leaves it so.
    code = (
        "class Field:\n    def serialize(self, value):\n        if value is None:\n"
        "            return None\n        return self.format(value)\n\n"
        "    def format(self, value):\n        return int(value)\n\n\n"
        "class Text:\n    def serialize(self, value):\n        if value is None:\n"
        "            return None\n        return str(value)\n\n\n"
        "class Strict(Field):\n    def format(self, value):\n"
        "        if not isinstance(value, int):\n            raise LookupError('no number')\n"
        "        return value\n"
    )
    tests = (
        "from fields import Field, Strict\n\n\ndef test_field():\n"
        "    assert Field().serialize(None) is None\n\n\ndef test_strict():\n"
        "    assert Strict().serialize(None) is None\n\n\ndef test_value():\n"
        "    assert Strict().serialize(2) == 2\n"
    )
    faulty = code.replace("        if value is None:\n            return None\n", "", 1)
    make_project(pytester, {"src/fields.py": faulty, "tests/test_fields.py": tests})
    pytester.runpytest("--autodebug=apply", "-p", "no:cacheprovider")
    assert (pytester.path / "src/fields.py").read_text() == code
    first, second = read(pytester)["failures"]
    assert first["outcome"] == "repaired"
    assert second["outcome"] == "fixed-by-another-repair"
    assert second["explanation"].count("the tests pass since an earlier repair") == 1
    assert "flaky" not in second["explanation"]


@pytest.mark.slow
@pytest.mark.needs_columns
def test_a_guard_at_one_use_of_a_none_others_still_fail_on_is_withdrawn(
    pytester: pytest.Pytester,
) -> None:
    # The loop in `__init__` lost its guard: every attribute not given is None. `describe`'s
    # own test passes with a guard at its use, but `area` still fails on the same None: the
    # guard is no repair of the fault, and the tree is left as it was.
    code = (
        "class Box:\n    defaults = {'width': lambda: 1, 'label': str}\n\n"
        "    def __init__(self, **given):\n"
        "        for name, factory in self.defaults.items():\n"
        "            value = given.pop(name, None)\n"
        "            if value is None:\n                value = factory()\n"
        "            setattr(self, name, value)\n\n"
        "    def area(self):\n        return self.width * 2\n\n\n"
        "def describe(label):\n    return label.upper()\n"
    )
    tests = (
        "from boxes import Box, describe\n\n\ndef test_area():\n"
        "    assert Box().area() == 2\n\n\ndef test_describe():\n"
        "    assert describe(Box().label) == ''\n"
    )
    faulty = code.replace("            if value is None:\n                value = factory()\n", "")
    make_project(pytester, {"src/boxes.py": faulty, "tests/test_boxes.py": tests})
    pytester.runpytest("--autodebug=apply", "-p", "no:cacheprovider")
    assert (pytester.path / "src/boxes.py").read_text() == faulty
    report = read(pytester)
    assert [f["outcome"] for f in report["failures"]] == ["escalated", "escalated"]
    guarded = next(f for f in report["failures"] if "describe" in f["tests"][0])
    assert guarded["repair"] is None
    assert "withdrawn" in guarded["escalation"]["reason"]
    assert not list((pytester.path / ".phasegate" / "autodebug").glob("*.diff"))


@pytest.mark.slow
def test_a_flaky_failure_gets_no_lost_guard(pytester: pytest.Pytester) -> None:
    # The test fails the first time only (as a timing test does on a loaded machine). A
    # guard of `prefix` changes nothing where the test passes, so it would "pass" its re-run:
    # the failure is re-run unchanged first, passes, and no guard is tried.
    code = "def label(name, prefix=None):\n    return f'{prefix}-{name}'\n"
    tests = (
        "from pathlib import Path\n\nfrom labels import label\n\n\ndef test_label():\n"
        "    marker = Path(__file__).with_name('ran-once')\n"
        "    first = not marker.exists()\n    marker.touch()\n"
        "    assert label('a', 'x') == ('y-a' if first else 'x-a')\n"
    )
    make_project(pytester, {"src/labels.py": code, "tests/test_labels.py": tests})
    result = pytester.runpytest("--autodebug=apply", "-p", "no:cacheprovider", "-v")
    result.stdout.fnmatch_lines(["01-assertion localized: *"])
    assert (pytester.path / "src/labels.py").read_text() == code
    (failure,) = read(pytester)["failures"]
    assert failure["outcome"] == "localized"
    assert failure["suspicious"][0]["function"] == "label"
    assert failure["attempts"] == []
    assert "the failure is flaky, so no lost None guard is tried" in failure["explanation"]


@pytest.mark.slow
def test_a_repair_that_breaks_another_test_is_rolled_back(pytester: pytest.Pytester) -> None:
    # text.py misspells slugify, and web.py uses the misspelling. Renaming the definition
    # fixes test_text but breaks web.py, whose test passed: the candidate must not be kept.
    # (The tests spell `slugify` as often as the code spells `slugfy`, so the contract does
    # not rule the rename out before it is tried.)
    make_project(
        pytester,
        {
            "src/shop/__init__.py": "",
            "src/shop/text.py": "def slugfy(title):\n    return title.lower().replace(' ', '-')\n",
            "src/shop/web.py": "from shop.text import slugfy\n\n\ndef url(title):\n"
            "    return '/' + slugfy(title)\n",
            "tests/test_text.py": "from shop.text import slugify\n\n\ndef test_slug():\n"
            "    assert slugify('A B') == 'a-b'\n    assert slugify('C') == 'c'\n",
            "tests/test_web.py": "from shop.web import url\n\n\ndef test_url():\n"
            "    assert url('A B') == '/a-b'\n",
        },
    )
    before = snapshot(pytester.path)
    result = pytester.runpytest("--autodebug=apply", "-v", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        [
            "01-import escalated: *",
            "*tried 1: rename `slugfy` to `slugify` in src/shop/text.py: rejected, "
            "1 test(s) that passed before now fail: tests/test_web.py",
        ]
    )
    assert snapshot(pytester.path) == before
    (failure,) = read(pytester)["failures"]
    assert failure["outcome"] == "escalated"
    (attempt,) = failure["attempts"]
    assert attempt["status"] == "rejected"
    assert [s["passed"] for s in attempt["stages"]] == [True, False]
    assert attempt["stages"][1]["new_failures"] == ["tests/test_web.py"]


@pytest.mark.slow
def test_two_faults_that_one_test_meets_are_repaired_one_after_the_other(
    pytester: pytest.Pytester,
) -> None:
    # test_both fails on the first fault, and on the second once the first is repaired: the
    # first repair is kept all the same, and the second repair must make test_both pass.
    code = (
        "def mean(values):\n    total = sum(values)\n    return total / len(values)\n\n\n"
        "def double(x):\n    value = x * 2\n    return value\n"
    )
    tests = (
        "from stats import double, mean\n\n\ndef test_mean():\n    assert mean([1, 3]) == 2\n"
        "\n\ndef test_double():\n    assert double(2) == 4\n\n\n"
        "def test_both():\n    assert double(mean([2])) == 4\n"
    )
    faulty = code.replace("return total /", "return totl /").replace("return value", "return valeu")
    make_project(pytester, {"src/stats.py": faulty, "tests/test_stats.py": tests})
    result = pytester.runpytest("--autodebug=apply", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["01-name repaired: *`totl`*", "02-name repaired: *`valeu`*"])
    assert (pytester.path / "src/stats.py").read_text() == code
    first, second = read(pytester)["failures"]
    assert "tests/test_stats.py::test_both" in first["tests"]
    assert "now fail on another failure of this run" in first["attempts"][-1]["reason"]
    assert "tests/test_stats.py::test_both" in second["tests"]
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)


@pytest.mark.slow
def test_a_fault_in_a_test_file_is_escalated_and_assertions_are_localized(
    pytester: pytest.Pytester,
) -> None:
    make_project(
        pytester,
        {
            "src/stats.py": STATS.replace("return x * 2", "return x * 3"),
            "tests/test_stats.py": TESTS
            + "\n\ndef test_typo_in_test():\n    assert duble(1) == 2\n",
        },
    )
    before = snapshot(pytester.path)
    result = pytester.runpytest("--autodebug=apply", "-p", "no:cacheprovider")
    assert snapshot(pytester.path) == before
    failures = {f["error_class"]: f for f in read(pytester)["failures"]}
    assert failures["name"]["outcome"] == "escalated"
    assert failures["name"]["escalation"]["reason"] == (
        "the fault is in the test file tests/test_stats.py, which auto-debug never edits"
    )
    assertion = failures["assertion"]
    assert assertion["outcome"] == "localized"
    assert assertion["suspicious"][0]["function"] == "double"
    assert assertion["suspicious"][0]["path"] == "src/stats.py"
    result.stdout.fnmatch_lines(
        ["*localized: AssertionError*", "    suspicious: src/stats.py:8 double*"]
    )


def test_a_passing_run_writes_an_empty_report_without_re_running(
    pytester: pytest.Pytester,
) -> None:
    make_project(pytester, {"src/stats.py": STATS, "tests/test_stats.py": TESTS})
    result = pytester.runpytest("--autodebug", "-q", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["autodebug (suggest): 0 failure(s); report .phasegate/autodebug.json"]
    )
    result.stdout.no_fnmatch_line("*= phasegate autodebug =*")
    report = read(pytester)
    assert report["failures"] == []
    assert not (pytester.path / ".phasegate/autodebug/runs").exists() or not any(
        (pytester.path / ".phasegate/autodebug/runs").iterdir()
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--autodebug=fix"], "*--autodebug='fix' is not a mode; allowed: suggest, apply*"),
        (["--autodebug", "tests"], "*--autodebug='tests' is not a mode*Write --autodebug=MODE*"),
    ],
)
def test_a_bad_mode_is_a_usage_error(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    make_project(pytester, {"src/stats.py": STATS, "tests/test_stats.py": TESTS})
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_a_bad_setting_names_the_key_and_what_is_allowed(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml("[tool.phasegate.autodebug]\nmax_iterations = 9\n")
    pytester.makepyfile("def test_a():\n    pass\n")
    result = pytester.runpytest("--autodebug")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*key tool.phasegate.autodebug.max_iterations = 9 is not allowed*less than or equal to 5*"]
    )


def test_files_left_changed_by_a_crashed_run_are_restored_first(
    pytester: pytest.Pytester,
) -> None:
    import base64
    import hashlib

    make_project(pytester, {"src/stats.py": STATS, "tests/test_stats.py": TESTS})
    module = pytester.path / "src/stats.py"
    original = module.read_bytes()
    candidate = b"CANDIDATE_LEFT_BEHIND = 1\n"
    module.write_bytes(candidate)
    journal = pytester.path / ".phasegate/autodebug/journal.json"
    journal.parent.mkdir(parents=True)
    journal.write_text(
        json.dumps(
            {
                str(module): {
                    "original": base64.b64encode(original).decode(),
                    "mode": 0o644,
                    "mtime_ns": 1_600_000_000_000_000_000,
                    "candidate_sha256": hashlib.sha256(candidate).hexdigest(),
                }
            }
        )
    )
    result = pytester.runpytest("--autodebug", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["warning: restored *stats.py, which an interrupted auto-debug run left changed"]
    )
    assert module.read_bytes() == original
    assert not journal.exists()


@pytest.mark.slow
def test_under_xdist_the_diagnosis_travels_from_the_worker(pytester: pytest.Pytester) -> None:
    make_project(
        pytester,
        {
            "src/stats.py": STATS.replace("total / length", "total / lenght"),
            "tests/test_stats.py": TESTS,
        },
    )
    result = pytester.runpytest_subprocess("--autodebug", "-n", "2", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    (failure,) = read(pytester)["failures"]
    assert failure["outcome"] == "repaired"
    assert failure["facts"]["function"] == "mean"  # read from the live frame on the worker


def test_the_tfidf_index_without_scikit_learn_says_how_to_install_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    pytester.makepyprojecttoml('[tool.phasegate.autodebug]\nindex = "tfidf"\n')
    pytester.makepyfile("def test_a():\n    pass\n")
    monkeypatch.setitem(sys.modules, "sklearn", None)
    result = pytester.runpytest("--autodebug")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*index = 'tfidf'*needs scikit-learn*pip install 'pytest-phasegate[[]autodebug]'*"]
    )


@pytest.mark.slow
def test_a_run_killed_while_a_candidate_is_applied_is_recovered(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    project = tmp_path / "project"
    slow = "\n\ndef test_slow():\n    import time\n    time.sleep(4)\n"
    files = {
        "src/stats.py": STATS.replace("total / length", "total / lenght"),
        "tests/test_stats.py": TESTS + slow,
        "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    }
    for relpath, text in files.items():
        (project / relpath).parent.mkdir(parents=True, exist_ok=True)
        (project / relpath).write_text(textwrap.dedent(text).lstrip("\n"))
    module = project / "src/stats.py"
    original = module.read_bytes()
    journal = project / ".phasegate/autodebug/journal.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "--autodebug=apply", "-p", "no:cacheprovider"],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        # Wait until the candidate is in the file (the journal is written just before).
        while time.monotonic() < deadline and process.poll() is None:
            if journal.exists() and module.read_bytes() != original:
                break
            time.sleep(0.05)
        assert journal.exists(), "the candidate was never applied"
        os.killpg(process.pid, signal.SIGKILL)  # no finally block runs after this
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert module.read_bytes() != original  # the crash left the candidate in place
    completed = subprocess.run(
        [sys.executable, "-m", "phasegate", "autodebug", "restore", "--project", str(project)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "restored" in completed.stdout
    assert module.read_bytes() == original
    assert not journal.exists()


@pytest.mark.slow
def test_without_coverage_assertions_are_escalated_with_the_install_command(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    make_project(
        pytester,
        {
            "src/stats.py": STATS.replace("return x * 2", "return x * 3"),
            "tests/test_stats.py": TESTS,
        },
    )
    monkeypatch.setitem(sys.modules, "coverage", None)
    result = pytester.runpytest("--autodebug", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        ["warning: localization needs coverage.py*pip install 'pytest-phasegate[[]autodebug]'"]
    )
    (failure,) = read(pytester)["failures"]
    assert (failure["outcome"], failure["suspicious"]) == ("escalated", [])
