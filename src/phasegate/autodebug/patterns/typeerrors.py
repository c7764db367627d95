"""``TypeError`` (None aside): a call that does not fit the callee, or operands of the wrong type.

The failing call is the ``ast.Call`` at the span the innermost project frame was executing;
its callee is resolved from that frame without running code, and its signature compared
with the call's shape, which says exactly what is wrong: an unexpected (misspelt) keyword,
too many positional arguments, or a missing one. Candidates fix either side, as the
evidence points: the call site, or the definition (a parameter renamed, a parameter the
body uses but never binds added, a parameter the body never uses removed).

The facts are typed in :mod:`.call_facts`; the candidates are built in :mod:`.call_repairs`.
"""

from __future__ import annotations

import ast
import inspect
from typing import TYPE_CHECKING

from phasegate.autodebug.diagnosis import Candidate, Diagnosis
from phasegate.autodebug.live import project_path, resolve_expr
from phasegate.autodebug.patterns.base import (
    culprit_sentence,
    diagnose,
    short,
)
from phasegate.autodebug.patterns.call_facts import (
    CALL_KINDS,
    CalleeFacts,
    CallFacts,
    OperandFacts,
    ParameterFacts,
    call_facts,
    operand_facts,
)
from phasegate.autodebug.patterns.call_repairs import (
    extra_candidates,
    keyword_candidates,
    operand_candidates,
    operands,
    read_call_site,
)
from phasegate.autodebug.patterns.missing_args import missing_candidates, visible_values

if TYPE_CHECKING:
    from phasegate.autodebug.live import LiveFailure, LiveFrame
    from phasegate.autodebug.project import Project

__all__ = ["TypePattern", "misfit_call"]

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
        misfit = _misfit(failure, frame)
        if misfit is not None:
            call, (kind, facts) = misfit
            return diagnose(self, failure, frame, kind=kind, facts=facts, node=call)
        operation = failure.node_at(frame, (ast.BinOp, ast.AugAssign))
        if isinstance(operation, (ast.BinOp, ast.AugAssign)):
            operands = _operand_facts(failure, frame, operation)
            if operands is not None:
                return diagnose(
                    self, failure, frame, kind="operand-types", facts=operands, node=operation
                )
        return diagnose(self, failure, frame, kind="other", facts={})

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        if diagnosis.kind == "operand-types":
            return operand_candidates(diagnosis, project)
        if diagnosis.kind not in CALL_KINDS:
            return []
        site = read_call_site(diagnosis, project)
        propose_for_kind = {
            "unexpected-keyword": keyword_candidates,
            "too-many-arguments": extra_candidates,
            "missing-argument": missing_candidates,
        }[diagnosis.kind]
        return sorted(propose_for_kind(diagnosis, site, project), key=lambda c: -c.score)

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        head = _head(diagnosis)
        culprit = call_facts(diagnosis).get("test_culprit")
        if candidate is None and culprit:
            return f"{head}; {culprit_sentence(culprit, 'parameter')}"
        if candidate is None:
            return f"{head}; no repair found"
        return f"{head}; {candidate.description}"


def _head(diagnosis: Diagnosis) -> str:
    """What went wrong, in the words of the diagnosis's kind."""
    exc = short(diagnosis.exc_type)
    if diagnosis.kind == "operand-types":
        operands = operand_facts(diagnosis)
        return (
            f"{exc}: `{operands['left_type']} {operands['op']} {operands['right_type']}` "
            "is not defined"
        )
    if diagnosis.kind not in CALL_KINDS:
        return f"{exc}: {diagnosis.message}"
    facts = call_facts(diagnosis)
    callee = facts["callee"]["text"]
    heads = {
        "unexpected-keyword": f"{exc}: `{callee}()` has no parameter "
        + ", ".join(f"`{k}`" for k in facts["unexpected"]),
        "too-many-arguments": f"{exc}: `{callee}()` takes {facts['accepts']} positional "
        f"argument(s) but the call passes {facts['positional']}",
        "missing-argument": f"{exc}: the call of `{callee}()` leaves out "
        + ", ".join(f"`{k}`" for k in facts["missing"]),
    }
    return heads[diagnosis.kind]


# -- classification --------------------------------------------------------------------------

_POSITIONAL_KINDS = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_KEYWORD_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
_VARIADIC_KINDS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def misfit_call(failure: LiveFailure) -> bool:
    """Whether the innermost project frame failed on a call that does not fit its callee's
    signature: a ``TypeError`` no None value explains, whatever the arguments hold."""
    frame = failure.project_frame
    return frame is not None and _misfit(failure, frame) is not None


def _misfit(
    failure: LiveFailure, frame: LiveFrame
) -> tuple[ast.Call, tuple[str, CallFacts]] | None:
    """The call the frame was making, with the kind and facts of its misfit, if it has one."""
    call = failure.node_at(frame, (ast.Call,))
    if not isinstance(call, ast.Call) or not _is_failing(failure, frame, call):
        return None
    found = _call_facts(failure, frame, call)
    return (call, found) if found is not None else None


