"""Candidates for a call that leaves out a required argument: which value, and where it goes.

CPython names the parameter that ended up without a value, which is the *last* one when an
argument in the middle was left out, so every place the argument could go is weighed, with
every value that could fill it:

* the names in scope where the call is made: the frame's locals (a comprehension's or lambda's
  enclosing function's too) and ``self``'s attributes, read where the test ran
  (:func:`visible_values`), unless the call is of a method of ``self``, which reads them itself;
* the arguments the project's other calls of the same function pass at that place; where
  those calls pass the function they are made in (``_get_factory(merge, kwargs)`` inside
  ``merge``), the function the failing call is made in is what they pass; where they pass
  the name their statement assigns the result to (``leftkey = getter(leftkey)``, even beside
  the failing call), the name the failing call's statement assigns, if it is bound there
  (``rightkey = getter()`` becomes ``getter(rightkey)``).

A pair (place, value) is scored by how well the value fits the parameter it would fill: the
same name or the same words (``key`` for ``key``, ``cache_key`` for ``key``), the variable of
the loop or comprehension the call is in, what other calls pass there, the type the
parameter's default or annotation names; and by how well the arguments after it still line up
with the parameters they then reach. The tests decide among the best few.

Hand-written: these are signals of auto-debug's own (names, loops, call sites of one project),
which no library ranks.
"""

from __future__ import annotations

import ast
import builtins
from collections import ChainMap, Counter
from collections.abc import Container, Iterator, Sequence
from typing import TYPE_CHECKING

from phasegate.autodebug.diagnosis import Candidate, Diagnosis, FileEdit
from phasegate.autodebug.live import instance_dict
from phasegate.autodebug.patterns.argument_fit import alignment, fit
from phasegate.autodebug.patterns.call_facts import call_facts
from phasegate.autodebug.patterns.call_repairs import inserted_beside, without_item
from phasegate.autodebug.patterns.expressions import called_name, root_name
from phasegate.autodebug.patterns.functions import parameter_names
from phasegate.autodebug.source import (
    enclosing_function,
    node_span,
    parse,
    replace_span,
    split_lines,
    top_level_names,
)

if TYPE_CHECKING:
    from phasegate.autodebug.live import LiveFailure, LiveFrame
    from phasegate.autodebug.patterns.call_facts import CallFacts, ParameterFacts, ScopeValue
    from phasegate.autodebug.patterns.call_repairs import CallSite, Definition
    from phasegate.autodebug.project import Project

__all__ = ["missing_candidates", "visible_values"]

#: Values proposed per failure: the tests decide among the best few.
_KEPT = 6
#: A loop variable's weight as the left-out argument, by whether its loop reads it elsewhere.
_LOOP_WEIGHT = {True: 0.35, False: 0.8}
#: The weight of what the ``if`` or ``while`` around the call says of a value (its test, for
#: a call in its body; what only its body reads, for a call in its ``else``).
_BRANCH_WEIGHT = 0.5
#: The weight a loop variable gains from a call beside the failing one (:func:`_parallels`).
_PARALLEL_WEIGHT = 0.8
#: What a value loses where a call beside the failing one passes it already.
_BESIDE_PENALTY = 0.3
_SELF_ATTRIBUTES = 40
_POSITIONAL = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")
#: What :func:`_call_sites` records for a call that passes the function it is made in.
_CALLER = "<the calling function>"
_TARGET = "<the name the call's statement assigns>"


# -- where the test ran -----------------------------------------------------------------------


def visible_values(failure: LiveFailure, frame: LiveFrame) -> list[ScopeValue]:
    """The values the failing call could have passed, with their types' names.

    The frame's local names (with the enclosing function's, for a lambda or comprehension),
    and ``self.<attribute>`` for each attribute ``self`` holds, written as the calling code
    would write it (``self.__data`` for the mangled ``_Cache__data`` inside ``Cache``).
    """
    visible = _visible_locals(failure, frame)
    found: list[ScopeValue] = [
        {"name": name, "type": type(value).__name__}
        for name, value in sorted(visible.items())
        if name.isidentifier() and not (name.startswith("__") and name.endswith("__"))
    ]
    qualname = getattr(frame.frame.f_code, "co_qualname", frame.function)
    return found + _self_attributes(visible.get("self"), qualname)


