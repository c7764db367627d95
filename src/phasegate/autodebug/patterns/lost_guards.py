"""A lost ``if x is None: ...`` guard, found where the None flows on instead of failing.

When a guard is deleted, the None it stopped often does not fail where it is used: it
flows on, and a test sees a wrong value, another exception, or no exception where it waits
for one (``pytest.raises``). Such a failure is an assertion or "other", which the patterns do
not repair; it is localized instead (Ochiai over per-test coverage, :mod:`..localize`). This
module turns that ranking into candidates: in each of the most suspicious functions, the
values that may be None and that nothing there tests any more, each guarded the ways the
project shows:

* **what** may be None, likeliest first: a parameter whose default is None; an attribute of
  ``self`` that the class sets to None; an attribute of a parameter that the file tests
  against None elsewhere (``dt.tzinfo``); a local set from a call that can give None
  (``d.get(k)``, ``re.match(...)``, ``getattr(o, n, None)``); any other parameter;
* **how** it is guarded: ``raise`` of the exception the failing test waits for (as the
  project raises it, where it does); the bodies :mod:`.none_guards` synthesizes (the project's
  own guards of that name, the function's other returns, a default); ``return self`` in a
  descriptor's ``__get__``.

Each guard goes at the top of the function (after the docstring), or right after the
statement that set a local, and right before the statement that first reads the value (inside
the blocks that statement is in: ``if tz is None:`` then ``tz = dt.tzinfo``). The tests decide
which is right, as for every candidate.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from phasegate.autodebug.diagnosis import Candidate, Diagnosis, FileEdit
from phasegate.autodebug.patterns.base import best_per_edit
from phasegate.autodebug.patterns.expected_texts import expected_text_bodies
from phasegate.autodebug.patterns.expressions import called_name
from phasegate.autodebug.patterns.functions import (
    first_statement,
    functions_in,
    is_none,
    parameter_defaults,
    parameters,
)
from phasegate.autodebug.patterns.guard_names import cannot_go_at, names_read
from phasegate.autodebug.patterns.namesake_raises import namesake_raises
from phasegate.autodebug.patterns.none_guards import (
    best_first,
    blocks_held,
    guard_block,
    guard_bodies,
    guard_top,
)
from phasegate.autodebug.patterns.none_parameters import (
    FunctionIndex,
    compared_with_none,
    function_index,
    guarded_by_namesakes,
    passed_on,
)
from phasegate.autodebug.patterns.none_sources import (
    attributes_set_from_none_defaults,
    calls_one_of,
    functions_returning_none,
    is_self_attribute,
    stored_from_none_defaults,
)
from phasegate.autodebug.source import (
    enclosing_function,
    insert_lines,
    line_indent,
    parse,
    split_lines,
)

if TYPE_CHECKING:
    from phasegate.autodebug.project import EditableSource, Project
    from phasegate.model.autodebug import SuspiciousFunction

__all__ = ["SUSPECTS_READ", "caller_guards", "expected_exception", "lost_guard_candidates"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef
#: The suspicious functions looked into, best first.
_FUNCTIONS = 4
#: The suspects (by Ochiai) read for the values likely None that choose those looked into.
SUSPECTS_READ = 50
#: How likely a value must be None (a None default, a namesake's guard) to put its function
#: before likelier suspects whose values are only plain parameters (0.6).
_LIKELY = 0.8
#: The functions a test called where it waited for an exception, looked into.
_WAITED_ON = 3
#: Bodies tried per value.
_BODIES = 4
#: How likely a parameter defaulting to None that another method stores in an attribute the
#: function reads is the None (as likely as the attribute itself).
_STORED = 0.85
#: Calls whose result may be None by design.
_MAYBE_NONE_CALLS = frozenset({"get", "match", "search", "fullmatch", "getattr", "pop", "find"})
#: The calls a test waits for an exception with.
_WAITING_CALLS = frozenset({"raises", "assertRaises", "assertRaisesRegex"})
_DID_NOT_RAISE = re.compile(
    r"DID NOT RAISE (?:<class '(?P<cls>[\w.]+)'>|(?P<name>[\w.]+))|^(?P<unittest>\w+) not raised"
)


def expected_exception(diagnosis: Diagnosis) -> str | None:
    """The exception a failing ``pytest.raises`` (``DID NOT RAISE <class ...>``) or unittest's
    ``assertRaises`` (``TypeError not raised``) waited for."""
    found = _DID_NOT_RAISE.search(diagnosis.message.strip())
    if found is None:
        return None
    name = found.group("cls") or found.group("name") or found.group("unittest") or ""
    return name.rpartition(".")[2] or None


def lost_guard_candidates(
    diagnosis: Diagnosis, project: Project, suspicious: Sequence[SuspiciousFunction]
) -> list[Candidate]:
    """Guards put back in the most suspicious functions, best first.

    The function the failure was raised in, and a function with a parameter seen None in a
    frame of the failure (``none_parameters`` of the diagnosis), are looked into even when the
    ranking missed them; a parameter seen None is the likeliest value.
    """
    expected = expected_exception(diagnosis)
    seen_none = _seen_none(diagnosis, project)
    index = function_index(project)
    places = _places(diagnosis, project, suspicious, seen_none, index)
    stood_for = _stood_for(diagnosis)
    candidates: list[Candidate] = []
    for rank, (path, line, score) in enumerate(places):
        weight = score * (1.0 - 0.02 * rank)
        at = _At(path, line, weight, stood_for)
        candidates += _function_guards(project, index, at, seen_none, expected)
    return best_per_edit(candidates)


def caller_guards(diagnosis: Diagnosis, project: Project) -> list[Candidate]:
    """Guards of a parameter that was None in a caller's frame, in that caller: a None handed
    down from parameter to parameter came in there, and its guard may have been lost there
    rather than where it failed (the None failed as a parameter there, or in a file auto-debug
    may not edit, as the ``self`` of a test's method a descriptor called with a None). Only a
    parameter the call the caller was running reads: one seen None there but not handed down
    is not the None that failed."""
    failing = set(_raised_in(diagnosis, project))
    seen_none = _seen_none(diagnosis, project)
    expr = diagnosis.facts.get("expr")
    if failing and not any(expr in seen_none.get(place, ()) for place in failing):
        return []
    handed_down = _handed_down(diagnosis, project)
    callers = [(place, names) for place, names in handed_down.items() if place not in failing]
    return [
        c for (path, line), names in callers for c in _caller_guards(project, path, line, names)
    ]


def _caller_guards(project: Project, path: str, line: int, names: set[str]) -> list[Candidate]:
    """The guards of the caller defined at ``path:line`` for its parameters seen None that it
    does not test; likelier where its namesakes guard them."""
    source = project.editable_source(path)
    function = _function_at(source.tree, line) if source is not None else None
    if source is None or function is None:
        return []
    likely = guarded_by_namesakes(function_index(project), path, function)
    candidates: list[Candidate] = []
    for name in sorted(names - _tested(function)):
        value = _Value(path, source.text, function, name, None)
        candidates += _guards(project, value, None, 1.02 if name in likely else 0.9)
    return candidates


def _places(
    diagnosis: Diagnosis,
    project: Project,
    suspicious: Sequence[SuspiciousFunction],
    seen_none: dict[tuple[str, int], set[str]],
    index: FunctionIndex,
) -> list[tuple[str, int, float]]:
    """``(path, line of the def, score)`` of the functions looked into: the top suspects
    (except a ``__repr__``), then the function the failure was raised in, then those a
    parameter was seen None in; the latter two as suspicious as the best suspect."""
    looked_into = _looked_into(project, suspicious, index)
    best = max((s.score for s in looked_into), default=1.0)
    places = [(s.path, s.line, best) for s in looked_into]
    raised_in = _raised_in(diagnosis, project)
    waited_on = _called_under_raises(diagnosis, project)
    for path, line in [*raised_in, *waited_on, *seen_none]:
        if all((path, line) != (known, at) for known, at, _ in places):
            places.append((path, line, best))
    return places


def _looked_into(
    project: Project, suspicious: Sequence[SuspiciousFunction], index: FunctionIndex
) -> list[SuspiciousFunction]:
    """The suspects looked into, in order: the most suspicious (Ochiai), then those with a value
    likely None that nothing there tests any more, then the rest.

    Ochiai alone ties the functions every failing test runs (a constructor, a decorator) and
    puts the function that lost its guard far down when passing tests run it too; a value
    that may be None and is no longer tested is what a deleted guard leaves behind.
    """
    usable = [s for s in suspicious if _may_have_lost_one(s, project)]
    sources = {path: project.editable_source(path) for path in {s.path for s in usable}}
    likely = [s for s in usable[1:] if _likeliest_subject(index, sources[s.path], s) >= _LIKELY]
    ordered = {(s.path, s.line): s for s in [*usable[:1], *likely, *usable[1:]]}
    return list(ordered.values())[:_FUNCTIONS]


def _likeliest_subject(
    index: FunctionIndex, source: EditableSource | None, suspect: SuspiciousFunction
) -> float:
    """How likely the likeliest value of the suspect (in ``source``) that may be None is (0 if
    none); ``index`` holds the project's functions by name."""
    function = _function_at(source.tree, suspect.line) if source is not None else None
    if source is None or function is None:
        return 0.0
    subjects = _subjects(source.tree, function, index, suspect.path)
    return max((likelihood for _, likelihood, _ in subjects), default=0.0)


def _may_have_lost_one(suspect: SuspiciousFunction, project: Project) -> bool:
    """Whether a suspect is worth a guard: one auto-debug may edit, and not a ``__repr__``,
    which pytest runs to show the values of a failed assertion, so in failing tests only."""
    return project.editable(suspect.path) and not suspect.function.endswith("__repr__")


def _raised_in(diagnosis: Diagnosis, project: Project) -> list[tuple[str, int]]:
    """``(path, line of the def)`` of the source function the failure was raised in, if any
    (a test's own frame is not editable, so a failed assertion gives none)."""
    path, line = diagnosis.path, diagnosis.line
    source = project.editable_source(path)
    function = enclosing_function(source.tree, line) if source is not None and line else None
    return [(str(path), function.lineno)] if function is not None else []


def _called_under_raises(diagnosis: Diagnosis, project: Project) -> list[tuple[str, int]]:
    """``(path, line of the def)`` of the source functions a test that waited for an exception
    called where it waited: in ``with pytest.raises(...)`` or ``with self.assertRaises(...)``,
    or passed to ``assertRaises``; the function that should have raised is among them."""
    if expected_exception(diagnosis) is None:
        return []
    path, line = _test_place(diagnosis)
    text = project.read(path) if path is not None and project.relpath(path) == path else None
    tree = parse(text) if text is not None else None
    if tree is None or line is None:
        return []
    return _defined(project, _names_called_under_raises(tree, line))[:_WAITED_ON]


def _test_place(diagnosis: Diagnosis) -> tuple[str | None, int | None]:
    """Where the test was: the project frame a library raised under, else the diagnosis."""
    frame = diagnosis.facts.get("project_frame")
    if isinstance(frame, dict):
        path, line = frame.get("path"), frame.get("line")
        if isinstance(path, str) and isinstance(line, int):
            return path, line
    return diagnosis.path, diagnosis.line


def _names_called_under_raises(tree: ast.Module, line: int) -> list[str]:
    """The names of the functions called where the statement at ``line`` waits for an
    exception, in the order called."""
    names = [name for node in ast.walk(tree) if _holds(node, line) for name in _waited_on(node)]
    return list(dict.fromkeys(name for name in names if name))


def _waited_on(node: ast.AST) -> list[str]:
    """The names called in ``with pytest.raises(...):``'s body, or given to ``assertRaises``."""
    if isinstance(node, ast.With):
        return _called_in_raises_block(node)
    if isinstance(node, ast.Call) and _waits(node):
        given = node.args[2 if called_name(node) == "assertRaisesRegex" else 1 :][:1]
        return [ast.unparse(arg).rpartition(".")[2] for arg in given]
    return []


def _called_in_raises_block(node: ast.With) -> list[str]:
    if not any(_waits(item.context_expr) for item in node.items):
        return []
    return [called_name(c) for s in node.body for c in ast.walk(s) if isinstance(c, ast.Call)]


def _holds(node: ast.AST, line: int) -> bool:
    start = getattr(node, "lineno", None)
    return start is not None and start <= line <= (getattr(node, "end_lineno", None) or start)


def _waits(node: ast.expr) -> bool:
    """``pytest.raises(...)``, ``self.assertRaises(...)`` or ``self.assertRaisesRegex(...)``."""
    return isinstance(node, ast.Call) and called_name(node) in _WAITING_CALLS


def _defined(project: Project, names: list[str]) -> list[tuple[str, int]]:
    """``(path, line of the def)`` of the editable source functions of these names, in the
    order of the names."""
    found: dict[str, list[tuple[str, int]]] = {name: [] for name in names}
    for relpath in project.source_files:
        for function in _functions_named(project, relpath, names):
            found[function.name].append((relpath, function.lineno))
    return [place for name in names for place in found[name]]


def _functions_named(project: Project, relpath: str, names: list[str]) -> list[_Function]:
    text = project.read_editable(relpath)
    tree = parse(text) if text is not None and any(n in text for n in names) else None
    return [n for n in functions_in(tree) if n.name in names] if tree is not None else []


class _At(NamedTuple):
    """A function looked into: defined at ``path:line``, how suspicious, and the texts the
    failing test expected where a None showed."""

    path: str
    line: int
    weight: float
    stood_for: tuple[str, ...]


def _stood_for(diagnosis: Diagnosis) -> tuple[str, ...]:
    """The texts a failed assertion expected where the value it got showed ``None``."""
    texts = diagnosis.facts.get("none_stood_for")
    return tuple(texts) if isinstance(texts, list) else ()


def _function_guards(
    project: Project,
    index: FunctionIndex,
    at: _At,
    seen_none: dict[tuple[str, int], set[str]],
    expected: str | None,
) -> list[Candidate]:
    """The guards of every value that may be None in the function ``at`` (``index``: the
    project's functions by name)."""
    path, line, weight = at.path, at.line, at.weight
    source = project.editable_source(path)
    function = _function_at(source.tree, line) if source is not None else None
    if source is None or function is None or not function.body:
        return []
    text, tree = source.text, source.tree
    candidates: list[Candidate] = []
    for subject, likelihood, setter in _subjects(tree, function, index, path):
        boost = 1.3 if subject in seen_none.get((path, function.lineno), ()) else 1.0
        value = _Value(path, text, function, subject, setter, stood_for=at.stood_for)
        candidates += _guards(project, value, expected, weight * likelihood * boost)
    for method, name in _stored_unguarded(tree, function):
        value = _Value(path, text, method, name, None, True, at.stood_for)
        candidates += _guards(project, value, expected, weight * _STORED)
    return candidates


class _SeenNone(NamedTuple):
    """A parameter seen None in a live frame: its file, function, and the line running."""

    path: str
    function: _Function
    line: int
    name: str


def _seen_none_frames(diagnosis: Diagnosis, project: Project) -> list[_SeenNone]:
    """The parameters seen None in the live frames of editable files, innermost first."""
    found: list[_SeenNone] = []
    entries = diagnosis.facts.get("none_parameters")
    for entry in entries if isinstance(entries, list) else []:
        path, line, name = entry.get("path"), entry.get("line"), entry.get("name")
        source = project.editable_source(path) if isinstance(path, str) else None
        if source is None or not isinstance(line, int) or not isinstance(name, str):
            continue
        function = enclosing_function(source.tree, line)
        if function is not None:
            found.append(_SeenNone(str(path), function, line, name))
    return found


def _seen_none(diagnosis: Diagnosis, project: Project) -> dict[tuple[str, int], set[str]]:
    """``{(path, line of the def): parameters seen None}`` from the live frames."""
    found: dict[tuple[str, int], set[str]] = {}
    for seen in _seen_none_frames(diagnosis, project):
        found.setdefault((seen.path, seen.function.lineno), set()).add(seen.name)
    return found


def _handed_down(diagnosis: Diagnosis, project: Project) -> dict[tuple[str, int], set[str]]:
    """Like :func:`_seen_none`, but only the parameters the statement the frame was running
    (the call the None went down by) reads."""
    found: dict[tuple[str, int], set[str]] = {}
    for seen in _seen_none_frames(diagnosis, project):
        if seen.name in _read_at(seen.function, seen.line):
            found.setdefault((seen.path, seen.function.lineno), set()).add(seen.name)
    return found


def _read_at(function: _Function, line: int) -> list[str]:
    """The names the innermost statement of ``function`` running at ``line`` reads."""
    running = [
        stmt
        for stmt in ast.walk(function)
        if isinstance(stmt, ast.stmt) and stmt.lineno <= line <= (stmt.end_lineno or line)
    ]
    return names_read([min(running, key=lambda stmt: (stmt.end_lineno or line) - stmt.lineno)])


def _function_at(tree: ast.Module, line: int) -> _Function | None:
    return next((node for node in functions_in(tree) if node.lineno == line), None)


# -- what may be None --------------------------------------------------------------------------


def _subjects(
    tree: ast.Module, function: _Function, index: FunctionIndex, path: str
) -> list[tuple[str, float, ast.stmt | None]]:
    """``(value, likelihood, statement that set it or None)`` of the values the function reads
    that may be None and that it no longer tests against None (its namesakes from ``index``)."""
    tested = _tested(function)
    read = {ast.unparse(node) for node in ast.walk(function) if _is_read(node)}
    likely = guarded_by_namesakes(index, path, function)
    found = _parameter_subjects(function, read - tested - passed_on(tree, function), likely)
    found += [(a, 0.85, None) for a in sorted(_none_attributes(tree, function) & read - tested)]
    found += [(a, 0.8, None) for a in sorted(_guarded_elsewhere(tree, function) & read - tested)]
    maybe_none = functions_returning_none(tree)
    locals_set = _maybe_none_locals(function, maybe_none)
    found += [(name, 0.8, st) for st, name in locals_set if name not in tested]
    return found


def _parameter_subjects(
    function: _Function, untested_reads: set[str], likely: set[str]
) -> list[tuple[str, float, ast.stmt | None]]:
    """The parameters read and not tested: one whose default is None, or ``likely`` (its
    namesakes guard it), likelier than the rest."""
    defaults = dict(parameter_defaults(function))
    return [
        (name, 1.0 if is_none(defaults.get(name)) or name in likely else 0.6, None)
        for name in sorted(parameters(function) - {"self", "cls"})
        if name in untested_reads
    ]


def _is_read(node: ast.AST) -> bool:
    return isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load)


