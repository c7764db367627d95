"""A keyword argument its function does not take, passed in a suspicious module.

A misspelt keyword (``self._find_trans(dt, fodl=0)``) raises a ``TypeError``; when the code
catches it (``except (TypeError, AttributeError): return fallback``), the tests see only a
wrong value, and the failure is an assertion that is localized (:mod:`..localize`). This
module reads the files of the most suspicious functions for calls whose function the file
defines, a top-level function called by its name or a method of the caller's own class
called on ``self``, with a keyword that function has no parameter for and no ``**kwargs`` to
take it, and proposes the closest parameter the call does not pass yet. Such a call fails
wherever it runs, so the whole file is read, not only the suspects (the function the error
left through ranks low when the tests that pass run it too). A decorated function (its
decorator may change what it takes) is not judged. The tests decide, as for every candidate.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from phasegate.autodebug.diagnosis import Candidate, FileEdit
from phasegate.autodebug.distance import closest
from phasegate.autodebug.patterns.base import closeness
from phasegate.autodebug.source import node_span, replace_span, split_lines

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project
    from phasegate.model.autodebug import SuspiciousFunction

__all__ = ["unknown_keyword_candidates"]

#: The suspects whose files are read, best first.
_FUNCTIONS = 3

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def unknown_keyword_candidates(
    project: Project, suspicious: Sequence[SuspiciousFunction]
) -> list[Candidate]:
    """Each keyword of the top suspects' files that its function does not take, respelt."""
    scores: dict[str, float] = {}
    for suspect in [s for s in suspicious if project.editable(s.path)][:_FUNCTIONS]:
        scores.setdefault(suspect.path, suspect.score)
    candidates = [c for path, score in scores.items() for c in _respelt(project, path, score)]
    return sorted(candidates, key=lambda c: -c.score)


def _respelt(project: Project, path: str, score: float) -> list[Candidate]:
    """Each keyword a call of the file passes that its function does not take, respelt."""
    source = project.editable_source(path)
    if source is None:
        return []
    lines = split_lines(source.text)
    return [
        candidate
        for call, callee, bound in _judged_calls(source.tree)
        for keyword, taken in _unknown_keywords(call, callee, bound=bound)
        for candidate in _respelling(path, score, (source.text, lines), keyword, taken)
    ]


def _judged_calls(tree: ast.Module) -> Iterator[tuple[ast.Call, _Function, bool]]:
    """Each call of a function whose parameters are known (undecorated, with no
    ``**kwargs``): a top-level function by its name, anywhere; a method of the caller's
    class on ``self``, in that class's methods. And whether it is a method, bound."""
    functions = _functions(tree.body)
    for call in _calls(tree):
        callee = functions.get(call.func.id) if isinstance(call.func, ast.Name) else None
        if callee is not None and _parameters_known(callee):
            yield call, callee, False
    for owner in _classes(tree):
        methods = _functions(owner.body)
        for method in methods.values():
            for call, callee in _self_calls(method, methods):
                yield call, callee, True


def _calls(node: ast.AST) -> Iterator[ast.Call]:
    return (child for child in ast.walk(node) if isinstance(child, ast.Call))


def _self_calls(
    method: _Function, methods: dict[str, _Function]
) -> Iterator[tuple[ast.Call, _Function]]:
    """The calls in ``method`` of the judged ``methods`` of its class, on its ``self``."""
    params = method.args.posonlyargs + method.args.args
    self_name = params[0].arg if params else None
    for call in _calls(method):
        called = call.func
        if isinstance(called, ast.Attribute) and _is_name(called.value, self_name):
            callee = methods.get(called.attr)
            if callee is not None and _parameters_known(callee):
                yield call, callee


def _is_name(node: ast.expr, name: str | None) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _parameters_known(function: _Function) -> bool:
    """Whether the definition says every keyword the function takes: no ``**kwargs``, and no
    decorator that may wrap it in another signature."""
    return function.args.kwarg is None and not function.decorator_list


def _unknown_keywords(
    call: ast.Call, callee: _Function, *, bound: bool
) -> Iterator[tuple[ast.keyword, list[str]]]:
    """Each keyword ``call`` passes that ``callee`` does not take, with the parameters the
    call could still pass by keyword."""
    taken = _keyword_parameters(callee, bound=bound)
    passed = {k.arg for k in call.keywords}
    for keyword in call.keywords:
        if keyword.arg is not None and keyword.arg not in taken:
            yield keyword, [name for name in taken if name not in passed]


def _functions(body: list[ast.stmt]) -> dict[str, _Function]:
    return {f.name: f for f in body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _classes(tree: ast.Module) -> Iterator[ast.ClassDef]:
    return (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef))


def _keyword_parameters(function: _Function, *, bound: bool) -> list[str]:
    """The parameters a call may pass by keyword (a bound method's first one aside)."""
    named = function.args.args[1:] if bound else function.args.args
    return [a.arg for a in [*named, *function.args.kwonlyargs]]


def _respelling(
    path: str,
    score: float,
    source: tuple[str, list[str]],
    keyword: ast.keyword,
    taken: list[str],
) -> list[Candidate]:
    """The keyword spelt as the closest parameter its function takes, if one is close."""
    text, lines = source
    name = keyword.arg or ""
    match = next(iter(closest(name, sorted(taken))), None)
    span = node_span(keyword, lines)
    if span is None or match is None:
        return []
    where = (span[0], span[1], span[0], span[1] + len(name))
    return [
        Candidate(
            "keyword-typo",
            f"replace the keyword `{name}=` (its function takes no such parameter) with "
            f"`{match.name}=` at {path}:{span[0]}",
            [FileEdit(path, replace_span(text, where, match.name))],
            round(score * closeness(match.distance, name), 4),
        )
    ]
