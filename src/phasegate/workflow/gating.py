"""Run a phase's exit gate through the gate engine and read its verdict.

A gate of static checks only (the SDLC's gates 1 to 3) runs in this process with
:class:`~phasegate.gates.runner.GateRunner`. A gate with session checks (tests, coverage,
review, perf) needs a test run, so it runs as ``phasegate gate run`` does:
``python -m pytest --gate=<gate>`` in a subprocess at the project root, whose verdict is read
from ``.phasegate/gates/<gate>.json``. Either way the verdict is written to that file, and an
``insufficient`` verdict's reasons become the halt's diagnosis.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timezone

import pluggy

from phasegate.config import LoadedConfig
from phasegate.environment import INSTANCE_ENV, PHASE_ENV
from phasegate.gates.registry import CheckRegistry
from phasegate.gates.runner import plan_gate
from phasegate.gates.runner_factory import configured_gate, in_pull_request, make_runner
from phasegate.model.gate import GateVerdict
from phasegate.model.run import RunReport
from phasegate.store import RUN_REPORT_FILE, Store

__all__ = ["GateOutcome", "has_session_checks", "run_exit_gate"]


@dataclass(frozen=True)
class GateOutcome:
    """What the exit gate said."""

    gate: str
    sufficient: bool
    reasons: list[str]
    verdict_path: str
    log_path: str | None = None
    #: False when no verdict of this run exists: ``verdict_path`` then holds an older one, or
    #: nothing, and is not this run's verdict.
    judged: bool = True


def has_session_checks(gate_name: str, loaded: LoadedConfig, registry: CheckRegistry) -> bool:
    """Whether the gate needs a test run."""
    gate, source = configured_gate(loaded, gate_name)
    plan = plan_gate(gate, source, registry, in_pull_request=in_pull_request(os.environ))
    return any(planned.check.kind == "session" for planned in plan.values())


def run_exit_gate(
    gate_name: str,
    loaded: LoadedConfig,
    store: Store,
    extensions: pluggy.PluginManager,
    *,
    instance_id: str,
    phase: str | None = None,
) -> GateOutcome:
    """Run the gate for ``instance_id`` (in ``phase``) and return its verdict's gist."""
    if has_session_checks(gate_name, loaded, CheckRegistry(extensions)):
        return _run_in_pytest(gate_name, loaded, store, instance_id, phase)
    return _run_here(gate_name, loaded, store, extensions, instance_id)


def _run_here(
    gate_name: str,
    loaded: LoadedConfig,
    store: Store,
    extensions: pluggy.PluginManager,
    instance_id: str,
) -> GateOutcome:
    # The runner `pytest --gate` and `phasegate merge` use, so the gate is judged as they judge
    # it (exclude, baseline, the base from the settings), for this instance.
    environment = {**os.environ, INSTANCE_ENV: instance_id}
    runner = make_runner(loaded, store, extensions, gate_name, base=None, environment=environment)
    verdict = runner.finish(None)
    path = store.write_model(Store.verdict_file(verdict.gate), verdict)
    return GateOutcome(
        verdict.gate, verdict.verdict == "sufficient", list(verdict.reasons), str(path)
    )


def _run_in_pytest(
    gate_name: str, loaded: LoadedConfig, store: Store, instance_id: str, phase: str | None
) -> GateOutcome:
    started = datetime.now(timezone.utc)
    log_path = store.path(Store.gate_log_file(gate_name))
    log_path.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pytest", f"--gate={gate_name}"]
    environment = {**os.environ, INSTANCE_ENV: instance_id}
    environment.pop(PHASE_ENV, None)
    if phase:
        environment[PHASE_ENV] = phase
    with open(log_path, "w", encoding="utf-8") as log:
        completed = subprocess.run(
            command,
            cwd=loaded.project_root,
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
            check=False,
        )
    verdict_path = store.path(Store.verdict_file(gate_name))
    verdict = _verdict_of_this_run(store, gate_name, started)
    if verdict is None:
        return GateOutcome(
            gate_name,
            False,
            [
                f"the gate {gate_name} was not judged: pytest exited with status "
                f"{completed.returncode} before writing a verdict; see {log_path}"
            ],
            str(verdict_path),
            str(log_path),
            judged=False,
        )
    return GateOutcome(
        verdict.gate,
        verdict.verdict == "sufficient",
        list(verdict.reasons),
        str(verdict_path),
        str(log_path),
    )


def _verdict_of_this_run(store: Store, gate_name: str, started: datetime) -> GateVerdict | None:
    """The gate's verdict if the pytest run started at ``started`` wrote it: written since,
    and of the run the run report holds (when there is one); else None."""
    verdict = store.read_model(Store.verdict_file(gate_name), GateVerdict)
    report = store.read_model(RUN_REPORT_FILE, RunReport)
    if verdict is None or verdict.finished_at < started:
        return None
    return verdict if report is None or verdict.run_id == report.run_id else None
