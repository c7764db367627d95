"""``phasegate tdd``: the cycle ledger outside pytest (status, rollback, reviews, the session log).

The same engine as ``pytest --tdd`` (:class:`phasegate.tdd.cycles.TddProject`). Exit codes:
0 done, 1 a rollback refused (nothing was changed) or a ledger that does not verify, 3 a
ledger that could not be verified, 4 a usage error (a bad name or value).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
from pathlib import Path

from phasegate.cli import Subcommands
from phasegate.config import find_project_root, load_config
from phasegate.errors import UsageError
from phasegate.model.tdd import Observation, ReviewStatus, RollbackEntry
from phasegate.report.tdd import state_lines
from phasegate.report.terminal import Line
from phasegate.resources import bundled_path
from phasegate.store import Store
from phasegate.tdd.cycles import TddProject, check_cycle_name
from phasegate.tdd.rollback import RollbackPlan, RollbackRefused
from phasegate.tdd.session_log import NOTE_STATUSES

__all__ = ["register"]


def register(subparsers: Subcommands) -> None:
    """Add the ``tdd`` command and its sub-commands."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "tdd",
        help="the TDD cycle ledger: status, rollback, reviews, the session log",
        description="Show and drive the red/green/refactor cycles that pytest --tdd records "
        "(see docs/tdd.md).",
    )
    commands = parser.add_subparsers(title="sub-commands", metavar="SUBCOMMAND")
    parser.set_defaults(handler=lambda _args: _help(parser))
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--project",
        type=Path,
        metavar="DIR",
        help="the project (default: the nearest folder with a pyproject.toml)",
    )
    common.add_argument(
        "--phasegate-dir",
        metavar="DIR",
        help="the artifacts folder (overrides artifacts_dir; default .phasegate)",
    )

    status = commands.add_parser(
        "status", parents=[common], help="the open cycles, the last green state, the last run"
    )
    status.add_argument("--json", action="store_true", help="print the state as JSON")
    status.add_argument(
        "--rebuild", action="store_true", help="derive the state from the ledger again"
    )
    status.set_defaults(handler=_status)

    rollback = commands.add_parser(
        "rollback",
        parents=[common],
        help="restore the last green state after a refactor regression",
        description="Write back, byte for byte, every file a failed refactor changed since "
        "the last green state. Refuses (exit 1) if a file changed after the failed run.",
    )
    rollback.add_argument("--dry-run", action="store_true", help="say what would be restored")
    rollback.set_defaults(handler=_rollback)

    review = commands.add_parser(
        "review", parents=[common], help="record a cross-review of a green cycle"
    )
    review.add_argument("cycle", metavar="CYCLE")
    outcome = review.add_mutually_exclusive_group(required=True)
    outcome.add_argument("--approved", action="store_true", help="the cycle is done")
    outcome.add_argument(
        "--changes-requested", action="store_true", help="the cycle needs another round"
    )
    review.add_argument("--reviewer", required=True, metavar="NAME")
    review.add_argument("--note", default="", metavar="TEXT")
    review.set_defaults(handler=_review)

    accept = commands.add_parser(
        "accept",
        parents=[common],
        help="accept tests without a red (renamed or characterization tests), with a reason",
    )
    accept.add_argument("tests", nargs="+", metavar="NODEID")
    accept.add_argument("--reason", required=True, metavar="TEXT")
    accept.add_argument("--by", required=True, metavar="NAME")
    accept.set_defaults(handler=_accept)

    log = commands.add_parser("log", parents=[common], help="show the session log")
    log.add_argument("cycle", nargs="?", metavar="CYCLE", help="only this cycle's session")
    log.add_argument("--json", action="store_true", help="print JSON lines")
    log.set_defaults(handler=_log)

    note = commands.add_parser(
        "note", parents=[common], help="add an observation to a cycle's session log"
    )
    note.add_argument("cycle", metavar="CYCLE", help="the cycle ('-' for none)")
    note.add_argument("content", metavar="TEXT")
    note.add_argument("--actor", required=True, metavar="NAME")
    note.add_argument(
        "--status", required=True, metavar="STATUS", help=f"one of {', '.join(NOTE_STATUSES)}"
    )
    note.add_argument("--round", type=int, metavar="N", help="default: the cycle's round")
    note.set_defaults(handler=_note)

    verify = commands.add_parser(
        "verify",
        parents=[common],
        help="check the ledger's hash chain and run every red again in its recorded tree",
        description="Exit 0: the chain holds and every red fails again as recorded; 1: a "
        "problem was found (each is printed); 3: the ledger could not be verified (a tree "
        "missing from the repository, a replay that hangs or leaves no report).",
    )
    verify.add_argument("--json", action="store_true", help="print the findings as JSON")
    verify.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long one replay may take (default 300)",
    )
    verify.set_defaults(handler=_verify)

    kata = commands.add_parser(
        "kata", help="copy the TDD kata (the walk-through's project) into a new folder"
    )
    kata.add_argument("--into", required=True, type=Path, metavar="DIR")
    kata.set_defaults(handler=_kata)


def _project(args: argparse.Namespace) -> TddProject:
    start = args.project if args.project is not None else Path.cwd()
    if not start.is_dir():
        raise UsageError(f"--project {start} is not a folder")
    loaded = load_config(find_project_root(start))
    if args.phasegate_dir is not None:
        loaded = loaded.with_overrides({"artifacts_dir": ("--phasegate-dir", args.phasegate_dir)})
    return TddProject(loaded.project_root, loaded.config.tdd, Store(loaded.artifacts_path))


