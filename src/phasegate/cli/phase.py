"""``phasegate phase``: move a piece of work through a workflow's phases.

``start`` creates an instance, ``status`` shows where it stands, who holds which role and what
the next gate needs, ``advance`` runs the exit gate and moves on or halts with the diagnosis
(exit 1), ``rewind``/``escalate``/``resume``/``fail`` are the coordinator's actions,
``queue`` queues a memory update, ``output`` adds to the context, ``spawn`` gives complex
subtasks child instances, ``heartbeat`` shows the owner is alive, ``sweep`` retries or fails
crashed instances, ``list`` shows every instance (stale ones marked) and ``workflows`` the
definitions known. ``--json`` prints what a machine reads.
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import datetime, timezone
from pathlib import Path

from pydantic import JsonValue

from phasegate.cli import Subcommands
from phasegate.cli.phase_views import (
    role_lines,
    spawn_json,
    spawn_lines,
    status_json,
    status_lines,
    sweep_json,
    sweep_lines,
)
from phasegate.config import find_project_root, load_config
from phasegate.errors import UsageError
from phasegate.model.workflow import WorkflowInstance
from phasegate.workflow.children import SubtaskRequest, parse_subtask
from phasegate.workflow.definition import WorkflowDefinition, find_workflows, load_workflow
from phasegate.workflow.engine import AdvanceResult, WorkflowEngine, default_actor
from phasegate.workflow.instances import ListedInstance
from phasegate.workflow.machine import RetryLater

__all__ = ["engine_here", "register"]


def engine_here() -> WorkflowEngine:
    """The workflow engine of the project around the current folder."""
    return WorkflowEngine(load_config(find_project_root(Path.cwd())))


def register(subparsers: Subcommands) -> None:
    """Add ``phase`` and its commands."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "phase",
        help="move work through workflow phases held by gates",
        description="Workflow instances: start, status, advance, rewind, escalate, list.",
    )
    commands = parser.add_subparsers(title="phase commands", metavar="COMMAND")

    start = commands.add_parser("start", help="start an instance of a workflow")
    start.add_argument("workflow", help="edrr, sdlc, golden-path, or one of the project's own")
    start.add_argument("--id", dest="instance_id", help="the instance id (default: generated)")
    start.add_argument("--title", default="", help="what the work is")
    start.add_argument(
        "--member", action="append", default=[], help="a team member (repeat; default: config)"
    )
    start.add_argument("--by", help="who starts it (default: your login name)")
    start.add_argument(
        "--create-only", action="store_true", help="leave it CREATED; `advance` starts it"
    )
    start.add_argument(
        "--context", action="append", default=[], metavar="KEY=VALUE",
        help="the context it starts with (repeat; VALUE may be JSON)",
    )  # fmt: skip
    _json_flag(start)
    start.set_defaults(handler=_start)

    status = commands.add_parser("status", help="where an instance stands and what it needs")
    status.add_argument("instance_id")
    _json_flag(status)
    status.set_defaults(handler=_status)

    advance = commands.add_parser(
        "advance", help="run the exit gate; move on, or halt with the diagnosis (exit 1)"
    )
    advance.add_argument("instance_id")
    advance.add_argument("--by", help="who advances it (default: your login name)")
    advance.add_argument(
        "--wait", action="store_true", help="sleep until the retry backoff allows an attempt"
    )
    _json_flag(advance)
    advance.set_defaults(handler=_advance)

    rewind = commands.add_parser("rewind", help="go back to an earlier phase, with who and why")
    rewind.add_argument("instance_id")
    rewind.add_argument("--to", required=True, metavar="PHASE", help="an earlier phase")
    rewind.add_argument("--reason", required=True, help="why")
    rewind.add_argument("--by", help="who rewinds it (default: your login name)")
    _json_flag(rewind)
    rewind.set_defaults(handler=_rewind)

    escalate = commands.add_parser("escalate", help="mark it BLOCKED for a person, with why")
    escalate.add_argument("instance_id")
    escalate.add_argument("--reason", required=True)
    escalate.add_argument("--by")
    _json_flag(escalate)
    escalate.set_defaults(handler=_escalate)

    resume = commands.add_parser("resume", help="BLOCKED -> RUNNING, with a fresh retry budget")
    resume.add_argument("instance_id")
    resume.add_argument("--note", default="")
    resume.add_argument("--by")
    _json_flag(resume)
    resume.set_defaults(handler=_resume)

    fail = commands.add_parser("fail", help="mark it FAILED, with why")
    fail.add_argument("instance_id")
    fail.add_argument("--reason", required=True)
    fail.add_argument("--by")
    _json_flag(fail)
    fail.set_defaults(handler=_fail)

    queue = commands.add_parser("queue", help="queue a memory update, flushed when the phase ends")
    queue.add_argument("instance_id")
    queue.add_argument("updates", nargs="+", metavar="KEY=VALUE", help="VALUE may be JSON")
    queue.add_argument("--by")
    queue.set_defaults(handler=_queue)

    output = commands.add_parser("output", help="add the phase's outputs to the context")
    output.add_argument("instance_id")
    output.add_argument("values", nargs="+", metavar="KEY=VALUE", help="VALUE may be JSON")
    output.add_argument("--by")
    _json_flag(output)
    output.set_defaults(handler=_output)

    spawn = commands.add_parser(
        "spawn",
        help="as the primus: subtasks whose measured complexity is above the threshold get "
        "child instances",
    )
    spawn.add_argument("instance_id")
    spawn.add_argument(
        "subtasks", nargs="*", metavar="NAME=FILE[,FILE...]", help="a subtask and its files"
    )
    spawn.add_argument(
        "--plan", metavar="PATH", help="take the subtasks from a plan's tasks and their files"
    )
    spawn.add_argument("--by")
    _json_flag(spawn)
    spawn.set_defaults(handler=_spawn)

    beat = commands.add_parser("heartbeat", help="the owner is alive (and owns it from now)")
    beat.add_argument("instance_id")
    beat.add_argument("--by")
    beat.set_defaults(handler=_heartbeat)

    sweep = commands.add_parser(
        "sweep",
        help="retry (then fail) RUNNING instances idle past the crash timeout; give back "
        "running tasks whose worker is gone",
    )
    sweep.add_argument("--by", default="sweep")
    _json_flag(sweep)
    sweep.set_defaults(handler=_sweep)

    listing = commands.add_parser("list", help="every instance; stale ones are marked")
    listing.add_argument("--stale", action="store_true", help="only the stale ones")
    _json_flag(listing)
    listing.set_defaults(handler=_list)

    workflows = commands.add_parser("workflows", help="the workflow definitions known")
    workflows.set_defaults(handler=_workflows)