def _tested(function: _Function) -> set[str]:
    """What the function compares with None, or tests for truth (``if x:``, ``x or y``)."""
    found = compared_with_none(function)
    for node in ast.walk(function):
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            found.update(_truth_tested(node.test))
        elif isinstance(node, ast.BoolOp):
            found.update(ast.unparse(value) for value in node.values)
    return found


def _truth_tested(test: ast.expr) -> set[str]:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, (ast.Name, ast.Attribute)):
        return {ast.unparse(test)}
    return set()


def _stored_unguarded(tree: ast.Module, function: _Function) -> list[tuple[_Function, str]]:
    """``(method, p)`` for each ``self.x = p`` in another method of the function's class that
    the function reads, ``p`` a parameter of that method whose default is None and that
    nothing there tests any more: the None read here came in there (``__init__``)."""
    owner = _owner(tree, function)
    if owner is None:
        return []
    read = {ast.unparse(node) for node in ast.walk(function) if _is_read(node)}
    methods = [method for method in functions_in(owner) if method is not function]
    return [(method, name) for method in methods for name in _unguarded_stores(method, read)]


def _unguarded_stores(method: _Function, read: set[str]) -> list[str]:
    """The parameters defaulting to None that ``method`` stores whole in one of the attributes
    ``read`` and no longer tests."""
    tested = _tested(method)
    stored = stored_from_none_defaults(method).items()
    return [name for attribute, name in stored if attribute in read and name not in tested]


