"""``TypeError`` (None aside): a call that does not fit the callee, or operands of the wrong type.

The failing call is the ``ast.Call`` at the span the innermost project frame was executing;
its callee is resolved from that frame without running code, and its signature compared
with the call's shape, which says exactly what is wrong: an unexpected (misspelt) keyword,
too many positional arguments, or a missing one. Candidates fix either side, as the
evidence points: the call site, or the definition (a parameter renamed, a parameter the
body uses but never binds added, a parameter the body never uses removed).
"""

from __future__ import annotations

import ast
import builtins
import inspect
from typing import TYPE_CHECKING, Any

from phasegate.autodebug.diagnosis import Candidate, Diagnosis, FileEdit
from phasegate.autodebug.distance import closest
from phasegate.autodebug.live import project_path, resolve_expr
from phasegate.autodebug.patterns.base import (
    closeness,
    definition_is_misspelt,
    diagnose,
    short,
)
from phasegate.autodebug.source import (
    node_span,
    parse,
    rename_names,
    replace_span,
    segment,
    split_lines,
)

if TYPE_CHECKING:
    from phasegate.autodebug.live import LiveFailure, LiveFrame
    from phasegate.autodebug.project import Project

__all__ = ["TypePattern"]

_OPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
    ast.Mod: "%", ast.Pow: "**",
}  # fmt: skip
_NUMBERS = ("int", "float")


class TypePattern:
    """A call that does not match its callee's signature, or mismatched operand types."""

    name = "type"
    error_class = "type"

    def classify(self, failure: LiveFailure) -> Diagnosis | None:
        if not isinstance(failure.exc, TypeError):
            return None
        frame = failure.project_frame
        if frame is None:
            return diagnose(self, failure, None, kind="other", facts={})
        call = failure.node_at(frame, (ast.Call,))
        if isinstance(call, ast.Call) and _is_failing(failure, frame, call):
            facts = _call_facts(failure, frame, call)
            if facts is not None:
                return diagnose(
                    self, failure, frame, kind=facts.pop("kind"), facts=facts, node=call
                )
        operation = failure.node_at(frame, (ast.BinOp, ast.AugAssign))
        if isinstance(operation, (ast.BinOp, ast.AugAssign)):
            facts = _operand_facts(failure, frame, operation)
            if facts is not None:
                return diagnose(
                    self, failure, frame, kind="operand-types", facts=facts, node=operation
                )
        return diagnose(self, failure, frame, kind="other", facts={})

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        kind = diagnosis.kind
        if kind == "operand-types":
            return _operand_candidates(diagnosis, project)
        if kind not in ("unexpected-keyword", "too-many-arguments", "missing-argument"):
            return []
        call_text = project.read_editable(diagnosis.path)
        call = _find_call(call_text, diagnosis) if call_text is not None else None
        callee = diagnosis.facts.get("callee", {})
        def_path = callee.get("path")
        def_text = project.read_editable(def_path)
        function = _find_def(def_text, callee) if def_text is not None else None
        candidates: list[Candidate] = []
        if kind == "unexpected-keyword":
            candidates += _keyword_candidates(
                diagnosis, call_text, call, def_text, function, def_path, project
            )
        elif kind == "too-many-arguments":
            candidates += _extra_candidates(
                diagnosis, call_text, call, def_text, function, def_path
            )
        else:
            candidates += _missing_candidates(
                diagnosis, call_text, call, def_text, function, def_path
            )
        return sorted(candidates, key=lambda c: -c.score)

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        facts = diagnosis.facts
        callee = facts.get("callee", {}).get("text", "the callee")
        exc = short(diagnosis.exc_type)
        heads = {
            "unexpected-keyword": f"{exc}: `{callee}()` has no parameter "
            + ", ".join(f"`{k}`" for k in facts.get("unexpected", [])),
            "too-many-arguments": f"{exc}: `{callee}()` takes {facts.get('accepts')} positional "
            f"argument(s) but the call passes {facts.get('positional')}",
            "missing-argument": f"{exc}: the call of `{callee}()` leaves out "
            + ", ".join(f"`{k}`" for k in facts.get("missing", [])),
            "operand-types": f"{exc}: `{facts.get('left_type')} {facts.get('op')} "
            f"{facts.get('right_type')}` is not defined",
        }
        head = heads.get(diagnosis.kind, f"{exc}: {diagnosis.message}")
        if candidate is None:
            return f"{head}; no repair found"
        return f"{head}; {candidate.description}"


