"""Mutants of the changed lines: small, plausible bugs the tests of new code should notice.

Each operator turns one AST node that starts on a changed line into a bug:

``negate-condition``
    the test of an ``if``, ``while`` or conditional expression becomes ``not (...)``;
``flip-comparison``
    ``==``/``!=``, ``<``/``>=``, ``>``/``<=``, ``is``/``is not``, ``in``/``not in``;
``comparison-boundary``
    ``<``/``<=`` and ``>``/``>=``: the off-by-one at a boundary;
``constant-boundary``
    an integer constant ``n`` becomes ``n + 1``, ``True``/``False`` the other;
``replace-return``
    ``return <value>`` becomes ``return None`` (``return None`` is left alone);
``remove-statement``
    a call statement, an augmented assignment, an assignment to an attribute or item, or a
    ``raise`` becomes ``pass``;
``swap-boolean``
    ``and`` becomes ``or`` and back.

The mutant's text is the original file with only the node's source span rewritten (comments,
layout and every other line stay as they are), so the one-line diff a person reads is the real
change. Every mutant is parsed again and kept only if its syntax tree differs from the
original's: a rewrite that missed (an operator word inside a comment, say) is dropped, never run.

Which mutants run is chosen reproducibly: at most ``per_line`` on each line, then at most
``budget`` in all, drawn by a :class:`random.Random` seeded with ``seed``, and returned in file
order. The rewriting is hand-written because it must keep the user's text byte for byte outside
the span; ``ast.unparse`` of a whole module would not.
"""

from __future__ import annotations

import ast
import itertools
import random
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

__all__ = ["OPERATORS", "Mutant", "choose_mutants", "generate_mutants"]

#: Every operator, in the order they are documented.
OPERATORS = (
    "negate-condition",
    "flip-comparison",
    "comparison-boundary",
    "constant-boundary",
    "replace-return",
    "remove-statement",
    "swap-boolean",
)

_FLIPPED: dict[type[ast.cmpop], str] = {
    ast.Eq: "!=",
    ast.NotEq: "==",
    ast.Lt: ">=",
    ast.GtE: "<",
    ast.Gt: "<=",
    ast.LtE: ">",
    ast.Is: "is not",
    ast.IsNot: "is",
    ast.In: "not in",
    ast.NotIn: "in",
}
_BOUNDARY: dict[type[ast.cmpop], str] = {ast.Lt: "<=", ast.LtE: "<", ast.Gt: ">=", ast.GtE: ">"}
_OPERATOR_PATTERN: dict[type[ast.cmpop], str] = {
    ast.Eq: r"==",
    ast.NotEq: r"!=",
    ast.Lt: r"<(?!=)",
    ast.LtE: r"<=",
    ast.Gt: r">(?!=)",
    ast.GtE: r">=",
    ast.Is: r"\bis\b(?!\s+not\b)",
    ast.IsNot: r"\bis\s+not\b",
    ast.In: r"(?<!not )\bin\b",
    ast.NotIn: r"\bnot\s+in\b",
}


@dataclass(frozen=True)
class Mutant:
    """One bug put into one file: where, by which operator, and the file's mutated text."""

    path: str
    line: int
    operator: str
    before: str
    after: str
    text: str

    @property
    def diff(self) -> str:
        """The one-line diff a person reads: ``<line before>  ->  <line after>``."""
        return f"{self.before.strip()}  ->  {self.after.strip()}"


@dataclass(frozen=True)
class _Edit:
    operator: str
    line: int
    start: tuple[int, int]  # (line, byte column) where the replaced span starts
    end: tuple[int, int]
    replacement: str


def generate_mutants(path: str, source: str, lines: Iterable[int] | None) -> list[Mutant]:
    """Every mutant of ``source`` whose node starts on one of ``lines`` (``None``: any line).

    A file that does not parse has no mutants (the syntax check reports it).
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    wanted = None if lines is None else frozenset(lines)
    original = ast.dump(tree)
    encoded = [line.encode("utf-8") for line in source.splitlines(keepends=True)]
    docstrings = _docstring_nodes(tree)
    mutants: list[Mutant] = []
    seen: set[str] = set()
    for edit in _edits(tree, encoded, docstrings):
        if wanted is not None and edit.line not in wanted:
            continue
        text = _apply(encoded, edit)
        if text is None or text in seen or not _changes_the_code(text, original):
            continue
        seen.add(text)
        mutants.append(_mutant(path, source, edit, text))
    return mutants


def _mutant(path: str, source: str, edit: _Edit, text: str) -> Mutant:
    """The mutant ``edit`` makes, with its line before and after (empty if it is gone)."""
    after_lines = text.splitlines()
    before = source.splitlines()[edit.line - 1]
    after = after_lines[edit.line - 1] if edit.line <= len(after_lines) else ""
    return Mutant(path, edit.line, edit.operator, before, after, text)


def _changes_the_code(text: str, original: str) -> bool:
    """Whether ``text`` parses to another tree than ``original`` (an ``ast.dump``)."""
    try:
        return ast.dump(ast.parse(text)) != original
    except (SyntaxError, ValueError):
        return False


def choose_mutants(
    mutants: Sequence[Mutant], *, per_line: int, budget: int, seed: int
) -> list[Mutant]:
    """At most ``per_line`` mutants a line and ``budget`` in all, drawn reproducibly by
    ``seed``; returned in file order (path, line, operator)."""
    rng = random.Random(seed)  # noqa: S311 - a reproducible draw, not a secret
    by_line: dict[tuple[str, int], list[Mutant]] = {}
    for mutant in sorted(mutants, key=_order):
        by_line.setdefault((mutant.path, mutant.line), []).append(mutant)
    kept: list[Mutant] = []
    for key in sorted(by_line):
        candidates = by_line[key]
        kept.extend(rng.sample(candidates, min(per_line, len(candidates))))
    if len(kept) > budget:
        kept = rng.sample(kept, budget)
    return sorted(kept, key=_order)


def _order(mutant: Mutant) -> tuple[str, int, int, str]:
    return (mutant.path, mutant.line, OPERATORS.index(mutant.operator), mutant.text)


def _docstring_nodes(tree: ast.Module) -> set[int]:
    """``id()`` of every docstring expression: removing one is no bug."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0]))
    return found


