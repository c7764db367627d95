"""``TypeError`` (None aside): a call that does not fit the callee, or operands of the wrong type.

The failing call is the ``ast.Call`` at the span the innermost project frame was executing;
its callee is resolved from that frame without running code, and its signature compared
with the call's shape, which says exactly what is wrong: an unexpected (misspelt) keyword,
too many positional arguments, or a missing one. Candidates fix either side, as the
evidence points: the call site, or the definition (a parameter renamed, a parameter the
body uses but never binds added, a parameter the body never uses removed).

The candidates themselves are built in :mod:`.call_repairs`.
"""

from __future__ import annotations

import ast
import inspect
from typing import TYPE_CHECKING, Any

from phasegate.autodebug.diagnosis import Candidate, Diagnosis
from phasegate.autodebug.live import project_path, resolve_expr
from phasegate.autodebug.patterns.base import (
    culprit_sentence,
    diagnose,
    short,
)
from phasegate.autodebug.patterns.call_repairs import (
    extra_candidates,
    find_call,
    find_def,
    keyword_candidates,
    operand_candidates,
)
from phasegate.autodebug.patterns.missing_args import missing_candidates, visible_values

if TYPE_CHECKING:
    from phasegate.autodebug.live import LiveFailure, LiveFrame
    from phasegate.autodebug.project import Project

__all__ = ["TypePattern"]

_OPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
    ast.Mod: "%", ast.Pow: "**",
}  # fmt: skip


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
            return operand_candidates(diagnosis, project)
        if kind not in ("unexpected-keyword", "too-many-arguments", "missing-argument"):
            return []
        call_text = project.read_editable(diagnosis.path)
        call = find_call(call_text, diagnosis) if call_text is not None else None
        callee = diagnosis.facts.get("callee", {})
        def_path = callee.get("path")
        def_text = project.read_editable(def_path)
        function = find_def(def_text, callee) if def_text is not None else None
        candidates: list[Candidate] = []
        if kind == "unexpected-keyword":
            candidates += keyword_candidates(
                diagnosis, call_text, call, def_text, function, def_path, project
            )
        elif kind == "too-many-arguments":
            candidates += extra_candidates(diagnosis, call_text, call, def_text, function, def_path)
        else:
            candidates += missing_candidates(
                diagnosis, call_text, call, def_text, function, def_path, project
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
        culprit = facts.get("test_culprit")
        if candidate is None and culprit:
            return f"{head}; {culprit_sentence(culprit, 'parameter')}"
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
    return {
        "kind": kind,
        "callee": {
            "text": ast.unparse(call.func),
            "name": getattr(target, "__qualname__", None),
            "path": project_path(code.co_filename, failure.root) if code is not None else None,
            "line": code.co_firstlineno if code is not None else None,
        },
        "params": [_parameter_facts(p) for p in params],
        "positional": passed,
        "accepts": len(positional),
        "keywords": keywords,
        "unexpected": unexpected,
        "extra": extra,
        "missing": missing,
        "in_scope": sorted(name for name in missing if name in scope),
        "scope": visible_values(failure, frame) if kind == "missing-argument" else [],
        "keyword_names": keyword_names,
    }


def _parameter_facts(parameter: inspect.Parameter) -> dict[str, Any]:
    """A parameter as plain data: its name, kind, and what its default and annotation say."""
    empty = inspect.Parameter.empty
    annotation = parameter.annotation
    if annotation is not empty and not isinstance(annotation, str):
        annotation = getattr(annotation, "__name__", None) or repr(annotation)
    return {
        "name": parameter.name,
        "kind": parameter.kind.name,
        "default": parameter.default is not empty,
        "default_type": None if parameter.default is empty else type(parameter.default).__name__,
        "annotation": None if annotation is empty else str(annotation)[:80],
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