# -- classification --------------------------------------------------------------------------


def _call_facts(failure: LiveFailure, frame: LiveFrame, call: ast.Call) -> dict[str, Any] | None:
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None  # *args or **kwargs at the call: its shape is not known statically
    ok, callee = resolve_expr(failure, frame, call.func)
    if not ok or not callable(callee):
        return None
    try:
        signature = inspect.signature(callee)
    except (TypeError, ValueError):
        return None
    params = list(signature.parameters.values())
    positional_kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    positional = [p for p in params if p.kind in positional_kinds]
    var_positional = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params)
    var_keyword = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    keyword_names = [
        p.name
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    ]
    passed = len(call.args)
    keywords = [k.arg for k in call.keywords if k.arg is not None]
    unexpected = [] if var_keyword else [k for k in keywords if k not in keyword_names]
    if var_keyword and keywords:
        # The callee passes **kwargs on; the call that failed deeper says what is accepted.
        accepted = _accepted_deeper(failure, frame)
        if accepted is not None:
            keyword_names = [*keyword_names, *accepted]
            unexpected = [k for k in keywords if k not in keyword_names]
    extra = 0 if var_positional else max(0, passed - len(positional))
    given = {p.name for p in positional[:passed]} | set(keywords)
    missing = [
        p.name
        for p in params
        if p.default is inspect.Parameter.empty
        and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        and p.name not in given
    ]
    if unexpected:
        kind = "unexpected-keyword"
    elif extra:
        kind = "too-many-arguments"
    elif missing:
        kind = "missing-argument"
    else:
        return None  # the call fits: the TypeError comes from elsewhere
    target = (
        inspect.unwrap(getattr(callee, "__func__", callee))
        if not isinstance(callee, type)
        else getattr(callee, "__init__", callee)
    )
    code = getattr(target, "__code__", None)
    scope = {*frame.frame.f_locals, *frame.frame.f_globals}
    passed_types = {_type_of(failure, frame, arg) for arg in call.args} - {None}
    used = {ast.unparse(arg) for arg in call.args}
    visible = dict(frame.frame.f_locals)
    if frame.function.startswith("<") and frame.function != "<module>":
        # A lambda or comprehension reads the names of the function around it.
        outer = [
            f for f in failure.frames[: failure.frames.index(frame)] if f.filename == frame.filename
        ]
        if outer:
            visible = {**outer[-1].frame.f_locals, **visible}
    alike = sorted(
        name
        for name, value in visible.items()
        if name not in used and type(value).__name__ in passed_types and not name.startswith(".")
    )
    return {
        "kind": kind,
        "callee": {
            "text": ast.unparse(call.func),
            "name": getattr(target, "__qualname__", None),
            "path": project_path(code.co_filename, failure.root) if code is not None else None,
            "line": code.co_firstlineno if code is not None else None,
        },
        "params": [
            {
                "name": p.name,
                "kind": p.kind.name,
                "default": p.default is not inspect.Parameter.empty,
            }
            for p in params
        ],
        "positional": passed,
        "accepts": len(positional),
        "keywords": keywords,
        "unexpected": unexpected,
        "extra": extra,
        "missing": missing,
        "in_scope": sorted(name for name in missing if name in scope),
        "alike": alike[:4],
        "keyword_names": keyword_names,
    }


def _is_failing(failure: LiveFailure, frame: LiveFrame, call: ast.Call) -> bool:
    """Whether ``call`` is the call the frame was making, not one around it."""
    if frame.col is None:
        return True  # Python 3.10: the line is all that is known
    import linecache

    from phasegate.autodebug.source import node_span as span_of

    span = span_of(call, linecache.getlines(frame.filename))
    return span == (frame.line, frame.col, frame.end_line, frame.end_col)