def _visible_locals(failure: LiveFailure, frame: LiveFrame) -> dict[str, object]:
    """The frame's locals; for a lambda or comprehension, over its enclosing function's."""
    visible = dict(frame.frame.f_locals)
    if not frame.function.startswith("<") or frame.function == "<module>":
        return visible
    outer = [
        f for f in failure.frames[: failure.frames.index(frame)] if f.filename == frame.filename
    ]
    return {**outer[-1].frame.f_locals, **visible} if outer else visible


def _self_attributes(owner: object, qualname: str) -> list[ScopeValue]:
    """``self.<attribute>`` for each attribute in ``owner``'s ``__dict__`` (the first 40), as
    code in ``qualname`` writes it."""
    attributes = instance_dict(owner) if owner is not None else {}
    found: list[ScopeValue] = []
    for name, value in sorted(attributes.items())[:_SELF_ATTRIBUTES]:
        written = _as_written(str(name), qualname)
        if written is not None:
            found.append({"name": f"self.{written}", "type": type(value).__name__})
    return found


def _as_written(attribute: str, qualname: str) -> str | None:
    """``__data`` for ``_Cache__data`` when the calling code is inside class ``Cache``."""
    if not attribute.startswith("_") or "__" not in attribute[1:]:
        return attribute if attribute.isidentifier() else None
    owner, _, rest = attribute[1:].partition("__")
    if owner and rest and owner in qualname.split("."):
        return f"__{rest}"
    return attribute


# -- the candidates ---------------------------------------------------------------------------


def missing_candidates(diagnosis: Diagnosis, site: CallSite, project: Project) -> list[Candidate]:
    """The call given its missing argument, or the definition rid of an unused parameter."""
    candidates = _unused_parameter(diagnosis, site.definition)
    missing = call_facts(diagnosis)["missing"]
    path = diagnosis.path
    found = site.editable_call()
    if found is None or path is None or not missing:
        return candidates
    call_text, call = found
    tree = parse(call_text)
    if tree is None:
        return candidates
    facts = call_facts(diagnosis)
    callee = facts["callee"]["text"]
    bound = {entry["name"] for entry in facts["scope"]}
    target = _assigned_names(tree).get((call.lineno, call.col_offset))
    sites, beside, apart = _call_sites(project, callee.rpartition(".")[2], path, call)
    sites = _as_caller(
        sites, {_CALLER: _top_function(tree, call), _TARGET: target if target in bound else None}
    )
    loops = _loop_variables(tree, call)
    parallels = _parallels(beside | apart, loops, bound)
    pool = {**dict.fromkeys(parallels), **_pool(diagnosis, tree, sites)}
    namesakes = _namesakes_of_target(tree, call, pool)
    pool = {**dict.fromkeys(namesakes), **pool}
    near = _near_values(tree, call, [*loops, parallels, namesakes], beside)
    scored = _scored_places(call, facts, pool, sites, near)
    candidates += _added_arguments(diagnosis, call_text, call, scored[:_KEPT])
    candidates += _keyword_only(diagnosis, call_text, call, facts["params"], pool, path)
    return candidates


def _scored_places(
    call: ast.Call,
    facts: CallFacts,
    pool: dict[str, str | None],
    sites: dict[int, Counter[str]],
    near: dict[str, float],
) -> list[tuple[float, int, str]]:
    """Every (score, position, value) the left-out argument could be, the best first: each
    value of the pool at each place up to the first parameter passed by keyword; ``near``
    weighs what the code around the call says of a value (:func:`_near_values`)."""
    positional = [p for p in facts["params"] if p["kind"] in _POSITIONAL]
    passed = [ast.unparse(arg) for arg in call.args]
    wanted = next((i for i, p in enumerate(positional) if p["name"] == facts["missing"][0]), None)
    scored: list[tuple[float, int, str]] = []
    for position in _open_places(call, positional):
        param = positional[position]
        align = alignment(call.args, positional, position) + _site_alignment(
            passed, sites, position
        )
        bonus = 0.02 if position == wanted else 0.0
        sites_here = sites.get(position, Counter())
        scored += [
            (fit(value, kind, param, sites_here, near, passed) + align + bonus, position, value)
            for value, kind in pool.items()
        ]
    return sorted(scored, key=lambda item: (-item[0], item[1], item[2]))