def _json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON for machines")


def _dump(data: object) -> None:
    print(json.dumps(data, indent=2, default=str))


# -- handlers ------------------------------------------------------------------------------


def _start(args: argparse.Namespace) -> int:
    engine = engine_here()
    inst = engine.start(
        args.workflow,
        instance_id=args.instance_id,
        title=args.title,
        members=args.member,
        by=args.by,
        create_only=args.create_only,
        context=_pairs(args.context),
    )
    if args.json:
        _dump(inst.model_dump(mode="json"))
        return 0
    where = f"in {inst.phase}" if inst.phase else "(not started)"
    print(f"{inst.id}: {inst.workflow} instance {inst.state.value} {where}")
    _print_roles(inst.roles)
    print(f"next: phasegate phase status {inst.id}")
    return 0


def _status(args: argparse.Namespace) -> int:
    status = engine_here().status(args.instance_id)
    if args.json:
        _dump(status_json(status))
    else:
        for line in status_lines(status):
            print(line)
    return 0


def _advance(args: argparse.Namespace) -> int:
    result = _advanced(engine_here(), args.instance_id, by=args.by, wait=args.wait)
    if args.json:
        _dump(_advance_json(result))
        return 0 if result.moved else 1
    for line in _advance_lines(result):
        print(line)
    return 0 if result.moved else 1


def _advanced(engine: WorkflowEngine, instance_id: str, *, by: str, wait: bool) -> AdvanceResult:
    """Advance the instance; with ``wait``, sleep through the retry backoff first."""
    while True:
        try:
            return engine.advance(instance_id, by=by)
        except RetryLater as exc:
            if not wait:
                raise
            delay = (exc.not_before - datetime.now(timezone.utc)).total_seconds()
            print(f"phasegate: waiting {max(delay, 0):.1f}s for the retry backoff")
            time.sleep(max(delay, 0) + 0.05)


