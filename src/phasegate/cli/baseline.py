"""``phasegate baseline record``: accept today's findings once, so that only new ones count.

See :mod:`phasegate.gates.baseline` for what a baseline is and how findings are matched.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from phasegate.cli import Subcommands
from phasegate.config import find_project_root, load_config

if TYPE_CHECKING:
    from phasegate.model.baseline import Baseline

__all__ = ["register"]


def register(subparsers: Subcommands) -> None:
    """Add ``baseline record``."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "baseline",
        help="record the findings a project accepts, for a first run on existing code",
        description="A file of accepted findings: what it holds is not new code.",
    )
    commands = parser.add_subparsers(title="baseline commands", metavar="COMMAND")
    record = commands.add_parser(
        "record",
        help="measure the gate's code checks and write every finding to the baseline file",
        description="Measure the gate's lint, security, types and docs checks over all code "
        "and write their findings to the baseline file (commit it).",
    )
    record.add_argument("--gate", metavar="NAME", help="the gate (default: [tool.phasegate] gate)")
    record.set_defaults(handler=_record)


def _record(args: argparse.Namespace) -> int:
    from phasegate.extensions import make_plugin_manager
    from phasegate.gates.baseline import baseline_path, load_baseline, write_baseline
    from phasegate.gates.baseline_record import BaselineRecordError, measure_baseline
    from phasegate.store import Store

    loaded = load_config(find_project_root(Path.cwd()))
    settings = loaded.config
    target = baseline_path(loaded.project_root, settings.baseline)
    store = Store(loaded.artifacts_path)
    name = args.gate or settings.gate
    try:
        baseline = measure_baseline(loaded, store, make_plugin_manager(settings.plugins), name)
    except BaselineRecordError as exc:
        print(f"phasegate: {exc}")
        return 1
    earlier = load_baseline(target) if target.is_file() else None
    write_baseline(target, baseline)
    print(_recorded(baseline, earlier, target))
    print("Commit it: from now on only findings it does not hold count as new code.")
    return 0


def _recorded(baseline: Baseline, earlier: Baseline | None, target: Path) -> str:
    """What was recorded, check by check, and how many findings the file held before."""
    counts = Counter[str]()
    for entry in baseline.entries:
        counts[entry.check] += entry.count
    detail = ", ".join(f"{check} {counts[check]}" for check in baseline.checks)
    before = ""
    if earlier is not None:
        before = f" (it held {sum(entry.count for entry in earlier.entries)} before)"
    return (
        f"phasegate: recorded {sum(counts.values())} accepted finding(s) of the gate "
        f"{baseline.gate} ({detail}) in {target}{before}"
    )
