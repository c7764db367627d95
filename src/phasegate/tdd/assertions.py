"""How many assertions a test has, so that a refactor cannot weaken it unnoticed.

Counted with :mod:`ast` in the test's function (its whole body, nested helpers included):
every ``assert`` statement, and every call whose name matches ``assertion_calls``
(``pytest.raises``, ``self.assertEqual``, ``mock.assert_called_once_with``...). A test is found
from its node id: ``path::Class::test_name[params]`` names the function ``test_name`` in
class ``Class``; parametrized ids share their function's count.
"""

from __future__ import annotations

import ast
import fnmatch
from collections.abc import Sequence

from phasegate.gates.parsed import ending_name

__all__ = ["count_assertions", "function_path"]


def function_path(nodeid: str) -> list[str]:
    """The class and function names of a node id: ``a.py::T::test_x[1]`` -> ``[T, test_x]``."""
    parts = nodeid.split("::")[1:]
    if parts:
        parts[-1] = parts[-1].split("[", 1)[0]
    return parts


def count_assertions(source: str | bytes, nodeid: str, calls: Sequence[str]) -> int | None:
    """The assertions of the test ``nodeid`` in ``source``; ``None`` if it is not found."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    function = _find(tree.body, function_path(nodeid))
    if function is None:
        return None
    return sum(1 for node in ast.walk(function) if _is_assertion(node, calls))


def _is_assertion(node: ast.AST, calls: Sequence[str]) -> bool:
    """An ``assert``, or a call of a name ``calls`` matches (``assert_*``, ``pytest.raises``)."""
    if isinstance(node, ast.Assert):
        return True
    if not isinstance(node, ast.Call):
        return False
    name = ending_name(node.func)
    return name is not None and any(fnmatch.fnmatchcase(name, p) for p in calls)


def _find(body: list[ast.stmt], names: list[str]) -> ast.AST | None:
    if not names:
        return None
    head, rest = names[0], names[1:]
    wanted = ast.ClassDef if rest else (ast.FunctionDef, ast.AsyncFunctionDef)
    for node in body:
        if isinstance(node, wanted) and node.name == head:
            return _find(node.body, rest) if isinstance(node, ast.ClassDef) else node
    return None