def _site_alignment(passed: list[str], sites: dict[int, Counter[str]], position: int) -> float:
    """How the call's arguments line up with what other calls pass once one is inserted at
    ``position``: each that moves is weighed by whether others pass it at its new place or at
    its old one (``windowed(window_size)``: others pass ``window_size`` second, so the value
    left out goes first)."""
    score = 0.0
    for index, text in enumerate(passed[position:], start=position):
        score += 0.25 * ((text in sites.get(index + 1, ())) - (text in sites.get(index, ())))
    return score


def _open_places(call: ast.Call, positional: list[ParameterFacts]) -> Iterator[int]:
    """The positions the left-out argument could take: each one up to the first parameter the
    call passes by keyword (the parameters from there on are all passed by keyword)."""
    given = {k.arg for k in call.keywords}
    for position in range(min(len(call.args), len(positional) - 1) + 1):
        if positional[position]["name"] in given:
            return
        yield position


def _added_arguments(
    diagnosis: Diagnosis, call_text: str, call: ast.Call, scored: list[tuple[float, int, str]]
) -> list[Candidate]:
    """The call with each scored value inserted at its place."""
    path = diagnosis.path
    if path is None:
        return []
    callee = call_facts(diagnosis)["callee"]["text"]
    lines = split_lines(call_text)
    candidates = []
    for rank, (score, position, value) in enumerate(scored):
        new = _inserted(call_text, lines, call, position, value)
        if new is None:
            continue
        candidates.append(
            Candidate(
                "add-argument",
                f"pass `{value}` as argument {position + 1} of `{callee}()` at "
                f"{path}:{diagnosis.line}",
                [FileEdit(path, new)],
                round(0.5 + 0.4 * min(1.0, max(0.0, score) / 2.0) - 0.001 * rank, 4),
            )
        )
    return candidates


def _unused_parameter(diagnosis: Diagnosis, definition: Definition | None) -> list[Candidate]:
    """The definition without the missing parameter, when its body never reads it."""
    missing = call_facts(diagnosis)["missing"]
    if definition is None or len(missing) != 1:
        return []
    function, wanted = definition.function, missing[0]
    if any(isinstance(n, ast.Name) and n.id == wanted for n in ast.walk(function)):
        return []
    positional = [*function.args.posonlyargs, *function.args.args]
    names = [param.arg for param in positional]
    params: list[ast.AST] = list(positional)
    new = without_item(definition.text, params, names.index(wanted)) if wanted in names else None
    if new is None:
        return []
    return [
        Candidate(
            "remove-parameter",
            f"remove the parameter `{wanted}` of `{function.name}` in {definition.path} "
            "(its body never uses it)",
            [FileEdit(definition.path, new)],
            0.88,
        )
    ]


def _keyword_only(
    diagnosis: Diagnosis,
    call_text: str,
    call: ast.Call,
    params: list[ParameterFacts],
    pool: dict[str, str | None],
    path: str,
) -> list[Candidate]:
    """``name=value`` for a missing keyword-only parameter, or a name in scope spelt alike."""
    span = node_span(call, split_lines(call_text))
    if span is None:
        return []
    missing = set(call_facts(diagnosis)["missing"])
    callee = call_facts(diagnosis)["callee"]["text"]
    candidates = []
    for param in params:
        name, keyword_only = param["name"], param["kind"] == "KEYWORD_ONLY"
        if name not in missing or (not keyword_only and name not in pool):
            continue
        best = sorted(pool, key=lambda value: -fit(value, pool[value], param, Counter(), {}, []))
        candidates += [
            Candidate(
                "add-argument",
                f"pass `{name}={value}` to `{callee}()` at {path}:{span[0]}",
                [FileEdit(path, _keyword_added(call_text, call, span, f"{name}={value}"))],
                (0.75 if keyword_only else 0.55) - (0 if value == name else 0.1) - 0.01 * rank,
            )
            for rank, value in enumerate(best[:2])
        ]
    return candidates


