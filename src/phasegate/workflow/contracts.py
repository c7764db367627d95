"""A phase's inputs and outputs: the context keys it needs and promises, with their types.

A definition declares them per phase (``inputs = { design = "object" }``); the instance's
context is what the phases so far produced (``phasegate phase output``) plus what it was started
with. Entering a phase whose inputs the context does not match blocks the instance (the seeds'
"invalid context: block, request human input"); leaving a phase whose outputs are missing or
of the wrong type waits. The types are JSON's; each value is validated by pydantic in strict
mode (so ``"3"`` is not an integer and ``true`` is not a number).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING

from pydantic import (
    JsonValue,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
)

from phasegate.model.workflow import InstanceState, WorkflowInstance
from phasegate.workflow.definition import FieldType

if TYPE_CHECKING:
    from typing_extensions import TypeForm

    from phasegate.workflow.machine import Emitted

__all__ = ["mismatches", "put_outputs"]

#: Each declared field type, as a type pydantic validates against (strictly): a type form
#: (PEP 747), which is what ``TypeAdapter`` takes.
_TYPES: dict[str, TypeForm[object]] = {
    "string": StrictStr,
    "integer": StrictInt,
    "number": StrictInt | StrictFloat,
    "boolean": StrictBool,
    "array": list[JsonValue],
    "object": dict[str, JsonValue],
    "any": JsonValue,
}


@cache
def _adapter(kind: str) -> TypeAdapter[object]:
    return TypeAdapter(_TYPES[kind])


def mismatches(context: Mapping[str, object], declared: Mapping[str, FieldType]) -> list[str]:
    """One sentence per declared key that the context lacks or holds with the wrong type."""
    problems: list[str] = []
    for key, kind in declared.items():
        if key not in context:
            problems.append(f"{key} is missing (declared: {kind})")
            continue
        value = context[key]
        if kind == "integer" and isinstance(value, bool):
            problems.append(f"{key} = {_show(value)} is not an integer")
            continue
        try:
            _adapter(kind).validate_python(value, strict=True)
        except ValidationError:
            problems.append(f"{key} = {_show(value)} is not {_article(kind)} {kind}")
    return problems


def _article(kind: str) -> str:
    return "an" if kind[0] in "aeiou" else "a"


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def put_outputs(
    inst: WorkflowInstance, now: datetime, by: str, values: Mapping[str, JsonValue]
) -> list[Emitted]:
    """Merge a phase's outputs into the context (RUNNING, or BLOCKED waiting for them)."""
    from phasegate.workflow.machine import Emitted, Machine, TransitionError  # machine uses us

    Machine.require(inst, "output", {InstanceState.RUNNING, InstanceState.BLOCKED})
    if not values:
        raise TransitionError(f"{inst.id}: give at least one KEY=VALUE")
    for key in values:
        if not key.strip():
            raise TransitionError(f"{inst.id}: an output needs a key (KEY=VALUE)")
    inst.context.update(values)
    inst.updated_at = now
    keys = sorted(values)
    Machine.record(inst, now, "output", by, inst.phase, reason=", ".join(keys))
    return [Emitted("context.updated", {"phase": inst.phase, "keys": keys})]
