"""``phasegate task``: the file-system handoff queue several workers share.

``add`` queues a task, ``claim`` hands the next one (CRITICAL first, then by age) to exactly
one worker (exit 1 when none is waiting), ``review`` submits it, ``complete``/``reject`` are
the supervisor's answers, ``fail`` gives it back after an error, ``list`` and ``show`` read.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from phasegate.config import find_project_root, load_config
from phasegate.model.workflow import TaskRecord, TaskStatus
from phasegate.workflow.engine import default_actor
from phasegate.workflow.queue import HandoffQueue, parse_priority

__all__ = ["queue_here", "register"]


def queue_here() -> HandoffQueue:
    """The handoff queue of the project around the current folder."""
    loaded = load_config(find_project_root(Path.cwd()))
    settings = loaded.config.workflow
    root = (
        (loaded.project_root / settings.tasks_dir).resolve()
        if settings.tasks_dir
        else loaded.artifacts_path / "tasks"
    )
    return HandoffQueue(root, max_retries=settings.max_task_retries)


def register(subparsers: Any) -> None:
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
    add.add_argument("--by")
    _json_flag(add)
    add.set_defaults(handler=_add)

    claim = commands.add_parser("claim", help="claim the next task (exit 1: none waiting)")
    claim.add_argument("--worker", required=True)
    _json_flag(claim)
    claim.set_defaults(handler=_claim)

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
        print(f"{task.id}: {status} [{task.priority.value}] {task.title}{retries}")


def _add(args: argparse.Namespace) -> int:
    priority = parse_priority(args.priority)
    task = queue_here().add(
        args.title,
        priority=priority,
        task_id=args.task_id,
        parent=args.parent,
        body=args.body,
        by=args.by or default_actor(),
    )
    _print(args, task, "queue")
    return 0


def _claim(args: argparse.Namespace) -> int:
    task = queue_here().claim(args.worker)
    if task is None:
        if args.json:
            print(json.dumps({"status": None, "task": None}))
        else:
            print("no task is waiting")
        return 1
    _print(args, task, "running")
    return 0


def _submit(args: argparse.Namespace) -> int:
    task = queue_here().submit(args.task_id, by=args.by or default_actor(), note=args.note)
    _print(args, task, "review")
    return 0


def _complete(args: argparse.Namespace) -> int:
    task = queue_here().complete(args.task_id, by=args.by or default_actor(), note=args.note)
    _print(args, task, "completed")
    return 0


def _reject(args: argparse.Namespace) -> int:
    queue = queue_here()
    task = queue.reject(args.task_id, by=args.by or default_actor(), feedback=args.feedback)
    _print(args, task, _where(queue, task.id))
    return 0


def _where(queue: HandoffQueue, task_id: str) -> str:
    found = queue.find(task_id, missing_ok=True)
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
    for move in history.transitions if history else []:
        origin = move.from_status.value if move.from_status else "-"
        moved = f"{origin} -> {move.to_status.value}"
        print(f"  {move.at:%Y-%m-%d %H:%M:%S} {moved} {move.by}: {move.note}")
    return 0
