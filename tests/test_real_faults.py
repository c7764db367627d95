"""The real-code benchmark's fault operators: one exact edit each, of the class they claim."""

from __future__ import annotations

import ast
import difflib
import random
from types import ModuleType

import pytest

from tests.conftest import load_benchmark

SOURCE = '''\
"""A small module with something for every operator."""

from collections import OrderedDict, deque
import json


def add(bag, item, count):
    """Put ``count`` of ``item`` in ``bag``."""
    bag[item] = bag.get(item, 0) + count
    return bag


def fill(items, bag=None):
    if bag is None:
        bag = OrderedDict()
    for item in items:
        add(bag, item, 1)
    total = len(bag)
    return json.dumps(bag), total, deque(items)


def label(name, width=10):
    return "name: " + name.ljust(width)


def show(names):
    return [label(name, width=5) for name in names]
'''


def load() -> ModuleType:
    return load_benchmark("real_faults")


@pytest.fixture(scope="module")
def real_faults() -> ModuleType:
    return load()


def changed_lines(old: str, new: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


@pytest.mark.parametrize(
    ("error_class", "operators"),
    [
        ("syntax", {"drop-colon", "drop-paren", "drop-comma", "drop-quote", "indent"}),
        ("name", {"name-typo"}),
        ("attribute", {"attribute-typo"}),
        ("import", {"drop-from-import", "drop-import", "module-typo", "imported-name-typo"}),
        ("type", {"drop-argument", "keyword-typo"}),
        ("none", {"drop-none-guard"}),
    ],
)
def test_every_operator_finds_its_places_and_makes_one_edit(
    real_faults: ModuleType, error_class: str, operators: set[str]
) -> None:
    found = real_faults.mutants("pkg/bag.py", SOURCE, error_class, "seed")
    assert set(found) == operators
    for mutants in found.values():
        for mutant in mutants:
            assert mutant.error_class == error_class
            assert mutant.text != SOURCE
            compiles = True
            try:
                ast.parse(mutant.text)
            except SyntaxError:
                compiles = False
            assert compiles is (error_class != "syntax"), mutant.description
            assert len(changed_lines(SOURCE, mutant.text)) <= 4, mutant.description


def test_a_dropped_argument_is_a_name_left_out_of_a_project_call(
    real_faults: ModuleType,
) -> None:
    found = real_faults.mutants("pkg/bag.py", SOURCE, "type", "seed")
    assert found["drop-argument"]
    for mutant in found["drop-argument"]:
        old, new = changed_lines(SOURCE, mutant.text)
        before, after = (
            next(n for n in ast.walk(ast.parse(line[1:].strip())) if isinstance(n, ast.Call))
            for line in (old, new)
        )
        assert ast.unparse(before.func) == ast.unparse(after.func)
        assert len(after.args) == len(before.args) - 1
        assert after.keywords == [] or len(after.keywords) == len(before.keywords)


def test_a_misspelling_is_one_edit_and_never_a_name_already_taken(
    real_faults: ModuleType,
) -> None:
    rng = random.Random(1)  # noqa: S311 - the benchmark's own seeded choices
    for name in ("total", "bag", "item", "__data"):
        wrong = real_faults.typo(name, rng, {"totla"})
        assert wrong is not None
        assert wrong not in (name, "totla")
        assert wrong.startswith("__") is name.startswith("__")


def test_the_same_seed_gives_the_same_mutants(real_faults: ModuleType) -> None:
    first = real_faults.mutants("pkg/bag.py", SOURCE, "name", "seed")
    again = real_faults.mutants("pkg/bag.py", SOURCE, "name", "seed")
    assert first == again
