"""Loop metrics, their summaries, and `phasegate metrics compare`."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from phasegate.cli import main
from phasegate.errors import UsageError
from phasegate.model.gate import CheckStatus
from phasegate.model.metrics import TaskMetrics
from phasegate.model.refine import LoopSettings, LoopStatus, RefinementState
from phasegate.model.run import Outcome
from phasegate.refine.loop import advance
from phasegate.refine.metrics import compare, load_metrics, summarize, task_metrics
from tests.factories import T0, check, record, run_report, verdict

SETTINGS = LoopSettings(threshold=0.85, alpha=0.3, early_stop=0.95, max_rounds=3)


def loop(task: str, outcomes: list[bool]) -> RefinementState:
    """A loop whose rounds pass (True) or fail (False) in this order."""
    state = None
    for n, ok in enumerate(outcomes):
        tests = [record("t.py::test_a", Outcome.PASSED if ok else Outcome.FAILED)]
        gate = verdict(
            [check("tests", CheckStatus.PASSED if ok else CheckStatus.FAILED), check("lint")]
        )
        state = advance(
            state,
            gate,
            run_report(tests),
            task=task,
            settings=SETTINGS,
            now=T0 + timedelta(minutes=n),
        ).state
    assert state is not None
    return state


def test_metrics_of_a_loop_fixed_in_the_second_round() -> None:
    metrics = task_metrics(loop("a", [False, True]))
    assert metrics.status is LoopStatus.PASSED  # ema 0.825 stays below the early stop
    assert metrics.refinement_rounds == 2
    assert metrics.quality_scores == [0.75, 1.0]
    assert metrics.errors_encountered == 2  # the tests check and the failing test
    assert metrics.errors_auto_resolved == 2
    assert metrics.first_time_pass_rate == 0.5
    assert metrics.passed_first_round is False
    assert metrics.completed_without_intervention is True
    assert metrics.duration_s == 60.0


def test_an_escalated_loop_was_not_completed_without_intervention() -> None:
    metrics = task_metrics(loop("b", [False, False, False]))
    assert metrics.escalated_to_human is True
    assert metrics.completed_without_intervention is False


def write(folder: Path, metrics: list[TaskMetrics]) -> Path:
    folder.mkdir(parents=True)
    for n, item in enumerate(metrics):
        (folder / f"{n}.json").write_text(item.model_dump_json())
    return folder


def test_compare_gives_the_improvement_factor(tmp_path: Path) -> None:
    baseline = write(
        tmp_path / "base",
        [task_metrics(loop(f"b{n}", [False, False, False])) for n in range(3)]
        + [task_metrics(loop("b9", [False, True]))],
    )
    current = write(
        tmp_path / "now",
        [task_metrics(loop(f"c{n}", [False, True])) for n in range(3)]
        + [task_metrics(loop("c9", [False, False, False]))],
    )
    comparison = compare(
        summarize(load_metrics(baseline), "base"), summarize(load_metrics(current), "now")
    )
    assert comparison.baseline.completion_accuracy == 0.25
    assert comparison.current.completion_accuracy == 0.75
    assert comparison.improvement_factor == 3.0
    assert comparison.deltas["completion_accuracy"] == 0.5


def test_a_baseline_that_never_completed_has_no_factor(tmp_path: Path) -> None:
    base = summarize([task_metrics(loop("b", [False, False, False]))], "base")
    now = summarize([task_metrics(loop("c", [True]))], "now")
    comparison = compare(base, now)
    assert comparison.improvement_factor is None
    assert "no factor can be computed" in comparison.note


def test_the_compare_command_prints_the_factor_and_fails_below_the_minimum(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = write(
        tmp_path / "base",
        [task_metrics(loop("b", [False, False, False])), task_metrics(loop("b2", [True]))],
    )
    current = write(tmp_path / "now", [task_metrics(loop("c", [True]))])
    assert main(["metrics", "compare", str(baseline), str(current)]) == 0
    out = capsys.readouterr().out
    assert "improvement factor: 2.00x" in out
    assert main(["metrics", "compare", str(baseline), str(current), "--min-factor", "3.5"]) == 1
    assert "below the required 3.50x" in capsys.readouterr().out
    assert main(["metrics", "compare", str(baseline), str(current), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["improvement_factor"] == 2.0


def test_a_file_that_is_not_metrics_is_named_in_the_error(tmp_path: Path) -> None:
    bad = tmp_path / "metrics"
    bad.mkdir()
    (bad / "x.json").write_text('{"task": 3}')
    with pytest.raises(UsageError, match=r"x\.json is not a phasegate task-metrics file: task"):
        load_metrics(tmp_path)
    assert main(["metrics", "compare", str(tmp_path / "missing"), str(bad)]) == 4


def test_the_summary_weighs_debug_iterations_and_context_latency_by_query() -> None:
    first = task_metrics(loop("a", [False, True])).model_copy(
        update={"debug_iterations": [1, 3], "context_queries": 1, "avg_context_latency_ms": 10.0}
    )
    second = task_metrics(loop("b", [True])).model_copy(
        update={"debug_iterations": [2], "context_queries": 3, "avg_context_latency_ms": 2.0}
    )
    summary = summarize([first, second], "here")
    assert summary.mean_debug_iterations == 2.0
    assert summary.context_queries == 4
    assert summary.avg_context_latency_ms == 4.0  # (10 * 1 + 2 * 3) / 4
