"""``phasegate design``: the DPTR design loop of an instance's phase.

``submit`` puts the current item's draft forward (the architecture first, then each module it
names under ``## Modules``), ``verdict`` is the critic's ACCEPT, REVISE or REJECT, and
``status`` shows the items, their rounds and the dialogue. The rules are in
:mod:`phasegate.workflow.design_loop`.
"""

from __future__ import annotations

import argparse

from phasegate.cli import Subcommands
from phasegate.cli.loop_status import show_loops, show_move
from phasegate.model.loops import DESIGN_VERDICTS, DesignLoop
from phasegate.workflow.engine import default_actor

__all__ = ["register"]


def register(subparsers: Subcommands) -> None:
    """Add ``design`` and its commands."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "design",
        help="the design loop: architecture, then each module, ACCEPT / REVISE / REJECT",
        description="The DPTR design loop of an instance whose phase has one.",
    )
    commands = parser.add_subparsers(title="design commands", metavar="COMMAND")

    submit = commands.add_parser("submit", help="the designer puts the current draft forward")
    submit.add_argument("instance_id")
    submit.add_argument("--item", help="audit an accepted item again (its document changed)")
    submit.add_argument("--file", help="the draft (default: the loop's documents pattern)")
    submit.add_argument("--note", default="")
    submit.add_argument("--by", help="the designer (default: your login name)")
    submit.set_defaults(handler=_submit)

    verdict = commands.add_parser("verdict", help="the critic's verdict on the draft")
    verdict.add_argument("instance_id")
    verdict.add_argument("decision", choices=DESIGN_VERDICTS, metavar="ACCEPT|REVISE|REJECT")
    verdict.add_argument("--note", default="")
    verdict.add_argument("--by", help="the critic (default: your login name)")
    verdict.set_defaults(handler=_verdict)

    status = commands.add_parser("status", help="the loop's items and dialogue")
    status.add_argument("instance_id")
    status.add_argument("--json", action="store_true", help="print JSON for machines")
    status.set_defaults(handler=_status)


def _submit(args: argparse.Namespace) -> int:
    from phasegate.cli.phase import engine_here
    from phasegate.workflow.loops import LoopCommands

    inst = LoopCommands(engine_here()).design_submit(
        args.instance_id, by=args.by or default_actor(), item=args.item, file=args.file,
        note=args.note,
    )  # fmt: skip
    _print_loop(inst.design_loops[inst.phase or ""], brief=True)
    return 0


def _verdict(args: argparse.Namespace) -> int:
    from phasegate.cli.phase import engine_here
    from phasegate.workflow.loops import LoopCommands

    inst = LoopCommands(engine_here()).design_verdict(
        args.instance_id, args.decision, by=args.by or default_actor(), note=args.note
    )
    show_move(inst, inst.design_loops, _print_loop)
    return 0


def _status(args: argparse.Namespace) -> int:
    from phasegate.cli.phase import engine_here

    inst = engine_here().load(args.instance_id)
    return show_loops(inst, inst.design_loops, "design", _print_loop, as_json=args.json)


def _print_loop(loop: DesignLoop, brief: bool) -> None:
    state = "done" if loop.done_at else "open"
    print(f"{loop.session}: design loop {state}")
    for item in loop.items():
        extra = f", {item.revisions} revise, {item.rejections} reject" if item.rounds else ""
        print(f"  {item.name}: {item.status} (drafts {item.rounds}{extra})")
    turns = loop.turns[-1:] if brief else loop.turns
    for turn in turns:
        print(f"  {turn.item}: {turn.line()}")