def _advance_lines(result: AdvanceResult) -> list[str]:
    inst = result.instance
    lines: list[str] = []
    if result.gate is not None:
        verdict = "sufficient" if result.gate.sufficient else "insufficient"
        lines.append(
            f"{inst.id}: exit gate {result.gate.gate} is {verdict} ({result.gate.verdict_path})"
        )
    if result.moved:
        if inst.state.value == "COMPLETE":
            return [*lines, f"{inst.id}: {result.from_phase} done; the instance is COMPLETE"]
        moved = f"{inst.id}: {result.from_phase} -> {inst.phase}"
        return [*lines, moved, *role_lines(inst.roles, "  ")]
    return lines + _halted_lines(result)


def _halted_lines(result: AdvanceResult) -> list[str]:
    """Why an instance did not move, and when it may be tried again."""
    inst = result.instance
    halted = {
        "FAILED": f"{inst.id}: FAILED: {inst.failure_reason}",
        "BLOCKED": f"{inst.id}: BLOCKED: {inst.blocked_reason}",
    }
    lines = [halted.get(inst.state.value, f"{inst.id}: halted in {inst.phase}:")]
    lines.extend(f"  - {line}" for line in result.diagnosis)
    if inst.retry_not_before is not None:
        lines.append(
            f"retry allowed from {inst.retry_not_before:%H:%M:%S} UTC "
            f"(attempt {inst.attempts + 1}); `phase advance --wait` waits for it"
        )
    return lines


def _advance_json(result: AdvanceResult) -> dict[str, object]:
    gate = result.gate
    return {
        "moved": result.moved,
        "from_phase": result.from_phase,
        "phase": result.instance.phase,
        "state": result.instance.state.value,
        "roles": result.instance.roles,
        "gate": None
        if gate is None
        else {
            "name": gate.gate,
            "sufficient": gate.sufficient,
            "reasons": gate.reasons,
            "verdict_path": gate.verdict_path,
        },
        "diagnosis": result.diagnosis,
        "retry_not_before": result.instance.retry_not_before,
        "events": [event.name for event in result.events],
    }


def _rewind(args: argparse.Namespace) -> int:
    inst = engine_here().rewind(
        args.instance_id, to=args.to, by=args.by or default_actor(), reason=args.reason
    )
    return _done(args, inst, f"rewound to {inst.phase} (rewind {inst.rewinds})")


def _escalate(args: argparse.Namespace) -> int:
    inst = engine_here().escalate(
        args.instance_id, by=args.by or default_actor(), reason=args.reason
    )
    return _done(args, inst, f"{inst.state.value}: {inst.blocked_reason or inst.failure_reason}")


def _resume(args: argparse.Namespace) -> int:
    inst = engine_here().resume(args.instance_id, by=args.by or default_actor(), note=args.note)
    return _done(args, inst, f"{inst.state.value} in {inst.phase}")


def _fail(args: argparse.Namespace) -> int:
    inst = engine_here().fail(args.instance_id, by=args.by or default_actor(), reason=args.reason)
    return _done(args, inst, f"FAILED: {inst.failure_reason}")


def _done(args: argparse.Namespace, inst: WorkflowInstance, message: str) -> int:
    if getattr(args, "json", False):
        _dump(inst.model_dump(mode="json"))
    else:
        print(f"{inst.id}: {message}")
    return 0


def _pairs(texts: list[str]) -> dict[str, JsonValue]:
    """``KEY=VALUE`` pairs; VALUE is read as JSON when it is JSON, else kept as text."""
    values: dict[str, JsonValue] = {}
    for text in texts:
        key, sep, raw = text.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{text!r} is not KEY=VALUE")
        try:
            values[key.strip()] = json.loads(raw)
        except ValueError:
            values[key.strip()] = raw
    return values


def _queue(args: argparse.Namespace) -> int:
    engine = engine_here()
    by = args.by or default_actor()
    for key, value in _pairs(args.updates).items():
        inst = engine.queue_update(args.instance_id, key=key, value=value, by=by)
        print(f"{inst.id}: queued {key} in {inst.phase} ({len(inst.memory_queue)} queued)")
    return 0


