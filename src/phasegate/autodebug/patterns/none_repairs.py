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
from typing import TYPE_CHECKING, Any

from phasegate.autodebug.diagnosis import Candidate, Diagnosis, FileEdit
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
    from phasegate.autodebug.project import Project

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


def empty_values(kind: str, usage: str | None) -> list[str]:
    """The empty values a None used this way most likely stood for, likeliest first."""
    if kind == "attribute-of-none" and usage:
        if usage in _LIST_METHODS:
            return ["[]"]
        if usage in _DICT_METHODS:
            return ["{}"]
        if usage in _SET_METHODS:
            return ["set()"]
        if usage in _STR_METHODS:
            return ['""']
        return []
    if kind == "none-subscripted":
        return ["{}", "[]"]
    if kind in ("none-iterated", "none-argument"):
        return ["[]", '""', "{}"]
    if kind == "none-operand":
        if usage in ("+", "+="):
            return ["0", '""', "[]"]
        return ["1", "0"] if usage in ("*", "*=", "/", "/=") else ["0"]
    return []


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
    diagnosis: Diagnosis, project: Project, source: dict[str, Any]
) -> list[Candidate]:
    path = source.get("path")
    text = project.read_editable(path)
    tree = parse(text) if text is not None else None
    if text is None or tree is None or path is None:
        return []
    function = next(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and (
                n.lineno == source.get("line")
                or any(d.lineno == source.get("line") for d in n.decorator_list)
            )
        ),
        None,
    )
    if function is None or isinstance(function.body[-1], (ast.Return, ast.Raise)):
        return []
    nested = [
        n.name for n in function.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    assigned: dict[str, int] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            assigned[node.id] = max(assigned.get(node.id, 0), node.lineno)
    loop_targets = {
        n.id
        for loop in ast.walk(function)
        if isinstance(loop, (ast.For, ast.comprehension))
        for n in ast.walk(loop.target)
        if isinstance(n, ast.Name)
    }
    ranked = sorted(assigned, key=lambda name: (name in loop_targets, -assigned[name]))
    # A function often hands back what it was given (`add(item)` returns the item).
    parameters = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    ranked += [name for name in parameters if name not in ranked and name != "self"]
    names = (
        nested + ranked
        if diagnosis.kind == "none-called" or source.get("how") == "decorator"
        else ranked + nested
    )
    lines = split_lines(text)
    last = function.body[-1]
    indent = line_indent(lines[last.lineno - 1])
    after = (last.end_lineno or last.lineno) + 1
    candidates = []
    span = node_span(last, lines)
    if isinstance(last, ast.Expr) and not isinstance(last.value, ast.Constant) and span:
        # The value is computed and dropped: the `return` in front of it was lost.
        candidates.append(
            Candidate(
                "missing-return",
                f"return the value of the last line of `{function.name}` in {path}:{span[0]}",
                [FileEdit(path, replace_span(text, span, f"return {segment(text, span)}"))],
                0.88,
            )
        )
    for rank, name in enumerate(names[:4]):
        candidates.append(
            Candidate(
                "missing-return",
                f"add `return {name}` at the end of `{function.name}` in {path}",
                [FileEdit(path, insert_lines(text, after, [f"{indent}return {name}"]))],
                0.85 - 0.03 * rank,
            )
        )
    return candidates


def inplace_candidates(
    diagnosis: Diagnosis, project: Project, source: dict[str, Any]
) -> list[Candidate]:
    path = source.get("path")
    text = project.read_editable(path)
    tree = parse(text) if text is not None else None
    if text is None or tree is None or path is None:
        return []
    lines = split_lines(text)
    statement = next(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Assign)
            and n.lineno == source.get("line")
            and isinstance(n.value, ast.Call)
        ),
        None,
    )
    if (
        statement is None
        or not isinstance(statement.value, ast.Call)
        or not isinstance(statement.value.func, ast.Attribute)
    ):
        return []
    span = node_span(statement, lines)
    if span is None:
        return []
    call = statement.value
    method = call.func.attr if isinstance(call.func, ast.Attribute) else ""
    receiver = ast.unparse(call.func.value) if isinstance(call.func, ast.Attribute) else ""
    target = ast.unparse(statement.targets[0])
    call_text = segment(text, node_span(call, lines) or span)
    indent = line_indent(lines[span[0] - 1])
    options: list[str] = []
    if (
        isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Call)
        and isinstance(call.func.value.func, ast.Name)
        and call.func.value.func.id == "list"
        and len(call.func.value.args) == 1
        and method in ("sort", "reverse")
    ):
        receiver = ast.unparse(call.func.value.args[0])  # sorted() takes any iterable
    if method == "sort":
        keywords = "".join(f", {ast.unparse(k)}" for k in call.keywords)
        options.append(f"{target} = sorted({receiver}{keywords})")
    if method == "reverse":
        options.append(f"{target} = list(reversed({receiver}))")
    options.append(
        call_text if target == receiver else f"{call_text}\n{indent}{target} = {receiver}"
    )
    return [
        Candidate(
            "in-place-result",
            f"replace `{segment(text, span)}` with "
            f"`{'; '.join(x.strip() for x in option.splitlines())}` "
            f"at {path}:{span[0]} (`{method}()` returns None)",
            [FileEdit(path, replace_span(text, span, option))],
            0.85 - 0.03 * rank,
        )
        for rank, option in enumerate(options)
    ]