def _edits(tree: ast.Module, encoded: list[bytes], docstrings: set[int]) -> Iterator[_Edit]:
    for node in ast.walk(tree):
        yield from _node_edits(node, encoded)
        if isinstance(node, ast.stmt) and _removable(node, docstrings):
            yield _replace(node, "remove-statement", "pass")


def _node_edits(node: ast.AST, encoded: list[bytes]) -> Iterator[_Edit]:
    """The operators' edits of one node: a condition negated, a comparison, a boolean, a
    constant or a returned value changed."""
    if isinstance(node, (ast.If, ast.While, ast.IfExp)):
        yield _wrap_not(node.test, encoded)
    elif isinstance(node, ast.Compare):
        yield from _compare_edits(node, encoded)
    elif isinstance(node, ast.BoolOp):
        yield from _boolean_edits(node, encoded)
    elif isinstance(node, ast.Constant):
        yield from _optional(_constant_edit(node))
    elif isinstance(node, ast.Return):
        yield from _optional(_return_edit(node))


def _optional(edit: _Edit | None) -> Iterator[_Edit]:
    if edit is not None:
        yield edit


def _return_edit(node: ast.Return) -> _Edit | None:
    """``return None`` for a return of a value (not of ``None`` already)."""
    if node.value is None or _is_none(node.value):
        return None
    return _replace(node.value, "replace-return", "None", line=node.lineno)


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _removable(node: ast.stmt, docstrings: set[int]) -> bool:
    if isinstance(node, ast.Expr):
        return id(node) not in docstrings and not isinstance(node.value, ast.Constant)
    if isinstance(node, (ast.AugAssign, ast.Raise)):
        return True
    if isinstance(node, ast.Assign):
        return all(isinstance(target, (ast.Attribute, ast.Subscript)) for target in node.targets)
    return False


def _span(node: ast.expr | ast.stmt) -> tuple[tuple[int, int], tuple[int, int]]:
    end_line = node.end_lineno if node.end_lineno is not None else node.lineno
    end_col = node.end_col_offset if node.end_col_offset is not None else node.col_offset
    return (node.lineno, node.col_offset), (end_line, end_col)


def _replace(node: ast.expr | ast.stmt, operator: str, text: str, *, line: int = 0) -> _Edit:
    start, end = _span(node)
    return _Edit(operator, line or node.lineno, start, end, text)


def _wrap_not(test: ast.expr, encoded: list[bytes]) -> _Edit:
    start, end = _span(test)
    return _Edit(
        "negate-condition", test.lineno, start, end, f"not ({_segment(encoded, start, end)})"
    )


def _compare_edits(node: ast.Compare, encoded: list[bytes]) -> Iterator[_Edit]:
    operands = [node.left, *node.comparators]
    for index, op in enumerate(node.ops):
        _, gap_start = _span(operands[index])
        gap_end, _ = _span(operands[index + 1])
        gap = _segment(encoded, gap_start, gap_end)
        found = re.search(_OPERATOR_PATTERN[type(op)], gap)
        if found is None:
            continue
        for operator, table in (("flip-comparison", _FLIPPED), ("comparison-boundary", _BOUNDARY)):
            if type(op) in table:
                replaced = gap[: found.start()] + table[type(op)] + gap[found.end() :]
                yield _Edit(operator, node.lineno, gap_start, gap_end, replaced)


def _boolean_edits(node: ast.BoolOp, encoded: list[bytes]) -> Iterator[_Edit]:
    word, other = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
    for left, right in itertools.pairwise(node.values):
        _, gap_start = _span(left)
        gap_end, _ = _span(right)
        gap = _segment(encoded, gap_start, gap_end)
        found = re.search(rf"\b{word}\b", gap)
        if found is not None:
            replaced = gap[: found.start()] + other + gap[found.end() :]
            yield _Edit("swap-boolean", node.lineno, gap_start, gap_end, replaced)


def _constant_edit(node: ast.Constant) -> _Edit | None:
    if isinstance(node.value, bool):
        return _replace(node, "constant-boundary", str(not node.value))
    if isinstance(node.value, int):
        return _replace(node, "constant-boundary", str(node.value + 1))
    return None


def _segment(encoded: list[bytes], start: tuple[int, int], end: tuple[int, int]) -> str:
    """The source text between two ``(line, byte column)`` positions."""
    (first, first_col), (last, last_col) = start, end
    if first == last:
        return encoded[first - 1][first_col:last_col].decode("utf-8")
    parts = [encoded[first - 1][first_col:]]
    parts.extend(encoded[first : last - 1])
    parts.append(encoded[last - 1][:last_col])
    return b"".join(parts).decode("utf-8")


def _apply(encoded: list[bytes], edit: _Edit) -> str | None:
    (first, first_col), (last, last_col) = edit.start, edit.end
    if first < 1 or last > len(encoded):
        return None
    head = b"".join(encoded[: first - 1]) + encoded[first - 1][:first_col]
    tail = encoded[last - 1][last_col:] + b"".join(encoded[last:])
    try:
        return (head + edit.replacement.encode("utf-8") + tail).decode("utf-8")
    except UnicodeDecodeError:
        return None
