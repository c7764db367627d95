"""Where an attribute seen None came in: the store of a None-default parameter by another
method of its class, which no longer tests the parameter."""

from __future__ import annotations

import ast

from phasegate.autodebug.patterns.stored_parameters import stores_of

STORES = """\
class Command:
    def __init__(self, settings=None, tested=None):
        if tested is None:
            tested = {}
        self.settings = settings
        self.tested = tested

    def use(self, settings=None):
        self.settings = settings
        return self.settings.items(), self.tested.items()
"""


def test_only_another_methods_untested_store_is_where_the_none_came_in() -> None:
    tree = ast.parse(STORES)
    command = tree.body[0]
    assert isinstance(command, ast.ClassDef)
    use = command.body[1]
    assert isinstance(use, ast.FunctionDef)
    stores = stores_of(tree, use, "self.settings")
    assert [(s.method.name, s.parameter, s.line) for s in stores] == [("__init__", "settings", 5)]
    assert stores_of(tree, use, "self.tested") == []  # __init__ still tests it