def _accepted_deeper(failure: LiveFailure, frame: LiveFrame) -> list[str] | None:
    """The keywords the innermost resolvable call below ``frame`` accepts."""
    below = failure.frames[failure.frames.index(frame) + 1 :]
    for deeper in reversed(below):
        call = failure.node_at(deeper, (ast.Call,))
        if not isinstance(call, ast.Call):
            continue
        ok, callee = resolve_expr(failure, deeper, call.func)
        try:
            signature = inspect.signature(callee) if ok and callable(callee) else None
        except (TypeError, ValueError):
            signature = None
        if signature is None:
            continue
        kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        return [p.name for p in signature.parameters.values() if p.kind in kinds]
    return None


def _type_of(failure: LiveFailure, frame: LiveFrame, node: ast.AST) -> str | None:
    """The type of an expression: read from the frame, or inferred for a few simple forms."""
    if isinstance(node, ast.JoinedStr):
        return "str"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _type_of(failure, frame, node.left), _type_of(failure, frame, node.right)
        return left if left == right else None
    converters = ("str", "int", "float", "repr", "len", "list", "dict")
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in converters
    ):
        return {"len": "int", "repr": "str"}.get(node.func.id, node.func.id)
    ok, value = resolve_expr(failure, frame, node)
    return type(value).__name__ if ok else None


def _type_name(failure: LiveFailure, frame: LiveFrame, node: ast.AST) -> str | None:
    return _type_of(failure, frame, node)


def _operand_facts(
    failure: LiveFailure, frame: LiveFrame, node: ast.BinOp | ast.AugAssign
) -> dict[str, Any] | None:
    op = _OPS.get(type(node.op))
    left = node.left if isinstance(node, ast.BinOp) else node.target
    right = node.right if isinstance(node, ast.BinOp) else node.value
    left_type, right_type = _type_name(failure, frame, left), _type_name(failure, frame, right)
    if (
        op is None
        or left_type is None
        or right_type is None
        or "NoneType" in (left_type, right_type)
    ):
        return None
    return {
        "op": op,
        "left_type": left_type,
        "right_type": right_type,
        "left": ast.unparse(left),
        "right": ast.unparse(right),
    }


# -- candidates ------------------------------------------------------------------------------


def _find_call(text: str, diagnosis: Diagnosis) -> ast.Call | None:
    tree = parse(text)
    if tree is None:
        return None
    lines = split_lines(text)
    span = diagnosis.span()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and span is not None and node_span(node, lines) == span:
            return node
    return None


