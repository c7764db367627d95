"""A lost None guard put back where the None was made, not where it failed: a parameter
defaulting to None handed on unguarded (its body from the sibling guard's use, or from what
the callers compute for it), a cache lookup that missed, returned whole, and a call's result
returned as it came by the function the failing statement ran."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from phasegate.autodebug.patterns import none_guards
from phasegate.autodebug.patterns.cache_misses import cache_miss_bodies
from phasegate.autodebug.patterns.caller_values import caller_value_bodies
from phasegate.autodebug.project import Project, TestFiles
from tests.autodebug_support import diagnose, restores

EXTENSION = """\
class Call:
    def __init__(self, node, args, kwargs):
        self.node, self.args, self.kwargs = node, args, kwargs


def signature(node):
    out = []
    for arg in node.args:
        out.append(str(arg))
    return out


class Extension:
    def call_method(self, name, args=None, kwargs=None):
        if args is None:
            args = []
        if kwargs is None:
            kwargs = []
        return Call(name, args, kwargs)
"""

TREE = """\
from collections import namedtuple

Group = namedtuple("Group", "prefix children last_leaf")


class Tree:
    def __init__(self):
        self.groups = []

    def add_nodes(self, prefix, children, last_leaf=None):
        if last_leaf is None:
            last_leaf = children[-1].upper()
        self.groups.append(Group(prefix, children, last_leaf))

    def last_line(self):
        group = self.groups[-1]
        return group.last_leaf.lower()


def build(tree, nodes, prefix):
    last = nodes[-1].upper()
    tree.add_nodes(prefix, nodes, last)
"""

LEXER = """\
import typing as t


class Lexer:
    def __init__(self, environment):
        self.environment = environment

    def tokenize(self, source):
        return source.split(self.environment.separator)


_lexer_cache: t.Dict[t.Tuple[str], "Lexer"] = {}


def get_lexer(environment) -> "Lexer":
    key = (environment.separator,)
    lexer = _lexer_cache.get(key)
    if lexer is None:
        _lexer_cache[key] = lexer = Lexer(environment)
    return lexer


class Environment:
    separator = ","

    @property
    def lexer(self):
        return get_lexer(self)

    def tokenize(self, source):
        return self.lexer.tokenize(source)
"""


LOADERS = """\
class TemplateNotFound(Exception):
    pass


class DictLoader:
    def __init__(self, mapping):
        self.mapping = mapping

    def get_source(self, template):
        if template in self.mapping:
            return self.mapping[template], None
        raise TemplateNotFound(template)


class FunctionLoader:
    def __init__(self, load_func):
        self.load_func = load_func

    def get_source(self, template):
        rv = self.load_func(template)
        if rv is None:
            raise TemplateNotFound(template)
        return rv

    def load(self, name):
        source, filename = self.get_source(name)
        return source