def _keyword_added(
    call_text: str, call: ast.Call, span: tuple[int, int, int, int], keyword: str
) -> str:
    """The text with ``keyword`` (``name=value``) passed last to ``call`` (at ``span``)."""
    closing = (span[2], span[3] - 1, span[2], span[3] - 1)
    separator = ", " if call.args or call.keywords else ""
    return replace_span(call_text, closing, f"{separator}{keyword}")


# -- evidence ------------------------------------------------------------------------------------


def _call_sites(
    project: Project, name: str, path: str, failing: ast.Call
) -> tuple[dict[int, Counter[str]], set[str], set[str]]:
    """What the project's other calls of ``name`` pass at each position (their source text),
    what the calls beside the failing one (in its function) pass, and what those in another
    branch of an ``if`` around it pass: they run when it does not, so they may well pass the
    same value (``if loud: emit(msg, 2) else: emit()``); they are no evidence either way, and
    only lend their loop variables' expressions (:func:`_parallels`)."""
    found: dict[int, Counter[str]] = {}
    if not name:
        return found, set(), set()
    own, apart = _own_lines(project, path, failing)
    failing_place = (failing.lineno, failing.col_offset)
    beside_calls: list[list[str]] = []
    apart_values: set[str] = set()
    for relpath, tree in project.parsed_naming(name, project.python_files):
        for place, values in _calls_of(tree, name):
            if relpath == path and place[0] in apart:
                apart_values.update(values)
                continue
            beside = relpath == path and place[0] in own
            if not (beside and place == failing_place):
                # calls beside it pass other values, or it would not need two: their shape counts
                _count(found, values, only=_TARGET if beside else None)
                beside_calls += [values] if beside else []
    found, beside_values = _without_beside(found, beside_calls)
    return found, beside_values, apart_values - {_TARGET}


def _without_beside(
    found: dict[int, Counter[str]], beside_calls: list[list[str]]
) -> tuple[dict[int, Counter[str]], set[str]]:
    """``found`` without what the calls beside the failing one pass at each place, and what
    they pass: the function calls it there with another value, or it would not need two calls
    (``_sign(self.months)`` beside it and further away: not what ``_sign()`` left out)."""
    beside: set[str] = set()
    for values in beside_calls:
        for position, value in enumerate(values):
            if value != _TARGET:
                found.get(position, Counter()).pop(value, None)
                beside.add(value)
    return found, beside


def _own_lines(project: Project, path: str, failing: ast.Call) -> tuple[set[int], set[int]]:
    """The lines of the function the failing call is made in (of the call, outside one), but
    for those of the other branches of each ``if`` around the call, and those lines."""
    own_tree = parse(project.read(path) or "")
    function = enclosing_function(own_tree, failing.lineno) if own_tree is not None else None
    if function is None:
        return set(range(failing.lineno, (failing.end_lineno or failing.lineno) + 1)), set()
    apart = _other_branches(function, failing.lineno)
    return set(range(function.lineno, (function.end_lineno or function.lineno) + 1)) - apart, apart


def _other_branches(scope: ast.AST, line: int) -> set[int]:
    """The lines of the branch (body or ``else``) of each ``if`` around ``line`` that ``line``
    is not in."""
    lines: set[int] = set()
    for node in ast.walk(scope):
        if isinstance(node, ast.If) and node.orelse:
            spans = [
                range(b[0].lineno, (b[-1].end_lineno or 0) + 1) for b in (node.body, node.orelse)
            ]
            if any(line in span for span in spans):
                lines.update(*(span for span in spans if line not in span))
    return lines


