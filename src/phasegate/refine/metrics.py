"""Metrics of refinement loops, summaries over many loops, and the baseline comparison.

The improvement factor is the design documents' headline figure: the share of loops completed
without a person stepping in (completion accuracy) now, divided by the same share in the
baseline. It is undefined (``None``) when the baseline's share is 0 or when either side has no
loop that ended; the comparison says so rather than printing a made-up number.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict

from pydantic import ValidationError

from phasegate.errors import UsageError
from phasegate.model.metrics import MetricsComparison, MetricsSummary, TaskMetrics
from phasegate.model.refine import LoopStatus, RefinementState, RoundRecord
from phasegate.store import first_error

__all__ = [
    "METRICS_DIR",
    "compare",
    "load_metrics",
    "metrics_file",
    "summarize",
    "task_metrics",
]

#: The folder of the per-loop metrics files, inside the artifacts folder.
METRICS_DIR = "metrics"

_ENDED = (LoopStatus.PASSED, LoopStatus.EARLY_STOPPED, LoopStatus.ESCALATED)


def metrics_file(state: RefinementState) -> str:
    """The metrics file of a loop, relative to the artifacts folder."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", state.task).strip("-.") or "task"
    return f"{METRICS_DIR}/{slug}.loop{state.loop}.json"


def task_metrics(state: RefinementState) -> TaskMetrics:
    """The metrics of a loop as it stands."""
    rounds = state.rounds
    completed = state.status in (LoopStatus.PASSED, LoopStatus.EARLY_STOPPED)
    return TaskMetrics(
        task=state.task,
        phase=rounds[-1].phase if rounds else None,
        gate=state.gate,
        loop=state.loop,
        status=state.status,
        started_at=state.started_at,
        updated_at=state.updated_at,
        duration_s=_duration_s(rounds),
        refinement_rounds=len(rounds),
        quality_scores=[r.score for r in rounds],
        ema_scores=[r.ema for r in rounds],
        final_ema=state.ema,
        early_stopped=state.status is LoopStatus.EARLY_STOPPED,
        errors_encountered=len(state.feedback) + state.feedback_dropped,
        errors_auto_resolved=sum(1 for item in state.feedback if item.resolved_round is not None),
        **_context_figures(rounds),
        verification_checks=sum(r.checks_run for r in rounds),
        **_first_round_figures(rounds),
        passed_first_round=completed and len(rounds) == 1,
        completed_without_intervention=completed,
        escalated_to_human=state.status is LoopStatus.ESCALATED,
    )


class _ContextFigures(TypedDict):
    debug_iterations: list[int]
    context_queries: int
    avg_context_latency_ms: float | None
    context_relevance_scores: list[float]


def _context_figures(rounds: Sequence[RoundRecord]) -> _ContextFigures:
    """What the rounds' auto-debug sessions and context queries add up to."""
    return {
        "debug_iterations": [n for r in rounds for n in r.debug_iterations],
        "context_queries": sum(r.context_queries for r in rounds),
        "avg_context_latency_ms": _weighted_mean(
            [(r.context_latency_ms, r.context_queries) for r in rounds]
        ),
        "context_relevance_scores": [score for r in rounds for score in r.context_relevance],
    }


def _duration_s(rounds: Sequence[RoundRecord]) -> float:
    """Seconds from the first round recorded to the last (0 before two rounds)."""
    if not rounds:
        return 0.0
    return max(0.0, (rounds[-1].recorded_at - rounds[0].recorded_at).total_seconds())


class _FirstRoundFigures(TypedDict):
    verification_passes_first_time: int
    first_time_pass_rate: float | None


def _first_round_figures(rounds: Sequence[RoundRecord]) -> _FirstRoundFigures:
    """The checks the first round passed, and their share of those it ran (None when it ran
    none, or there is no round yet)."""
    if not rounds:
        return {"verification_passes_first_time": 0, "first_time_pass_rate": None}
    first = rounds[0]
    rate = round(first.checks_passed / first.checks_run, 4) if first.checks_run else None
    return {"verification_passes_first_time": first.checks_passed, "first_time_pass_rate": rate}


def load_metrics(source: Path) -> list[TaskMetrics]:
    """Every loop's metrics in a metrics file, a metrics folder, or an artifacts folder."""
    return [_read_metrics(path) for path in _metrics_files(source)]


def _metrics_files(source: Path) -> list[Path]:
    """The metrics files ``source`` names: itself, or the ``*.json`` of its metrics folder."""
    if source.is_file():
        return [source]
    if not source.is_dir():
        raise UsageError(f"{source} does not exist; give a metrics file or folder")
    folder = source / METRICS_DIR if (source / METRICS_DIR).is_dir() else source
    files = sorted(folder.glob("*.json"))
    if not files:
        raise UsageError(
            f"{source} holds no metrics files (*.json); point at .phasegate/metrics or a "
            "metrics file"
        )
    return files


