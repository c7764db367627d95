"""The attribute a parameter's docstring says its None stands for, for a lost guard's body.

``:param name: Name to register the class under. Defaults to the class's ``name``
attribute.`` says the guard gave ``name = cls.name``: the attribute named in the
parameter's own entry (``the <owner>'s ``<attr>`` attribute``, ``the ``<attr>`` attribute
of <owner>``), read from the parameter the owner stands for: the parameter of that name,
``cls`` for "the class", ``self`` for "the instance" or
"the object". Only an entry that speaks of a default (``default``, ``otherwise``, ``if
not given``) is read. The entry is found as :mod:`.documented_defaults` finds it.
"""

from __future__ import annotations

import ast
import re

from phasegate.autodebug.patterns.documented_defaults import docstring_entry
from phasegate.autodebug.patterns.functions import parameter_names

__all__ = ["documented_attribute_bodies"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef
#: ``the class's ``name`` attribute`` or ``the ``name`` attribute of the class``.
_OWNED = re.compile(
    r"\b(\w+)'s\s+``(\w+)``\s+attribute|``(\w+)``\s+attribute\s+of\s+(?:the\s+|its\s+)?(\w+)"
)
_DEFAULTING = re.compile(r"default|otherwise|if\s+(?:not\s+given|omitted|none)", re.IGNORECASE)
#: The parameters a word of prose stands for, when none has its name.
_OWNER_WORDS = {"class": ("cls", "klass"), "instance": ("self",), "object": ("self",)}
_WHY = "the attribute its docstring says it defaults to"


def documented_attribute_bodies(function: _Function, subject: str) -> list[tuple[str, float, str]]:
    """``(<subject> = <owner>.<attr>, score, why)`` for the attributes the docstring's entry
    of the parameter ``subject`` says it defaults to."""
    entry = docstring_entry(function, subject)
    owned = _owned(entry) if _DEFAULTING.search(entry) else []
    found = [(_owner(function, word), attribute) for word, attribute in owned]
    return [(f"{subject} = {owner}.{attr}", 0.89, _WHY) for owner, attr in found if owner]


def _owned(entry: str) -> list[tuple[str, str]]:
    """``(owner word, attribute)`` of each attribute the entry names as something's."""
    return [(a or d, b or c) for a, b, c, d in _OWNED.findall(entry)]


def _owner(function: _Function, word: str) -> str:
    """The parameter ``word`` stands for ("" if none)."""
    names = parameter_names(function.args)
    candidates = [word, *_OWNER_WORDS.get(word.lower(), ())]
    return next((name for name in candidates if name in names), "")