def _status(args: argparse.Namespace) -> int:
    project = _project(args)
    state = project.state(rebuild=args.rebuild)
    if args.json:
        print(state.model_dump_json(indent=2))
        return 0
    _print(state_lines(state, ledger_path=_shown(project.ledger.path)))
    return 0


def _rollback(args: argparse.Namespace) -> int:
    project = _project(args)
    try:
        if args.dry_run:
            _print_lines(_rollback_plan_lines(project.plan_rollback()))
            return 0
        entry, _state = project.rollback()
    except RollbackRefused as exc:
        for reason in exc.reasons:
            print(f"phasegate: rollback refused: {reason}")
        print("phasegate: nothing was changed")
        return 1
    _print_lines(_rolled_back_lines(entry, _shown(project.store.path("tdd/objects"))))
    print("next: pytest --tdd=refactor, to prove the restored state green again")
    return 0


def _rolled_back_lines(entry: RollbackEntry, objects: str) -> list[str]:
    """What ``tdd rollback`` restored and removed, and where the replaced content is kept."""
    lines = [f"phasegate tdd rollback: restored the state of run {entry.green_run}"]
    lines.extend(f"  restored {path}" for path in entry.restored)
    lines.extend(f"  removed  {path} (it did not exist at green)" for path in entry.removed)
    if entry.backup:
        lines.append(
            f"  the replaced content of {len(entry.backup)} file(s) is kept in {objects} "
            "(hashes in the ledger entry)"
        )
    return lines


def _rollback_plan_lines(plan: RollbackPlan) -> list[str]:
    """What ``tdd rollback --dry-run`` would restore and remove."""
    lines = [f"phasegate tdd rollback would restore the state of run {plan.green_run}:"]
    lines.extend(f"  restore {path}" for path in plan.restore)
    lines.extend(f"  remove  {path}" for path in plan.remove)
    if not plan.restore and not plan.remove:
        lines.append("  nothing: no file differs from the last green state")
    return lines


def _print_lines(lines: list[str]) -> None:
    for line in lines:
        print(line)


def _review(args: argparse.Namespace) -> int:
    project = _project(args)
    cycle = check_cycle_name(args.cycle, flag="CYCLE")
    status: ReviewStatus = "approved" if args.approved else "changes_requested"
    entry, state = project.review(cycle, status, args.reviewer, args.note)
    after = state.cycles[cycle]
    what = "closed" if after.status == "closed" else f"{after.status}, round {after.round}"
    print(f"phasegate tdd review: cycle {cycle} {status} by {entry.reviewer}; the cycle is {what}")
    return 0


def _accept(args: argparse.Namespace) -> int:
    project = _project(args)
    entry, _state = project.accept(args.tests, args.reason, args.by)
    for nodeid in entry.tests:
        print(f"phasegate tdd accept: {nodeid} ({entry.reason}; by {entry.by})")
    return 0


def _log(args: argparse.Namespace) -> int:
    project = _project(args)
    observations = project.session_log(args.cycle)
    for observation in observations:
        if args.json:
            print(observation.model_dump_json(exclude_none=True))
        else:
            print(_observation_line(observation))
    if not observations and not args.json:
        which = f" for {args.cycle}" if args.cycle else ""
        print(f"phasegate tdd log: no observations{which} yet")
    return 0


_CONFIRMED = {True: " (confirmed)", False: " (NOT in the ledger)", None: ""}


def _observation_line(observation: Observation) -> str:
    """An observation of the session log, and whether the ledger confirms it."""
    return (
        f"{observation.time:%Y-%m-%d %H:%M:%S} {observation.session} R{observation.round} "
        f"{observation.actor} {observation.status}{_CONFIRMED[observation.confirmed]}: "
        f"{observation.content}"
    )


def _note(args: argparse.Namespace) -> int:
    project = _project(args)
    observation = project.note(args.cycle, args.actor, args.status, args.content, args.round)
    if observation.confirmed is False:
        print(
            f"phasegate tdd note: recorded, but the ledger has no {observation.status} for "
            f"{observation.session}: the claim is marked unconfirmed"
        )
    else:
        print(f"phasegate tdd note: recorded for {observation.session} R{observation.round}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    from phasegate.tdd.verify import VerifyError, verify_ledger

    if args.timeout <= 0:
        raise UsageError(f"--timeout must be above 0 seconds, not {args.timeout}")
    project = _project(args)
    try:
        report = verify_ledger(project.root, project.store, project.config, timeout_s=args.timeout)
    except VerifyError as exc:
        print(f"phasegate tdd verify: could not verify: {exc}", file=sys.stderr)
        return 3
    if args.json:
        print(json.dumps(dataclasses.asdict(report), indent=2))
    else:
        print(
            f"phasegate tdd verify: {report.entries} entries ({report.unchained} written before "
            f"the chain), {report.replayed} red run(s) replayed, "
            f"{len(report.problems)} problem(s)"
        )
        for problem in report.problems:
            print(f"  line {problem.line}: [{problem.rule}] {problem.message}")
    return 1 if report.problems else 0


def _kata(args: argparse.Namespace) -> int:
    target: Path = args.into
    if target.exists():
        raise UsageError(f"--into {target} already exists; name a folder that does not")
    shutil.copytree(
        bundled_path("kata"),
        target,
        ignore=shutil.ignore_patterns("__pycache__", ".phasegate", ".pytest_cache"),
    )
    print(f"phasegate tdd kata: copied to {target}; next: cd {target} && pytest --tdd=green")
    return 0


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 4


def _print(lines: list[Line]) -> None:
    for text, _markup in lines:
        print(text)


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