def _calls_of(tree: ast.Module, name: str) -> Iterator[tuple[tuple[int, int], list[str]]]:
    """Each call of ``name`` in ``tree``: its place (line, column) and what it passes."""
    assigned = _assigned_names(tree)
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and called_name(call) == name:
            place = (call.lineno, call.col_offset)
            yield place, _site_values(call, _top_function(tree, call), assigned.get(place))


def _site_values(call: ast.Call, caller: str | None, target: str | None) -> list[str]:
    """What ``call`` passes at each position, up to a ``*args``: the function the call is made
    in (``caller``) as :data:`_CALLER`, the name its statement assigns (``target``) as
    :data:`_TARGET`, any other argument as its text."""
    starred = [i for i, arg in enumerate(call.args) if isinstance(arg, ast.Starred)]
    return [_site_value(arg, caller, target) for arg in call.args[: min(starred, default=None)]]


def _site_value(arg: ast.expr, caller: str | None, target: str | None) -> str:
    if not isinstance(arg, ast.Name):
        return ast.unparse(arg)
    return {caller: _CALLER, target: _TARGET}.get(arg.id, arg.id)


def _count(found: dict[int, Counter[str]], values: list[str], only: str | None) -> None:
    """Count ``values`` at their positions (only the value ``only``, if given)."""
    for position, value in enumerate(values):
        if only is None or value == only:
            found.setdefault(position, Counter())[value] += 1


def _assigned_names(tree: ast.Module) -> dict[tuple[int, int], str]:
    """The name a statement ``name = f(...)`` assigns, by the place of its call."""
    return {
        (node.value.lineno, node.value.col_offset): node.targets[0].id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
    }


def _top_function(tree: ast.Module, call: ast.Call) -> str | None:
    """The name of the module-level function ``call`` is made in (a method's name is not a
    name its body can pass, so methods give None)."""
    function = enclosing_function(tree, call.lineno)
    return function.name if function is not None and function in tree.body else None


def _as_caller(
    sites: dict[int, Counter[str]], meaning: dict[str, str | None]
) -> dict[int, Counter[str]]:
    """The call sites with :data:`_CALLER` and :data:`_TARGET` read as the failing call's
    (``meaning``): the name it would pass where the others pass their own function, or the
    name their statement assigns. One the failing call has not (None) is left out."""
    translated: dict[int, Counter[str]] = {}
    for position, counter in sites.items():
        translated[position] = Counter()
        for text, count in counter.items():
            value = meaning.get(text, text)
            if value is not None:
                translated[position][value] += count
    return translated


def _pool(
    diagnosis: Diagnosis, tree: ast.Module, sites: dict[int, Counter[str]]
) -> dict[str, str | None]:
    """Every value that could be passed: the names in scope, and what other calls pass that
    the call's place can name too."""
    # A method of `self` reads `self`'s attributes itself: they are not what it is passed.
    own_method = call_facts(diagnosis)["callee"]["text"].startswith("self.")
    pool: dict[str, str | None] = {
        entry["name"]: entry["type"]
        for entry in call_facts(diagnosis)["scope"]
        if not (own_method and entry["name"].startswith("self."))
    }
    # A lambda only sees the enclosing names it still reads: the one left out is not among them.
    for name in _enclosing_names(tree, diagnosis.line):
        pool.setdefault(name, None)
    module_names = top_level_names(tree.body)
    for counter in sites.values():
        for text in counter:
            if text not in pool and _starts_from(text, module_names, pool):
                pool[text] = None
    return pool


def _starts_from(text: str, *scopes: Container[str]) -> bool:
    """Whether the expression ``text`` starts from a name of ``scopes`` or a builtin."""
    root = root_name(text)
    return root is not None and (any(root in scope for scope in scopes) or hasattr(builtins, root))


def _enclosing_names(tree: ast.Module, line: int | None) -> list[str]:
    """The parameters and local names of the functions (and lambdas) around ``line`` that
    the calling frame may not show (:func:`_unseen_scopes`)."""
    names: list[str] = []
    for node in _unseen_scopes(tree, line):
        names += parameter_names(node.args)
        body = node.body if isinstance(node.body, list) else [node.body]
        names += [
            n.id
            for statement in body
            for n in ast.walk(statement)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        ]
    return list(dict.fromkeys(names))


