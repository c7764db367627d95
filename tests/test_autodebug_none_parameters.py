"""Which parameters of a suspicious function a lost None guard may have tested."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from phasegate.autodebug.diagnosis import Diagnosis
from phasegate.autodebug.patterns import none_parameters
from phasegate.autodebug.patterns.lost_guards import lost_guard_candidates
from phasegate.autodebug.patterns.none_parameters import (
    compared_with_none,
    function_index,
    guarded_by_namesakes,
    namesakes,
    passed_on,
)
from phasegate.autodebug.project import Project, TestFiles
from phasegate.model.autodebug import SuspiciousFunction

FIELDS = """class Field:
    def __init__(self, attribute=None, validate=None, required=False, name=None):
        self.attribute = attribute
        self.validate = validate
        self.validators = self._normalize(validate)
        self.hooks = self._normalize(processors=name)
        self.required = required
        self.label = name.upper() if required else ""

    def _normalize(self, processors):
        if processors is None:
            return []
        return list(processors)

    def _serialize(self, value):
        return value


class Number(Field):
    def _serialize(self, value):
        if value is None:
            return None
        return int(value)


class Text(Field):
    def _serialize(self, value):
        return str(value)


class Nested(Field):
    def __init__(self, schema):
        self.schema = schema.upper()

    def _serialize(self, nested):
        return self.schema.format(nested)


class Tag:
    def __init__(self, label):
        if label is None:
            label = ""
        self.label = label
"""


def _function(tree: ast.Module, owner: str, name: str) -> ast.FunctionDef:
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner)
    return next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name)


def _project(tmp_path: Path, text: str) -> Project:
    (tmp_path / "fields.py").write_text(text)
    (tmp_path / "tests").mkdir()
    return Project(tmp_path, TestFiles(["tests/*"]))


def test_what_a_function_compares_with_none() -> None:
    tree = ast.parse(FIELDS)
    assert compared_with_none(_function(tree, "Field", "_normalize")) == {"processors"}
    assert compared_with_none(_function(tree, "Text", "_serialize")) == set()


def test_a_parameter_only_stored_or_handed_to_a_function_that_guards_it_is_passed_on() -> None:
    tree = ast.parse(FIELDS)
    # attribute is stored whole; validate is stored and handed to _normalize, which tests
    # its parameter; name is handed by keyword, but also read (name.upper()); required is
    # read in a test (not a store), so it is used here.
    assert passed_on(tree, _function(tree, "Field", "__init__")) == {"attribute", "validate"}
    assert passed_on(tree, _function(tree, "Text", "_serialize")) == set()


def test_a_parameter_passed_by_keyword_to_a_function_that_guards_it_is_passed_on() -> None:
    text = FIELDS.replace('        self.label = name.upper() if required else ""\n', "")
    tree = ast.parse(text)
    assert "name" in passed_on(tree, _function(tree, "Field", "__init__"))
    # Handed to a function that does not guard it: not passed on.
    unguarded = text.replace("        if processors is None:\n            return []\n", "")
    tree = ast.parse(unguarded)
    assert passed_on(tree, _function(tree, "Field", "__init__")) == {"attribute", "required"}


def test_a_parameter_an_override_of_the_same_method_guards_is_likely_none(
    tmp_path: Path,
) -> None:
    index = function_index(_project(tmp_path, FIELDS))
    tree = ast.parse(FIELDS)
    assert guarded_by_namesakes(index, "fields.py", _function(tree, "Text", "_serialize")) == {
        "value"
    }
    # The guarding override itself is not its own namesake.
    assert (
        guarded_by_namesakes(index, "fields.py", _function(tree, "Number", "_serialize")) == set()
    )
    # An override that renamed the parameter: the one in the same place.
    assert guarded_by_namesakes(index, "fields.py", _function(tree, "Nested", "_serialize")) == {
        "nested"
    }
    # Every class has an __init__: its namesakes say nothing (Tag's tests its `label`, in
    # the place of Nested's `schema` and Field's `attribute`).
    assert guarded_by_namesakes(index, "fields.py", _function(tree, "Field", "__init__")) == set()
    assert guarded_by_namesakes(index, "fields.py", _function(tree, "Nested", "__init__")) == set()


def _suspect(text: str, owner: str, name: str, score: float) -> SuspiciousFunction:
    line = _function(ast.parse(text), owner, name).lineno
    return SuspiciousFunction(
        path="fields.py",
        function=f"{owner}.{name}",
        line=line,
        score=score,
        failed_covering=1,
        passed_covering=3,
    )


def test_the_guard_its_namesakes_have_comes_first_though_a_constructor_ranks_higher(
    tmp_path: Path,
) -> None:
    """The None flows on (``str(None)`` is ``'None'``): the constructor every test runs ranks
    above the override that lost its guard, but what it does with its None defaults is by
    design, and the override's namesakes guard the value."""
    project = _project(tmp_path, FIELDS)
    diagnosis = Diagnosis(
        "assertion",
        "assertion",
        "assertion",
        "AssertionError",
        "assert 'None' is None",
        path="tests/test_fields.py",
        line=3,
    )
    suspects = [
        _suspect(FIELDS, "Field", "__init__", 0.21),
        _suspect(FIELDS, "Text", "_serialize", 0.17),
    ]
    candidates = lost_guard_candidates(diagnosis, project, suspects)
    first = candidates[0]
    assert "`if value is None: return None` in `_serialize`" in first.description
    assert first.edits[0].text == FIELDS.replace(
        "    def _serialize(self, value):\n        return str(value)\n",
        "    def _serialize(self, value):\n        if value is None:\n            return None\n"
        "        return str(value)\n",
    )
    guarded = {c.description.split("`")[1] for c in candidates if "`__init__`" in c.description}
    assert not any(g.startswith(("if attribute ", "if validate ")) for g in guarded)


