"""Coverage of the test run, started before the project's code is imported.

``pytest_load_initial_conftests`` (called before conftest files and test modules are
imported) starts coverage.py in every process that runs tests when ``--gate`` names a gate
(a serial run, or each pytest-xdist worker). Once the gate is loaded, a gate without the
coverage check stops it again. A worker hands its data to the controller through
``workeroutput``; the controller merges and reports. When pytest-cov is measuring
(``--cov``), phasegate does not start a second tracer: it reads pytest-cov's data file.

When the gate's mutation check has a base to work from, each test's lines are recorded under
its node id (coverage.py's dynamic contexts, :class:`TestContexts`), in the controller and,
asked through ``workerinput``, in every pytest-xdist worker.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from phasegate.gates.coverage_run import CoverageRun

__all__ = [
    "COVERAGE_BUSY_KEY",
    "COVERAGE_KEY",
    "WORKER_CONTEXTS_KEY",
    "WORKER_COVERAGE_KEY",
    "TestContexts",
    "pytest_cov_active",
    "start_early",
]

#: The measurement of this process, from the early start until the end of the session.
COVERAGE_KEY: pytest.StashKey[CoverageRun] = pytest.StashKey()
#: Set when coverage was not started because another measurement already runs.
COVERAGE_BUSY_KEY = pytest.StashKey[bool]()
#: The key of a worker's coverage data (base64 text) in pytest-xdist's ``workeroutput``.
WORKER_COVERAGE_KEY = "phasegate_coverage"
#: The key in pytest-xdist's ``workerinput`` that asks a worker for per-test contexts.
WORKER_CONTEXTS_KEY = "phasegate_test_contexts"


def pytest_cov_active(config: pytest.Config) -> bool:
    """Whether pytest-cov measures this run (``--cov`` given)."""
    return bool(config.pluginmanager.hasplugin("_cov") and config.getoption("cov_source", None))


def start_early(early_config: pytest.Config, args: list[str]) -> None:
    """Start measuring if a gate is asked for; called from ``pytest_load_initial_conftests``."""
    if not _measures_here(early_config.known_args_namespace):
        return
    from phasegate.gates.coverage_run import CoverageRun
    from phasegate.gates.project import GateProject
    from phasegate.optional import is_available

    if not is_available("coverage"):
        return  # the coverage check will say how to install it
    import coverage

    if coverage.Coverage.current() is not None:
        # Another measurement runs in this process (``coverage run``, or an outer pytest
        # run under a gate): a second tracer would hide lines from it. Leave it alone.
        early_config.stash[COVERAGE_BUSY_KEY] = True
        return
    root = early_config.rootpath
    packages = _packages_setting(root)
    run = CoverageRun(root, GateProject(root, packages_setting=packages).package_dirs)
    run.start()
    early_config.stash[COVERAGE_KEY] = run


def _measures_here(namespace: object) -> bool:
    """Whether this process measures coverage for a gate: one is asked for (not ``record``,
    nor a run that only shows something), pytest-cov does not measure, and the tests run
    here."""
    from phasegate.plugin import _shows_only

    requested = getattr(namespace, "gate", None)
    if requested is None or requested == "record" or _shows_only(namespace):
        return False
    if getattr(namespace, "cov_source", None):
        return False  # pytest-cov measures; its data is read at the end
    # On a pytest-xdist worker the options still say "-n N", and workerinput is set only
    # later; the worker's environment says what it is (documented by pytest-xdist).
    on_worker = bool(os.environ.get("PYTEST_XDIST_WORKER"))
    # With workers, the tests run in them, and each starts its own measurement.
    return not getattr(namespace, "numprocesses", None) or on_worker


def stop_unneeded(config: pytest.Config) -> None:
    """Stop measuring and forget the data: the gate has no coverage check, or the run ends."""
    run = config.stash.get(COVERAGE_KEY, None)
    if run is not None:
        run.close()
        del config.stash[COVERAGE_KEY]


class TestContexts:
    """Record the lines each test runs (setup to teardown) under the test's node id."""

    __test__ = False  # not a pytest test class, despite the name

    def __init__(self, config: pytest.Config) -> None:
        self._config = config

    def _switch(self, name: str) -> None:
        run = self._config.stash.get(COVERAGE_KEY, None)
        if run is not None:
            run.switch_context(name)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self._switch(item.nodeid)

    def pytest_runtest_logfinish(self) -> None:
        self._switch("")


class WorkerCoverage:
    """On a pytest-xdist worker: hand the measurement to the controller at the end."""

    def __init__(self, config: pytest.Config) -> None:
        self._config = config

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        run = self._config.stash.get(COVERAGE_KEY, None)
        output = getattr(self._config, "workeroutput", None)
        if run is None or output is None:
            return
        output[WORKER_COVERAGE_KEY] = base64.b64encode(run.dumps()).decode("ascii")


def decode_worker_data(output: Mapping[str, object]) -> bytes | None:
    """A worker's coverage data from its ``workeroutput``, if it sent any."""
    text = output.get(WORKER_COVERAGE_KEY)
    return base64.b64decode(text) if isinstance(text, str) else None


def _packages_setting(root: Path) -> list[str]:
    """``packages`` from ``[tool.phasegate]``, read leniently: the full config loads later."""
    from phasegate.tomlfile import read_table

    packages = read_table(root / "pyproject.toml", "tool", "phasegate").get("packages", [])
    return [str(entry) for entry in packages] if isinstance(packages, list) else []
