"""``phasegate metrics``: loop metrics across runs, and a baseline comparison.

``metrics compare BASELINE CURRENT`` reads two sets of loop metrics (a metrics file, a
``metrics/`` folder, or an artifacts folder holding one) and prints both summaries and the
improvement factor of the completion accuracy. ``--min-factor`` turns it into a check: exit 1
when the factor is below it (or cannot be computed).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from phasegate.cli import Subcommands
from phasegate.model.metrics import MetricsComparison, MetricsSummary
from phasegate.refine.metrics import compare, load_metrics, summarize

__all__ = ["register"]


def register(subparsers: Subcommands) -> None:
    """Add ``metrics compare`` and ``metrics show``."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "metrics", help="refinement metrics across runs", description="Refinement metrics."
    )
    commands = parser.add_subparsers(title="metrics commands", metavar="COMMAND")
    comparing = commands.add_parser(
        "compare",
        help="compare loop metrics with a baseline; print the improvement factor",
        description="Summaries of BASELINE and CURRENT and the improvement factor "
        "(completion accuracy now / in the baseline).",
    )
    comparing.add_argument("baseline", type=Path, help="metrics file, metrics/ or artifacts folder")
    comparing.add_argument("current", type=Path, help="metrics file, metrics/ or artifacts folder")
    comparing.add_argument("--format", choices=("text", "json"), default="text")
    comparing.add_argument(
        "--min-factor", type=float, metavar="X", help="exit 1 when the factor is below X"
    )
    comparing.set_defaults(handler=_compare)
    showing = commands.add_parser("show", help="summarize one set of loop metrics")
    showing.add_argument("source", type=Path, help="metrics file, metrics/ or artifacts folder")
    showing.add_argument("--format", choices=("text", "json"), default="text")
    showing.set_defaults(handler=_show)


def _compare(args: argparse.Namespace) -> int:
    baseline = summarize(load_metrics(args.baseline), str(args.baseline))
    current = summarize(load_metrics(args.current), str(args.current))
    comparison = compare(baseline, current)
    if args.format == "json":
        print(comparison.model_dump_json(indent=2))
    else:
        for line in _comparison_lines(comparison):
            print(line)
    if args.min_factor is None:
        return 0
    return _exit_for_factor(
        comparison.improvement_factor, args.min_factor, text=args.format == "text"
    )


def _exit_for_factor(factor: float | None, min_factor: float, *, text: bool) -> int:
    """1 when the improvement factor is unknown or below ``--min-factor`` (said in text)."""
    if factor is not None and factor >= min_factor:
        return 0
    if text:
        shown = "unknown" if factor is None else f"{factor:.2f}x"
        print(f"improvement factor {shown} is below the required {min_factor:.2f}x")
    return 1


def _show(args: argparse.Namespace) -> int:
    summary = summarize(load_metrics(args.source), str(args.source))
    if args.format == "json":
        print(summary.model_dump_json(indent=2))
    else:
        for line in _summary_lines(summary):
            print(line)
    return 0


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def _summary_lines(summary: MetricsSummary) -> list[str]:
    return [
        f"{summary.source}: {summary.tasks} loop(s), {summary.in_progress} in progress",
        f"  completed without intervention: {summary.completed_without_intervention} "
        f"({_pct(summary.completion_accuracy)} of the loops that ended), "
        f"escalated: {summary.escalated}",
        f"  mean rounds: {_number(summary.mean_rounds)}, first-time pass rate: "
        f"{_pct(summary.first_time_pass_rate)}",
        f"  errors met: {summary.errors_encountered}, resolved within the loop: "
        f"{summary.errors_auto_resolved} ({_pct(summary.debug_success_rate)})",
        f"  auto-debug candidates per error: {_number(summary.mean_debug_iterations)}, "
        f"context queries: {summary.context_queries} "
        f"(mean latency {_number(summary.avg_context_latency_ms)} ms)",
    ]


def _comparison_lines(comparison: MetricsComparison) -> list[str]:
    lines = ["baseline:", *_summary_lines(comparison.baseline)]
    lines += ["current:", *_summary_lines(comparison.current)]
    factor = comparison.improvement_factor
    shown = "unknown" if factor is None else f"{factor:.2f}x"
    lines.append(f"improvement factor: {shown} ({comparison.note})")
    return lines
