"""Record a gate run as a round: read the loop, advance it, route, write state and metrics.

``.phasegate/refinement.json`` is written atomically through the store; one that cannot be
read is moved aside (never overwritten) and a new loop starts, with a notice. Several
processes may finish a gate at once (the rounds of a merge job and of a local run, say), so
the read-advance-write happens under the store's ``refinement`` lock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from phasegate import clock
from phasegate.config import RefineConfig
from phasegate.environment import PHASE_ENV
from phasegate.model.autodebug import AutodebugReport
from phasegate.model.gate import GateVerdict
from phasegate.model.metrics import TaskMetrics
from phasegate.model.refine import LoopSettings, RefinementState, RoundRecord
from phasegate.model.run import RunReport
from phasegate.refine.loop import advance
from phasegate.refine.metrics import metrics_file, task_metrics
from phasegate.refine.router import decide
from phasegate.store import AUTODEBUG_REPORT_FILE, REFINEMENT_FILE, Store
from phasegate.tomlfile import table_in

__all__ = [
    "RoundOutcome",
    "default_task",
    "load_state",
    "loop_configured",
    "record_round",
]


@dataclass(frozen=True)
class RoundOutcome:
    """The loop after the round, its metrics, and where they were written."""

    state: RefinementState
    metrics: TaskMetrics
    metrics_path: str


def default_task(gate: str, run: RunReport | None, environment: Mapping[str, str]) -> str:
    """``<gate>@<branch>``: the pull request's head branch in CI, else the checked-out one."""
    branch = environment.get("GITHUB_HEAD_REF") or _checked_out(run)
    return f"{gate}@{branch or 'unknown'}"


def _checked_out(run: RunReport | None) -> str | None:
    """The run's branch, or its commit (12 digits) on a detached head; None when unknown."""
    git = run.git if run is not None else None
    if git is None:
        return None
    return git.branch or (git.sha[:12] if git.sha else None)


def loop_configured(pyproject: Mapping[str, object]) -> bool:
    """Whether the project set up the loop (``[tool.phasegate.refine]``).

    Every judged run is recorded as a round; only a project that configured the loop (or a
    ``-v`` run) is shown the round and the router's next action after the table.
    """
    return "refine" in table_in(pyproject, "tool", "phasegate")


def load_state(store: Store) -> RefinementState | None:
    """The loop on file, or ``None`` (missing, or corrupt and moved aside)."""
    return store.read_model(REFINEMENT_FILE, RefinementState)


def record_round(
    store: Store,
    verdict: GateVerdict,
    run: RunReport | None,
    config: RefineConfig,
    environment: Mapping[str, str],
    *,
    now: datetime | None = None,
) -> RoundOutcome:
    """Add this verdict as a round, choose the next action, write state and metrics."""
    moment = now or clock.utc_now()
    settings = LoopSettings(
        threshold=config.threshold,
        alpha=config.alpha,
        early_stop=config.early_stop,
        max_rounds=config.max_rounds,
    )
    task = config.task or default_task(verdict.gate, run, environment)
    with store.lock("refinement"):
        step = advance(load_state(store), verdict, run, task=task, settings=settings, now=moment)
        state = step.state
        decision = decide(state, verdict, run)
        state.rounds[-1].decision = decision
        _add_run_figures(state.rounds[-1], store, verdict, environment)
        state.next_action = decision
        if step.closed is not None:
            store.write_model(metrics_file(step.closed), task_metrics(step.closed))
        metrics = task_metrics(state)
        path = metrics_file(state)
        store.write_model(path, metrics)
        store.write_model(REFINEMENT_FILE, state)
    return RoundOutcome(state, metrics, path)


def _add_run_figures(
    current: RoundRecord, store: Store, verdict: GateVerdict, environment: Mapping[str, str]
) -> None:
    """The round's phase, and auto-debug's figures when it worked on this very run."""
    current.phase = environment.get(PHASE_ENV) or None
    report = store.read_model(AUTODEBUG_REPORT_FILE, AutodebugReport) if verdict.run_id else None
    if report is not None and report.run_id == verdict.run_id:
        _add_debug_figures(current, report)


def _add_debug_figures(current: RoundRecord, report: AutodebugReport) -> None:
    """How many attempts each failure took, and what the context queries cost and gave."""
    current.debug_iterations = [
        len(failure.attempts) for failure in report.failures if failure.outcome != "not-attempted"
    ]
    context = report.context
    if context is not None:
        current.context_queries = context.queries
        current.context_latency_ms = context.avg_latency_ms
        current.context_relevance = list(context.relevance_scores)
