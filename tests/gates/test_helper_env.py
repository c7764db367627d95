"""The gate's helper processes are not measured by a project's coverage subprocess hook."""

from __future__ import annotations

import pytest

from phasegate.gates.helper_env import helper_environment

GATE = 'name = "measured"\n[checks.tests]\n[checks.coverage]\n[checks.lint]\n[checks.security]\n'


def test_coverages_hook_is_left_out_and_everything_else_kept() -> None:
    environment = {"PATH": "/bin", "COVERAGE_PROCESS_CONFIG": "{}", "COVERAGE_PROCESS_START": "x"}
    assert helper_environment(environment) == {"PATH": "/bin"}


@pytest.mark.slow
def test_a_project_measuring_subprocesses_does_not_measure_the_gate(
    pytester: pytest.Pytester,
) -> None:
    # attrs: [tool.coverage.run] patch = ["subprocess"]. Its tests' subprocesses are measured;
    # the gate's ruff, bandit and static-check processes must not be (no .coverage.* files).
    pytester.makepyprojecttoml(
        """
        [project]
        name = "calc"
        version = "1.0"

        [tool.coverage.run]
        patch = ["subprocess"]
        parallel = true

        [tool.phasegate]
        gate_paths = ["ci"]
        """
    )
    pytester.mkdir("ci")
    (pytester.path / "ci" / "measured.toml").write_text(GATE)
    pytester.mkpydir("calc")
    (pytester.path / "calc" / "__init__.py").write_text(
        '"""Calc."""\n\n\ndef add(a: int, b: int) -> int:\n    """Add."""\n    return a + b\n'
    )
    pytester.makepyfile(
        test_calc="""
        import subprocess
        import sys

        from calc import add


        def test_add():
            assert add(1, 2) == 3

        def test_a_subprocess_of_the_tests():
            code = "import calc; assert calc.add(2, 2) == 4"
            subprocess.run([sys.executable, "-c", code], check=True)
        """
    )
    result = pytester.runpytest_subprocess("--gate=measured", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*gate measured: SUFFICIENT*"])
    strays = sorted(path.name for path in pytester.path.glob(".coverage*"))
    # The tests' own subprocess writes one data file; none of the gate's helpers do.
    assert len(strays) <= 1, strays
