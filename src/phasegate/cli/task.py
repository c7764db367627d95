"""``phasegate task``: the file-system handoff queue several workers share.

``add`` queues a task, ``claim`` hands the next one whose dependencies are done (CRITICAL
first, then by age) to exactly one worker (exit 1 when none is ready), ``review`` submits it,
``complete``/``reject`` are the supervisor's answers (``gate`` runs a gate and answers by its
verdict), ``fail`` gives it back after an error, ``ask`` asks the supervisor, ``heartbeat``
shows the worker is alive, ``inbox`` reads the messages, ``list`` and ``show`` read the queue.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from phasegate.cli import Subcommands
from phasegate.config import find_project_root, load_config
from phasegate.errors import UsageError
from phasegate.model.workflow import HandoffMessage, TaskHistory, TaskRecord, TaskStatus
from phasegate.workflow.engine import default_actor
from phasegate.workflow.gating import GateOutcome
from phasegate.workflow.handoff import Handoff
from phasegate.workflow.queue import HandoffQueue, parse_priority

__all__ = ["handoff_here", "queue_here", "register"]


def handoff_here() -> Handoff:
    """The handoff (queue and inboxes) of the project around the current folder."""
    return Handoff.for_project(load_config(find_project_root(Path.cwd())))


def queue_here() -> HandoffQueue:
    """The handoff queue of the project around the current folder."""
    return handoff_here().queue


def register(subparsers: Subcommands) -> None:
    """Add ``task`` and its commands."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "task", help="the handoff queue shared by workers", description="The handoff queue."
    )
    commands = parser.add_subparsers(title="task commands", metavar="COMMAND")

    add = commands.add_parser("add", help="queue a task")
    add.add_argument("title")
    add.add_argument("--priority", default="MEDIUM", help="CRITICAL, HIGH, MEDIUM (default), LOW")
    add.add_argument("--id", dest="task_id", help="the task id (default: generated)")
    add.add_argument("--parent", help="the request or workflow instance it belongs to")
    add.add_argument("--body", default="")
    add.add_argument(
        "--depends-on", action="append", default=[], metavar="TASK",
        help="a task that must be completed before this one is claimed (repeat)",
    )  # fmt: skip
    add.add_argument("--by")
    _json_flag(add)
    add.set_defaults(handler=_add)

    claim = commands.add_parser(
        "claim", help="claim the next task whose dependencies are done (exit 1: none ready)"
    )
    claim.add_argument("--worker", required=True)
    claim.add_argument("--task", dest="task_id", help="claim this task (refused if not ready)")
    _json_flag(claim)
    claim.set_defaults(handler=_claim)

    ask = commands.add_parser("ask", help="ask the supervisor about a task")
    ask.add_argument("task_id")
    ask.add_argument("question")
    ask.add_argument("--by")
    ask.set_defaults(handler=_ask)

    beat = commands.add_parser("heartbeat", help="the worker holding a running task is alive")
    beat.add_argument("task_id")
    beat.add_argument("--worker", required=True)
    beat.set_defaults(handler=_heartbeat)

    gate = commands.add_parser(
        "gate", help="run a gate for a task in review: completed if sufficient, else rejected"
    )
    gate.add_argument("task_id")
    gate.add_argument("--gate", default="twelve-check", help="the gate (default: twelve-check)")
    gate.add_argument("--by")
    _json_flag(gate)
    gate.set_defaults(handler=_gate)

    inbox = commands.add_parser("inbox", help="the messages of the worker's or supervisor's inbox")
    inbox.add_argument("box", choices=["worker", "supervisor"])
    inbox.add_argument("--take", metavar="MESSAGE", help="take this message out (to read/)")
    inbox.add_argument("--read", action="store_true", help="the messages taken out already")
    _json_flag(inbox)
    inbox.set_defaults(handler=_inbox)

    for name, helptext, handler in (
        ("review", "submit a running task for review", _submit),
        ("complete", "approve: move it to completed/", _complete),
    ):
        command = commands.add_parser(name, help=helptext)
        command.add_argument("task_id")
        command.add_argument("--by")
        command.add_argument("--note", default="")
        _json_flag(command)
        command.set_defaults(handler=handler)

    reject = commands.add_parser("reject", help="send it back with feedback (a retry spent)")
    reject.add_argument("task_id")
    reject.add_argument("--feedback", required=True)
    reject.add_argument("--by")
    _json_flag(reject)
    reject.set_defaults(handler=_reject)

    fail = commands.add_parser("fail", help="give a running task back after an error")
    fail.add_argument("task_id")
    fail.add_argument("--error", required=True)
    fail.add_argument("--by")
    _json_flag(fail)
    fail.set_defaults(handler=_fail)

    listing = commands.add_parser("list", help="every task, by folder, in pickup order")
    listing.add_argument("--status", choices=[s.value for s in TaskStatus])
    _json_flag(listing)
    listing.set_defaults(handler=_list)

    show = commands.add_parser("show", help="a task and its history")
    show.add_argument("task_id")
    _json_flag(show)
    show.set_defaults(handler=_show)