"""


def _without(text: str, guard: str) -> str:
    assert guard in text
    return text.replace(guard, "")


@pytest.mark.needs_columns
def test_a_none_iterated_as_an_attribute_is_guarded_where_a_sibling_guard_lost_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    faulty = _without(EXTENSION, "        if args is None:\n            args = []\n")
    diagnosis, candidates, _ = diagnose(
        tmp_path,
        {"mh_ext.py": faulty},
        "import mh_ext as m; m.signature(m.Extension().call_method('f'))",
        monkeypatch,
    )
    assert (diagnosis.error_class, diagnosis.facts["expr"]) == ("none", "node.args")
    assert restores(candidates[0], EXTENSION)
    assert "`call_method`" in candidates[0].description


@pytest.mark.needs_columns
def test_a_parameter_handed_on_gets_the_value_its_callers_compute_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard = "        if last_leaf is None:\n            last_leaf = children[-1].upper()\n"
    diagnosis, candidates, _ = diagnose(
        tmp_path,
        {"mh_tree.py": _without(TREE, guard)},
        "import mh_tree as m; t = m.Tree(); t.add_nodes('', ['a']); t.last_line()",
        monkeypatch,
    )
    assert diagnosis.facts["expr"] == "group.last_leaf"
    assert restores(candidates[0], TREE)
    assert "as its callers compute what they pass for it" in candidates[0].description


@pytest.mark.needs_columns
def test_a_property_returning_a_cache_lookup_that_missed_is_guarded_after_the_lookup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard = "    if lexer is None:\n        _lexer_cache[key] = lexer = Lexer(environment)\n"
    diagnosis, candidates, _ = diagnose(
        tmp_path,
        {"mh_lexer.py": _without(LEXER, guard)},
        "import mh_lexer as m; m.Environment().tokenize('a,b')",
        monkeypatch,
    )
    assert diagnosis.facts["expr"] == "self.lexer"
    assert restores(candidates[0], LEXER)


def _function(text: str, name: str) -> ast.FunctionDef:
    tree = ast.parse(text)
    return next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)


def test_a_callers_value_reading_what_the_callee_lacks_is_left_out(tmp_path: Path) -> None:
    # ``nodes`` is passed as ``children``; ``prefix`` as ``prefix``; ``other`` is not passed.
    text = TREE.replace("last = nodes[-1].upper()", "last = other(nodes, prefix)")
    (tmp_path / "tree.py").write_text(text)
    project = Project(tmp_path, TestFiles([]))
    assert caller_value_bodies(project, "tree.py", _function(text, "add_nodes"), "last_leaf") == []
    renamed = TREE.replace("last = nodes[-1].upper()", "last = nodes[len(prefix)]")
    (tmp_path / "tree.py").write_text(renamed)
    bodies = caller_value_bodies(project, "tree.py", _function(renamed, "add_nodes"), "last_leaf")
    assert [body for body, _, _ in bodies] == ["last_leaf = children[len(prefix)]"]


def test_a_cache_miss_makes_the_annotated_class_only_from_what_is_at_hand(tmp_path: Path) -> None:
    (tmp_path / "lexer.py").write_text(LEXER)
    project = Project(tmp_path, TestFiles([]))
    bodies = cache_miss_bodies(project, "lexer.py", _function(LEXER, "get_lexer"), "lexer")
    assert [body for body, _, _ in bodies] == [
        "_lexer_cache[key] = lexer = Lexer(environment)",
        "lexer = Lexer(environment)",
    ]
    needs_more = LEXER.replace("def __init__(self, environment):", "def __init__(self, env, x):")
    (tmp_path / "lexer.py").write_text(needs_more)
    function = _function(needs_more, "get_lexer")
    assert cache_miss_bodies(project, "lexer.py", function, "lexer") == []


@pytest.mark.needs_columns
def test_a_none_unpacked_from_a_call_is_guarded_where_the_function_called_got_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard = "        if rv is None:\n            raise TemplateNotFound(template)\n"
    diagnosis, candidates, _ = diagnose(
        tmp_path,
        {"mh_loaders.py": _without(LOADERS, guard)},
        "import mh_loaders as m; m.FunctionLoader(lambda name: None).load('x')",
        monkeypatch,
    )
    # ``cannot unpack non-iterable NoneType object``, the failure placed at the call (3.11+).
    assert (diagnosis.error_class, diagnosis.kind) == ("none", "none-iterated")
    assert diagnosis.facts["expr"] == "self.get_source(name)"
    assert restores(candidates[0], LOADERS)


TOTALS = """\
def total(values=None):
    if values is None:
        values = []
    result = 0
    for value in values:
        result += value
    return result
"""


@pytest.mark.needs_columns
def test_a_failing_search_upstream_keeps_the_guards_where_the_none_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review of s16, finding 12: the search where the None was made ran first, and an error
    in it lost every none guard; the guards where it failed come first, and are kept."""

    def fails(*_: object) -> list[object]:
        raise RuntimeError("upstream search broke")

    monkeypatch.setattr(none_guards, "made_here", fails)
    guard = "    if values is None:\n        values = []\n"
    diagnosis, candidates, _ = diagnose(
        tmp_path,
        {"mh_totals.py": _without(TOTALS, guard)},
        "import mh_totals as m; m.total()",
        monkeypatch,
    )
    assert restores(candidates[0], TOTALS)
    assert diagnosis.facts["upstream_search_error"] == "RuntimeError: upstream search broke"


#: The loader whose ``get_source`` defines a helper returning a local of its own.
NESTED_LOADERS = LOADERS.replace(
    "    def get_source(self, template):\n        rv = self.load_func(template)",
    "    def get_source(self, template):\n"
    "        def cached():\n"
    "            found = self.load_func(template)\n"
    "            return found\n\n"
    "        rv = self.load_func(template)",
)


@pytest.mark.needs_columns
def test_a_local_returned_by_a_nested_function_is_not_guarded_in_the_outer_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review of s16, finding 11: the returns and assignments of a nested function were read
    as the outer one's: ``if found is None: ...`` went before ``def cached():`` (certain to
    fail), half of the candidates."""
    guard = "        if rv is None:\n            raise TemplateNotFound(template)\n"
    _, candidates, _ = diagnose(
        tmp_path,
        {"mh_nested.py": _without(NESTED_LOADERS, guard)},
        "import mh_nested as m; m.FunctionLoader(lambda name: None).load('x')",
        monkeypatch,
    )
    assert restores(candidates[0], NESTED_LOADERS)
    assert not [c.description for c in candidates if "if found is None" in c.description]
