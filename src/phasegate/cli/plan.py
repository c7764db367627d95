"""``phasegate plan``: the DPTR plan loop of an instance's phase, and the plan's tasks.

``say`` records one code of the dialogue: the spec agent's PC (plan created), PR (plan
revised) or DG (disagrees with the critique); the critic's NR (needs revision), PA (plan
accepted), EN (escalation needed) or DA (dialogue active). ``status`` shows the round, whose
turn it is and the dialogue; ``tasks`` queues the plan's tasks in the handoff queue by hand
(a phase with ``generates_tasks`` does it when it is left). The rules are in
:mod:`phasegate.workflow.plan_loop`.
"""

from __future__ import annotations

import argparse

from phasegate.cli import Subcommands
from phasegate.cli.loop_status import show_loops, show_move
from phasegate.model.loops import CRITIC_CODES, SPEC_CODES, PlanLoop
from phasegate.workflow.engine import default_actor

__all__ = ["register"]


def register(subparsers: Subcommands) -> None:
    """Add ``plan`` and its commands."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "plan",
        help="the plan loop (PC PR DG / NR PA EN DA) and the plan's tasks",
        description="The DPTR plan loop of an instance whose phase has one.",
    )
    commands = parser.add_subparsers(title="plan commands", metavar="COMMAND")

    say = commands.add_parser("say", help="one code of the spec agent or of the critic")
    say.add_argument("instance_id")
    say.add_argument("code", choices=(*SPEC_CODES, *CRITIC_CODES), metavar="CODE",
                     help="PC, PR, DG (spec agent); NR, PA, EN, DA (critic)")  # fmt: skip
    say.add_argument("--note", default="")
    say.add_argument("--by", help="who says it (default: your login name)")
    say.set_defaults(handler=_say)

    status = commands.add_parser("status", help="the round, whose turn, and the dialogue")
    status.add_argument("instance_id")
    status.add_argument("--json", action="store_true", help="print JSON for machines")
    status.set_defaults(handler=_status)

    tasks = commands.add_parser("tasks", help="queue the plan's tasks (EXEC_<instance>_<id>)")
    tasks.add_argument("instance_id")
    tasks.add_argument("--plan", help="the plan file (default: the workflow's generates_tasks)")
    tasks.add_argument("--by")
    tasks.set_defaults(handler=_tasks)


def _say(args: argparse.Namespace) -> int:
    from phasegate.cli.phase import engine_here
    from phasegate.workflow.loops import LoopCommands

    inst = LoopCommands(engine_here()).plan_say(
        args.instance_id, args.code, by=args.by or default_actor(), note=args.note
    )
    show_move(inst, inst.plan_loops, _print_loop)
    return 0


def _status(args: argparse.Namespace) -> int:
    from phasegate.cli.phase import engine_here

    inst = engine_here().load(args.instance_id)
    return show_loops(inst, inst.plan_loops, "plan", _print_loop, as_json=args.json)


def _tasks(args: argparse.Namespace) -> int:
    from phasegate.cli.phase import engine_here
    from phasegate.workflow.loops import LoopCommands

    generated = LoopCommands(engine_here()).plan_tasks(
        args.instance_id, by=args.by or default_actor(), plan=args.plan
    )
    for task in generated.added:
        print(f"{args.instance_id}: queued {task}")
    for task in generated.existing:
        print(f"{args.instance_id}: {task} exists already (kept)")
    return 0


def _print_loop(loop: PlanLoop, brief: bool) -> None:
    turn = {"spec": "the spec agent's turn", "critic": "the critic's turn", "done": "accepted"}
    print(f"{loop.session}: round {loop.round}, {turn[loop.turn]}")
    if loop.accepted is not None:
        print(f"  accepted: {loop.accepted.path} (sha256 {loop.accepted.sha256[:12]})")
    for entry in loop.turns[-1:] if brief else loop.turns:
        print(f"  {entry.line()}")