def _unseen_scopes(
    tree: ast.Module, line: int | None
) -> list[ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda]:
    """The functions and lambdas whose lines hold ``line``, outermost first, but the innermost
    ``def``: the calling frame's locals are its names, and one of its names they lack is not
    bound where the call is made (``windowed()`` cannot pass the ``n`` set further down)."""
    around = [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        and node.lineno <= (line or 0) <= (node.end_lineno or node.lineno)
    ]
    return around[:-1] if around and not isinstance(around[-1], ast.Lambda) else around


def _near_values(
    tree: ast.Module, call: ast.Call, weighed: list[dict[str, float]], beside: set[str]
) -> dict[str, float]:
    """What the code around the call says of each value: the ``weighed`` values (the
    variables of the loops and comprehensions it is inside, :func:`_parallels`), the locals
    its function sets and never reads, what the ``if`` or ``while`` it is in says of it
    (:func:`_branch_values`), and, less
    than nothing, what the calls ``beside`` it pass."""
    scope = enclosing_function(tree, call.lineno) or tree
    near = _branch_values(scope, call)
    for name, weight in ChainMap(*reversed(weighed)).items():
        near[name] = near.get(name, 0.0) + weight
    for name in _unread_locals(scope):
        near[name] = max(near.get(name, 0.0), _LOOP_WEIGHT[False])
    for value in beside:
        near[value] = near.get(value, 0.0) - _BESIDE_PENALTY
    return near


def _parallels(
    beside: set[str], loops: list[dict[str, float]], bound: set[str]
) -> dict[str, float]:
    """What a call beside the failing one passes of a loop's variable (``vv.__class__``), as
    the same expression of each variable of the innermost loop around the failing call
    (``kk.__class__``), weighed more than the variable: in ``for kk, vv in ...``,
    ``has(vv.__class__)`` beside ``has()`` says what ``has()`` left out. The loop beside may
    be another one (``j`` of ``[... has(j.__class__) ... for j in v]``, not bound here); an
    expression of a name bound here that is no variable of that loop (``self.x``) is not
    read so."""
    innermost = loops[-1] if loops else {}
    found: dict[str, float] = {}
    for text in sorted(beside):
        root = root_name(text)
        if root is None or root == text or (root in bound and root not in innermost):
            continue
        found |= {
            f"{name}{text[len(root) :]}": weight + _PARALLEL_WEIGHT
            for name, weight in innermost.items()
            if name != root
        }
    return found


def _namesakes_of_target(
    tree: ast.Module, call: ast.Call, pool: dict[str, str | None]
) -> dict[str, float]:
    """The values named as the attribute the call's statement sets, case and underscores
    aside: a name in scope (``self.timeout = check(timeout)``) or an attribute the class body
    sets (``self._ampm = self._convert(self.AMPM)``)."""
    word = _set_attribute(tree, call)
    if word is None:
        return {}
    values = [*pool, *(f"self.{name}" for name in _class_attributes(tree, call.lineno))]
    plain = word.strip("_").lower()
    return {
        value: _BRANCH_WEIGHT
        for value in values
        if value.rpartition(".")[2].strip("_").lower() == plain
    }


