"""``pytest --gate=NAME --shard=K/N``: run one shard of the suite and say so in the report.

Wherever tests are collected (a serial run, or each pytest-xdist worker), the tests of the
other shards are deselected after every other selection (``-k``, ``-m``) is done. The
process that writes artifacts adds ``shard`` to the run report: K, N, the gate, and the size
and digest of the whole suite, which ``phasegate merge`` compares across shards. A shard does
not judge the gate: ``phasegate merge`` judges it once, on all shards together.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from phasegate.errors import UsageError
from phasegate.plugin.gate import ENVIRONMENT_KEY
from phasegate.plugin.invocation import from_command_line
from phasegate.shards import SHARD_ENV

if TYPE_CHECKING:
    from phasegate.plugin.recorder import Recorder
    from phasegate.shards.spec import ShardSpec, SuiteInfo

__all__ = ["SUITE_KEY", "ShardRecorder", "ShardSelector", "configure", "requested"]

#: The suite as this process collected it, before the split.
SUITE_KEY = pytest.StashKey["SuiteInfo"]()
_WORKER_KEY = "phasegate_shard_suite"


def requested(config: pytest.Config) -> ShardSpec | None:
    """The shard this run is, from ``--shard`` or the environment; ``None`` for a whole run.

    The environment is the one the run began with, before any conftest.py was imported: one
    setting ``PHASEGATE_SHARD`` made a gate run a shard, which judges nothing (review s17r).
    ``--shard`` counts only from the command line (:func:`_shard_option`).
    """
    value, source = _shard_option(config), "--shard"
    if value is None:
        environment = config.stash.get(ENVIRONMENT_KEY, os.environ)
        value, source = environment.get(SHARD_ENV) or None, SHARD_ENV
    if value is None:
        return None  # not a shard: the rest of phasegate.shards is never imported
    from phasegate.shards.spec import parse_shard

    return parse_shard(value, source)


def _shard_option(config: pytest.Config) -> str | None:
    """``--shard`` as the command line gave it; a UsageError when the project's settings gave
    it (``addopts``): a change setting ``--shard=1/1`` there had its gate run judge nothing,
    exit 0 with a failing test skipped (review s17d, 13). A shard is asked for by the CI job."""
    given: str | None = config.getoption("phasegate_shard", None)
    if given is not None and _from_settings(config):
        raise UsageError(
            f"--shard={given} comes from the project's settings (addopts or PYTEST_ADDOPTS), not "
            "the command line: a shard judges no gate, so the settings of the change under "
            "check cannot ask for one; give --shard=K/N on pytest's command line, or set "
            f"{SHARD_ENV}=K/N in the CI job's environment"
        )
    return given


def _from_settings(config: pytest.Config) -> bool:
    """Whether ``--shard`` was not on the command line; an xdist worker has the controller's
    options, not its command line, and the controller has vetted them."""
    return not hasattr(config, "workerinput") and from_command_line(config, "--shard") is None


def configure(config: pytest.Config, recorder: Recorder | None) -> None:
    """Split the suite and record the shard, if a shard was asked for."""
    try:
        spec = requested(config)
    except UsageError as exc:
        raise pytest.UsageError(f"phasegate: {exc}") from exc
    if spec is None:
        return
    config.pluginmanager.register(ShardSelector(config, spec), "phasegate-shard-selector")
    if recorder is not None:
        gate = str(recorder.loaded_config.values["gate"])
        config.pluginmanager.register(
            ShardRecorder(config, recorder, spec, gate), "phasegate-shard-recorder"
        )


class ShardSelector:
    """Deselects the tests that belong to other shards."""

    def __init__(self, config: pytest.Config, spec: ShardSpec) -> None:
        self._config = config
        self._spec = spec

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        from phasegate.shards.spec import split

        mine, suite = split([item.nodeid for item in items], self._spec)
        config.stash[SUITE_KEY] = suite
        keep = [item for item in items if item.nodeid in mine]
        other = [item for item in items if item.nodeid not in mine]
        if other:
            config.hook.pytest_deselected(items=other)
            items[:] = keep

    def pytest_sessionfinish(self) -> None:
        output = getattr(self._config, "workeroutput", None)
        suite = self._config.stash.get(SUITE_KEY, None)
        if output is not None and suite is not None:
            output[_WORKER_KEY] = {"size": suite.size, "digest": suite.digest}


class ShardRecorder:
    """Adds the shard to the run report (in the process that writes it)."""

    def __init__(
        self, config: pytest.Config, recorder: Recorder, spec: ShardSpec, gate: str
    ) -> None:
        self._config = config
        self._recorder = recorder
        self._spec = spec
        self._gate = gate
        self._worker_suites: list[SuiteInfo] = []

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: object, error: object | None) -> None:
        from phasegate.shards.spec import SuiteInfo

        data = (getattr(node, "workeroutput", None) or {}).get(_WORKER_KEY)
        if isinstance(data, dict):
            self._worker_suites.append(SuiteInfo(int(data["size"]), str(data["digest"])))

    @pytest.hookimpl(tryfirst=True)  # before the gate reads the report
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from phasegate.shards.spec import SuiteInfo

        data = self._recorder.outcome.document
        if data is None:
            return
        suites = set(self._worker_suites)
        local = self._config.stash.get(SUITE_KEY, None)
        if local is not None:
            suites.add(local)
        if len(suites) > 1:
            data["incomplete"] = True
            data["incomplete_reasons"].append(
                "the pytest-xdist workers collected different suites, so the shard's tests "
                "are not well defined"
            )
        suite = min(suites, key=lambda s: s.digest) if suites else SuiteInfo(0, "")
        data["shard"] = {
            "index": self._spec.index,
            "total": self._spec.total,
            "suite_size": suite.size,
            "suite_digest": suite.digest,
            "gate": self._gate,
        }
