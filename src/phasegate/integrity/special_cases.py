"""A test's data special-cased in the project's code: "teaching to the test".

``if values == [1, 2, 3]: return 2`` above a wrong line of ``mean`` makes ``mean([1, 2, 3])``
pass while the code stays wrong for every other input: tests pass, coverage is full, and the
mutation check kills every mutant of the new lines, since the test notices any change to them
(review s16r, finding 32). No check can prove a fix general; this rule reads a narrow, precise
signal instead: a line the change adds to the project's code (test files aside) that compares a
value (``==``, ``!=``, ``is``, ``is not``, a ``match`` case; for ``in``, the value looked for
or an item of a literal container looked in) with a composite literal (a list, tuple, set or
dict of two items or more, of constants only) that a test file holds as an argument of a call
(``mean([1, 2, 3])``, a case of ``parametrize``), an operand of an assertion's comparison or
the value of an assignment, whole or inside another literal, in a test that calls the function
(or class) around the compared line by name: the test's own input, not a value that happens to
be common (parso compares with ``(1, 0)``, the start of a file, which its tests hold in 23
places, none calling the functions that compare). Literals are compared by value
(:func:`ast.literal_eval`), a list and a tuple alike (a ``match`` sequence pattern matches
either).

Cost: the added lines of the package are read first, through the syntax trees the checks share
(:class:`~phasegate.gates.parsed.SyntaxTrees`); the test files are parsed only when an added
line compares with a composite literal at all, which most changes never do.

Not detected, for precision: strings and single numbers (``if n == 10: return 55``), which
honest code compares with all the time (a base case ``if n == 0: return 1`` is often the fix);
literals built at run time; a special case written as ``sum(values) == 6``, or put in a helper
the tested function calls. See docs/integrity.md.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from functools import singledispatch
from typing import TypeVar

from phasegate.gates.newcode import NewCode, changed_package_files
from phasegate.gates.parsed import Unparseable, ending_name
from phasegate.gates.project import GateProject
from phasegate.integrity.testcode import is_test_file
from phasegate.integrity.trick import Trick

__all__ = ["special_case_tricks"]

_T = TypeVar("_T")

#: The comparisons that single out one value; ``in`` is read item by item (below).
_EQUALITY = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)
_MEMBERSHIP = (ast.In, ast.NotIn)
_CONTAINERS = (ast.List, ast.Tuple, ast.Set)


#: The nodes that name a scope: a comparison belongs to its functions and classes.
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class _Where:
    """Where literals are: the file, what they are there (``the input of``) and ``names``:
    in the code, the functions and classes around them; in a test, the names it calls."""

    path: str
    role: str = ""
    names: frozenset[str] = frozenset()


@dataclass(frozen=True)
class _Literal:
    """A composite literal at a place: ``key`` is its value, normalized to compare."""

    key: Hashable
    text: str
    line: int
    where: _Where

    @property
    def path(self) -> str:
        return self.where.path


def special_case_tricks(project: GateProject, new_code: NewCode) -> list[Trick]:
    """Each added line of the package that compares with a composite literal of a test."""
    compared = _added_comparisons(project, new_code)
    if not compared:
        return []  # the test files are not read
    return _matched(compared, _by_value(_test_literals(project)))


def _matched(compared: list[_Literal], in_tests: dict[Hashable, list[_Literal]]) -> list[Trick]:
    """A trick for each compared literal that a test calling its function holds."""
    return list(filter(None, (_tied(literal, in_tests) for literal in compared)))


def _tied(literal: _Literal, in_tests: dict[Hashable, list[_Literal]]) -> Trick | None:
    test = _first_tied(literal, in_tests.get(literal.key, []))
    return _trick(literal, test) if test else None


def _first_tied(literal: _Literal, candidates: list[_Literal]) -> _Literal | None:
    """The first of ``candidates`` in a test that calls a function (or class) around
    ``literal``."""
    return next((test for test in candidates if literal.where.names & test.where.names), None)


def _added_comparisons(project: GateProject, new_code: NewCode) -> list[_Literal]:
    """The composite literals compared with on the lines the change adds to the package."""
    files = changed_package_files(project, new_code)
    return _added(
        [literal for path in files for literal in _compared_literals(project, path)], new_code
    )


def _added(found: list[_Literal], new_code: NewCode) -> list[_Literal]:
    return [literal for literal in found if new_code.contains(literal.path, literal.line)]


def _compared_literals(project: GateProject, path: str) -> list[_Literal]:
    """The composite literals ``path`` compares with."""
    tree = project.trees.get(project.root / path)
    if is_test_file(path) or isinstance(tree, Unparseable):
        return []  # a file that does not parse: the syntax check reports it
    return _scoped_literals(tree, path)


def _scoped_literals(tree: ast.Module, path: str) -> list[_Literal]:
    return [
        literal
        for node, names in _scoped_nodes(tree)
        for literal in _compared_in(node, path, names)
    ]


def _compared_in(node: ast.AST, path: str, names: frozenset[str]) -> list[_Literal]:
    """The composite literals ``node`` compares with (most nodes compare with none)."""
    compared = list(_compared(node))
    return _literals(compared, _Where(path, names=names)) if compared else []


def _scoped_nodes(tree: ast.Module) -> Iterator[tuple[ast.AST, frozenset[str]]]:
    """Every node, with the names of the functions and classes around it (iteratively: a
    long expression nests deeper than Python's recursion limit)."""
    stack: list[tuple[ast.AST, frozenset[str]]] = [(tree, frozenset())]
    while stack:
        node, names = stack.pop()
        yield node, names
        inner = _scope_names(node, names)
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))


