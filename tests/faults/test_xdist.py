"""A pytest-xdist worker that dies mid-test: an incomplete report that passes its own schema.

The run must end with a report that validates against ``docs/schema/run-report.schema.json``,
says ``incomplete`` with the reason, and a gate that is insufficient: never a crash of the
plugin, and never a verdict on tests that did not all report.
"""

from __future__ import annotations

import json

import jsonschema
import pytest

from tests.conftest import REPO_ROOT
from tests.faults.conftest import Tried

SCHEMA = json.loads((REPO_ROOT / "docs/schema/run-report.schema.json").read_text())


@pytest.mark.slow
def test_a_worker_that_dies_gives_an_incomplete_report_and_an_insufficient_verdict(
    pytester: pytest.Pytester, tried: Tried
) -> None:
    pytester.makepyprojecttoml('[tool.phasegate]\ngate_paths = ["ci"]\n')
    (pytester.path / "ci").mkdir()
    (pytester.path / "ci" / "tests-only.toml").write_text('name = "tests-only"\n[checks.tests]\n')
    pytester.makepyfile(
        test_dies="""
        import os

        def test_before():
            assert True

        def test_dies():
            os._exit(1)

        def test_after():
            assert True
        """
    )
    with tried("processes", "a pytest-xdist worker dies mid-test (os._exit)"):
        result = pytester.runpytest_subprocess(
            "-n", "2", "--gate=tests-only", "-p", "no:cacheprovider"
        )
        output = result.stdout.str() + result.stderr.str()
        assert "INTERNALERROR" not in output
        assert result.ret == pytest.ExitCode.TESTS_FAILED, output
        report = json.loads((pytester.path / ".phasegate" / "report.json").read_text())
        jsonschema.validate(report, SCHEMA, cls=jsonschema.Draft202012Validator)
        assert report["incomplete"] is True
        assert any(
            "crashed while running test_dies.py::test_dies" in r
            for r in report["incomplete_reasons"]
        )
        verdict = json.loads(
            (pytester.path / ".phasegate" / "gates" / "tests-only.json").read_text()
        )
        assert verdict["verdict"] == "insufficient"
        assert "incomplete" in " ".join(verdict["reasons"])
