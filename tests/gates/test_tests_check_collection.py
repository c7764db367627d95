"""The tests check tells the whole collection: module skips, xfails, xpasses, deselections."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import read_report

GATE = """
name = "tests-only"
[checks.tests]
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyprojecttoml('[tool.phasegate]\ngate_paths = ["ci"]\n')
    pytester.mkdir("ci")
    (pytester.path / "ci" / "tests-only.toml").write_text(GATE)
    pytester.makepyfile(test_calc="def test_add():\n    assert 1 + 1 == 2\n")
    return pytester


def check_of_tests(pytester: pytest.Pytester) -> dict[str, Any]:
    verdict = json.loads((pytester.path / ".phasegate/gates/tests-only.json").read_text())
    (result,) = [check for check in verdict["checks"] if check["id"] == "tests"]
    data: dict[str, Any] = result
    return data


def test_a_module_skipped_by_importorskip_counts_as_skipped(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_heavy="""
        import pytest

        pytest.importorskip("phasegate_no_such_module")

        def test_one():
            assert False

        def test_two():
            assert False
        """
    )

    result = project.runpytest("--gate=tests-only", "-v")

    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "*tests*passed*all 1 tests passed (1 skipped, 1 whole module at collection, first "
            "test_heavy.py: could not import 'phasegate_no_such_module'*"
        ]
    )
    check = check_of_tests(project)
    assert check["metrics"]["skipped"] == 1
    assert check["metrics"]["skipped_at_collection"] == 1
    report = read_report(project)
    assert report["counts"]["skipped_at_collection"] == 1
    (skip,) = report["collection_skips"]
    assert skip["nodeid"] == "test_heavy.py"
    assert skip["path"] == "test_heavy.py"
    assert skip["line"] == 3
    assert "could not import 'phasegate_no_such_module'" in skip["reason"]


def test_xfailed_xpassed_and_deselected_tests_are_in_the_sentence_and_metrics(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_marks="""
        import pytest

        @pytest.mark.xfail(reason="known bug")
        def test_known_bug():
            assert False

        @pytest.mark.xfail(reason="fixed already")
        def test_fixed_already():
            assert True

        def test_slow_one():
            assert True

        def test_slow_two():
            assert True
        """
    )

    result = project.runpytest("--gate=tests-only", "-v", "-k", "not slow")

    result.assert_outcomes(passed=1, xfailed=1, xpassed=1, deselected=2)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["*tests*passed*1 of 3 tests passed (0 skipped; 1 xfailed; 1 xpassed; 2 deselected)*"]
    )
    metrics = check_of_tests(project)["metrics"]
    assert {k: metrics[k] for k in ("collected", "xfailed", "xpassed", "deselected")} == {
        "collected": 3,
        "xfailed": 1,
        "xpassed": 1,
        "deselected": 2,
    }


def test_a_gate_can_fail_a_run_that_skipped_a_module(project: pytest.Pytester) -> None:
    (project.path / "ci" / "tests-only.toml").write_text(
        GATE + 'fail_when = [{ metric = "skipped_at_collection", op = ">", value = 0 }]\n'
    )
    project.makepyfile(
        test_heavy="import pytest\npytest.importorskip('phasegate_no_such_module')\n"
    )

    result = project.runpytest("--gate=tests-only", "-v")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*skipped_at_collection is 1, fails when > 0*"])


@pytest.mark.slow
def test_under_xdist_a_skipped_module_counts_once(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_heavy="import pytest\npytest.importorskip('phasegate_no_such_module')\n"
    )

    result = project.runpytest_subprocess("--gate=tests-only", "-n", "2", "-p", "no:cacheprovider")

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["tests: 1 collected: 1 passed (1 skipped at collection)"])
    assert check_of_tests(project)["metrics"]["skipped"] == 1
    assert len(read_report(project)["collection_skips"]) == 1
