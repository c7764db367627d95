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
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from phasegate.errors import PhasegateError
from phasegate.gates import RECORD_ONLY
from phasegate.plugin import coverage as run_coverage

if TYPE_CHECKING:
    from phasegate.gates.runner import GateRunner
    from phasegate.gates.static_process import StaticChecksProcess
    from phasegate.gates.static_start import StartedChild
    from phasegate.plugin.recorder import Recorder

__all__ = [
    "EARLY_STATIC_KEY",
    "ENVIRONMENT_KEY",
    "REVIEWS_KEY",
    "build_runner",
    "configure",
    "keep_environment",
    "keep_reviews",
    "start_static_early",
]

#: The static checks' process :func:`start_static_early` started, for :func:`configure`.
EARLY_STATIC_KEY: pytest.StashKey[StaticChecksProcess] = pytest.StashKey()
#: The environment as the run began, before any conftest.py was imported (:func:`keep_environment`).
ENVIRONMENT_KEY: pytest.StashKey[Mapping[str, str]] = pytest.StashKey()
#: The reviews file as the run began, before any conftest.py was imported (:func:`keep_reviews`).
REVIEWS_KEY: pytest.StashKey[bytes] = pytest.StashKey()


def keep_environment(early_config: pytest.Config) -> None:
    """Keep the environment the run began with, for the gate's runner; from
    ``pytest_load_initial_conftests``, before the conftest files are imported.

    The environment says which pull request the run judges (``GITHUB_BASE_REF``,
    ``GITHUB_EVENT_NAME``); a conftest.py of the change that pops them would otherwise have
    the change judged against the base it wrote itself (``base = "HEAD"``).
    """
    early_config.stash[ENVIRONMENT_KEY] = dict(os.environ)


def keep_reviews(early_config: pytest.Config) -> None:
    """Keep the reviews file as the run began, for the review check; from
    ``pytest_load_initial_conftests``, before the conftest files are imported.

    The change's own code runs in the tests' process: a conftest.py or a test running
    ``phasegate review record --commit HEAD`` had the pull request approve itself (review
    s17r). A configuration that does not load is left to ``pytest_configure`` to report, and
    the review check then believes no review. Kept in every run that may judge, an xdist
    worker's too: the environment (``PYTEST_XDIST_WORKER``) does not tell a worker, which
    is known only later (``config.workerinput``), and a judge that kept nothing believed
    every review (review s17d, 18).
    """
    from phasegate.plugin import _shows_only

    namespace = early_config.known_args_namespace
    if getattr(namespace, "gate", None) == RECORD_ONLY or _shows_only(namespace):
        return  # nothing is judged: a run that only records or shows loads no settings for it
    try:
        path = _reviews_path(early_config)
        kept = path.read_bytes() if path.is_file() else b""
    except (PhasegateError, OSError):
        return
    _refuse_changed_since_handover(early_config, path, kept)
    early_config.stash[REVIEWS_KEY] = kept


def _refuse_changed_since_handover(early_config: pytest.Config, path: Path, kept: bytes) -> None:
    """A usage error when the command line handed the reviews file's digest over and the file
    no longer has it (:mod:`phasegate.gates.reviews_handover`)."""
    from phasegate.gates.reviews_handover import DIGEST_OPTION, changed_since_handover
    from phasegate.plugin.invocation import from_command_line

    expected = from_command_line(early_config, DIGEST_OPTION)
    problem = None if expected is None else changed_since_handover(str(path), kept, expected)
    if problem is not None:
        raise pytest.UsageError(f"phasegate: {problem}")


def _reviews_path(early_config: pytest.Config) -> Path:
    """The reviews file of the artifacts folder the settings (and ``--phasegate-dir``) name."""
    from phasegate.config import load_config
    from phasegate.model.review import REVIEWS_FILE
    from phasegate.plugin import _project_root

    directory = getattr(early_config.known_args_namespace, "phasegate_dir", None)
    overrides = {} if directory is None else {"artifacts_dir": ("--phasegate-dir", directory)}
    return load_config(_project_root(early_config), overrides, cache=True).artifacts_path / (
        REVIEWS_FILE
    )


