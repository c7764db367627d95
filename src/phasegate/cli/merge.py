"""``phasegate merge SHARD_DIR... [--gate NAME]``: judge a sharded suite once.

Reads the artifacts folder of every shard, refuses a missing or duplicated shard (and any
other gap, see :mod:`phasegate.shards.merge`), writes the merged ``report.json`` and coverage
data into this project's artifacts folder, runs the gate's checks on the merged run (the
static ones run here, once), writes the verdict, records the refinement round, and exits 1
when the verdict is insufficient. The merge job needs the project checked out at the shards'
commit: the static checks read the code, and coverage reads the source files.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from phasegate.cli import Subcommands
from phasegate.config import LoadedConfig, RefineConfig, find_project_root, load_config
from phasegate.extensions import make_plugin_manager
from phasegate.gates.coverage_run import COVERAGE_DATA, read_data_file
from phasegate.gates.definition import RECORD_ONLY
from phasegate.gates.protocol import SessionData
from phasegate.gates.runner import GateRunner
from phasegate.gates.runner_factory import make_runner
from phasegate.model.gate import GateVerdict
from phasegate.model.refine import RefinementState
from phasegate.model.run import RunReport
from phasegate.refine.state import loop_configured, record_round
from phasegate.report.terminal import counts_phrase, gate_lines, round_lines
from phasegate.shards.merge import Shard, merge_coverage, merge_reports, read_shards
from phasegate.store import REFINEMENT_FILE, RUN_REPORT_FILE, Store

__all__ = ["register"]


def register(subparsers: Subcommands) -> None:
    """Add the ``merge`` sub-command."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "merge",
        help="merge CI shards into one run and judge the gate once",
        description="Merge the artifacts folders of the shards of one suite (pytest "
        "--gate=NAME --shard=K/N), then evaluate the gate once on the merged run.",
    )
    parser.add_argument("shards", nargs="+", type=Path, metavar="SHARD_DIR")
    parser.add_argument(
        "--gate",
        metavar="NAME",
        help="the gate to judge (default: the one the shards name; 'record' judges none)",
    )
    parser.add_argument("--base", metavar="REF", help="git ref that new code is measured against")
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help="artifacts folder to write (default: .phasegate)"
    )
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    loaded = load_config(find_project_root(Path.cwd()))
    store = Store(args.out if args.out is not None else loaded.artifacts_path)
    store.ensure_writable()
    shards = read_shards(args.shards)
    merged = merge_reports(shards, rootdir=loaded.project_root)
    name = args.gate or shards[0].info.gate or loaded.config.gate
    print(f"phasegate: merged {len(shards)} shards: {counts_phrase(merged.counts.model_dump())}")
    for reason in merged.incomplete_reasons:
        print(f"  incomplete: {reason}")
    if name == RECORD_ONLY:
        store.write_model(RUN_REPORT_FILE, merged)
        print(f"report: {store.path(RUN_REPORT_FILE)}")
        return merged.exit_status
    return _judge(args, loaded, store, shards, merged, name)


def _judge(
    args: argparse.Namespace,
    loaded: LoadedConfig,
    store: Store,
    shards: list[Shard],
    merged: RunReport,
    name: str,
) -> int:
    """Run the gate ``name`` on the merged run, write the report and the verdict, print the
    verdict, record the refinement round; 1 when the verdict is insufficient."""
    extensions = make_plugin_manager(loaded.config.plugins)
    runner = make_runner(loaded, store, extensions, name, base=args.base, environment=os.environ)
    _refuse_newer_artifacts(store, runner.gate.name, refine=loaded.config.refine.enabled)
    runner.start()
    verdict = runner.finish(_merged_session(runner, shards, merged, store, loaded.project_root))
    store.write_model(RUN_REPORT_FILE, merged)
    verdict_path = store.write_model(Store.verdict_file(verdict.gate), verdict)
    for text, _markup in gate_lines(verdict, str(verdict_path), verbosity=0, width=100):
        print(text)
    if loaded.config.refine.enabled:
        _record_round(store, verdict, merged, loaded.config.refine, runner)
    return 1 if verdict.verdict == "insufficient" else 0


def _refuse_newer_artifacts(store: Store, gate: str, *, refine: bool) -> None:
    """Nothing is written unless everything it replaces may be (newer schemas are refused)."""
    store.vet(RUN_REPORT_FILE, RunReport)
    store.vet(Store.verdict_file(gate), GateVerdict)
    if refine:
        store.vet(REFINEMENT_FILE, RefinementState)


def _merged_session(
    runner: GateRunner, shards: list[Shard], merged: RunReport, store: Store, root: Path
) -> SessionData:
    """The merged run, with the shards' coverage combined when the gate needs it."""
    if not runner.needs_coverage:
        return SessionData(run=merged)
    data = merge_coverage(shards, store.path(COVERAGE_DATA), rootdir=root)
    try:
        coverage_json = read_data_file(root, data)
    except Exception as exc:  # noqa: BLE001 - reported as the coverage check's error
        problem = f"the merged coverage data cannot be reported: {exc}"
        return SessionData(run=merged, coverage_problem=problem)
    return SessionData(run=merged, coverage_json=coverage_json)


def _record_round(
    store: Store, verdict: GateVerdict, merged: RunReport, refine: RefineConfig, runner: GateRunner
) -> None:
    outcome = record_round(store, verdict, merged, refine, os.environ)
    if loop_configured(runner.project.pyproject):
        for text, _markup in round_lines(outcome.state, verbosity=0):
            print(text)