def _owner(tree: ast.Module, function: _Function) -> ast.ClassDef | None:
    """The class whose body defines ``function``, if any."""
    classes = (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))
    return next((cls for cls in classes if function in cls.body), None)


def _none_attributes(tree: ast.Module, function: _Function) -> set[str]:
    """``self.x`` for each attribute the function's class sets to None somewhere."""
    owner = _owner(tree, function)
    if owner is None:
        return set()
    found = {ast.unparse(target) for target in _set_to_none(owner) if is_self_attribute(target)}
    return found | attributes_set_from_none_defaults(owner)


def _set_to_none(scope: ast.AST) -> list[ast.expr]:
    """The targets ``scope`` assigns None to."""
    found: list[ast.expr] = []
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and is_none(node.value):
            found += node.targets
        elif isinstance(node, ast.AnnAssign) and is_none(node.value):
            found.append(node.target)
    return found


def _guarded_elsewhere(tree: ast.Module, function: _Function) -> set[str]:
    """``p.x`` for a parameter ``p`` of the function, where the file tests ``p.x is None``
    elsewhere (``dt.tzinfo``): a value the file knows may be None."""
    params = parameters(function) - {"self", "cls"}
    inside = (function.lineno, function.end_lineno or function.lineno)
    outside = (node for node in _comparisons(tree) if not inside[0] <= node.lineno <= inside[1])
    return {ast.unparse(node.left) for node in outside if _tests_attribute_of(node, params)}


