"""``raise`` bodies of a lost ``if x is None:`` guard: from the namesakes' None guards, the
docstring's exceptions, what the namesakes raise, and the file's other None guards."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from phasegate.autodebug.patterns.raise_bodies import (
    _most_common,
    documented_exceptions,
    raise_bodies,
)
from phasegate.autodebug.project import Project, TestFiles
from tests.autodebug_support import diagnose, restores

NODES = '''\
class Impossible(Exception):
    pass


class Expr:
    def as_const(self, eval_ctx=None):
        """Return the value, or raise :exc:`Impossible` if it cannot be known."""
        raise Impossible()


class Neg(Expr):
    def __init__(self, node=None):
        self.node = node

    def as_const(self, eval_ctx=None):
        if self.node is None:
            raise Impossible()
        return -self.node.as_const(eval_ctx)


class Const(Expr):
    def __init__(self, value):
        self.value = value

    def as_const(self, eval_ctx=None):
        return self.value


class CondExpr(Expr):
    def __init__(self, test, expr1, expr2=None):
        self.test, self.expr1, self.expr2 = test, expr1, expr2

    def as_const(self, eval_ctx=None):
        if self.test.as_const(eval_ctx):
            return self.expr1.as_const(eval_ctx)

        if self.expr2 is None:
            raise Impossible()

        return self.expr2.as_const(eval_ctx)
'''

LOADERS = '''\
class TemplateNotFound(Exception):
    pass


class DictLoader:
    def __init__(self, mapping):
        self.mapping = mapping

    def get_source(self, environment, template):
        if template in self.mapping:
            return self.mapping[template]
        raise TemplateNotFound(template)


class FunctionLoader:
    def __init__(self, load_func):
        self.load_func = load_func

    def get_source(self, environment, template):
        rv = self.load_func(template)
        return rv


def fetch(name, data=None):
    """Fetch ``name``.

    Raises:
        LookupError: when ``name`` is not there.
    """
    return data[name]
'''

EMITTER = """\
class EmitterError(Exception):
    pass


class Emitter:
    def expect_alias(self):
        if self.event.anchor is None:
            raise EmitterError("anchor is not specified for alias")
        return self.event.anchor

    def process_tag(self, tag):
        return tag.upper()
"""


def _bodies(tmp_path: Path, files: dict[str, str], path: str, name: str, subject: str) -> list:
    for relpath, text in files.items():
        (tmp_path / relpath).write_text(text)
    project = Project(tmp_path, TestFiles([]))
    tree = ast.parse(files[path])
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name]
    return raise_bodies(project, path, functions[-1], subject)


def test_the_docstrings_exceptions_are_read_from_sphinx_google_and_numpydoc() -> None:
    sphinx = ":param x: a value.\n:raises ValueError: if bad.\n:raise errors.Gone: if gone."
    assert documented_exceptions(sphinx) == ["ValueError", "Gone"]
    assert documented_exceptions("Or raise :exc:`Impossible` if not.") == ["Impossible"]
    google = (
        "Do.\n\nRaises:\n    KeyError: when.\n        More.\n    OSError: else.\n\nReturns:\n  x"
    )
    assert documented_exceptions(google) == ["KeyError", "OSError"]
    numpydoc = "Do.\n\nRaises\n------\nLinAlgError\n    If it fails.\n\nSee Also\n--------\nf"
    assert documented_exceptions(numpydoc) == ["LinAlgError"]
    assert documented_exceptions("Return the value.\n\n:param x: raises nothing.") == []


def test_an_override_raises_as_its_namesakes_none_guards_and_its_bases_docstring_say(
    tmp_path: Path,
) -> None:
    faulty = NODES.replace("        if self.expr2 is None:\n            raise Impossible()\n", "")
    bodies = _bodies(tmp_path, {"nodes.py": faulty}, "nodes.py", "as_const", "self.expr2")
    assert [(body, why) for body, _score, why in bodies][:2] == [
        ("raise Impossible()", "as the function's namesakes raise on a None"),
        ("raise Impossible()", "the exception its docstring names"),
    ]


def test_a_method_raises_what_its_namesakes_raise_with_the_names_it_has_too(
    tmp_path: Path,
) -> None:
    bodies = _bodies(tmp_path, {"loaders.py": LOADERS}, "loaders.py", "get_source", "rv")
    assert ("raise TemplateNotFound(template)", "as the function's namesakes raise") in [
        (body, why) for body, _score, why in bodies
    ]
    documented = _bodies(tmp_path, {"loaders.py": LOADERS}, "loaders.py", "fetch", "data")
    assert [body for body, _score, _why in documented] == ["raise LookupError()"]


def test_a_body_reading_a_name_not_there_where_the_guard_goes_is_left_out(tmp_path: Path) -> None:
    renamed = LOADERS.replace(
        "def get_source(self, environment, template):\n        rv",
        "def get_source(self, environment, name):\n        rv",
    ).replace("self.load_func(template)", "self.load_func(name)")
    bodies = _bodies(tmp_path, {"loaders.py": renamed}, "loaders.py", "get_source", "rv")
    assert all("template" not in body for body, _score, _why in bodies)


def test_the_files_other_none_guards_raise_with_the_values_name_made_this_ones(
    tmp_path: Path,
) -> None:
    bodies = _bodies(tmp_path, {"emitter.py": EMITTER}, "emitter.py", "process_tag", "tag")
    assert [(body, why) for body, _score, why in bodies] == [
        (
            "raise EmitterError('tag is not specified for alias')",
            "as the file's other None guards raise",
        )
    ]


@pytest.mark.needs_columns
def test_an_attribute_seen_none_gets_its_namesakes_raise_right_before_its_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    faulty = NODES.replace("        if self.expr2 is None:\n            raise Impossible()\n", "")
    diagnosis, candidates, _ = diagnose(
        tmp_path,
        {"rb_nodes.py": faulty},
        "import rb_nodes as n; n.CondExpr(n.Const(0), n.Const(1)).as_const()",
        monkeypatch,
    )
    assert (diagnosis.error_class, diagnosis.facts["expr"]) == ("none", "self.expr2")
    assert restores(candidates[0], NODES)
    assert "before its use" in candidates[0].description


def test_what_the_namesakes_raise_most_is_offered_at_most_twice() -> None:
    raised: list[str | None] = ["raise A()", "raise B()", "raise A()", None, None, None]
    # A namesake that raises nothing (None) is never a body, however many there are; of the
    # rest, the commonest first and no more than two: each is one more validation run.
    assert _most_common([*raised, "raise C()"]) == ["raise A()", "raise B()"]
    assert _most_common([None, None]) == []