def start_static_early(early_config: pytest.Config) -> None:
    """Start the static checks' process for ``--gate=NAME``; from ``pytest_load_initial_conftests``.

    Not for ``--gate=record``, a run that only shows something (``--collect-only``, ``--help``,
    ``--markers``, ``--fixtures``), a shard (its static checks run in ``phasegate merge``), a
    pytest-xdist worker, or a gate name that looks like a test path (a usage error soon).
    Whatever stops the run before the runner takes the process over stops it too.
    """
    namespace = early_config.known_args_namespace
    name = getattr(namespace, "gate", None)
    if not name or name == RECORD_ONLY:
        return  # a run that only records imports none of the gate's engine
    if not _judges_here(namespace) or not _names_a_gate(name):
        return
    from phasegate.gates.static_start import start_child
    from phasegate.plugin import _project_root
    from phasegate.processes import kill_group

    directory = getattr(namespace, "phasegate_dir", None)
    root = _project_root(early_config)
    artifacts_dir = Path(directory) if directory is not None else None
    base = getattr(namespace, "phasegate_base", None)
    environment = early_config.stash.get(ENVIRONMENT_KEY, None)
    child = start_child(
        root=root, gate=name, artifacts_dir=artifacts_dir, base=base, environment=environment
    )
    try:
        _keep_until_taken_over(
            early_config, child, root=root, gate=name, artifacts_dir=artifacts_dir, base=base
        )
    except BaseException:  # nothing would stop it: an import failed, or Ctrl-C meanwhile
        kill_group(child.process)
        child.folder.cleanup()
        raise


def _keep_until_taken_over(
    early_config: pytest.Config,
    child: StartedChild,
    *,
    root: Path,
    gate: str,
    artifacts_dir: Path | None,
    base: str | None,
) -> None:
    """Wrap the child in the process :func:`configure` hands the runner, stopped at the end
    of the run unless the runner took it over."""
    # Only now: what waits for the child and reads its judgements imports pydantic and the
    # gate's models, which the child's start need not wait for.
    from phasegate.gates.static_process import StaticChecksProcess

    process = StaticChecksProcess(
        root=root,
        gate=gate,
        artifacts_dir=artifacts_dir,
        base=base,
        timeout_s=0.0,  # set by the runner, which knows the gate's timeouts
    )
    process.adopt(child)
    early_config.stash[EARLY_STATIC_KEY] = process
    early_config.add_cleanup(process.terminate)  # a no-op once it has ended


def _judges_here(namespace: object) -> bool:
    """Whether this process judges the gate: not a run that only shows something, a shard or
    an xdist worker."""
    from phasegate.plugin import _shows_only
    from phasegate.shards import SHARD_ENV

    return not (
        _shows_only(namespace)
        or getattr(namespace, "phasegate_shard", None) is not None
        or os.environ.get(SHARD_ENV)
        or os.environ.get("PYTEST_XDIST_WORKER")
    )


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
        _configure_worker(config)
        return
    name = str(recorder.loaded_config.values["gate"])
    if name == RECORD_ONLY:
        run_coverage.stop_unneeded(config)
        return
    from phasegate.gates.progress import PROGRESS_ENV
    from phasegate.plugin.gate_session import ShardGateSession
    from phasegate.plugin.shard import requested as requested_shard

    runner = _vetted_runner(config, recorder, name)
    progress = os.environ.get(PROGRESS_ENV)
    if progress:  # `gate run` waits for the gate's own name: the gate is sound
        _announce_gate(Path(progress), runner, recorder)
    early = _early_process(config, runner)
    if not runner.needs_coverage:
        run_coverage.stop_unneeded(config)
    shard = requested_shard(config)
    if shard is not None:
        # The static checks run once, in `phasegate merge`: the runner is not started here.
        config.pluginmanager.register(
            ShardGateSession(config, recorder, runner, shard), "phasegate-gate"
        )
        return
    _register_session(config, recorder, runner, progress)
    runner.start(early or _static_process(config, recorder, runner, name))


