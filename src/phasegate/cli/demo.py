"""``phasegate demo``: run ``pytest --gate`` on the bundled sample project and show the result.

The sample is copied to a new temporary folder first, so the demo never writes anywhere a
user keeps work; the folder is left in place so its artifacts can be opened afterwards.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from phasegate.cli import Subcommands
from phasegate.errors import UsageError
from phasegate.gates.score import shown_score
from phasegate.model.gate import GateVerdict
from phasegate.model.run import RunReport
from phasegate.report.terminal import counts_phrase
from phasegate.resources import bundled_path
from phasegate.store import RUN_REPORT_FILE, Store

__all__ = ["register", "run_demo"]


def register(subparsers: Subcommands) -> None:
    """Add the ``demo`` sub-command."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "demo",
        help="run pytest --gate on a bundled sample project",
        description="Copy a small sample project to a new folder, run `pytest --gate` in "
        "it, and print the verdict and where the artifacts are.",
    )
    parser.add_argument(
        "--into",
        type=Path,
        metavar="DIR",
        help="copy the sample into DIR (must not exist yet) instead of a temporary folder",
    )
    parser.set_defaults(handler=lambda args: run_demo(args.into))


def run_demo(into: Path | None = None) -> int:
    """Copy the sample, run the gate in it, print the outcome; returns pytest's exit code."""
    if into is not None and into.exists():
        raise UsageError(f"--into {into} already exists; name a folder that does not")
    target = into or Path(tempfile.mkdtemp(prefix="phasegate-demo-")) / "sample"
    shutil.copytree(bundled_path("demo"), target, ignore=shutil.ignore_patterns("__pycache__"))
    print(f"phasegate demo: sample project copied to {target}")
    command = [sys.executable, "-m", "pytest", "--gate", "-p", "no:cacheprovider"]
    print(f"phasegate demo: running {' '.join(command[2:])}\n", flush=True)
    completed = subprocess.run(command, cwd=target, check=False)
    artifacts = target / ".phasegate"
    report = Store(artifacts).read_model(RUN_REPORT_FILE, RunReport)
    print()
    if report is None:
        print(f"phasegate demo: no run report was written (pytest exit {completed.returncode})")
        return completed.returncode or 1
    print(f"phasegate demo: tests {counts_phrase(report.counts.model_dump())}")
    verdict = _verdict_of(artifacts, report.run_id)
    if verdict is not None:
        _print_verdict(verdict)
    print(f"phasegate demo: artifacts in {artifacts}")
    print(f"phasegate demo: pytest exit status {completed.returncode}")
    return completed.returncode


def _print_verdict(verdict: GateVerdict) -> None:
    print(
        f"phasegate demo: verdict {verdict.verdict.upper()} (gate {verdict.gate}, "
        f"score {shown_score(verdict.score)}, {len(verdict.checks)} checks)"
    )
    for reason in verdict.reasons:
        print(f"phasegate demo:   {reason}")


def _verdict_of(artifacts: Path, run_id: str) -> GateVerdict | None:
    """The verdict the demo run wrote (the one that read this run's report)."""
    store = Store(artifacts)
    for path in sorted((artifacts / "gates").glob("*.json")):
        verdict = store.read_model(path.relative_to(artifacts), GateVerdict)
        if verdict is not None and verdict.run_id == run_id:
            return verdict
    return None
