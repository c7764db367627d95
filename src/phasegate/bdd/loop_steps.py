"""Steps of the DPTR design and plan loops (loaded by :mod:`phasegate.bdd.steps`).

They drive :class:`~phasegate.workflow.loops.LoopCommands`, as ``phasegate design`` and
``phasegate plan`` do; a refused statement is kept for ``it was refused with an error
mentioning ...``.
"""

from __future__ import annotations

from pytest_bdd import parsers, step, then

from phasegate.bdd.world import WorkflowWorld, split_names
from phasegate.model.loops import DesignLoop, PlanLoop

__all__: list[str] = []


def _design(world: WorkflowWorld, instance: str) -> DesignLoop:
    inst = world.engine().load(instance)
    assert inst.design_loops, f"{instance} has no design loop"
    return inst.design_loops.get(inst.phase or "") or list(inst.design_loops.values())[-1]


def _plan(world: WorkflowWorld, instance: str) -> PlanLoop:
    inst = world.engine().load(instance)
    assert inst.plan_loops, f"{instance} has no plan loop"
    return inst.plan_loops.get(inst.phase or "") or list(inst.plan_loops.values())[-1]


# -- design --------------------------------------------------------------------------------


@step(parsers.parse('"{who}" submits the design of "{item}" of "{instance}" again'))
@step(parsers.parse('"{who}" submits the design of "{instance}"'))
def _submit(
    workflow_world: WorkflowWorld, who: str, instance: str, item: str | None = None
) -> None:
    workflow_world.attempt(
        lambda engine: workflow_world.loops().design_submit(instance, by=who, item=item)
    )


@step(parsers.parse('"{who}" gives the design of "{instance}" the verdict {decision:w}'))
def _verdict(workflow_world: WorkflowWorld, who: str, instance: str, decision: str) -> None:
    workflow_world.attempt(
        lambda engine: workflow_world.loops().design_verdict(instance, decision, by=who)  # type: ignore[arg-type]
    )


@then(parsers.parse('the design loop of "{instance}" has the modules {modules}'))
def _modules(workflow_world: WorkflowWorld, instance: str, modules: str) -> None:
    loop = _design(workflow_world, instance)
    assert [module.name for module in loop.modules] == split_names(modules)


@then(
    parsers.parse('the design of "{item}" in "{instance}" is {status:w} after {drafts:d} draft(s)')
)
def _item(
    workflow_world: WorkflowWorld, item: str, instance: str, status: str, drafts: int
) -> None:
    found = _design(workflow_world, instance).item(item)
    assert found is not None, f"no design item {item}"
    assert (found.status, found.rounds) == (status, drafts), found


@then(parsers.parse('the design loop of "{instance}" is done'))
def _design_done(workflow_world: WorkflowWorld, instance: str) -> None:
    loop = _design(workflow_world, instance)
    assert loop.done_at is not None, [(i.name, i.status) for i in loop.items()]


# -- plan ----------------------------------------------------------------------------------


@step(parsers.parse('"{who}" says {code:w} on the plan of "{instance}" because "{note}"'))
@step(parsers.parse('"{who}" says {code:w} on the plan of "{instance}"'))
def _say(workflow_world: WorkflowWorld, who: str, code: str, instance: str, note: str = "") -> None:
    workflow_world.attempt(
        lambda engine: workflow_world.loops().plan_say(instance, code, by=who, note=note)
    )


@then(parsers.parse('the plan loop of "{instance}" is in round {number:d}, {turn:w} to speak'))
def _round(workflow_world: WorkflowWorld, instance: str, number: int, turn: str) -> None:
    loop = _plan(workflow_world, instance)
    assert (loop.round, loop.turn) == (number, turn), (loop.round, loop.turn)


@then(parsers.parse('the plan of "{instance}" is accepted'))
def _accepted(workflow_world: WorkflowWorld, instance: str) -> None:
    loop = _plan(workflow_world, instance)
    assert loop.turn == "done"
    assert loop.accepted is not None
    assert loop.accepted.sha256 == loop.plan.sha256 if loop.plan else False


@then(parsers.parse('the dialogue of the plan of "{instance}" reads:'))
def _dialogue(workflow_world: WorkflowWorld, instance: str, docstring: str) -> None:
    loop = _plan(workflow_world, instance)
    expected = [line.strip() for line in docstring.splitlines() if line.strip()]
    assert [turn.line() for turn in loop.turns] == expected