def _used_as(text: str, name: str | None) -> str | None:
    """The empty value the file's other uses of ``name`` (a variable or attribute) call for."""
    tree = parse(text)
    if tree is None or not name:
        return None

    def named(node: ast.AST) -> bool:
        return (isinstance(node, ast.Name) and node.id == name) or (
            isinstance(node, ast.Attribute) and node.attr == name
        )

    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and named(node.value):
            key = node.slice
            if isinstance(node.ctx, ast.Store) or (
                isinstance(key, ast.Constant) and isinstance(key.value, str)
            ):
                return "{}"
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and named(node.func.value)
            and empty_values("attribute-of-none", node.func.attr)
        ):
            return empty_values("attribute-of-none", node.func.attr)[0]
    return None


def literal_candidates(
    project: Project, source: dict[str, Any], empties: list[str]
) -> list[Candidate]:
    path, span = source.get("path"), source.get("span")
    text = project.read_editable(path)
    if text is None or not span or path is None or segment(text, tuple(span)) != "None":
        return []
    hinted = _used_as(text, source.get("name"))
    if hinted is not None:
        empties = [hinted, *(e for e in empties if e != hinted)]
    return [
        Candidate(
            "empty-initial-value",
            f"start with `{value}` instead of None at {path}:{span[0]}",
            [FileEdit(path, replace_span(text, tuple(span), value))],
            0.75 - 0.03 * rank,
        )
        for rank, value in enumerate(empties)
    ]


def guard_candidates(
    diagnosis: Diagnosis, project: Project, source: dict[str, Any], empties: list[str]
) -> list[Candidate]:
    path, name = source.get("path"), source.get("name")
    text = project.read_editable(path)
    tree = parse(text) if text is not None else None
    if text is None or tree is None or path is None:
        return []
    function = next(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.lineno == source.get("function_line")
        ),
        None,
    )
    if function is None:
        return []
    first = function.body[0]
    has_doc = (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )
    anchor = function.body[1] if has_doc and len(function.body) > 1 else first
    lines = split_lines(text)
    indent = line_indent(lines[anchor.lineno - 1])
    at = (first.end_lineno or first.lineno) + 1 if has_doc else first.lineno
    del diagnosis
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


def get_candidates(project: Project, source: dict[str, Any], empties: list[str]) -> list[Candidate]:
    path, span = source.get("path"), source.get("span")
    text = project.read_editable(path)
    if text is None or not span or path is None:
        return []
    call = parse(segment(text, tuple(span)))
    if (
        call is None
        or not isinstance(call.body[0], ast.Expr)
        or not isinstance(call.body[0].value, ast.Call)
    ):
        return []
    node = call.body[0].value
    if not isinstance(node.func, ast.Attribute):
        return []
    mapping, key = ast.unparse(node.func.value), ast.unparse(node.args[0])
    options = [f"{mapping}.get({key}, {value})" for value in empties] + [f"{mapping}[{key}]"]
    return [
        Candidate(
            "dict-get-default",
            f"replace `{segment(text, tuple(span))}` with `{option}` at {path}:{span[0]}",
            [FileEdit(path, replace_span(text, tuple(span), option))],
            0.7 - 0.03 * rank,
        )
        for rank, option in enumerate(options)
    ]