def _set_attribute(tree: ast.Module, call: ast.Call) -> str | None:
    """The attribute a statement ``obj.attribute = call`` sets."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[-1], ast.Attribute)
            and (node.value.lineno, node.value.col_offset) == (call.lineno, call.col_offset)
        ):
            return node.targets[-1].attr
    return None


def _class_attributes(tree: ast.Module, line: int) -> list[str]:
    """The names the body of the innermost class around ``line`` assigns."""
    classes = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and node.lineno <= line <= (node.end_lineno or line)
    ]
    body = classes[-1].body if classes else []
    return [
        target.id
        for statement in body
        if isinstance(statement, ast.Assign)
        for target in statement.targets
        if isinstance(target, ast.Name)
    ]


def _branch_values(scope: ast.AST, call: ast.Call) -> dict[str, float]:
    """What the innermost ``if`` or ``while`` around the call says of a value: in its body, what
    its test reads (what the block is about: ``if abs(self.minutes) > 59: s = _sign()``) and
    the call's statement does not already use beside the call (``if n > 0: return shout() *
    n`` tests the ``n`` it multiplies by); in its ``else``, what its body reads and the
    ``else`` does not (the body's call passes ``data``'s items, the ``else``'s call left
    ``data`` out)."""
    line = call.lineno
    blocks = [
        node
        for node in ast.walk(scope)
        if isinstance(node, (ast.If, ast.While))
        and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    if not blocks:
        return {}
    block = blocks[-1]
    if block.orelse and block.orelse[0].lineno <= line:
        return dict.fromkeys(_read_values(block.body) - _read_values(block.orelse), _BRANCH_WEIGHT)
    statement = _statement_of(block.body, call)
    beside = _read_values([statement]) - _read_values([call]) if statement else set()
    return dict.fromkeys(_read_values([block.test]) - beside, _BRANCH_WEIGHT)


def _statement_of(body: list[ast.stmt], call: ast.Call) -> ast.stmt | None:
    """The statement of ``body`` whose lines hold ``call``."""
    line = call.lineno
    return next((s for s in body if s.lineno <= line <= (s.end_lineno or s.lineno)), None)


def _read_values(nodes: Sequence[ast.AST]) -> set[str]:
    """The names and attributes ``nodes`` read."""
    return {
        ast.unparse(node)
        for top in nodes
        for node in ast.walk(top)
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load)
    }


def _unread_locals(scope: ast.AST) -> set[str]:
    """The names ``scope`` (a function) sets and never reads (``_`` aside): the left-out
    argument was the one use of such a name (``it = chain(...)`` before
    ``windowed(window_size)``)."""
    return _names(scope, ast.Store) - _names(scope, ast.Load) - {"_"}


def _names(node: ast.AST, context: type[ast.expr_context]) -> set[str]:
    """The names ``node`` reads (``ast.Load``) or sets (``ast.Store``)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, context)}


def _loop_variables(tree: ast.Module, call: ast.Call) -> list[dict[str, float]]:
    """The variables of each loop and comprehension the call is inside (outermost first), with
    their weight: one that nothing in its loop reads weighs more (the left-out argument was
    its one use)."""
    where = (call.lineno, call.col_offset, call.end_lineno, call.end_col_offset)

    def holds(nodes: list[ast.AST]) -> bool:
        return any(
            isinstance(child, ast.Call)
            and (child.lineno, child.col_offset, child.end_lineno, child.end_col_offset) == where
            for node in nodes
            for child in ast.walk(node)
        )

    loops: list[dict[str, float]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.AsyncFor)):
            inside = holds(list(node.body))
            target: ast.AST = node.target
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            inside = holds([node])
            target = ast.Tuple(elts=[g.target for g in node.generators], ctx=ast.Load())
        else:
            continue
        if inside:
            loops.append(_loop_weights(node, target))
    return loops


def _loop_weights(loop: ast.AST, target: ast.AST) -> dict[str, float]:
    """The weight of each variable ``target`` binds: more for one nothing in ``loop`` reads."""
    read = _names(loop, ast.Load)
    bound = [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
    return {name: _LOOP_WEIGHT[name in read] for name in bound}


def _inserted(text: str, lines: list[str], call: ast.Call, position: int, value: str) -> str | None:
    """The call with ``value`` inserted as its positional argument number ``position``."""
    if position < len(call.args):
        return inserted_beside(text, lines, call.args[position], f"{value}, ", after=False)
    if call.args:
        return inserted_beside(text, lines, call.args[-1], f", {value}", after=True)
    if call.keywords:
        return inserted_beside(text, lines, call.keywords[0], f"{value}, ", after=False)
    func = node_span(call.func, lines)
    if func is None:
        return None
    after = func[2:]
    line = lines[after[0] - 1]
    column = line.find("(", after[1])
    if column < 0:
        return None
    return replace_span(text, (after[0], column + 1, after[0], column + 1), value)