def _find_def(text: str, callee: dict[str, Any]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    tree = parse(text)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = [node.lineno, *(d.lineno for d in node.decorator_list)]
            if callee.get("line") in lines:
                return node
    return None


def _keyword_span(text: str, keyword: ast.keyword) -> tuple[int, int, int, int] | None:
    span = node_span(keyword, split_lines(text))
    if span is None or keyword.arg is None:
        return None
    name = (span[0], span[1], span[0], span[1] + len(keyword.arg))
    return name if segment(text, name) == keyword.arg else None


def _keyword_candidates(
    diagnosis: Diagnosis,
    call_text: str | None,
    call: ast.Call | None,
    def_text: str | None,
    function: ast.FunctionDef | ast.AsyncFunctionDef | None,
    def_path: str | None,
    project: Project,
) -> list[Candidate]:
    facts = diagnosis.facts
    names = [
        p["name"]
        for p in facts.get("params", [])
        if p["kind"] in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY")
    ]
    candidates: list[Candidate] = []
    callee = facts["callee"]["text"]
    for wrong in facts.get("unexpected", []):
        for match in closest(wrong, [n for n in names if n not in facts.get("keywords", [])]):
            score = 0.9 * closeness(match.distance, wrong)
            keyword = next((k for k in call.keywords if k.arg == wrong), None) if call else None
            if call_text is not None and keyword is not None and diagnosis.path is not None:
                span = _keyword_span(call_text, keyword)
                if span is not None:
                    candidates.append(
                        Candidate(
                            "keyword-typo",
                            f"pass `{match.name}=` instead of `{wrong}=` to `{callee}()` "
                            f"at {diagnosis.path}:{span[0]}",
                            [FileEdit(diagnosis.path, replace_span(call_text, span, match.name))],
                            score,
                        )
                    )
            if def_text is not None and function is not None and def_path is not None:
                renamed = rename_names(
                    def_text,
                    match.name,
                    wrong,
                    first_line=function.lineno,
                    last_line=function.end_lineno,
                    role="name",
                )
                if renamed is not None:
                    # The call is in a test, or the tests spell the keyword as the call does.
                    misspelt = call_text is None or definition_is_misspelt(
                        project, wrong, match.name, asked_uses=1, definitions=1
                    )
                    candidates.append(
                        Candidate(
                            "rename-parameter",
                            f"rename the parameter `{match.name}` of `{function.name}` "
                            f"to `{wrong}` in {def_path}",
                            [FileEdit(def_path, renamed)],
                            score * (1.02 if misspelt else 0.8),
                        )
                    )
    tree = parse(def_text) if def_text is not None else None
    if def_text is not None and function is not None and tree is not None and def_path is not None:
        free = _free_names(function, tree)
        for wrong in facts.get("unexpected", []):
            if wrong not in free:
                continue
            added = _with_parameters(def_text, function, [wrong])
            if added is not None:
                candidates.append(
                    Candidate(
                        "add-parameter",
                        f"add the parameter `{wrong}` to `{function.name}` in {def_path} "
                        "(its body uses it, nothing binds it)",
                        [FileEdit(def_path, added)],
                        0.92,
                    )
                )
    return candidates


def _free_names(function: ast.FunctionDef | ast.AsyncFunctionDef, module: ast.Module) -> list[str]:
    """Names the function reads but nothing binds: not a parameter, local, global or builtin."""
    bound = {
        a.arg for a in [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
    }
    bound |= {a.arg for a in (function.args.vararg, function.args.kwarg) if a is not None}
    loaded: list[str] = []
    for node in ast.walk(function):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                bound.add(node.id)
            elif node.id not in loaded:
                loaded.append(node.id)
        elif (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node is not function
        ):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    module_names = {
        n.id for n in ast.walk(module) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    for stmt in module.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            module_names.add(stmt.name)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            module_names.update((a.asname or a.name).split(".")[0] for a in stmt.names)
    return [
        n for n in loaded if n not in bound and n not in module_names and not hasattr(builtins, n)
    ]


def _without_item(text: str, items: list[ast.AST], index: int) -> str | None:
    """``text`` with ``items[index]`` (an argument or parameter) and one comma removed."""
    lines = split_lines(text)
    spans = [node_span(item, lines) for item in items]
    span = spans[index]
    if span is None or any(s is None for s in spans):
        return None
    if index + 1 < len(items):
        following = spans[index + 1]
        assert following is not None
        return replace_span(text, (span[0], span[1], following[0], following[1]), "")
    if index > 0:
        preceding = spans[index - 1]
        assert preceding is not None
        return replace_span(text, (preceding[2], preceding[3], span[2], span[3]), "")
    return replace_span(text, span, "")


def _extra_candidates(
    diagnosis: Diagnosis,
    call_text: str | None,
    call: ast.Call | None,
    def_text: str | None,
    function: ast.FunctionDef | ast.AsyncFunctionDef | None,
    def_path: str | None,
) -> list[Candidate]:
    facts = diagnosis.facts
    extra = int(facts.get("extra", 0))
    candidates: list[Candidate] = []
    tree = parse(def_text) if def_text is not None else None
    if def_text is not None and function is not None and tree is not None and def_path is not None:
        free = _free_names(function, tree)
        if len(free) >= extra:
            added = _with_parameters(def_text, function, free[:extra])
            if added is not None:
                names = ", ".join(f"`{n}`" for n in free[:extra])
                candidates.append(
                    Candidate(
                        "add-parameter",
                        f"add the parameter {names} to `{function.name}` in {def_path} "
                        "(its body uses it, nothing binds it)",
                        [FileEdit(def_path, added)],
                        0.9,
                    )
                )
    if def_text is not None and function is not None and def_path is not None:
        loosened = _without_keyword_marker(def_text, function, extra)
        if loosened is not None:
            candidates.append(
                Candidate(
                    "positional-parameter",
                    f"let `{function.name}` take its keyword-only parameter(s) by position "
                    f"in {def_path}",
                    [FileEdit(def_path, loosened)],
                    0.85,
                )
            )
    if (
        call_text is not None
        and call is not None
        and facts.get("accepts") == 1
        and len(call.args) > 1
        and diagnosis.path is not None
    ):
        lines = split_lines(call_text)
        first, last = node_span(call.args[0], lines), node_span(call.args[-1], lines)
        if first is not None and last is not None:
            whole = (first[0], first[1], last[2], last[3])
            packed = replace_span(call_text, whole, f"({segment(call_text, whole)})")
            candidates.append(
                Candidate(
                    "pack-arguments",
                    f"pass the arguments of `{facts['callee']['text']}()` as one tuple at "
                    f"{diagnosis.path}:{diagnosis.line}",
                    [FileEdit(diagnosis.path, packed)],
                    0.75,
                )
            )
    if call_text is not None and call is not None and extra == 1 and diagnosis.path is not None:
        items: list[ast.AST] = [*call.args, *call.keywords]
        for rank, index in enumerate(reversed(range(len(call.args)))):
            new = _without_item(call_text, items, index)
            if new is not None:
                candidates.append(
                    Candidate(
                        "remove-argument",
                        f"drop the argument `{ast.unparse(call.args[index])}` from the call "
                        f"of `{facts['callee']['text']}()` at {diagnosis.path}:{diagnosis.line}",
                        [FileEdit(diagnosis.path, new)],
                        0.7 - 0.02 * rank,
                    )
                )
    return candidates


def _without_keyword_marker(
    text: str, function: ast.FunctionDef | ast.AsyncFunctionDef, extra: int
) -> str | None:
    """The definition with its bare ``*`` removed, when that takes ``extra`` more positionals."""
    args = function.args
    if args.vararg is not None or len(args.kwonlyargs) < extra or not args.kwonlyargs:
        return None
    lines = split_lines(text)
    first = node_span(args.kwonlyargs[0], lines)
    if first is None:
        return None
    line = lines[first[0] - 1]
    star = line.rfind("*", 0, first[1])
    if star < 0 or line[star + 1 : first[1]].strip() != ",":
        return None
    return replace_span(text, (first[0], star, first[0], first[1]), "")


def _with_parameters(
    text: str, function: ast.FunctionDef | ast.AsyncFunctionDef, names: list[str]
) -> str | None:
    lines = split_lines(text)
    args = function.args
    plain = [*args.posonlyargs, *args.args]
    required = plain[: len(plain) - len(args.defaults)] if args.defaults else plain
    addition = ", ".join(names)
    if required:
        span = node_span(required[-1], lines)
        if span is None:
            return None
        return replace_span(text, (span[2], span[3], span[2], span[3]), f", {addition}")
    if plain:
        span = node_span(plain[0], lines)
        if span is None:
            return None
        return replace_span(text, (span[0], span[1], span[0], span[1]), f"{addition}, ")
    header = lines[function.lineno - 1]
    opening = header.find("(", header.find(function.name))
    if opening < 0:
        return None
    rest = header[opening + 1 :].lstrip()
    separator = "" if rest.startswith(")") else ", "
    return replace_span(
        text, (function.lineno, opening + 1, function.lineno, opening + 1), addition + separator
    )


def _missing_candidates(
    diagnosis: Diagnosis,
    call_text: str | None,
    call: ast.Call | None,
    def_text: str | None,
    function: ast.FunctionDef | ast.AsyncFunctionDef | None,
    def_path: str | None,
) -> list[Candidate]:
    facts = diagnosis.facts
    missing: list[str] = facts.get("missing", [])
    candidates: list[Candidate] = []
    if def_text is not None and function is not None and def_path is not None and len(missing) == 1:
        wanted = missing[0]
        params: list[ast.AST] = [*function.args.posonlyargs, *function.args.args]
        index = next(
            (i for i, a in enumerate(params) if isinstance(a, ast.arg) and a.arg == wanted), None
        )
        used = any(isinstance(n, ast.Name) and n.id == wanted for n in ast.walk(function))
        if index is not None and not used:
            new = _without_item(def_text, params, index)
            if new is not None:
                candidates.append(
                    Candidate(
                        "remove-parameter",
                        f"remove the parameter `{wanted}` of `{function.name}` in {def_path} "
                        "(its body never uses it)",
                        [FileEdit(def_path, new)],
                        0.88,
                    )
                )
    if call_text is not None and call is not None and diagnosis.path is not None and missing:
        positional = [
            p["name"] for p in facts.get("params", []) if p["kind"].startswith("POSITIONAL")
        ]
        where = positional.index(missing[0]) if missing[0] in positional else len(call.args)
        order = [where, *(i for i in range(len(call.args) + 1) if i != where)]
        lines = split_lines(call_text)
        for rank, name in enumerate(facts.get("alike", [])[:2]):
            for offset, index in enumerate(order[:2]):
                if index > len(call.args):
                    continue
                if index < len(call.args):
                    anchor = node_span(call.args[index], lines)
                    at = (anchor[0], anchor[1]) if anchor else None
                    insert = f"{name}, "
                else:
                    anchor = node_span(call.args[-1], lines) if call.args else None
                    at = (anchor[2], anchor[3]) if anchor else None
                    insert = f", {name}"
                if at is None:
                    continue
                new = replace_span(call_text, (at[0], at[1], at[0], at[1]), insert)
                candidates.append(
                    Candidate(
                        "add-argument",
                        f"pass `{name}` (a value of the same type in scope) as argument "
                        f"{index + 1} of `{facts['callee']['text']}()` at "
                        f"{diagnosis.path}:{diagnosis.line}",
                        [FileEdit(diagnosis.path, new)],
                        0.7 - 0.05 * rank - 0.02 * offset,
                    )
                )
    if call_text is not None and call is not None and diagnosis.path is not None:
        for name in facts.get("in_scope", []):
            span = node_span(call, split_lines(call_text))
            if span is None:
                continue
            closing = (span[2], span[3] - 1, span[2], span[3] - 1)
            separator = ", " if call.args or call.keywords else ""
            new = replace_span(call_text, closing, f"{separator}{name}={name}")
            candidates.append(
                Candidate(
                    "add-argument",
                    f"pass `{name}={name}` to `{facts['callee']['text']}()` "
                    f"at {diagnosis.path}:{span[0]}",
                    [FileEdit(diagnosis.path, new)],
                    0.75,
                )
            )
    return candidates


def _operand_candidates(diagnosis: Diagnosis, project: Project) -> list[Candidate]:
    facts = diagnosis.facts
    path = diagnosis.path
    text = project.read(path) if project.editable(path) and path is not None else None
    tree = parse(text) if text is not None else None
    span = diagnosis.span()
    if text is None or tree is None or span is None or path is None:
        return []
    lines = split_lines(text)
    node = next(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, (ast.BinOp, ast.AugAssign)) and node_span(n, lines) == span
        ),
        None,
    )
    if node is None:
        return []
    left = node.left if isinstance(node, ast.BinOp) else node.target
    right = node.right if isinstance(node, ast.BinOp) else node.value
    conversions: list[tuple[ast.AST, str]] = []
    left_type, right_type = facts["left_type"], facts["right_type"]
    if left_type == "str" and right_type in _NUMBERS:
        conversions += [(right, "str"), (left, right_type)]
    elif right_type == "str" and left_type in _NUMBERS:
        conversions += [(left, "str"), (right, left_type)]
    candidates = []
    for rank, (operand, convert) in enumerate(conversions):
        operand_span = node_span(operand, lines)
        if operand_span is None or (
            isinstance(operand, ast.Name) and isinstance(node, ast.AugAssign) and operand is left
        ):
            continue
        wrapped = f"{convert}({segment(text, operand_span)})"
        candidates.append(
            Candidate(
                "convert-operand",
                f"convert `{ast.unparse(operand)}` with `{convert}()` at {path}:{operand_span[0]}",
                [FileEdit(path, replace_span(text, operand_span, wrapped))],
                0.6 - 0.02 * rank,
            )
        )
    return candidates