def _scope_names(node: ast.AST, names: frozenset[str]) -> frozenset[str]:
    return names | {node.name} if isinstance(node, _SCOPES) else names


def _literals(nodes: Iterable[ast.expr | ast.pattern], where: _Where) -> list[_Literal]:
    return list(filter(None, (_literal(node, where) for node in nodes)))


def _read_all(tree: ast.AST, read: Callable[[ast.AST], Iterable[_T]]) -> Iterator[_T]:
    """What ``read`` reads from every node of ``tree``."""
    for node in ast.walk(tree):
        yield from read(node)


@singledispatch
def _compared(node: ast.AST) -> Iterable[ast.expr | ast.pattern]:
    """The operands of equality comparisons and ``in``, and the ``match`` patterns; nothing
    for other nodes."""
    return ()


@_compared.register
def _operands(compare: ast.Compare) -> Iterator[ast.expr]:
    values = [compare.left, *compare.comparators]
    for index, op in enumerate(compare.ops):
        yield from _compared_by(op, values[index], values[index + 1])


def _compared_by(op: ast.cmpop, left: ast.expr, right: ast.expr) -> list[ast.expr]:
    """What one comparison singles out: both sides of ``==``; for ``in``, the value looked
    for and each item of a literal container (``x in ([1, 2], [3, 4])``)."""
    if isinstance(op, _MEMBERSHIP):
        return [left, *_items(right)]
    return [left, right] if isinstance(op, _EQUALITY) else []


def _items(container: ast.expr) -> list[ast.expr]:
    return list(container.elts) if isinstance(container, _CONTAINERS) else []


@_compared.register(ast.MatchSequence)
@_compared.register(ast.MatchMapping)
def _pattern(pattern: ast.pattern) -> list[ast.pattern]:
    return [pattern]


def _literal(node: ast.expr | ast.pattern, where: _Where) -> _Literal | None:
    """``node`` as a composite literal of constants, or ``None``."""
    expression = _expression(node)
    key = _key(expression) if expression else None
    return None if key is None else _Literal(key, ast.unparse(node), node.lineno, where)


def _key(expression: ast.expr) -> Hashable | None:
    """The value of a literal of two items or more, normalized; ``None`` for anything else."""
    if _size(expression) < 2:
        return None
    try:
        return _normal(ast.literal_eval(expression))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None  # not made of constants only


def _size(expression: ast.expr) -> int:
    if isinstance(expression, ast.Dict):
        return len(expression.keys)
    return len(_items(expression))


def _expression(node: ast.expr | ast.pattern) -> ast.expr | None:
    """``node``; a ``match`` pattern of constants as the literal it matches (``case [1, 2]``),
    ``None`` for one that captures or matches by class."""
    if isinstance(node, ast.expr):
        return node
    return _pattern_expression(node)


@singledispatch
def _pattern_expression(pattern: ast.pattern) -> ast.expr | None:
    return None  # a capture, a class pattern, a star


def _converted(patterns: list[ast.pattern]) -> list[ast.expr] | None:
    """Each pattern as an expression; ``None`` unless every one converts."""
    expressions = list(filter(None, map(_expression, patterns)))
    return expressions if len(expressions) == len(patterns) else None


@_pattern_expression.register
def _sequence_pattern(pattern: ast.MatchSequence) -> ast.expr | None:
    items = _converted(pattern.patterns)
    return None if items is None else ast.List(items, ast.Load())


@_pattern_expression.register
def _mapping_pattern(pattern: ast.MatchMapping) -> ast.expr | None:
    values = _converted(pattern.patterns)
    if pattern.rest or values is None:
        return None
    return ast.Dict(list(pattern.keys), values)


