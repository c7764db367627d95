"""``phasegate autodebug``: read the last auto-debug report, or restore after a crash.

* ``phasegate autodebug show`` prints each failure of ``.phasegate/autodebug.json``: its
  outcome, the explanation, the diff file or why it was escalated (``-v``: every attempt);
* ``phasegate autodebug restore`` puts back files an interrupted ``pytest --autodebug`` run
  left with a candidate in them (the next ``pytest --autodebug`` does this too).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from phasegate.autodebug.workspace import recover
from phasegate.cli import Subcommands
from phasegate.config import find_project_root, load_config
from phasegate.errors import UsageError
from phasegate.model.autodebug import AutodebugReport
from phasegate.report.autodebug import autodebug_lines
from phasegate.store import AUTODEBUG_JOURNAL_FILE, AUTODEBUG_REPORT_FILE, Store

__all__ = ["register"]


def register(subparsers: Subcommands) -> None:
    """Add the ``autodebug`` sub-command."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "autodebug",
        help="show the last auto-debug report, or restore files after a crash",
        description="Read what `pytest --autodebug` wrote, or undo what an interrupted run "
        "left behind.",
    )
    actions = parser.add_subparsers(title="actions", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="print the last auto-debug report")
    show.add_argument("-v", "--verbose", action="store_true", help="list every attempt")
    show.set_defaults(handler=_show)
    restore = actions.add_parser(
        "restore", help="put back files an interrupted auto-debug run left changed"
    )
    restore.set_defaults(handler=_restore)
    for action in (show, restore):
        action.add_argument(
            "--project",
            type=Path,
            default=Path("."),
            metavar="DIR",
            help="the project (default: the folder with pyproject.toml above the current one)",
        )


def _store(project: Path) -> Store:
    loaded = load_config(find_project_root(project))
    return Store(loaded.artifacts_path)


def _root(project: Path) -> Path:
    return load_config(find_project_root(project)).project_root


def _show(args: argparse.Namespace) -> int:
    store = _store(args.project)
    report = store.read_model(AUTODEBUG_REPORT_FILE, AutodebugReport)
    if report is None:
        raise UsageError(f"no auto-debug report in {store.root}; run `pytest --autodebug` first")
    for text, _markup in autodebug_lines(
        report, str(store.path(AUTODEBUG_REPORT_FILE)), [], [], verbosity=1 if args.verbose else 0
    ):
        print(text)
    return 0


def _restore(args: argparse.Namespace) -> int:
    store = _store(args.project)
    messages = recover(store.path(AUTODEBUG_JOURNAL_FILE), _root(args.project))
    for message in messages:
        print(message)
    if not messages:
        print("nothing to restore: no auto-debug run was interrupted")
    return 0
