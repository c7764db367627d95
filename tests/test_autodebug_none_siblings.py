"""A lost None guard beside a sibling guard of the same function: the sibling's value, in the
lost guard's name, is its first body (mistune's ``BlockParser.__init__``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from phasegate.autodebug.patterns.sibling_guards import sibling_guard_bodies
from tests.autodebug_support import diagnose, restores

PARSERS = """\
class Parser:
    DEFAULT_RULES = ("heading", "list", "quote")

    def __init__(
        self, quote_rules: list[str] | None = None, list_rules: list[str] | None = None, depth=6
    ):
        if quote_rules is None:
            quote_rules = list(self.DEFAULT_RULES)

        if list_rules is None:
            list_rules = list(self.DEFAULT_RULES)

        self.quote_rules = quote_rules
        self.list_rules = list_rules
        self.depth = depth

    def names(self):
        return [rule.upper() for rule in self.quote_rules]
"""

CALLS = """\
def call(name, args=None, kwargs=None, extra=None):
    if args is None:
        args = []
    if kwargs is None:
        kwargs = {}
    if extra is None:
        extra = fallback(extra, kwargs)
    return name, args, kwargs, extra
"""


def _function(text: str, name: str) -> ast.FunctionDef:
    tree = ast.parse(text)
    return next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)


@pytest.mark.needs_columns
def test_a_lost_guard_beside_a_sibling_guard_gets_the_siblings_value_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard = "        if quote_rules is None:\n            quote_rules = list(self.DEFAULT_RULES)\n"
    assert guard in PARSERS
    diagnosis, candidates, _ = diagnose(
        tmp_path,
        {"sg_parsers.py": PARSERS.replace(guard, "")},
        "import sg_parsers as m; m.Parser().names()",
        monkeypatch,
    )
    assert diagnosis.error_class == "none"
    assert restores(candidates[0], PARSERS)


def test_the_siblings_name_is_made_the_lost_ones_in_its_value() -> None:
    function = _function(CALLS, "call")
    bodies = [body for body, _, _ in sibling_guard_bodies(function, "name")]
    assert bodies == []  # a parameter without a None default is given no sibling's value
    function.args.defaults.insert(0, ast.Constant(None))  # name=None
    bodies = [body for body, _, _ in sibling_guard_bodies(function, "name")]
    assert bodies == ["name = []", "name = {}", "name = fallback(name, kwargs)"]


def test_a_value_already_guarded_gets_no_siblings_value() -> None:
    assert sibling_guard_bodies(_function(CALLS, "call"), "kwargs") == []