def _json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON for machines")


def _print(args: argparse.Namespace, task: TaskRecord, status: str) -> None:
    if args.json:
        print(json.dumps({"status": status, "task": task.model_dump(mode="json")}, indent=2))
    else:
        retries = f", retries {task.retries}" if task.retries else ""
        depends = f", after {', '.join(task.depends_on)}" if task.depends_on else ""
        print(f"{task.id}: {status} [{task.priority.value}] {task.title}{retries}{depends}")


def _add(args: argparse.Namespace) -> int:
    priority = parse_priority(args.priority)
    task = queue_here().add(
        args.title,
        priority=priority,
        task_id=args.task_id,
        parent=args.parent,
        body=args.body,
        by=args.by or default_actor(),
        depends_on=args.depends_on,
    )
    _print(args, task, "queue")
    return 0


def _claim(args: argparse.Namespace) -> int:
    handoff = handoff_here()
    task = handoff.claim(args.worker, args.task_id)
    if task is None:
        _print_nothing_claimed(handoff.queue.blocked(), as_json=args.json)
        return 1
    _print(args, task, "running")
    return 0


def _print_nothing_claimed(
    held: list[tuple[TaskRecord, list[tuple[str, TaskStatus | None]]]], *, as_json: bool
) -> None:
    """Why no task was claimed: none waits, or each waits for the tasks it depends on."""
    if as_json:
        blocked = {task.id: [d for d, _ in unmet] for task, unmet in held}
        print(json.dumps({"status": None, "task": None, "blocked": blocked}))
        return
    print("no task is ready" if held else "no task is waiting")
    for waiting, unmet in held:
        listed = ", ".join(f"{d} ({s.value if s else 'missing'})" for d, s in unmet)
        print(f"  {waiting.id} waits for {listed}")


def _ask(args: argparse.Namespace) -> int:
    handoff_here().ask(args.task_id, by=args.by or default_actor(), question=args.question)
    print(f"{args.task_id}: CLARIFICATION_REQUEST sent to the supervisor's inbox")
    return 0


def _heartbeat(args: argparse.Namespace) -> int:
    history = handoff_here().heartbeat(args.task_id, worker=args.worker)
    print(f"{args.task_id}: alive ({args.worker}, {history.heartbeat_at:%Y-%m-%d %H:%M:%S} UTC)")
    return 0


def _gate(args: argparse.Namespace) -> int:
    from phasegate.cli.phase import engine_here

    engine = engine_here()
    task, outcome = engine.handoff.gate(
        args.task_id,
        args.gate,
        lambda for_id: engine.run_gate(args.gate, for_id),
        by=args.by or default_actor(),
    )
    where = _where(engine.handoff.queue, task.id)
    if args.json:
        print(json.dumps({"status": where, "sufficient": outcome.sufficient,
                          "reasons": outcome.reasons, "task": task.model_dump(mode="json")},
                         indent=2))  # fmt: skip
    else:
        _print_gate_outcome(args, task, outcome, where)
    return 0 if outcome.sufficient else 1