@functools.lru_cache(maxsize=8)
def _comparisons(tree: ast.Module) -> list[ast.Compare]:
    """Every comparison of the file (read once for all the functions of one tree looked into)."""
    return [node for node in ast.walk(tree) if isinstance(node, ast.Compare)]


def _tests_attribute_of(node: ast.Compare, names: set[str]) -> bool:
    """``n.x is None`` for a name ``n`` of ``names``."""
    left = node.left
    return (
        isinstance(left, ast.Attribute)
        and isinstance(left.value, ast.Name)
        and left.value.id in names
        and any(isinstance(op, ast.Is) for op in node.ops)
        and any(is_none(c) for c in node.comparators)
    )


def _maybe_none_locals(
    function: _Function, maybe_none: frozenset[str]
) -> list[tuple[ast.stmt, str]]:
    """Locals set (in the function's top-level statements) from a call that can give None:
    ``m = re.match(...)``, ``rv = self.find_object(t)`` of a function of the file in
    ``maybe_none``, and each name of ``k, v = next(it, (None, None))``."""
    calls = _MAYBE_NONE_CALLS | maybe_none
    return [(st, name) for st in function.body for name in _maybe_none_names(st, calls)]


def _maybe_none_names(statement: ast.stmt, calls: frozenset[str]) -> list[str]:
    """``m`` of ``m = re.match(...)`` (a call of one of ``calls``); each name of
    ``k, v = next(it, (None, None))``."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return []
    target, call = statement.targets[0], statement.value
    if not isinstance(call, ast.Call):
        return []
    if isinstance(target, ast.Name):
        return [target.id] if calls_one_of(call, calls) else []
    return _names_of_tuple(target) if _defaults_to_nones(call) else []


def _names_of_tuple(target: ast.expr) -> list[str]:
    """The names a tuple target binds (``k, v``)."""
    elements = target.elts if isinstance(target, ast.Tuple) else []
    return [element.id for element in elements if isinstance(element, ast.Name)]


def _defaults_to_nones(call: ast.Call) -> bool:
    """``next(it, (None, None))``: a call whose fallback is a tuple of Nones."""
    fallback = call.args[-1] if call.args else None
    return (
        called_name(call) in {"next", "get", "getattr", "pop"}
        and isinstance(fallback, ast.Tuple)
        and bool(fallback.elts)
        and all(is_none(element) for element in fallback.elts)
    )


# -- how it is guarded -------------------------------------------------------------------------


class _Value(NamedTuple):
    """A value that may be None in a function, and the statement that set it (if a local)."""

    path: str
    text: str
    function: _Function
    subject: str
    setter: ast.stmt | None
    #: Whether its guard goes right before its first use first (a parameter stored whole).
    at_use_first: bool = False
    #: The texts the failing test expected where the None showed (:mod:`.expected_texts`).
    stood_for: tuple[str, ...] = ()


def _guards(
    project: Project, value: _Value, expected: str | None, weight: float
) -> list[Candidate]:
    """``if value is None: body`` for the likeliest bodies, at each place it may go."""
    places = _guard_places(value)
    lines = split_lines(value.text)
    candidates: list[Candidate] = []
    for body, score, why in _bodies(project, value, expected)[:_BODIES]:
        for order, (where, indent_line, how) in enumerate(places):
            if cannot_go_at(body, value.function, where):
                continue
            block = guard_block(value.subject, body, line_indent(lines[indent_line - 1]))
            candidates.append(
                Candidate(
                    "none-guard",
                    f"put back `if {value.subject} is None: {'; '.join(body.splitlines())}` in "
                    f"`{value.function.name}` at {value.path}:{where} ({why}{how}; the None "
                    "flows on from there)",
                    [FileEdit(value.path, insert_lines(value.text, where, block))],
                    round(weight * score - 0.03 * order, 4),
                )
            )
    return candidates


def _guard_places(value: _Value) -> list[tuple[int, int, str]]:
    """``(line to insert at, line whose indent to take, how to say it)``: after the statement
    that set the value (or at the top), and right before the statement that first reads it,
    inside the blocks that statement is in; the latter first for a parameter or an attribute
    of one, and for a parameter the method stores whole (``self.x = x``), whose guard goes
    with the store. Of the 2,875 ``if p is None:`` guards of a parameter in 54 installed
    packages the real-code benchmark never draws from, 415 are where the two places meet;
    where they part, 541 are right before the first use and 355 at the top
    (``benchmarks/guard_places.py``)."""
    function, subject, setter = value.function, value.subject, value.setter
    places = [_after_setter(value)]
    at = places[0][0]
    use = _first_use(function, subject)
    if use is None or use.lineno == at or (setter is not None and use.lineno < at):
        return places
    before_use = (use.lineno, use.lineno, ", before its first use")
    if value.at_use_first or (setter is None and subject.split(".")[0] in parameters(function)):
        return [before_use, *places]
    return [*places, before_use]


def _after_setter(value: _Value) -> tuple[int, int, str]:
    """Right after the statement that set the value, or at the top of the function (past
    the functions it defines and the modules it imports first that do not read the value)."""
    setter = value.setter
    if setter is not None:
        return (setter.end_lineno or setter.lineno) + 1, setter.lineno, ""
    top = guard_top(value.function, value.subject).lineno
    return top, top, ""


def _bodies(project: Project, value: _Value, expected: str | None) -> list[tuple[str, float, str]]:
    """``(body, likelihood, why)`` of the guard's bodies, likeliest first, each once."""
    function, subject = value.function, value.subject
    bodies = _raising_expected(project, value, expected)
    # The project's own guard of this value raising what the test waits for is the likeliest.
    line = value.setter.lineno + 1 if value.setter is not None else first_statement(function).lineno
    for body, score, why in guard_bodies(project, value.path, function, subject, line, []):
        raises_expected = expected is not None and body.startswith(f"raise {expected}")
        bodies.append((body, 0.97 if raises_expected else score, why))
    bodies += expected_text_bodies(project, value.path, subject, list(value.stood_for))
    if value.setter is None:
        why = "returning unchanged what its result is made from"
        bodies += [(f"return {name}", 0.72, why) for name in _inputs(function, subject)]
    return best_first(bodies)


