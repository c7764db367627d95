"""The repairs of the None pattern (:mod:`.nones`): where a None came from decides the fix.

* a function that can end without ``return``: return what it built (or the value of its last
  line, or what it was given);
* an in-place method's result: call it as a statement, or use ``sorted()``;
* None as the initial value of a variable or attribute: the empty value its uses call for;
* a parameter whose default is None: give it that empty value when it is None;
* ``dict.get(key)``: a default of the type the dict holds, or indexing.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from phasegate.autodebug.diagnosis import Candidate, Diagnosis, FileEdit
from phasegate.autodebug.patterns.expressions import parsed_expression
from phasegate.autodebug.patterns.functions import defined_at, first_statement, is_docstring
from phasegate.autodebug.source import (
    insert_lines,
    line_indent,
    node_span,
    parse,
    replace_span,
    segment,
    split_lines,
)

if TYPE_CHECKING:
    from phasegate.autodebug.patterns.none_origin import NoneOrigin
    from phasegate.autodebug.project import Project

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

__all__ = [
    "INPLACE_METHODS",
    "empty_values",
    "get_candidates",
    "guard_candidates",
    "inplace_candidates",
    "literal_candidates",
    "return_candidates",
    "typed",
]

INPLACE_METHODS = frozenset(
    {
        "sort",
        "reverse",
        "append",
        "extend",
        "insert",
        "update",
        "clear",
        "add",
        "remove",
        "discard",
        "shuffle",
    }
)
_LIST_METHODS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "sort", "index", "count", "reverse"}
)
_DICT_METHODS = frozenset({"keys", "items", "values", "get", "setdefault", "update", "popitem"})
_SET_METHODS = frozenset({"add", "discard", "union", "intersection", "difference", "issubset"})
_STR_METHODS = frozenset(
    {
        "upper",
        "lower",
        "strip",
        "split",
        "join",
        "format",
        "startswith",
        "endswith",
        "replace",
        "title",
        "encode",
        "splitlines",
        "lstrip",
        "rstrip",
    }
)


_EMPTY_OF_METHODS = (
    (_LIST_METHODS, "[]"),
    (_DICT_METHODS, "{}"),
    (_SET_METHODS, "set()"),
    (_STR_METHODS, '""'),
)
#: The empty value of a None passed to a function that takes one kind only.
_EMPTIES_OF_CALL = {
    "str.join": ('""',),
    "**": ("{}",),
    "*": ("[]", "()"),
    "bytes": ('b""',),
    "str": ('""',),
    "list": ("[]",),
    "dict": ("{}",),
    "tuple": ("()",),
    "int": ("0",),
}
_EMPTIES_OF_KIND = {
    "none-subscripted": ("{}", "[]"),
    "none-iterated": ("[]", '""', "{}"),
    "none-argument": ("[]", '""', "{}"),
}
_EMPTIES_OF_OPERATOR = {
    "+": ("0", '""', "[]"),
    "+=": ("0", '""', "[]"),
    "*": ("1", "0"),
    "*=": ("1", "0"),
    "/": ("1", "0"),
    "/=": ("1", "0"),
}


def empty_values(kind: str, usage: str | None) -> list[str]:
    """The empty values a None used this way most likely stood for, likeliest first."""
    if kind == "attribute-of-none":
        return next(([empty] for methods, empty in _EMPTY_OF_METHODS if usage in methods), [])
    if kind == "none-operand":
        return list(_EMPTIES_OF_OPERATOR.get(usage or "", ("0",)))
    return list(_EMPTIES_OF_CALL.get(usage or "", _EMPTIES_OF_KIND.get(kind, ())))


def typed(values: list[str], value_type: str | None) -> list[str]:
    """Empty values in the type the container already holds (``1.0`` among floats)."""
    if value_type == "float":
        return [f"{v}.0" if v.isdigit() else v for v in values]
    preferred = {"str": '""', "list": "[]", "dict": "{}", "int": "0"}.get(value_type or "")
    if preferred in values:
        return [preferred, *(v for v in values if v != preferred)]
    return values


# -- candidates ------------------------------------------------------------------------------


def return_candidates(
    diagnosis: Diagnosis, project: Project, source: NoneOrigin
) -> list[Candidate]:
    """The ``return`` a function lost: of its last line's value, or of a name it binds."""
    found = project.editable_source(source.get("path"))
    if found is None:
        return []
    path, text, tree = found
    function = defined_at(tree, source.get("line"))
    if function is None or isinstance(function.body[-1], (ast.Return, ast.Raise)):
        return []
    lines = split_lines(text)
    # None called, or a decorator's None: the function it defines inside is what it lost.
    nested_first = diagnosis.kind == "none-called" or source.get("how") == "decorator"
    names = _returnable_names(function, nested_first=nested_first)
    return [
        *_last_value_returned(text, lines, function, path),
        *_names_returned(text, lines, function, path, names),
    ]