def _call_facts(
    failure: LiveFailure, frame: LiveFrame, call: ast.Call
) -> tuple[str, CallFacts] | None:
    """The kind of misfit and its facts, when ``call`` does not fit its callee's signature."""
    resolved = _resolved_signature(failure, frame, call.func) if _shape_is_static(call) else None
    if resolved is None:
        return None
    callee, signature = resolved
    params = list(signature.parameters.values())
    positional = [p for p in params if p.kind in _POSITIONAL_KINDS]
    passed = len(call.args)
    keywords = [k.arg for k in call.keywords if k.arg is not None]
    keyword_names, unexpected = _keyword_fit(failure, frame, params, keywords)
    extra = _extra_arguments(params, passed)
    missing = _missing_arguments(params, passed, keywords)
    kind = _misfit_kind(unexpected, extra, missing)
    if kind is None:
        return None  # the call fits: the TypeError comes from elsewhere
    return kind, {
        "callee": _callee_facts(failure, call, callee),
        "params": [_parameter_facts(p) for p in params],
        "positional": passed,
        "accepts": len(positional),
        "keywords": keywords,
        "unexpected": unexpected,
        "extra": extra,
        "missing": missing,
        "in_scope": _named_in_frame(frame, missing),
        "scope": visible_values(failure, frame) if kind == "missing-argument" else [],
        "keyword_names": keyword_names,
    }


def _named_in_frame(frame: LiveFrame, names: list[str]) -> list[str]:
    """The ``names`` the calling frame has a local or global of, which it could pass as is."""
    scope = {*frame.frame.f_locals, *frame.frame.f_globals}
    return sorted(name for name in names if name in scope)


def _shape_is_static(call: ast.Call) -> bool:
    """Whether the call's shape is known without running it: no ``*args`` nor ``**kwargs``."""
    starred = any(isinstance(arg, ast.Starred) for arg in call.args)
    return not starred and all(k.arg is not None for k in call.keywords)


def _resolved_signature(
    failure: LiveFailure, frame: LiveFrame, func: ast.expr
) -> tuple[object, inspect.Signature] | None:
    """The callable ``func`` is in ``frame``, and its signature, when both can be read."""
    ok, callee = resolve_expr(failure, frame, func)
    signature = _signature(callee) if ok else None
    return (callee, signature) if signature is not None else None


def _signature(callee: object) -> inspect.Signature | None:
    """The signature of a callable, or None when it is not callable or has none to read."""
    if not callable(callee):
        return None
    try:
        return inspect.signature(callee)
    except (TypeError, ValueError):
        return None


def _extra_arguments(params: list[inspect.Parameter], passed: int) -> int:
    """How many of ``passed`` positional arguments no parameter takes."""
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return 0
    return max(0, passed - sum(p.kind in _POSITIONAL_KINDS for p in params))


def _missing_arguments(
    params: list[inspect.Parameter], passed: int, keywords: list[str]
) -> list[str]:
    """The required parameters neither the ``passed`` positionals nor the keywords fill."""
    positional = [p.name for p in params if p.kind in _POSITIONAL_KINDS]
    given = {*positional[:passed], *keywords}
    return [p.name for p in params if _is_required(p) and p.name not in given]


def _is_required(parameter: inspect.Parameter) -> bool:
    empty = inspect.Parameter.empty
    return parameter.default is empty and parameter.kind not in _VARIADIC_KINDS


def _keyword_fit(
    failure: LiveFailure, frame: LiveFrame, params: list[inspect.Parameter], keywords: list[str]
) -> tuple[list[str], list[str]]:
    """The keywords the callee accepts, and those of the call it does not."""
    keyword_names = [p.name for p in params if p.kind in _KEYWORD_KINDS]
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        # The callee passes **kwargs on; the call that failed deeper says what is accepted.
        accepted = _accepted_deeper(failure, frame) if keywords else None
        if accepted is None:
            return keyword_names, []
        keyword_names = [*keyword_names, *accepted]
    return keyword_names, [k for k in keywords if k not in keyword_names]


def _misfit_kind(unexpected: list[str], extra: int, missing: list[str]) -> str | None:
    """Which way the call does not fit, the first of :data:`CALL_KINDS` that applies."""
    misfits = (unexpected, extra, missing)
    return next((kind for kind, found in zip(CALL_KINDS, misfits, strict=True) if found), None)


def _callee_facts(failure: LiveFailure, call: ast.Call, callee: object) -> CalleeFacts:
    """The callee as the call writes it, and where its code is (a class: its ``__init__``)."""
    if isinstance(callee, type):
        target: object = getattr(callee, "__init__", callee)
    else:
        function = getattr(callee, "__func__", callee)
        target = inspect.unwrap(function) if callable(function) else function
    code = getattr(target, "__code__", None)
    return {
        "text": ast.unparse(call.func),
        "name": getattr(target, "__qualname__", None),
        "path": project_path(code.co_filename, failure.root) if code is not None else None,
        "line": code.co_firstlineno if code is not None else None,
    }


def _parameter_facts(parameter: inspect.Parameter) -> ParameterFacts:
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
        resolved = (
            _resolved_signature(failure, deeper, call.func) if isinstance(call, ast.Call) else None
        )
        if resolved is not None:
            parameters = resolved[1].parameters.values()
            return [p.name for p in parameters if p.kind in _KEYWORD_KINDS]
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


def _operand_facts(
    failure: LiveFailure, frame: LiveFrame, node: ast.BinOp | ast.AugAssign
) -> OperandFacts | None:
    op = _OPS.get(type(node.op))
    left, right = operands(node)
    left_type, right_type = _type_of(failure, frame, left), _type_of(failure, frame, right)
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
