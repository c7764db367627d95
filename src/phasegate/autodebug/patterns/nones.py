"""None where a value was needed: an attribute of None, None called, subscripted, iterated or
used as an operand.

Which expression was None is read from the syntax at the failing span and confirmed with the
frame's live values. Then its origin is traced through the code, because that is where the
repair goes:

* the result of a project function that ends without ``return`` (a decorator that forgets
  ``return wrapper`` is one): return the value it built;
* an in-place method's result (``items = items.sort()``): call it as a statement, or use
  ``sorted()``;
* a variable or attribute initialised to ``None`` and used as a list, dict, set, string or
  number: initialise it to an empty one;
* a parameter whose default is None: give it its empty value when it is None;
* ``dict.get(key)``: index the dict, or give ``get`` a default.

The candidates themselves are built in :mod:`.none_repairs`.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from phasegate.autodebug.diagnosis import Candidate, Diagnosis
from phasegate.autodebug.live import project_path, resolve_expr
from phasegate.autodebug.patterns.base import diagnose, short
from phasegate.autodebug.patterns.none_guards import guard_synthesis
from phasegate.autodebug.patterns.none_repairs import (
    INPLACE_METHODS,
    empty_values,
    get_candidates,
    guard_candidates,
    inplace_candidates,
    literal_candidates,
    return_candidates,
    typed,
)
from phasegate.autodebug.source import (
    enclosing_function,
    node_span,
)

if TYPE_CHECKING:
    from phasegate.autodebug.live import LiveFailure, LiveFrame
    from phasegate.autodebug.project import Project

__all__ = ["NonePattern"]

_MISSING = object()

_USAGE_PHRASES = {
    "attribute-of-none": "its attribute `{usage}` is read",
    "none-called": "it is called",
    "none-subscripted": "it is subscripted",
    "none-iterated": "it is iterated over",
    "none-operand": "it is an operand of `{usage}`",
    "none-argument": "it is passed to `{usage}`",
    "none-compared": "an assertion compares it",
}


class NonePattern:
    """A value that is None where the code needs something else."""

    name = "none"
    error_class = "none"

    def classify(self, failure: LiveFailure) -> Diagnosis | None:
        exc = failure.exc
        frame = failure.project_frame
        if isinstance(exc, AssertionError):
            return self._compared(failure)
        if isinstance(exc, AttributeError):
            if getattr(exc, "obj", _MISSING) is not None or not isinstance(
                getattr(exc, "name", None), str
            ):
                return None
        elif not isinstance(exc, TypeError):
            return None
        found = _none_expression(failure, frame) if frame is not None else None
        if found is None:
            if isinstance(exc, AttributeError) or "'NoneType'" in str(exc):
                return diagnose(self, failure, frame, kind="none-other", facts={})
            return None
        kind, expr, usage = found
        assert frame is not None  # _none_expression needs one
        facts: dict[str, Any] = {"expr": ast.unparse(expr), "usage": usage}
        facts["source"] = _origin(failure, frame, expr)
        return diagnose(self, failure, frame, kind=kind, facts=facts, node=expr)

    def _compared(self, failure: LiveFailure) -> Diagnosis | None:
        """``assert f(x) == value`` (or ``self.assertEqual(f(x), value)``) where ``f`` can only
        return None: a None, not an assertion.

        Only when the code proves it: the project function has no ``return`` with a value
        (or returns a name it bound to an in-place method's result), and the assertion does
        not compare with None on purpose.
        """
        found = _compared_sides(failure)
        if found is None:
            return None
        frame, sides = found
        if any(isinstance(side, ast.Constant) and side.value is None for side in sides):
            return None
        for side in sides:
            if isinstance(side, ast.Call):
                source = _always_none(failure, frame, side)
                if source:
                    facts = {"expr": ast.unparse(side), "usage": "==", "source": source}
                    return diagnose(
                        self, failure, frame, kind="none-compared", facts=facts, node=side
                    )
        return None

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        source: dict[str, Any] = diagnosis.facts.get("source") or {}
        how = source.get("how")
        empties = empty_values(diagnosis.kind, diagnosis.facts.get("usage"))
        candidates: list[Candidate] = []
        if how in ("call", "decorator"):
            candidates = return_candidates(diagnosis, project, source)
        elif how == "inplace":
            candidates = inplace_candidates(diagnosis, project, source)
        elif how in ("literal", "attribute"):
            candidates = literal_candidates(project, source, empties)
        elif how == "parameter":
            candidates = guard_candidates(diagnosis, project, source, empties)
        elif how == "dict-get":
            candidates = get_candidates(project, source, typed(empties, source.get("value_type")))
        if diagnosis.kind in ("none-compared", "none-other"):
            return candidates
        guards = guard_synthesis(diagnosis, project, empties)
        if candidates and how != "parameter":
            # The None's origin is a fault of its own (a lost `return`...): a guard where it is
            # used would hide it, so it comes after the repairs of the origin.
            for guard in guards:
                guard.score *= 0.8
        return [*candidates, *guards]

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        facts = diagnosis.facts
        usage = _USAGE_PHRASES.get(diagnosis.kind, "it is used").format(usage=facts.get("usage"))
        head = (
            f"{short(diagnosis.exc_type)}: `{facts.get('expr', 'a value')}` is None where {usage}"
        )
        source = facts.get("source") or {}
        origin = {
            "call": f"it is what `{source.get('callee')}` returns, which can end without a value",
            "decorator": f"the decorator `{source.get('callee')}` returns nothing, so the "
            "decorated name is None",
            "inplace": f"`{source.get('method')}()` works in place and returns None",
            "literal": f"it is set to None at {source.get('path')}:{source.get('line')}",
            "attribute": f"it is set to None at {source.get('path')}:{source.get('line')}",
            "parameter": f"it is the parameter `{source.get('name')}`, whose default is None",
            "dict-get": "`dict.get()` returns None for a missing key",
        }.get(str(source.get("how")), "")
        text = f"{head}; {origin}" if origin else head
        if candidate is None:
            return f"{text}; no repair found"
        return f"{text}; {candidate.description}"


# -- which expression was None ---------------------------------------------------------------

_ORDERINGS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}

#: unittest's assertions that compare two values for equality, as ``assert a == b`` does.
_EQUALITY_ASSERTIONS = frozenset(
    {
        "assertEqual",
        "assertEquals",
        "assertNotEqual",
        "assertListEqual",
        "assertTupleEqual",
        "assertDictEqual",
        "assertSetEqual",
        "assertSequenceEqual",
        "assertCountEqual",
        "assertMultiLineEqual",
        "assertAlmostEqual",
    }
)


def _compared_sides(failure: LiveFailure) -> tuple[LiveFrame, list[ast.expr]] | None:
    """The innermost project frame's equality assertion and the values it compares.

    ``assert a == b`` raises in the test's own frame; ``self.assertEqual(a, b)`` raises inside
    unittest, so the frames outside the project are passed over first.
    """
    frame = failure.project_frame
    if frame is None:
        return None
    node = failure.node_at(frame, (ast.Assert,))
    if isinstance(node, ast.Assert):
        test = node.test
        if isinstance(test, ast.Compare) and all(
            isinstance(op, (ast.Eq, ast.NotEq)) for op in test.ops
        ):
            return frame, [test.left, *test.comparators]
        return None
    if frame is failure.innermost:
        return None  # an AssertionError the project raised itself
    call = failure.node_at(frame, (ast.Call,))
    if (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in _EQUALITY_ASSERTIONS
        and len(call.args) >= 2
    ):
        return frame, list(call.args[:2])
    return None


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _is_none(failure: LiveFailure, frame: LiveFrame, node: ast.AST) -> bool | None:
    """True/False when the value is known, None when it cannot be found without running code."""
    ok, value = resolve_expr(failure, frame, node)
    return (value is None) if ok else None


def _none_expression(
    failure: LiveFailure, frame: LiveFrame
) -> tuple[str, ast.expr, str | None] | None:
    exc = failure.exc
    tree = failure.tree(frame.filename)
    node = failure.node_at(frame, (ast.expr,))
    if tree is None:
        return None
    says_none = "'NoneType'" in str(exc)
    loop = failure.node_at(frame, (ast.For, ast.AsyncFor))
    # Python 3.11 places a failing loop's iteration at the whole `for` statement.
    if (
        not isinstance(node, ast.expr)
        and isinstance(loop, (ast.For, ast.AsyncFor))
        and (_is_none(failure, frame, loop.iter) or says_none)
    ):
        return "none-iterated", loop.iter, None
    if not isinstance(node, ast.expr):
        return None
    parents = _parents(tree)
    if isinstance(exc, AttributeError):
        if isinstance(node, ast.Attribute) and node.attr == exc.name:
            return "attribute-of-none", node.value, exc.name
        return None
    if isinstance(node, ast.Call):
        if _is_none(failure, frame, node.func) or (says_none and "not callable" in str(exc)):
            return "none-called", node.func, None
        for arg in node.args:
            if _is_none(failure, frame, arg):
                return "none-argument", arg, ast.unparse(node.func)
    if isinstance(node, ast.Subscript) and (_is_none(failure, frame, node.value) or says_none):
        return "none-subscripted", node.value, None
    if isinstance(node, (ast.BinOp, ast.AugAssign)):
        op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}.get(
            type(node.op), "an operator"
        )
        usage = op if isinstance(node, ast.BinOp) else f"{op}="
        pairs = (
            [node.left, node.right] if isinstance(node, ast.BinOp) else [node.target, node.value]
        )
        known = [(operand, _is_none(failure, frame, operand)) for operand in pairs]
        for operand, none in known:
            if none:
                return "none-operand", operand, usage
        # A call's result cannot be read back; if it is the only operand not known to be a
        # value, and CPython says an operand is None, it is that one.
        unknown = [operand for operand, none in known if none is None]
        if says_none and len(unknown) == 1:
            return "none-operand", unknown[0], usage
    if isinstance(node, ast.Compare) and isinstance(node.ops[-1], (ast.In, ast.NotIn)):
        container = node.comparators[-1]
        none = _is_none(failure, frame, container)
        if none or (none is None and says_none):
            return "none-iterated", container, None
    if isinstance(node, ast.Compare) and says_none:
        # `time < link.expires` with `time` None: an ordering has no meaning for None.
        operands = [node.left, *node.comparators]
        for operand in operands:
            if _is_none(failure, frame, operand):
                return "none-operand", operand, _ORDERINGS.get(type(node.ops[0]), "<")
    parent = parents.get(id(node))
    if (
        isinstance(parent, (ast.For, ast.comprehension))
        and parent.iter is node
        and (_is_none(failure, frame, node) or says_none)
    ):
        return "none-iterated", node, None
    return None


# -- where it came from ----------------------------------------------------------------------


def _function_at(
    tree: ast.Module, frame: LiveFrame
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    return enclosing_function(tree, frame.line) if frame.function != "<module>" else None


def _callee_facts(failure: LiveFailure, frame: LiveFrame, func: ast.expr) -> dict[str, Any] | None:
    ok, callee = resolve_expr(failure, frame, func)
    if not ok and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
        # `Tokenizer(text).vocabulary()`: the method is looked up on the class called.
        made, cls = resolve_expr(failure, frame, func.value.func)
        if made and isinstance(cls, type):
            import inspect

            try:
                callee, ok = inspect.getattr_static(cls, func.attr), True
            except AttributeError:
                ok = False
    target = getattr(callee, "__func__", callee) if ok else None
    code = getattr(target, "__code__", None)
    if code is None:
        return None
    return {
        "callee": ast.unparse(func),
        "path": project_path(code.co_filename, failure.root),
        "line": code.co_firstlineno,
        "function": code.co_name,
    }


def _origin(failure: LiveFailure, frame: LiveFrame, expr: ast.expr) -> dict[str, Any]:
    tree = failure.tree(frame.filename)
    if tree is None:
        return {}
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr == "get"
    ):
        return _get_origin(failure, frame, expr)
    if isinstance(expr, ast.Call):
        facts = _callee_facts(failure, frame, expr.func)
        return {"how": "call", **facts} if facts and facts["path"] else {}
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        return _attribute_origin(failure, frame, expr)
    if not isinstance(expr, ast.Name):
        return {}
    found = failure.lookup(frame, expr.id)
    scope_node: ast.AST | None = (
        _function_at(tree, frame) if found and found[0] == "local" else tree
    )
    if scope_node is None:
        return {}
    if isinstance(scope_node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        parameter = _none_default(scope_node, expr.id)
        if parameter:
            return {
                "how": "parameter",
                "name": expr.id,
                "path": frame.path,
                "function_line": scope_node.lineno,
            }
    if isinstance(scope_node, ast.Module):
        decorated = _decorator_origin(failure, frame, expr.id, scope_node)
        if decorated:
            return decorated
    assignment = _last_assignment(scope_node, expr.id, frame.line)
    if assignment is None:
        return {}
    value = assignment.value
    where = {"path": frame.path, "line": assignment.lineno}
    if isinstance(value, ast.Constant) and value.value is None:
        span = node_span(value, failure_lines(failure, frame))
        return {
            "how": "literal",
            **where,
            "span": list(span) if span else None,
            "name": expr.id,
        }
    if isinstance(value, ast.Call):
        facts = _callee_facts(failure, frame, value.func)
        if facts and facts["path"]:
            return {"how": "call", **facts}
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        if value.func.attr in INPLACE_METHODS:
            return {"how": "inplace", **where, "method": value.func.attr, "target": expr.id}
        if value.func.attr == "get" and len(value.args) == 1:
            return _get_origin(failure, frame, value)
    if isinstance(value, ast.Call):
        facts = _callee_facts(failure, frame, value.func)
        if facts and facts["path"]:
            return {"how": "call", **facts}
    return {}


def _decorator_origin(
    failure: LiveFailure, frame: LiveFrame, name: str, module: ast.Module
) -> dict[str, Any]:
    """A module-level name that is None because its decorator returns nothing.

    The decorated definition is in this module, or in the module it was imported from
    (followed through re-exports, as ``from .shapes import f`` in a package's ``__init__``).
    """
    return _decorated(failure, frame.frame.f_globals, name, module, depth=0)


def _decorated(
    failure: LiveFailure, namespace: dict[str, Any], name: str, tree: ast.Module | None, depth: int
) -> dict[str, Any]:
    import importlib.util
    import sys

    if tree is None or depth > 5:
        return {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            for decorator in stmt.decorator_list:
                func = decorator.func if isinstance(decorator, ast.Call) else decorator
                value = namespace.get(func.id) if isinstance(func, ast.Name) else None
                code = getattr(value, "__code__", None)
                path = project_path(code.co_filename, failure.root) if code else None
                if code is not None and path is not None:
                    return {
                        "how": "decorator",
                        "callee": ast.unparse(func),
                        "path": path,
                        "line": code.co_firstlineno,
                        "function": code.co_name,
                    }
            return {}
        if not isinstance(stmt, ast.ImportFrom):
            continue
        for alias in stmt.names:
            if (alias.asname or alias.name) != name:
                continue
            try:
                module_name = importlib.util.resolve_name(
                    "." * stmt.level + (stmt.module or ""), namespace.get("__package__")
                )
            except (ImportError, ValueError):
                return {}
            source = sys.modules.get(module_name)
            filename = getattr(source, "__file__", None)
            if source is None or filename is None:
                return {}
            return _decorated(failure, vars(source), alias.name, failure.tree(filename), depth + 1)
    return {}


def _own_nodes(body: list[ast.stmt]) -> list[ast.AST]:
    """The nodes of a function body, without those of nested functions and classes."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return found


def _always_none(failure: LiveFailure, frame: LiveFrame, call: ast.Call) -> dict[str, Any]:
    """Where a project function called here gets its None from, if it can return nothing else."""
    facts = _callee_facts(failure, frame, call.func)
    if not facts or not facts["path"]:
        return {}
    tree = failure.tree(str(failure.root / facts["path"]))
    if tree is None:
        return {}
    function = next(
        (
            node
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name == facts["function"]
            and node.lineno <= facts["line"] <= (node.body[0].lineno if node.body else node.lineno)
        ),
        None,
    )
    if function is None:
        return {}
    nodes = _own_nodes(function.body)
    if any(isinstance(node, (ast.Yield, ast.YieldFrom)) for node in nodes):
        return {}
    returns = [node for node in nodes if isinstance(node, ast.Return)]
    values = [r.value for r in returns if not (r.value is None or _is_none_literal(r.value))]
    if not values:
        return {"how": "call", **facts}
    names = {v.id for v in values if isinstance(v, ast.Name)}
    if len(names) != 1 or len(values) != len(returns):
        return {}
    (name,) = names
    assignment = _last_assignment(function, name, returns[-1].lineno)
    value = assignment.value if assignment is not None else None
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in INPLACE_METHODS
        and assignment is not None
    ):
        return {
            "how": "inplace",
            "path": facts["path"],
            "line": assignment.lineno,
            "method": value.func.attr,
            "target": name,
        }
    return {}


def _is_none_literal(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _get_origin(failure: LiveFailure, frame: LiveFrame, call: ast.Call) -> dict[str, Any]:
    """``mapping.get(key)`` gave None; note the type the mapping's values have, if one."""
    span = node_span(call, failure_lines(failure, frame))
    found: dict[str, Any] = {"how": "dict-get", "path": frame.path, "line": call.lineno}
    found["span"] = list(span) if span else None
    if isinstance(call.func, ast.Attribute):
        ok, mapping = resolve_expr(failure, frame, call.func.value)
        if ok and isinstance(mapping, dict) and mapping:
            types = {type(v).__name__ for v in mapping.values()}
            found["value_type"] = types.pop() if len(types) == 1 else None
    return found


def failure_lines(failure: LiveFailure, frame: LiveFrame) -> list[str]:
    """The source lines of the frame's file, as the AST sees them."""
    import linecache

    del failure
    return linecache.getlines(frame.filename)


def _none_default(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    args = function.args
    plain = [*args.posonlyargs, *args.args]
    pairs = list(zip(plain[len(plain) - len(args.defaults) :], args.defaults, strict=True))
    pairs += [
        (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None
    ]
    return any(a.arg == name and isinstance(d, ast.Constant) and d.value is None for a, d in pairs)


def _last_assignment(scope: ast.AST, name: str, before: int) -> ast.Assign | ast.AnnAssign | None:
    best: ast.Assign | ast.AnnAssign | None = None
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        else:
            continue
        if node.lineno >= before or not any(
            isinstance(t, ast.Name) and t.id == name for t in targets
        ):
            continue
        if best is None or node.lineno > best.lineno:
            best = node
    return best


def _attribute_origin(
    failure: LiveFailure, frame: LiveFrame, expr: ast.Attribute
) -> dict[str, Any]:
    """``self.items`` is None: find ``self.items = None`` in the class's file."""
    ok, base = resolve_expr(failure, frame, expr.value)
    if not ok:
        return {}
    import inspect

    try:
        filename = inspect.getsourcefile(type(base))
    except (TypeError, OSError):
        return {}
    path = project_path(filename, failure.root) if filename else None
    tree = failure.tree(filename) if filename else None
    if path is None or tree is None or filename is None:
        return {}
    import linecache

    lines = linecache.getlines(filename)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and node.value.value is None
            and any(isinstance(t, ast.Attribute) and t.attr == expr.attr for t in node.targets)
        ):
            span = node_span(node.value, lines)
            return {
                "how": "attribute",
                "name": expr.attr,
                "path": path,
                "line": node.lineno,
                "span": list(span) if span else None,
            }
    return {}