def _print_gate_outcome(
    args: argparse.Namespace, task: TaskRecord, outcome: GateOutcome, where: str
) -> None:
    """The gate's verdict on the task, the reasons when insufficient, and the task."""
    verdict = "sufficient" if outcome.sufficient else "insufficient"
    print(f"{task.id}: gate {outcome.gate} is {verdict} ({outcome.verdict_path})")
    for reason in outcome.reasons:
        print(f"  - {reason}")
    _print(args, task, where)


def _inbox(args: argparse.Namespace) -> int:
    inbox = handoff_here().inbox
    if args.take:
        messages = [inbox.take(args.box, args.take)]
    else:
        messages = inbox.messages(args.box, read=args.read)
    if args.json:
        print(json.dumps([m.model_dump(mode="json") for m in messages], indent=2))
        return 0
    if not messages:
        print(f"the {args.box} inbox is empty")
    for message in messages:
        _print_message(message)
    return 0


def _print_message(message: HandoffMessage) -> None:
    to = f" to {message.to}" if message.to else ""
    print(f"{message.id}: {message.type} {message.task} from {message.sender}{to}")
    if message.body:
        print(f"  {message.body}")


def _submit(args: argparse.Namespace) -> int:
    task = handoff_here().submit(args.task_id, by=args.by or default_actor(), note=args.note)
    _print(args, task, "review")
    return 0


def _complete(args: argparse.Namespace) -> int:
    task = handoff_here().complete(args.task_id, by=args.by or default_actor(), note=args.note)
    _print(args, task, "completed")
    return 0


def _reject(args: argparse.Namespace) -> int:
    handoff = handoff_here()
    task = handoff.reject(args.task_id, by=args.by or default_actor(), feedback=args.feedback)
    _print(args, task, _where(handoff.queue, task.id))
    return 0


def _where(queue: HandoffQueue, task_id: str) -> str:
    try:
        found = queue.find(task_id, missing_ok=True)
    except UsageError:  # already being moved on by another worker (claimed again, say)
        return "moving"
    return found.status.value if found else "unknown"


def _fail(args: argparse.Namespace) -> int:
    queue = queue_here()
    task = queue.fail(args.task_id, by=args.by or default_actor(), error=args.error)
    _print(args, task, _where(queue, task.id))
    return 0


def _list(args: argparse.Namespace) -> int:
    status = TaskStatus(args.status) if args.status else None
    tasks = queue_here().tasks(status)
    if args.json:
        print(
            json.dumps(
                [{"status": s.value, "task": t.model_dump(mode="json")} for s, t in tasks],
                indent=2,
            )
        )
        return 0
    if not tasks:
        print("no tasks")
    for folder, task in tasks:
        owner = f" ({task.claimed_by})" if task.claimed_by else ""
        print(f"{folder.value:<10} {task.priority.value:<8} {task.id:<16} {task.title}{owner}")
    return 0


def _show(args: argparse.Namespace) -> int:
    task, status, history = queue_here().show(args.task_id)
    if args.json:
        print(
            json.dumps(
                {
                    "status": status.value,
                    "task": task.model_dump(mode="json"),
                    "history": history.model_dump(mode="json") if history else None,
                },
                indent=2,
            )
        )
        return 0
    _print(args, task, status.value)
    if task.feedback:
        print(f"  feedback: {task.feedback}")
    if history is not None:
        for line in _history_lines(history):
            print(line)
    return 0


def _history_lines(history: TaskHistory) -> list[str]:
    """A task's moves between folders, then its gate runs."""
    lines = []
    for move in history.transitions:
        origin = move.from_status.value if move.from_status else "-"
        moved = f"{origin} -> {move.to_status.value}"
        lines.append(f"  {move.at:%Y-%m-%d %H:%M:%S} {moved} {move.by}: {move.note}")
    for result in history.gate_results:
        verdict = "sufficient" if result.sufficient else "insufficient"
        lines.append(
            f"  gate {result.gate} run {result.attempt}: {verdict} ({result.verdict_path})"
        )
    return lines