def _raising_expected(
    project: Project, value: _Value, expected: str | None
) -> list[tuple[str, float, str]]:
    """``raise`` of the exception the test waits for, if it waits for one: as the function or
    its file raises it, or as the function's namesakes raise on a None."""
    if expected is None:
        return []
    why = f"the test waits for {expected}"
    bodies = [(body, 0.95, why) for body in _raises(value.text, value.function, expected)]
    project_raises = namesake_raises(project, value.path, value.function)
    why = f"the test waits for {expected}, as the function's namesakes raise on a None"
    return [*bodies, *[(body, 0.96, why) for body in project_raises]]


def _first_use(function: _Function, subject: str) -> ast.stmt | None:
    """The first statement of the function that reads ``subject`` itself (not in a block it
    holds): for ``if a: x = v.y`` that is ``x = v.y``; nested functions are not looked in."""
    found: ast.stmt | None = None
    blocks: list[list[ast.stmt]] = [function.body]
    while blocks:
        for statement in blocks.pop():
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            inner = blocks_held(statement)
            blocks += inner
            if _reads_itself(statement, subject, inner) and (
                found is None or statement.lineno < found.lineno
            ):
                found = statement
    return found


def _reads_itself(statement: ast.stmt, subject: str, inner: list[list[ast.stmt]]) -> bool:
    """Whether ``statement`` reads ``subject`` outside the blocks it holds."""
    held = {id(node) for block in inner for child in block for node in ast.walk(child)}
    return any(
        _is_read(node) and ast.unparse(node) == subject and id(node) not in held
        for node in ast.walk(statement)
    )


def _inputs(function: _Function, subject: str) -> list[str]:
    """The other parameters the function's returned values are computed from."""
    names = parameters(function) - {"self", "cls", subject}
    found: dict[str, None] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Return) and node.value is not None:
            for child in ast.walk(node.value):
                if isinstance(child, ast.Name) and child.id in names:
                    found.setdefault(child.id)
    return list(found)


def _raises(text: str, function: _Function, expected: str) -> list[str]:
    """``raise`` statements of ``expected``: as the function raises it, then as the file
    does, then bare."""
    tree = parse(text)
    scopes = [function, tree] if tree is not None else [function]
    found = [
        ast.unparse(node)
        for scope in scopes
        for node in ast.walk(scope)
        if isinstance(node, ast.Raise) and _raised_name(node) == expected
    ]
    return list(dict.fromkeys([*found, f"raise {expected}"]))


def _raised_name(node: ast.Raise) -> str | None:
    """The last part of the name of the exception ``raise`` raises (``ValueError`` of
    ``raise errors.ValueError("x")``); None for a bare ``raise``."""
    raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    return ast.unparse(raised).rpartition(".")[2] if raised is not None else None