def _register_session(
    config: pytest.Config, recorder: Recorder, runner: GateRunner, progress: str | None
) -> None:
    """What judges the run at its end, and what the checks and ``gate run`` read during it:
    each test's coverage contexts, if the gate wants them, and the tests' progress."""
    from phasegate.plugin.gate_session import GateSession

    config.pluginmanager.register(GateSession(config, recorder, runner), "phasegate-gate")
    if runner.wants_test_contexts:
        config.pluginmanager.register(run_coverage.TestContexts(config), "phasegate-test-contexts")
    if progress:
        from phasegate.plugin.progress import TestProgress

        config.pluginmanager.register(TestProgress(Path(progress)), "phasegate-progress")


def _configure_worker(config: pytest.Config) -> None:
    """A pytest-xdist worker's part: hand its coverage (and test contexts) to the controller."""
    config.pluginmanager.register(run_coverage.WorkerCoverage(config), "phasegate-coverage")
    if getattr(config, "workerinput", {}).get(run_coverage.WORKER_CONTEXTS_KEY):
        config.pluginmanager.register(run_coverage.TestContexts(config), "phasegate-test-contexts")


def _vetted_runner(config: pytest.Config, recorder: Recorder, name: str) -> GateRunner:
    """The gate's runner, once what the run will replace is readable (or moved aside) and not
    of a newer schema: a problem shows now, before the tests, and exits 4."""
    from phasegate.store import REFINEMENT_FILE, Store

    try:
        runner = build_runner(config, recorder, name)
        verdict_file = Store.verdict_file(runner.gate.name)
        recorder.store.vet(verdict_file, "phasegate.model.gate:GateVerdict")
        if recorder.loaded_config.config.refine.enabled:
            recorder.store.vet(REFINEMENT_FILE, "phasegate.model.refine:RefinementState")
    except PhasegateError as exc:
        raise pytest.UsageError(f"phasegate: {exc}") from exc
    return runner


def _announce_gate(progress: Path, runner: GateRunner, recorder: Recorder) -> None:
    """Tell ``gate run``'s display the gate's name and artifacts folder."""
    from phasegate.gates.progress import append_event
    from phasegate.plugin.progress import gate_event

    with contextlib.suppress(OSError):  # only a display's feed
        append_event(progress, gate_event(runner.gate.name, recorder.store.root))


def _early_process(config: pytest.Config, runner: GateRunner) -> StaticChecksProcess | None:
    """The static checks' process :func:`start_static_early` started, stopped when the gate
    has no static check for it to run."""
    early = config.stash.get(EARLY_STATIC_KEY, None)
    if early is not None and not runner.static_checks:
        early.terminate()  # nothing for it to do
        return None
    return early


def _static_process(
    config: pytest.Config, recorder: Recorder, runner: GateRunner, name: str
) -> StaticChecksProcess:
    """The static checks' process, when none was started early (``--gate`` with no name):
    in the environment the run began with, not the one the conftest files left."""
    from phasegate.gates.static_process import StaticChecksProcess

    return StaticChecksProcess(
        root=recorder.loaded_config.project_root,
        gate=name,
        artifacts_dir=recorder.store.root,
        base=config.getoption("phasegate_base", None),
        timeout_s=runner.longest_timeout_s,
        environment=config.stash.get(ENVIRONMENT_KEY, None),
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
        environment=config.stash.get(ENVIRONMENT_KEY, os.environ),
        on_event=progress_writer(Path(progress)) if progress else None,
    )
