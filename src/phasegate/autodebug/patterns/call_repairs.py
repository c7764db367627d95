"""The repairs of the type pattern (:mod:`.typeerrors`), at the call or at the definition.

Which side is changed follows the evidence: a call in a test can only be matched by the
definition; a definition whose body reads a name nothing binds has lost a parameter; one
whose body never reads a parameter has one too many; the tests' own spelling of a keyword
says which spelling is meant.
"""

from __future__ import annotations

import ast
import builtins
from typing import TYPE_CHECKING, Any

from phasegate.autodebug.diagnosis import Candidate, Diagnosis, FileEdit
from phasegate.autodebug.distance import closest
from phasegate.autodebug.patterns.base import (
    closeness,
    definition_is_misspelt,
    test_is_culprit,
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
    from phasegate.autodebug.project import Project

__all__ = [
    "extra_candidates",
    "find_call",
    "find_def",
    "keyword_candidates",
    "operand_candidates",
    "without_item",
]

_NUMBERS = ("int", "float")


# -- candidates ------------------------------------------------------------------------------


def find_call(text: str, diagnosis: Diagnosis) -> ast.Call | None:
    tree = parse(text)
    if tree is None:
        return None
    lines = split_lines(text)
    span = diagnosis.span()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and span is not None and node_span(node, lines) == span:
            return node
    return None


def find_def(text: str, callee: dict[str, Any]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
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


def keyword_candidates(
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
                if renamed is not None and _test_is_culprit(
                    diagnosis, project, wrong, match.name, function, def_path
                ):
                    renamed = None  # contract first: the test is the likely culprit
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


def _test_is_culprit(
    diagnosis: Diagnosis,
    project: Project,
    wrong: str,
    right: str,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    def_path: str,
) -> bool:
    """Whether a public parameter must keep its name: the project spells it so elsewhere."""
    if function.name.startswith("_") and not function.name.endswith("__"):
        return False
    span = (def_path, function.lineno, function.end_lineno or function.lineno)
    if not test_is_culprit(project, wrong, right, definition=span):
        return False
    diagnosis.facts["test_culprit"] = {"asked": wrong, "defined": right}
    return True


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


def without_item(text: str, items: list[ast.AST], index: int) -> str | None:
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


def extra_candidates(
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
            new = without_item(call_text, items, index)
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


def operand_candidates(diagnosis: Diagnosis, project: Project) -> list[Candidate]:
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
