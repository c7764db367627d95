"""Values a file shows may be None, read by the lost-guard search (``patterns/none_sources``)."""

from __future__ import annotations

import ast

from phasegate.autodebug.patterns.none_sources import (
    attributes_set_from_none_defaults,
    calls_one_of,
    functions_returning_none,
)

CONTEXT = """
class Context:
    def __init__(self, parent=None, obj=None, *, zone=None, name="x", included=None, excluded=None):
        self.parent = parent
        self.name = name
        self.zone = zone
        self._included, self._excluded = included, excluded
        self.pair = (obj, name)
        other = obj

    def find(self, kind) -> "Context | None":
        return self.parent

    def lookup(self, key):
        if key in self.name:
            return self.zone
        return None

    def only_none(self):
        return None

    def nothing(self):
        return

    def optional(self) -> Optional[int]:
        return 1

    def plain(self) -> int | str:
        return 1
"""


def _class(text: str) -> ast.ClassDef:
    return next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.ClassDef))


def test_an_attribute_set_from_a_parameter_whose_default_is_none_may_be_none() -> None:
    assert attributes_set_from_none_defaults(_class(CONTEXT)) == {
        "self.parent",
        "self.zone",
        "self._included",
        "self._excluded",
    }


def test_a_function_that_returns_none_beside_a_value_or_says_so_may_return_none() -> None:
    # A function that returns only None (or nothing) is not a value that may be None: it is
    # always None, a case of its own.
    assert functions_returning_none(ast.parse(CONTEXT)) == {"find", "lookup", "optional"}


def test_a_call_of_one_of_the_names_is_read_as_plain_or_as_a_method() -> None:
    names = {"find"}
    assert calls_one_of(ast.parse("self.find(kind)", mode="eval").body, names)
    assert calls_one_of(ast.parse("find(kind)", mode="eval").body, names)
    assert not calls_one_of(ast.parse("found(kind)", mode="eval").body, names)
    assert not calls_one_of(ast.parse("find", mode="eval").body, names)