NAMESAKES = {
    "a.py": "def load(path):\n    return open(path)\n",
    "b.py": "def load(path):\n    if path is None:\n        return None\n    return path\n",
    "c.py": "class Store:\n    def load(self, key=None):\n        return key\n\n"
    "def save(value):\n    return value\n",
    "d.py": "def save(value):\n    if value is None:\n        raise ValueError\n",
}


def _functions_named(text: str, name: str) -> list[tuple[int, str]]:
    """An oracle: the line and source of each function named ``name`` in ``text``."""
    return [
        (node.lineno, ast.unparse(node))
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef) and node.name == name
    ]


def test_each_file_is_parsed_once_for_the_namesakes_of_many_suspects_until_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, text in NAMESAKES.items():
        (tmp_path / name).write_text(text)
    project = Project(tmp_path, TestFiles(["tests/*"]))
    parsed: list[str] = []
    real = none_parameters.functions_by_name

    def counting(text: str) -> dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]:
        parsed.append(text)
        return real(text)

    monkeypatch.setattr(none_parameters, "functions_by_name", counting)
    suspects = [("a.py", "load"), ("c.py", "save"), ("b.py", "load"), ("d.py", "save")]
    for _round in range(3):
        for path, name in suspects:
            function = _load(NAMESAKES[path], name)
            found = namesakes(project, path, function)
            expected = [
                found_here
                for other, text in NAMESAKES.items()
                for found_here in _functions_named(text, name)
                if (other, found_here[0]) != (path, function.lineno)
            ]
            assert [(f.lineno, ast.unparse(f)) for f in found] == expected
            assert expected  # every suspect has namesakes in other files
    # Four files, each holding a suspect's name: each parsed once over twelve questions.
    assert sorted(parsed) == sorted(NAMESAKES.values())
    # A file that changes (as a kept repair changes it) is parsed again, and its new text counts.
    (tmp_path / "d.py").write_text("def save(value):\n    return value\n")
    index = function_index(project)
    assert none_parameters.guarded_by_namesakes(index, "a.py", _load(NAMESAKES["a.py"])) == {"path"}
    found = namesakes(project, "d.py", _load(NAMESAKES["d.py"], "save"))
    assert [ast.unparse(f) for f in found] == ["def save(value):\n    return value"]
    assert parsed.count("def save(value):\n    return value\n") == 1


def test_one_index_answers_the_namesakes_of_many_suspects_with_each_file_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, text in NAMESAKES.items():
        (tmp_path / name).write_text(text)
    project = Project(tmp_path, TestFiles(["tests/*"]))
    reads: list[str] = []
    real = Project.read

    def counting(self: Project, relpath: str) -> str | None:
        reads.append(relpath)
        return real(self, relpath)

    monkeypatch.setattr(Project, "read", counting)
    index = function_index(project)
    assert sorted(reads) == sorted(NAMESAKES)
    assert sorted(index) == ["load", "save"]
    found_load = [(path, f.lineno) for path, f in index["load"]]
    assert found_load == [("a.py", 1), ("b.py", 1), ("c.py", 2)]
    suspects = [("a.py", "load"), ("c.py", "save"), ("b.py", "load"), ("d.py", "save")] * 5
    found = {
        (path, name): guarded_by_namesakes(index, path, _load(NAMESAKES[path], name))
        for path, name in suspects
    }
    assert len(reads) == len(NAMESAKES)  # twenty questions, no file read again
    assert found == {
        ("a.py", "load"): {"path"},  # b.py's load tests its path against None
        ("b.py", "load"): set(),  # c.py's load tests a key, not a path
        ("c.py", "save"): {"value"},  # d.py's save tests its value
        ("d.py", "save"): set(),
    }


def _load(text: str, name: str = "load") -> ast.FunctionDef:
    return next(
        n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef) and n.name == name
    )