@_pattern_expression.register
def _value_pattern(pattern: ast.MatchValue) -> ast.expr:
    return pattern.value


@_pattern_expression.register
def _singleton_pattern(pattern: ast.MatchSingleton) -> ast.expr:
    return ast.Constant(pattern.value)


@singledispatch
def _normal(value: object) -> Hashable:
    """``value`` made hashable, compared as ``match`` would: a list equals a tuple."""
    return value  # a constant


@_normal.register(list)
@_normal.register(tuple)
def _sequence(value: list[object] | tuple[object, ...]) -> Hashable:
    return ("sequence", tuple(map(_normal, value)))


@_normal.register(set)
@_normal.register(frozenset)
def _set(value: set[object] | frozenset[object]) -> Hashable:
    return ("set", frozenset(map(_normal, value)))


@_normal.register(dict)
def _mapping(value: dict[object, object]) -> Hashable:
    return (
        "mapping",
        frozenset(zip(map(_normal, value), map(_normal, value.values()), strict=True)),
    )


def _test_literals(project: GateProject) -> Iterator[_Literal]:
    """The composite literals of the project's test files, each parsed once (shared)."""
    for file in project.python_files:
        path = project.relative(file)
        if is_test_file(path):
            yield from _literals_of(project.trees.get(file), path)


def _literals_of(tree: ast.Module | Unparseable, path: str) -> Iterator[_Literal]:
    if isinstance(tree, Unparseable):
        return  # the syntax check reports it
    for unit, calls in _units(tree):
        yield from _unit_literals(unit, path, calls)


def _unit_literals(unit: ast.stmt, path: str, calls: frozenset[str]) -> Iterator[_Literal]:
    for role, node in _read_all(unit, _data):
        yield from _composites(node, _Where(path, role, calls))


def _units(tree: ast.Module) -> Iterator[tuple[ast.stmt, frozenset[str]]]:
    """Each top-level statement of a test module with the names its tests call: a function's
    or class's own calls; the whole module's for data at its top level (``CASES = [...]``)."""
    module_calls = _called(tree)
    for statement in tree.body:
        yield statement, _called(statement) if isinstance(statement, _SCOPES) else module_calls


def _called(node: ast.AST) -> frozenset[str]:
    """The names ``node`` calls (``calc.mean(...)`` -> ``mean``), decorators included."""
    calls = (child.func for child in ast.walk(node) if isinstance(child, ast.Call))
    return frozenset(filter(None, map(ending_name, calls)))


def _tagged(role: str, nodes: Iterable[ast.expr | None]) -> list[tuple[str, ast.expr]]:
    return [(role, node) for node in filter(None, nodes)]


@singledispatch
def _data(node: ast.AST) -> list[tuple[str, ast.expr]]:
    """A test's data: call arguments, an assertion's operands, assigned values; nothing for
    other nodes."""
    return []


@_data.register
def _call_data(call: ast.Call) -> list[tuple[str, ast.expr]]:
    return _tagged("the input of", [*call.args, *(keyword.value for keyword in call.keywords)])


@_data.register
def _assert_data(statement: ast.Assert) -> list[tuple[str, ast.expr]]:
    test = statement.test
    compared = [test.left, *test.comparators] if isinstance(test, ast.Compare) else []
    return _tagged("a value asserted in", compared)


@_data.register(ast.Assign)
@_data.register(ast.AnnAssign)
def _assigned_data(statement: ast.Assign | ast.AnnAssign) -> list[tuple[str, ast.expr]]:
    return _tagged("the data of", [statement.value])


def _composites(node: ast.expr, where: _Where) -> Iterator[_Literal]:
    """``node`` if it is a composite literal, and the composite literals inside it
    (a ``parametrize`` list of cases holds each case's input)."""
    yield from _literals([node], where)
    for item in _inner(node):
        yield from _composites(item, where)


def _inner(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.Dict):
        return [*filter(None, node.keys), *node.values]
    return _items(node)


def _by_value(found: Iterable[_Literal]) -> dict[Hashable, list[_Literal]]:
    """The tests' literals of each value, in file and line order."""
    places: dict[Hashable, list[_Literal]] = {}
    for literal in sorted(found, key=lambda literal: (literal.path, literal.line)):
        places.setdefault(literal.key, []).append(literal)
    return places


def _trick(literal: _Literal, test: _Literal) -> Trick:
    called = min(literal.where.names & test.where.names)
    message = (
        f"compares with {literal.text}, {test.where.role} {test.path}:{test.line}, in a test "
        f"calling {called}: a result for a test's data is not a fix"
    )
    return Trick("evidence", "special-cased-input", literal.path, literal.line, message)
