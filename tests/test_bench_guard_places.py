"""``benchmarks/guard_places.py``: where a parameter's None guard stands, once taken out."""

from __future__ import annotations

import ast
from types import ModuleType

import pytest

from tests.conftest import load_benchmark
from tests.realprojects import PROJECTS

MODULE = '''
def meet(a, b=None):
    """Doc."""
    if b is None:
        b = []
    return a + b


def before_use(a, b=None):
    total = a * 2
    if b is None:
        b = 0
    return total + b


def at_top(a, b=None):
    if b is None:
        raise ValueError("b")
    a = a + 1
    return a + b


def neither(a, b=None):
    c = a + 1
    if b is None:
        return c
    c = c + 2
    return c + b


def last_of_its_block(a, b=None):
    print(a)
    if b is None:
        b = 0


def not_a_parameter(a):
    b = a or None
    if b is None:
        b = 0
    return b
'''


@pytest.fixture(scope="module")
def guard_places() -> ModuleType:
    return load_benchmark("guard_places")


def test_each_guard_of_a_parameter_is_placed_against_the_two_places(
    guard_places: ModuleType,
) -> None:
    counts = guard_places.count(ast.parse(MODULE))
    assert counts == {
        "both meet": 1,
        "before the first use": 1,
        "at the top": 1,
        "neither": 2,  # `neither` and `last_of_its_block`; `not_a_parameter` is not counted
    }


def test_the_benchmarks_own_projects_are_never_counted(guard_places: ModuleType) -> None:
    packages = {package for project in PROJECTS.values() for package in project.packages}
    assert {"click", "parso", "jinja2", "dateutil", "toolz", "webob"} <= packages
    assert packages <= guard_places.NEVER_COUNTED


METHODS = """
class Node:
    def at_top(self, ctx):
        if self.node is None:
            raise ValueError("node")
        ctx = ctx or {}
        return self.node.value(ctx)

    def before_use(self, ctx):
        if ctx.test():
            return 1
        if self.expr is None:
            raise ValueError("expr")
        return self.expr.value(ctx)

    def not_of_self(self, other):
        if other.node is None:
            return 0
        return other.node
"""


def test_with_attributes_each_guard_of_an_attribute_of_self_is_placed_instead(
    guard_places: ModuleType,
) -> None:
    counts = guard_places.count(ast.parse(METHODS), attributes=True)
    assert counts == {"at the top": 1, "before the first use": 1}
    assert guard_places.count(ast.parse(METHODS)) == {}  # no parameter's guard