def _returnable_names(function: FunctionNode, *, nested_first: bool) -> list[str]:
    """The names the function could have meant to return, the likeliest first: the names it
    assigns (the last assigned first, loop variables last), then its parameters (a function
    often hands back what it was given: ``add(item)`` returns the item), and the functions
    it defines inside (first when ``nested_first``)."""
    nested = [
        n.name for n in function.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    assigned = _last_stored(function)
    loop_targets = _loop_targets(function)
    ranked = sorted(assigned, key=lambda name: (name in loop_targets, -assigned[name]))
    parameters = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    ranked += [name for name in parameters if name not in ranked and name != "self"]
    return nested + ranked if nested_first else ranked + nested


def _last_stored(function: FunctionNode) -> dict[str, int]:
    """Each name the function stores to, with the last line it does, in order of first store."""
    stored: dict[str, int] = {}
    names = (n for n in ast.walk(function) if isinstance(n, ast.Name))
    for node in names:
        if isinstance(node.ctx, ast.Store):
            stored[node.id] = max(stored.get(node.id, 0), node.lineno)
    return stored


def _loop_targets(function: FunctionNode) -> set[str]:
    """The names the function's loops and comprehensions bind."""
    loops = (n for n in ast.walk(function) if isinstance(n, (ast.For, ast.comprehension)))
    return {n.id for loop in loops for n in ast.walk(loop.target) if isinstance(n, ast.Name)}


def _last_value_returned(
    text: str, lines: list[str], function: FunctionNode, path: str
) -> list[Candidate]:
    """The value the last line computes and drops: the ``return`` in front of it was lost."""
    last = function.body[-1]
    span = node_span(last, lines)
    if not isinstance(last, ast.Expr) or isinstance(last.value, ast.Constant) or not span:
        return []
    return [
        Candidate(
            "missing-return",
            f"return the value of the last line of `{function.name}` in {path}:{span[0]}",
            [FileEdit(path, replace_span(text, span, f"return {segment(text, span)}"))],
            0.88,
        )
    ]


def _names_returned(
    text: str, lines: list[str], function: FunctionNode, path: str, names: list[str]
) -> list[Candidate]:
    """``return <name>`` added at the end of the function, for the likeliest few names."""
    last = function.body[-1]
    indent = line_indent(lines[last.lineno - 1])
    after = (last.end_lineno or last.lineno) + 1
    return [
        Candidate(
            "missing-return",
            f"add `return {name}` at the end of `{function.name}` in {path}",
            [FileEdit(path, insert_lines(text, after, [f"{indent}return {name}"]))],
            0.85 - 0.03 * rank,
        )
        for rank, name in enumerate(names[:4])
    ]


def inplace_candidates(
    diagnosis: Diagnosis, project: Project, source: NoneOrigin
) -> list[Candidate]:
    """``x = x.sort()`` rewritten: ``x = sorted(x)``, or the method called as a statement."""
    editable = project.editable_source(source.get("path"))
    if editable is None:
        return []
    path, text, tree = editable
    lines = split_lines(text)
    found = _inplace_assignment(tree, source.get("line"))
    span = node_span(found[0], lines) if found is not None else None
    if found is None or span is None:
        return []
    method = found[2]
    return [
        Candidate(
            "in-place-result",
            f"replace `{segment(text, span)}` with "
            f"`{'; '.join(x.strip() for x in option.splitlines())}` "
            f"at {path}:{span[0]} (`{method.attr}()` returns None)",
            [FileEdit(path, replace_span(text, span, option))],
            0.85 - 0.03 * rank,
        )
        for rank, option in enumerate(_inplace_rewrites(text, lines, span, found))
    ]


def _inplace_rewrites(
    text: str,
    lines: list[str],
    span: tuple[int, int, int, int],
    found: tuple[ast.Assign, ast.Call, ast.Attribute],
) -> list[str]:
    """What the assignment at ``span`` could be instead, likeliest first: a function that
    returns the result (``sorted``), then the method called as a statement of its own, with
    the assignment it meant after it when the target is another name."""
    statement, call, method = found
    receiver = _receiver(method)
    target = ast.unparse(statement.targets[0])
    call_text = segment(text, node_span(call, lines) or span)
    if target != receiver:
        call_text += f"\n{line_indent(lines[span[0] - 1])}{target} = {receiver}"
    return [*_returning_rewrites(method, receiver, target, call), call_text]


def _inplace_assignment(
    tree: ast.Module, line: int | None
) -> tuple[ast.Assign, ast.Call, ast.Attribute] | None:
    """The assignment of a method call's result at ``line``: the statement, the call, and
    the method."""
    statement = next(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Assign) and n.lineno == line and isinstance(n.value, ast.Call)
        ),
        None,
    )
    if statement is None or not isinstance(statement.value, ast.Call):
        return None
    call = statement.value
    return (statement, call, call.func) if isinstance(call.func, ast.Attribute) else None


def _receiver(method: ast.Attribute) -> str:
    """What the method is called on; for ``list(x).sort()``, ``x``: ``sorted()`` and
    ``reversed()`` take any iterable."""
    inner = method.value
    if (
        isinstance(inner, ast.Call)
        and isinstance(inner.func, ast.Name)
        and inner.func.id == "list"
        and len(inner.args) == 1
        and method.attr in ("sort", "reverse")
    ):
        return ast.unparse(inner.args[0])
    return ast.unparse(inner)


