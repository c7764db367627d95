"""Settings people write by hand (``[tool.phasegate]``, gate files): strict models, clear errors.

Every table is a :class:`Section`, which forbids unknown keys and takes values as written, in
pydantic's strict mode: ``"4000"`` is not a number, ``"off"`` and ``1`` are not booleans, and a
number that is not finite (``inf``, ``nan``) is refused. :func:`describe_errors` turns a
pydantic ``ValidationError`` into one line per problem, naming the file, the dotted key, the
bad value and what is allowed, with a "did you mean" for a misspelt key.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Mapping, Sequence
from typing import TypeAlias

from pydantic import BaseModel, ConfigDict, ValidationError

if typing.TYPE_CHECKING:
    from pydantic_core import ErrorDetails

__all__ = ["Section", "describe_errors"]


class Section(BaseModel):
    """Base of every hand-written table: unknown keys, coerced types and non-finite numbers are
    errors."""

    model_config = ConfigDict(
        extra="forbid", validate_assignment=True, strict=True, allow_inf_nan=False
    )


def describe_errors(
    exc: ValidationError,
    *,
    model: type[BaseModel],
    where: str,
    table: str,
    flags: Mapping[str, str] | None = None,
) -> str:
    """One line per problem: ``where``, the key under ``table``, the value, what is allowed.

    ``flags`` maps top-level keys to the command-line flag that set them, so an error in a
    value that came from a flag names the flag.
    """
    return "\n".join(
        _describe_one(error, model, where, table, flags or {}) for error in _one_per_key(exc, model)
    )


def _one_per_key(exc: ValidationError, model: type[BaseModel]) -> list[ErrorDetails]:
    """pydantic's errors, one per key of ``model`` (located by field path).

    A value that matches no member of a union gets one error per member, located under the
    member's name: one error for the key, each member's message joined.
    """
    merged: dict[tuple[str, ...], ErrorDetails] = {}
    for error in exc.errors():
        loc = tuple(_field_path(model, [str(part) for part in error["loc"]]))
        if loc in merged and merged[loc]["type"] != "extra_forbidden":
            merged[loc]["msg"] += f", or {error['msg'][:1].lower()}{error['msg'][1:]}"
        else:
            merged[loc] = {**error, "loc": loc}
    return list(merged.values())


#: What an annotation holds (a class, ``X | None``, ``dict[str, X]``), read by ``typing``'s
#: ``get_origin`` and ``get_args``. ``object`` rather than PEP 747's ``TypeForm``: ``get_args``
#: hands back forms untyped, and here ``None`` means that no form was found.
_TypeForm: TypeAlias = object


def _field_path(model: type[BaseModel], loc: list[str]) -> list[str]:
    """``loc`` up to the key it names: the parts after a plain value name union members."""
    annotation: _TypeForm = model
    for index, part in enumerate(loc):
        inner = _step(annotation, part)
        if inner is None:
            # An unknown key is named as it is; after a plain value, the rest is not a key.
            return loc if _section_type(annotation) is not None else loc[:index]
        annotation = inner
    return loc


def _step(annotation: _TypeForm, part: str) -> _TypeForm:
    """The annotation of ``part`` inside ``annotation``: a section's field, or the value of a
    dict or list (``part`` a key or an index); None for a key the section lacks, or inside a
    plain value."""
    section = _section_type(annotation)
    if section is None:
        return _container_value(annotation)
    field = section.model_fields.get(part)
    return field.annotation if field is not None else None


def _describe_one(
    error: ErrorDetails, model: type[BaseModel], where: str, table: str, flags: Mapping[str, str]
) -> str:
    loc = [str(part) for part in error["loc"]]
    key = ".".join([table, *loc]) if table else ".".join(loc)
    flag = flags.get(loc[0]) if loc else None
    subject = f"{flag} (key {key})" if flag else f"key {key}"
    value = error.get("input")
    if error["type"] == "extra_forbidden":
        return f"{where}: unknown {subject} = {value!r}; {_allowed_keys(model, loc, table)}"
    meaning = _description(model, loc)
    detail = f" ({meaning})" if meaning else ""
    return f"{where}: {subject} = {value!r} is not allowed: {error['msg']}{detail}"


def _allowed_keys(model: type[BaseModel], loc: Sequence[str], table: str) -> str:
    """The keys the table holding the unknown key ``loc`` allows, and the closest to it."""
    parent = _model_at(model, loc[:-1])
    allowed = sorted(parent.model_fields) if parent else []
    hint = difflib.get_close_matches(loc[-1], allowed, n=1)
    guess = f"; did you mean {hint[0]!r}?" if hint else ""
    parent_key = ".".join([table, *loc[:-1]]) if table else ".".join(loc[:-1])
    return f"allowed keys in [{parent_key}]: {', '.join(allowed)}{guess}"


def _model_at(model: type[BaseModel], path: Sequence[str]) -> type[BaseModel] | None:
    """The section model at a location path of a validation error.

    Follows nested sections, and steps over the keys of dicts and the indexes of lists of
    sections (``checks.coverage.fail_when.0`` is a condition table).
    """
    annotation: _TypeForm = model
    for part in path:
        annotation = _step(annotation, part)
        if annotation is None:
            return None
    return _section_type(annotation)


def _container_value(annotation: _TypeForm) -> _TypeForm:
    """The value type of ``dict[K, V]`` or ``list[V]`` (unwrapping ``X | None``), else None."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is dict and len(args) == 2:
        return args[1]
    if origin is list and len(args) == 1:
        return args[0]
    if origin in (typing.Union, types.UnionType):
        for arg in args:
            if arg is not type(None):
                found = _container_value(arg) or _section_type(arg)
                if found is not None:
                    return found
    return None


def _section_type(annotation: _TypeForm) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):  # X | None
        for arg in typing.get_args(annotation):
            if isinstance(arg, type) and issubclass(arg, BaseModel):
                return arg
    return None


def _description(model: type[BaseModel], loc: Sequence[str]) -> str:
    parent = _model_at(model, loc[:-1]) if loc else None
    field = parent.model_fields.get(loc[-1]) if parent and loc else None
    return (field.description or "") if field else ""
