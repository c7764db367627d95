"""Bodies of a lost ``if x is None:`` guard read from the annotation and the class around it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from phasegate.autodebug.patterns.class_values import class_values_in
from phasegate.autodebug.patterns.type_variables import type_variable_bodies
from tests.autodebug_support import diagnose, restores

CORE = "class Command:\n    def __init__(self, name, **attrs):\n        self.name = name\n"
DECORATORS = """\
import typing as t

from tv_core import Command

CmdType = t.TypeVar("CmdType", bound=Command)


def command(name, cls: type[CmdType] | None = None, **attrs):
    if cls is None:
        cls = t.cast("type[CmdType]", Command)
    return cls(name, **attrs)


def named(name):
    return t.cast("Command", command(name))
"""


@pytest.mark.needs_columns
def test_a_type_variable_parameter_is_cast_to_its_bound_as_the_file_casts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    faulty = DECORATORS.replace(
        '    if cls is None:\n        cls = t.cast("type[CmdType]", Command)\n', ""
    )
    diagnosis, candidates, _ = diagnose(
        tmp_path,
        {"tv_core.py": CORE, "tv_decorators.py": faulty},
        "import tv_decorators; tv_decorators.command('hello')",
        monkeypatch,
    )
    assert (diagnosis.error_class, diagnosis.facts["expr"]) == ("none", "cls")
    assert restores(candidates[0], DECORATORS)
    assert "the bound of the type variable" in candidates[0].description


def test_a_file_that_casts_nowhere_is_given_the_bound_itself() -> None:
    tree = ast.parse('import typing\nT = typing.TypeVar("T", bound="Base")\n')
    bodies = type_variable_bodies(tree, "kind", "T", {"Base"})
    assert [body for body, _score, _why in bodies] == ["kind = Base"]


def test_a_type_variable_without_a_bound_class_gives_no_body() -> None:
    tree = ast.parse('import typing\nT = typing.TypeVar("T", int, str)\nU = typing.TypeVar("U")\n')
    assert type_variable_bodies(tree, "kind", "T", {"int", "str"}) == []
    assert type_variable_bodies(tree, "kind", "U", set()) == []
    bounded_elsewhere = ast.parse('V = TypeVar("V", bound=Missing)\n')
    assert type_variable_bodies(bounded_elsewhere, "kind", "V", {"Base"}) == []


PARSER = """\
class Stream:
    def __init__(self):
        self.lineno = 7


class Parser:
    def __init__(self):
        self.stream = Stream()

    def where(self, msg, lineno=None):
        if lineno is None:
            lineno = self.stream.lineno
        return msg + " at " + str(lineno + 1)

    def parse_a(self):
        lineno = self.stream.lineno
        return lineno

    def parse_b(self, token):
        lineno = self.stream.lineno
        other = token
        lineno = other
        return lineno
"""


@pytest.mark.needs_columns
def test_a_parameter_is_given_what_the_other_methods_of_its_class_assign_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    faulty = PARSER.replace(
        "        if lineno is None:\n            lineno = self.stream.lineno\n", ""
    )
    diagnosis, candidates, _ = diagnose(
        tmp_path,
        {"cv_parser.py": faulty},
        "import cv_parser; cv_parser.Parser().where('here')",
        monkeypatch,
    )
    assert (diagnosis.error_class, diagnosis.facts["expr"]) == ("none", "lineno")
    assert restores(candidates[0], PARSER)
    assert "as its class's other methods set it (2)" in candidates[0].description


def _method(text: str, name: str) -> tuple[ast.Module, ast.FunctionDef]:
    tree = ast.parse(text)
    found = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name]
    return tree, found[0]


def test_a_value_read_from_a_local_or_set_once_is_no_habit_of_the_class() -> None:
    once = PARSER.replace(
        "    def parse_a(self):\n        lineno = self.stream.lineno\n",
        "    def parse_a(self):\n        lineno = 1\n",
    )
    tree, where = _method(once, "where")
    assert class_values_in(tree, where, "lineno") == []  # `lineno = other` reads a local
    module_level = "def where(msg, lineno=None):\n    return lineno\n"
    tree, function = _method(module_level, "where")
    assert class_values_in(tree, function, "lineno") == []  # no class, no instance


GRAMMAR = """\
class Grammar:
    _start_nonterminal: str

    def parse(self, code, start_symbol=None):
        if start_symbol is None:
            start_symbol = self._start_nonterminal
        return make_parser(code, start_nonterminal=start_symbol)
"""


def test_a_parameter_passed_on_as_a_keyword_is_given_the_instances_setting_of_that_name() -> None:
    tree, parse = _method(GRAMMAR, "parse")
    bodies = [body for body, _score, _why in class_values_in(tree, parse, "start_symbol")]
    assert bodies == ["start_symbol = self._start_nonterminal"]
    undeclared = GRAMMAR.replace("    _start_nonterminal: str\n", "    tokens = 1\n")
    tree, parse = _method(undeclared, "parse")
    assert class_values_in(tree, parse, "start_symbol") == []
