"""``pytest --gate=NAME``: the gate runs beside the tests and fails the run when insufficient.

Wiring only: :func:`configure` builds the gate's runner, starts the static checks and registers
the session part (:mod:`phasegate.plugin.gate_session`). With ``--gate=record`` neither the runner
nor the checks are imported (only the gate definitions the configuration already needs): a run
that only records pays for none of it.

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
    from phasegate.plugin.recorder import Recorder

__all__ = ["build_runner", "configure"]


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
            append_event(Path(progress), gate_event(runner.gate.name))
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
        StaticChecksProcess(
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