def _returning_rewrites(
    method: ast.Attribute, receiver: str, target: str, call: ast.Call
) -> list[str]:
    """The function that returns what the in-place method leaves in place."""
    if method.attr == "sort":
        keywords = "".join(f", {ast.unparse(k)}" for k in call.keywords)
        return [f"{target} = sorted({receiver}{keywords})"]
    if method.attr == "reverse":
        return [f"{target} = list(reversed({receiver}))"]
    return []


def _span(source: NoneOrigin) -> tuple[int, int, int, int] | None:
    """The exact place of the None, when the origin knows it."""
    span = source.get("span")
    return (span[0], span[1], span[2], span[3]) if span and len(span) == 4 else None


def _used_as(text: str, name: str | None) -> str | None:
    """The empty value the file's other uses of ``name`` (a variable or attribute) call for."""
    tree = parse(text)
    if tree is None or not name:
        return None
    for node in ast.walk(tree):
        empty = _empty_indexed(node, name) or _empty_called(node, name)
        if empty:
            return empty
    return None


def _names(node: ast.AST, name: str) -> bool:
    """Whether ``node`` is the variable ``name`` or an attribute ``name``."""
    return (isinstance(node, ast.Name) and node.id == name) or (
        isinstance(node, ast.Attribute) and node.attr == name
    )


def _empty_indexed(node: ast.AST, name: str) -> str | None:
    """``{}`` when ``node`` stores into ``name[...]`` or reads ``name["key"]``."""
    if not (isinstance(node, ast.Subscript) and _names(node.value, name)):
        return None
    key = node.slice
    stored = isinstance(node.ctx, ast.Store)
    return (
        "{}" if stored or (isinstance(key, ast.Constant) and isinstance(key.value, str)) else None
    )


def _empty_called(node: ast.AST, name: str) -> str | None:
    """The empty value whose type has the method ``node`` calls on ``name``, if one."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and _names(node.func.value, name)
    ):
        return None
    empties = empty_values("attribute-of-none", node.func.attr)
    return empties[0] if empties else None


def literal_candidates(project: Project, source: NoneOrigin, empties: list[str]) -> list[Candidate]:
    path, span = source.get("path"), _span(source)
    text = project.read_editable(path)
    if text is None or span is None or path is None or segment(text, span) != "None":
        return []
    hinted = _used_as(text, source.get("name"))
    if hinted is not None:
        empties = [hinted, *(e for e in empties if e != hinted)]
    return [
        Candidate(
            "empty-initial-value",
            f"start with `{value}` instead of None at {path}:{span[0]}",
            [FileEdit(path, replace_span(text, span, value))],
            0.75 - 0.03 * rank,
        )
        for rank, value in enumerate(empties)
    ]


def guard_candidates(
    diagnosis: Diagnosis, project: Project, source: NoneOrigin, empties: list[str]
) -> list[Candidate]:
    """``if <parameter> is None: <parameter> = <empty>`` at the top of the function."""
    del diagnosis
    name = source.get("name")
    editable = project.editable_source(source.get("path"))
    line = source.get("function_line")
    function = defined_at(editable.tree, line) if editable is not None else None
    if editable is None or function is None:
        return []
    path, text = editable.path, editable.text
    at, anchor = _top_of_body(function)
    indent = line_indent(split_lines(text)[anchor - 1])
    return [
        Candidate(
            "none-guard",
            f"start `{function.name}` with `if {name} is None: {name} = {value}` in {path}",
            [
                FileEdit(
                    path,
                    insert_lines(
                        text, at, [f"{indent}if {name} is None:", f"{indent}    {name} = {value}"]
                    ),
                )
            ],
            0.75 - 0.03 * rank,
        )
        for rank, value in enumerate(empties)
    ]


def _top_of_body(function: FunctionNode) -> tuple[int, int]:
    """``(line to insert at, line whose indentation to take)``: after the docstring, if any."""
    first = function.body[0]
    at = (first.end_lineno or first.lineno) + 1 if is_docstring(first) else first.lineno
    return at, first_statement(function).lineno


def get_candidates(project: Project, source: NoneOrigin, empties: list[str]) -> list[Candidate]:
    path, span = source.get("path"), _span(source)
    text = project.read_editable(path)
    if text is None or not span or path is None:
        return []
    node = parsed_expression(segment(text, span))
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return []
    mapping, key = ast.unparse(node.func.value), ast.unparse(node.args[0])
    options = [f"{mapping}.get({key}, {value})" for value in empties] + [f"{mapping}[{key}]"]
    return [
        Candidate(
            "dict-get-default",
            f"replace `{segment(text, span)}` with `{option}` at {path}:{span[0]}",
            [FileEdit(path, replace_span(text, span, option))],
            0.7 - 0.03 * rank,
        )
        for rank, option in enumerate(options)
    ]
