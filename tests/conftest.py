"""Shared fixtures: sample projects for pytester runs."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

# pytester's in-process runs drop the modules a run imported once it ends; coverage.py's C
# tracer cannot be imported a second time, so it is imported here, before any run.
import coverage  # noqa: F401
import pytest
from hypothesis import settings

# No property test has a deadline: a deadline is a timing assertion, and the machines that run
# this suite are shared and loaded.
settings.register_profile("phasegate", deadline=None)
settings.load_profile("phasegate")

# Nor can numpy and scipy, under scikit-learn: an in-process run that imported auto-debug's
# TF-IDF index first would leave every later run in the process without it ("cannot load
# module more than once per process"), and its repairs would depend on the order of the tests.
with contextlib.suppress(ImportError):
    import sklearn.feature_extraction.text
    import sklearn.preprocessing  # noqa: F401

# phasegate's step library, for the scenarios in features/ (bound in tests/bdd/).
pytest_plugins = ["phasegate.bdd.steps"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Skip the tests marked ``needs_columns`` on Python 3.10, whose tracebacks carry no
    column positions (PEP 657, Python 3.11): auto-debug then knows the failing line, not the
    failing expression, and many of its diagnoses (a None's above all) are of no known kind."""
    if sys.version_info >= (3, 11):
        return
    skip = pytest.mark.skip(reason="Python 3.10 tracebacks have no column positions")
    for item in items:
        if item.get_closest_marker("needs_columns") is not None:
            item.add_marker(skip)


REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURES = REPO_ROOT / "fixtures"


def load_benchmark(name: str) -> ModuleType:
    """``benchmarks/<name>.py`` as the module ``name``, with ``sys.path`` as it was before.

    The benchmarks are scripts, not a package; a benchmark that puts its own folder on
    ``sys.path`` to import its neighbours does not leave it there for the tests after it.
    """
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    saved = list(sys.path)
    sys.modules[name] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    return module


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` with a fixed identity; return what it printed."""
    completed = subprocess.run(
        ["git", "-c", "user.name=Sam", "-c", "user.email=sam@example.invalid", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    )
    return completed.stdout.strip()


def python_json(script: str, *args: str, cwd: Path) -> Any:
    """Run ``script`` with ``args`` in a fresh interpreter in ``cwd`` (so that what it imports
    is its own); what it printed, read as JSON. It must exit with 0."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def read_report(pytester: pytest.Pytester, artifacts: str = ".phasegate") -> dict[str, Any]:
    """The run report a pytester run wrote, as plain JSON."""
    path = pytester.path / artifacts / "report.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@pytest.fixture
def sample_suite(pytester: pytest.Pytester) -> pytest.Pytester:
    """A small suite with one test of each outcome, in a project with a pyproject.toml."""
    pytester.makepyprojecttoml(
        """
        [tool.pytest.ini_options]
        markers = ["slowish: a custom marker"]

        [tool.phasegate]
        """
    )
    pytester.makepyfile(
        test_sample="""
        import pytest

        @pytest.fixture
        def broken():
            raise RuntimeError("fixture exploded")

        @pytest.fixture
        def bad_teardown():
            yield
            raise OSError("teardown exploded")

        def test_pass():
            assert 1 + 1 == 2

        @pytest.mark.slowish
        def test_fail():
            value = 3
            assert value == 4

        def test_setup_error(broken):
            pass

        def test_teardown_error(bad_teardown):
            pass

        @pytest.mark.skip(reason="not on this platform")
        def test_skip():
            pass

        @pytest.mark.xfail(reason="known bug")
        def test_xfail():
            assert False

        @pytest.mark.xfail(reason="fixed already")
        def test_xpass():
            pass
        """
    )
    return pytester
