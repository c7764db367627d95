"""``pytest --gate=NAME``: the gate runs beside the tests and fails the run when insufficient.

Wiring only: :func:`configure` builds the gate's runner, starts the static checks and registers
the session part (:mod:`phasegate.plugin.gate_session`). The static checks' process is started
earlier still, by :func:`start_static_early` as soon as pytest has read its options (before
coverage starts, the conftest files are imported and the gate is planned here): it is on the
gate's critical path, the tests beside it. ``configure`` then hands it to the runner, or stops
it when the gate turns out to be wrong or to have no static check. With ``--gate=record``
neither the runner nor the checks are imported (only the gate definitions the configuration
already needs): a run that only records pays for none of it.

A shard (``--shard=K/N``) judges nothing: it measures what the gate's session checks need
(coverage), keeps it in the artifacts folder, and leaves the verdict to ``phasegate merge``.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from phasegate.errors import PhasegateError
from phasegate.gates import RECORD_ONLY
from phasegate.plugin import coverage as run_coverage

if TYPE_CHECKING:
    from phasegate.gates.runner import GateRunner
    from phasegate.gates.static_process import StaticChecksProcess
    from phasegate.plugin.recorder import Recorder

__all__ = ["EARLY_STATIC_KEY", "build_runner", "configure", "start_static_early"]

#: The static checks' process :func:`start_static_early` started, for :func:`configure`.
EARLY_STATIC_KEY: pytest.StashKey[StaticChecksProcess] = pytest.StashKey()


def start_static_early(early_config: pytest.Config) -> None:
    """Start the static checks' process for ``--gate=NAME``; from ``pytest_load_initial_conftests``.

    Not for ``--gate=record``, a collection only, a shard (its static checks run in ``phasegate
    merge``), a pytest-xdist worker, or a gate name that looks like a test path (a usage error
    soon). Whatever stops the run before the runner takes the process over stops it too.
    """
    namespace = early_config.known_args_namespace
    name = getattr(namespace, "gate", None)
    if not name or name == RECORD_ONLY:
        return  # a run that only records imports none of the gate's engine
    from phasegate.shards import SHARD_ENV

    if (
        getattr(namespace, "collectonly", False)
        or getattr(namespace, "phasegate_shard", None) is not None
        or os.environ.get(SHARD_ENV)
        or os.environ.get("PYTEST_XDIST_WORKER")
        or not _names_a_gate(name)
    ):
        return
    from phasegate.gates.static_process import StaticChecksProcess

    inipath = early_config.inipath
    pyproject = inipath is not None and inipath.name == "pyproject.toml"
    root = inipath.parent if inipath is not None and pyproject else early_config.rootpath
    directory = getattr(namespace, "phasegate_dir", None)
    process = StaticChecksProcess(
        root=root,
        gate=name,
        artifacts_dir=Path(directory) if directory is not None else None,
        base=getattr(namespace, "phasegate_base", None),
        timeout_s=0.0,  # set by the runner, which knows the gate's timeouts
    )
    process.start()
    early_config.stash[EARLY_STATIC_KEY] = process
    early_config.add_cleanup(process.terminate)  # a no-op once it has ended


def _names_a_gate(value: str) -> bool:
    from phasegate.plugin import _refuse_path_as_gate

    try:
        _refuse_path_as_gate(value)
    except PhasegateError:
        return False
    return True


def configure(config: pytest.Config, recorder: Recorder | None) -> None:
    """Wire the gate if ``--gate`` names one (``record`` evaluates none)."""
    if config.getoption("gate") is None:
        return
    if recorder is None:  # a pytest-xdist worker: only hand over coverage data
        config.pluginmanager.register(run_coverage.WorkerCoverage(config), "phasegate-coverage")
        if getattr(config, "workerinput", {}).get(run_coverage.WORKER_CONTEXTS_KEY):
            config.pluginmanager.register(
                run_coverage.TestContexts(config), "phasegate-test-contexts"
            )
        return
    loaded = recorder.loaded_config
    name = str(loaded.values["gate"])
    if name == RECORD_ONLY:
        run_coverage.stop_unneeded(config)
        return
    from phasegate.gates.progress import PROGRESS_ENV, append_event
    from phasegate.gates.static_process import StaticChecksProcess
    from phasegate.plugin.gate_session import GateSession, ShardGateSession
    from phasegate.plugin.shard import requested as requested_shard
    from phasegate.store import REFINEMENT_FILE, Store

    try:
        runner = build_runner(config, recorder, name)
        # What the run will replace must be readable, or moved aside, and not of a newer
        # schema: a problem shows now, before the tests, and exits 4.
        verdict_file = Store.verdict_file(runner.gate.name)
        recorder.store.vet(verdict_file, "phasegate.model.gate:GateVerdict")
        if loaded.config.refine.enabled:
            recorder.store.vet(REFINEMENT_FILE, "phasegate.model.refine:RefinementState")
    except PhasegateError as exc:
        raise pytest.UsageError(f"phasegate: {exc}") from exc
    progress = os.environ.get(PROGRESS_ENV)
    if progress:  # `gate run` waits for the gate's own name: the gate is sound
        from phasegate.plugin.progress import gate_event

        with contextlib.suppress(OSError):  # only a display's feed
            append_event(Path(progress), gate_event(runner.gate.name, recorder.store.root))
    early = config.stash.get(EARLY_STATIC_KEY, None)
    if early is not None and not runner.static_checks:
        early.terminate()  # nothing for it to do
        early = None
    if not runner.needs_coverage:
        run_coverage.stop_unneeded(config)
    shard = requested_shard(config)
    if shard is not None:
        # The static checks run once, in `phasegate merge`: the runner is not started here.
        config.pluginmanager.register(
            ShardGateSession(config, recorder, runner, shard), "phasegate-gate"
        )
        return
    session = GateSession(config, recorder, runner)
    config.pluginmanager.register(session, "phasegate-gate")
    if runner.wants_test_contexts:
        config.pluginmanager.register(run_coverage.TestContexts(config), "phasegate-test-contexts")
    if progress:
        from phasegate.plugin.progress import TestProgress

        config.pluginmanager.register(TestProgress(Path(progress)), "phasegate-progress")
    runner.start(
        early
        or StaticChecksProcess(
            root=loaded.project_root,
            gate=name,
            artifacts_dir=recorder.store.root,
            base=config.getoption("phasegate_base", None),
            timeout_s=runner.longest_timeout_s,
        )
    )


def build_runner(config: pytest.Config, recorder: Recorder, name: str) -> GateRunner:
    """The gate runner for this project, its settings and this environment."""
    from phasegate.gates.progress import PROGRESS_ENV, progress_writer
    from phasegate.gates.runner_factory import make_runner

    progress = os.environ.get(PROGRESS_ENV)
    return make_runner(
        recorder.loaded_config,
        recorder.store,
        recorder.extensions,
        name,
        base=config.getoption("phasegate_base", None),
        environment=os.environ,
        on_event=progress_writer(Path(progress)) if progress else None,
    )
