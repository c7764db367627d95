"""Bodies of a lost ``if x is None:`` guard read from the annotation and the class around it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from phasegate.autodebug.patterns.class_values import class_values_in
from phasegate.autodebug.patterns.none_guards import guard_bodies
from phasegate.autodebug.patterns.own_settings import own_setting_bodies
from phasegate.autodebug.patterns.type_variables import type_variable_bodies
from phasegate.autodebug.project import Project, TestFiles
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


WINTERM = """\
class WinTerm:
    hasher = None

    def __init__(self):
        self._default_fore = 7
        self._verbose = 0

    def fore(self, fore=None, verbose=None, hasher=None, back=None):
        return fore, verbose, hasher, back
"""


def test_a_parameter_is_given_the_default_its_instance_keeps_for_it(tmp_path: Path) -> None:
    project = Project(tmp_path, TestFiles([]))
    (tmp_path / "winterm.py").write_text(WINTERM)
    _tree, fore = _method(WINTERM, "fore")

    def bodies(subject: str) -> list[str]:
        found = own_setting_bodies(project, "winterm.py", fore, subject)
        return [body for body, _score, _why in found]

    assert bodies("fore") == ["fore = self._default_fore"]
    assert bodies("verbose") == ["verbose = self._verbose"]
    assert bodies("hasher") == ["hasher = self.hasher"]  # declared in the class's body
    assert bodies("back") == []


COMMAND = """\
class Command:
    def __init__(self, name, context_settings=None):
        self.name = name

        if context_settings is None:
            context_settings = {}

        self.context_settings = context_settings

    def make_context(self):
        return dict(self.context_settings.items())
"""


@pytest.mark.needs_columns
def test_an_attribute_seen_none_is_guarded_where_the_parameter_stored_in_it_comes_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    faulty = COMMAND.replace(
        "        if context_settings is None:\n            context_settings = {}\n", ""
    )
    diagnosis, candidates, _ = diagnose(
        tmp_path,
        {"sp_command.py": faulty},
        "import sp_command; sp_command.Command('hello').make_context()",
        monkeypatch,
    )
    assert (diagnosis.error_class, diagnosis.facts["expr"]) == ("none", "self.context_settings")
    assert restores(candidates[0], COMMAND)
    assert "in `__init__`" in candidates[0].description


ELSEWHERE = """\
import os
from io import StringIO


def read(path=None, out=None):
    return path, out


def other(flag):
    base = str(flag)
    path = base + "/x"
    path = os.getcwd()
    return path
"""


def test_a_value_is_given_what_the_project_assigns_it_elsewhere_if_it_reads_what_is_there(
    tmp_path: Path,
) -> None:
    project = Project(tmp_path, TestFiles([]))
    (tmp_path / "elsewhere.py").write_text(ELSEWHERE)
    _tree, read = _method(ELSEWHERE, "read")
    bodies = {
        body: why
        for body, _score, why in guard_bodies(project, "elsewhere.py", read, "path", 7, [])
    }
    assert bodies["path = os.getcwd()"] == "the value the project assigns it elsewhere"
    assert "path = base + '/x'" not in bodies  # `base` is a local of `other`, unbound in `read`
    bodies = {
        body: why for body, _score, why in guard_bodies(project, "elsewhere.py", read, "out", 7, [])
    }
    assert "out = StringIO()" in bodies  # the class imported and no longer used, made anew


WORDWRAP = '''\
def wordwrap(s, sep=None):
    """Wrap ``s``.

    :param sep: What joins the lines. Defaults to ``"-"``.
    """
    import textwrap

    if sep is None:
        sep = "-"
    return sep.join(textwrap.wrap(s, 5))
'''


@pytest.mark.needs_columns
def test_a_parameters_guard_at_the_top_goes_after_the_imports_that_do_not_read_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    faulty = WORDWRAP.replace('    if sep is None:\n        sep = "-"\n', "")
    diagnosis, candidates, _ = diagnose(
        tmp_path,
        {"ww_wrap.py": faulty},
        "import ww_wrap; ww_wrap.wordwrap('a b c d e f')",
        monkeypatch,
    )
    assert (diagnosis.error_class, diagnosis.facts["expr"]) == ("none", "sep")
    assert restores(candidates[0], WORDWRAP)