def _read_metrics(path: Path) -> TaskMetrics:
    try:
        return TaskMetrics.model_validate_json(path.read_bytes())
    except (OSError, ValidationError, ValueError) as exc:
        detail = first_error(exc) if isinstance(exc, ValidationError) else str(exc)
        raise UsageError(f"{path} is not a phasegate task-metrics file: {detail}") from exc


def summarize(metrics: Sequence[TaskMetrics], source: str) -> MetricsSummary:
    """Loops taken together."""
    return MetricsSummary(
        source=source,
        tasks=len(metrics),
        **_outcome_figures(metrics),
        **_error_figures(metrics),
        context_queries=sum(m.context_queries for m in metrics),
        avg_context_latency_ms=_context_latency(metrics),
        first_time_pass_rate=_mean(_first_pass_rates(metrics)),
    )


class _OutcomeFigures(TypedDict):
    completed_without_intervention: int
    escalated: int
    in_progress: int
    completion_accuracy: float | None
    mean_rounds: float | None


def _outcome_figures(metrics: Sequence[TaskMetrics]) -> _OutcomeFigures:
    """How the loops ended (or that they still refine), and in how many rounds."""
    ended = [m for m in metrics if m.status in _ENDED]
    completed = sum(1 for m in ended if m.completed_without_intervention)
    return {
        "completed_without_intervention": completed,
        "escalated": sum(1 for m in ended if m.escalated_to_human),
        "in_progress": sum(1 for m in metrics if m.status is LoopStatus.REFINING),
        "completion_accuracy": _ratio(completed, len(ended)),
        "mean_rounds": _mean([m.refinement_rounds for m in ended]),
    }


class _ErrorFigures(TypedDict):
    errors_encountered: int
    errors_auto_resolved: int
    debug_success_rate: float | None
    mean_debug_iterations: float | None


def _error_figures(metrics: Sequence[TaskMetrics]) -> _ErrorFigures:
    """The errors the loops met, how many auto-debug resolved, in how many iterations."""
    met = sum(m.errors_encountered for m in metrics)
    resolved = sum(m.errors_auto_resolved for m in metrics)
    return {
        "errors_encountered": met,
        "errors_auto_resolved": resolved,
        "debug_success_rate": _ratio(resolved, met),
        "mean_debug_iterations": _mean(_debug_iterations(metrics)),
    }


def _debug_iterations(metrics: Sequence[TaskMetrics]) -> list[int]:
    """How many iterations each auto-debug session of the loops took."""
    return [n for m in metrics for n in m.debug_iterations]


def _context_latency(metrics: Sequence[TaskMetrics]) -> float | None:
    """The loops' mean context latency, each weighed by its number of queries."""
    return _weighted_mean([(m.avg_context_latency_ms, m.context_queries) for m in metrics])


def _first_pass_rates(metrics: Sequence[TaskMetrics]) -> list[float]:
    """The first-round pass rates of the loops that have one."""
    return [m.first_time_pass_rate for m in metrics if m.first_time_pass_rate is not None]


#: The summary figures the comparison gives the change of, current minus baseline.
_COMPARED = ("completion_accuracy", "mean_rounds", "debug_success_rate", "first_time_pass_rate")


def compare(baseline: MetricsSummary, current: MetricsSummary) -> MetricsComparison:
    """The current summary against the baseline, with the improvement factor."""
    factor, note = _improvement(baseline.completion_accuracy, current.completion_accuracy)
    deltas: dict[str, float | None] = {
        name: _delta(getattr(baseline, name), getattr(current, name)) for name in _COMPARED
    }
    return MetricsComparison(
        baseline=baseline, current=current, improvement_factor=factor, note=note, deltas=deltas
    )


def _improvement(base_rate: float | None, now_rate: float | None) -> tuple[float | None, str]:
    """The improvement factor and the sentence saying what it rests on (or why there is none)."""
    if base_rate is None or now_rate is None:
        return None, "no loop has ended on one side, so the completion accuracy is unknown there"
    if base_rate == 0:
        return None, (
            "the baseline completed no loop without intervention: no factor can be computed"
        )
    note = f"completion accuracy {now_rate:.1%} against {base_rate:.1%} in the baseline"
    return round(now_rate / base_rate, 4), note


def _delta(before: float | None, after: float | None) -> float | None:
    return None if before is None or after is None else round(after - before, 4)


def _mean(values: Sequence[float]) -> float | None:
    return round(statistics.fmean(values), 4) if values else None


def _weighted_mean(pairs: Sequence[tuple[float | None, int]]) -> float | None:
    """The mean of means, each weighed by its count (``None`` means are left out)."""
    known = [(mean, count) for mean, count in pairs if mean is not None and count]
    total = sum(count for _mean, count in known)
    return round(sum(mean * count for mean, count in known) / total, 3) if total else None


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None
