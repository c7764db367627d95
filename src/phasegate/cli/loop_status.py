"""What ``phasegate design`` and ``phasegate plan`` print of an instance's loops.

Both commands show their loops the same way: every phase's loop (or JSON of them all) for
``status``, the current phase's loop and the instance's state after a move. Only how one loop
is printed differs, and each command passes its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TypeVar

from phasegate.model.loops import DesignLoop, PlanLoop
from phasegate.model.workflow import WorkflowInstance

__all__ = ["show_loops", "show_move"]

Loop = TypeVar("Loop", DesignLoop, PlanLoop)

#: How a command prints one loop: the loop, and whether only its last turn is shown.
PrintLoop = Callable[[Loop, bool], None]


def show_loops(
    inst: WorkflowInstance,
    loops: Mapping[str, Loop],
    kind: str,
    print_loop: PrintLoop[Loop],
    *,
    as_json: bool,
) -> int:
    """Every phase's ``kind`` loop of ``inst`` with all its turns, or JSON of them."""
    if as_json:
        print(json.dumps({p: loop.model_dump(mode="json") for p, loop in loops.items()}, indent=2))
        return 0
    if not loops:
        print(f"{inst.id}: no {kind} loop yet")
    for loop in loops.values():
        print_loop(loop, False)
    return 0


def show_move(
    inst: WorkflowInstance, loops: Mapping[str, Loop], print_loop: PrintLoop[Loop]
) -> None:
    """The loop a move went to (its last turn), and the instance's state unless it runs on."""
    loop = loops.get(inst.phase or "") or next(iter(loops.values()))
    print_loop(loop, True)
    if inst.state.value != "RUNNING":
        print(f"{inst.id}: {inst.state.value}: {inst.blocked_reason or inst.failure_reason}")