def _output(args: argparse.Namespace) -> int:
    values = _pairs(args.values)
    inst = engine_here().put_outputs(args.instance_id, values, by=args.by or default_actor())
    return _done(args, inst, f"context has {', '.join(sorted(values))} (in {inst.phase})")


def _spawn(args: argparse.Namespace) -> int:
    engine = engine_here()
    spawned = engine.spawn(args.instance_id, _requests(args, engine), by=args.by or default_actor())
    if args.json:
        _dump(spawn_json(spawned))
        return 0
    links = engine.load(args.instance_id).children
    for line in spawn_lines(args.instance_id, spawned, links, engine.settings):
        print(line)
    return 0


def _requests(args: argparse.Namespace, engine: WorkflowEngine) -> list[SubtaskRequest]:
    """The subtasks named on the command line, and those of ``--plan``."""
    from phasegate.workflow.phase_facts import project_file
    from phasegate.workflow.plan_tasks import read_plan
    from phasegate.workflow.spawning import plan_requests

    requests = [parse_subtask(text) for text in args.subtasks]
    if args.plan:
        path = project_file(engine.loaded.project_root, args.plan, "the plan")
        requests += plan_requests(read_plan(path, args.plan))
    if not requests:
        raise UsageError("name the subtasks (NAME=FILE[,FILE...]) or a plan (--plan PATH)")
    return requests


def _heartbeat(args: argparse.Namespace) -> int:
    inst = engine_here().heartbeat(args.instance_id, by=args.by or default_actor())
    print(f"{inst.id}: alive, owned by {inst.owner}")
    return 0


def _sweep(args: argparse.Namespace) -> int:
    engine = engine_here()
    swept = engine.sweep(by=args.by)
    if args.json:
        _dump(sweep_json(swept))
        return 0
    for line in sweep_lines(swept, engine.settings):
        print(line)
    return 0


def _list(args: argparse.Namespace) -> int:
    listed = engine_here().list_instances()
    rows = [(item, stale) for item, stale in listed if stale or not args.stale]
    if args.json:
        _dump([_listed_json(item, stale) for item, stale in rows])
        return 0
    if not rows:
        print("no workflow instances" + (" are stale" if args.stale else ""))
    for item, stale in rows:
        print(_listed_line(item, stale))
    return 0


def _listed_json(item: ListedInstance, stale: bool) -> dict[str, object]:
    inst = item.instance
    described: dict[str, object] = (
        {
            "workflow": inst.workflow,
            "state": inst.state.value,
            "phase": inst.phase,
            "updated_at": inst.updated_at,
        }
        if inst
        else dict.fromkeys(("workflow", "state", "phase", "updated_at"))
    )
    return {"id": item.path.stem, "error": item.error or None, **described, "stale": stale}


def _listed_line(item: ListedInstance, stale: bool) -> str:
    inst = item.instance
    if inst is None:
        return f"{item.path.stem:<24} UNREADABLE  {item.error}"
    mark = "  STALE" if stale else ""
    return (
        f"{inst.id:<24} {inst.workflow:<12} {inst.state.value:<9} {inst.phase or '-':<14} "
        f"{inst.updated_at:%Y-%m-%d %H:%M}{mark}"
    )


def _workflows(args: argparse.Namespace) -> int:
    loaded = load_config(find_project_root(Path.cwd()))
    paths = loaded.config.workflow.paths
    for name, source in sorted(find_workflows(loaded.project_root, paths).items()):
        definition, _ = load_workflow(name, loaded.project_root, paths)
        print(f"{name:<14} {source.origin:<9} {source.path}")
        print(f"{'':<14} {' -> '.join(_step(definition, phase) for phase in definition.phases)}")
    return 0


def _step(definition: WorkflowDefinition, phase: str) -> str:
    """A phase, with its exit gate and whether it needs a review."""
    spec = definition.spec(phase)
    extras = [f"gate {spec.exit_gate}"] if spec.exit_gate else []
    if spec.review:
        extras.append("review")
    return phase + (f" ({', '.join(extras)})" if extras else "")


def _print_roles(roles: dict[str, list[str]], indent: str = "  ") -> None:
    for line in role_lines(roles, indent):
        print(line)
