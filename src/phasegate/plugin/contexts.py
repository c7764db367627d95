"""Per-test coverage contexts for auto-debug's localization run (``-p phasegate.plugin.contexts``).

Loaded only in the subprocess :func:`phasegate.autodebug.localize.collect_spectrum` starts,
and in the mutation check's baseline run (:mod:`phasegate.gates.mutation_runs`), which name
the data file and the folder to measure in environment variables (the mutation check may
name the files to measure instead, so that only they are traced). Coverage
starts at configuration, each test's setup, call and teardown run under its node id as the
dynamic context, and the data is saved when pytest ends. The ``ctrace`` core is pinned:
coverage's ``sysmon`` core does not record dynamic contexts.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from phasegate.autodebug.localize import (
    CONTEXTS_DATA_ENV,
    CONTEXTS_INCLUDE_ENV,
    CONTEXTS_SOURCE_ENV,
)

if TYPE_CHECKING:
    import coverage

_COVERAGE_KEY: pytest.StashKey[coverage.Coverage] = pytest.StashKey()


def pytest_configure(config: pytest.Config) -> None:
    data_file = os.environ.get(CONTEXTS_DATA_ENV)
    source = os.environ.get(CONTEXTS_SOURCE_ENV)
    if not data_file or not source:
        return
    import coverage

    include = [name for name in os.environ.get(CONTEXTS_INCLUDE_ENV, "").split(os.pathsep) if name]
    if include:
        cov = coverage.Coverage(data_file=data_file, include=include, config_file=False)
    else:
        cov = coverage.Coverage(data_file=data_file, source=[source], config_file=False)
    cov.set_option("run:core", "ctrace")
    cov.start()
    config.stash[_COVERAGE_KEY] = cov


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    cov = item.config.stash.get(_COVERAGE_KEY, None)
    if cov is not None:
        cov.switch_context(item.nodeid)


def pytest_unconfigure(config: pytest.Config) -> None:
    cov = config.stash.get(_COVERAGE_KEY, None)
    if cov is not None:
        cov.stop()
        cov.save()
        del config.stash[_COVERAGE_KEY]
