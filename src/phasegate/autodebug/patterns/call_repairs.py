"""The repairs of the type pattern (:mod:`.typeerrors`), at the call or at the definition.

Which side is changed follows the evidence: a call in a test can only be matched by the
definition; a definition whose body reads a name nothing binds has lost a parameter; one
whose body never reads a parameter has one too many; the tests' own spelling of a keyword
says which spelling is meant.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from typing import TYPE_CHECKING

from phasegate.autodebug.diagnosis import Candidate, Diagnosis, FileEdit
from phasegate.autodebug.distance import closest
from phasegate.autodebug.patterns.base import (
    closeness,
    definition_is_misspelt,
    test_is_culprit,
)
from phasegate.autodebug.patterns.call_facts import call_facts, operand_facts
from phasegate.autodebug.patterns.expressions import called_name
from phasegate.autodebug.patterns.functions import defined_at, parameter_names
from phasegate.autodebug.source import (
    node_span,
    parse,
    rename_names,
    replace_span,
    segment,
    split_lines,
    top_level_names,
)

if TYPE_CHECKING:
    from phasegate.autodebug.patterns.call_facts import CalleeFacts, OperandFacts
    from phasegate.autodebug.project import Project

__all__ = [
    "CallSite",
    "Definition",
    "extra_candidates",
    "find_call",
    "find_def",
    "inserted_beside",
    "keyword_candidates",
    "operand_candidates",
    "operands",
    "read_call_site",
    "without_item",
]

_NUMBERS = ("int", "float")
_KEYWORD_KINDS = ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY")
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


# -- the call and the definition ---------------------------------------------------------------

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Definition:
    """The callee's definition in an editable file: the file's path and text, and the node."""

    path: str
    text: str
    function: FunctionNode


@dataclass(frozen=True)
class CallSite:
    """The failing call and the callee's definition, as the editable files hold them now.

    ``call_text`` is None when the call is not in an editable file (a test's), ``call`` when
    the call is no longer found there, ``definition`` when the callee's is not editable or
    not found.
    """

    call_text: str | None
    call: ast.Call | None
    definition: Definition | None

    def editable_call(self) -> tuple[str, ast.Call] | None:
        """The text of the file the call is in, and the call, when both are known."""
        if self.call_text is None or self.call is None:
            return None
        return self.call_text, self.call


def read_call_site(diagnosis: Diagnosis, project: Project) -> CallSite:
    """The :class:`CallSite` of a call diagnosis, read from the project's editable files."""
    callee = call_facts(diagnosis)["callee"]
    call_text = project.read_editable(diagnosis.path)
    def_path = callee["path"]
    def_text = project.read_editable(def_path)
    function = find_def(def_text, callee) if def_text is not None else None
    definition = (
        Definition(def_path, def_text, function)
        if def_path is not None and def_text is not None and function is not None
        else None
    )
    call = find_call(call_text, diagnosis) if call_text is not None else None
    return CallSite(call_text, call, definition)


def find_call(text: str, diagnosis: Diagnosis) -> ast.Call | None:
    """The call at the diagnosis's exact span in ``text``."""
    tree = parse(text)
    span = diagnosis.span()
    if tree is None or span is None:
        return None
    lines = split_lines(text)
    calls = (node for node in ast.walk(tree) if isinstance(node, ast.Call))
    return next((node for node in calls if node_span(node, lines) == span), None)


def find_def(text: str, callee: CalleeFacts) -> FunctionNode | None:
    """The function defined (or decorated) at the callee's first line in ``text``."""
    tree = parse(text)
    if tree is None:
        return None
    return defined_at(tree, callee["line"])


def _keyword_span(text: str, keyword: ast.keyword) -> tuple[int, int, int, int] | None:
    span = node_span(keyword, split_lines(text))
    if span is None or keyword.arg is None:
        return None
    name = (span[0], span[1], span[0], span[1] + len(keyword.arg))
    return name if segment(text, name) == keyword.arg else None


# -- an unexpected keyword ----------------------------------------------------------------------


def keyword_candidates(diagnosis: Diagnosis, site: CallSite, project: Project) -> list[Candidate]:
    """The keyword respelt at the call, the parameter renamed, or a parameter added."""
    facts = call_facts(diagnosis)
    accepting = [p["name"] for p in facts["params"] if p["kind"] in _KEYWORD_KINDS]
    unpassed = [name for name in accepting if name not in facts["keywords"]]
    candidates: list[Candidate] = []
    for wrong in facts["unexpected"]:
        for match in closest(wrong, unpassed):
            score = 0.9 * closeness(match.distance, wrong)
            candidates += _respelt_keyword(diagnosis, site, wrong, match.name, score)
            candidates += _renamed_parameter(diagnosis, site, project, wrong, match.name, score)
    return candidates + _added_parameters(site, facts["unexpected"])


def _respelt_keyword(
    diagnosis: Diagnosis, site: CallSite, wrong: str, right: str, score: float
) -> list[Candidate]:
    """``right=`` instead of ``wrong=`` at the call."""
    found = site.editable_call()
    if found is None or diagnosis.path is None:
        return []
    call_text, call = found
    keyword = next((k for k in call.keywords if k.arg == wrong), None)
    span = _keyword_span(call_text, keyword) if keyword is not None else None
    if span is None:
        return []
    callee = call_facts(diagnosis)["callee"]["text"]
    return [
        Candidate(
            "keyword-typo",
            f"pass `{right}=` instead of `{wrong}=` to `{callee}()` at {diagnosis.path}:{span[0]}",
            [FileEdit(diagnosis.path, replace_span(call_text, span, right))],
            score,
        )
    ]


def _renamed_parameter(
    diagnosis: Diagnosis, site: CallSite, project: Project, wrong: str, right: str, score: float
) -> list[Candidate]:
    """The parameter ``right`` renamed ``wrong``, unless the tests are the likely culprit."""
    definition = site.definition
    if definition is None:
        return []
    function = definition.function
    renamed = rename_names(
        definition.text,
        right,
        wrong,
        first_line=function.lineno,
        last_line=function.end_lineno,
        role="name",
    )
    if renamed is None or _test_is_culprit(diagnosis, project, wrong, right, definition):
        return []  # contract first: the test is the likely culprit
    if _passed_by_name(project, function.name, right):
        return []  # another call passes `right=`: the rename would break it
    # The call is in a test, or the tests spell the keyword as the call does.
    misspelt = site.call_text is None or definition_is_misspelt(
        project, wrong, right, asked_uses=1, definitions=1
    )
    return [
        Candidate(
            "rename-parameter",
            f"rename the parameter `{right}` of `{function.name}` to `{wrong}` in "
            f"{definition.path}",
            [FileEdit(definition.path, renamed)],
            score * (1.02 if misspelt else 0.8),
        )
    ]


def _passed_by_name(project: Project, function: str, keyword: str) -> bool:
    """Whether a call of ``function`` anywhere in the project (tests included) passes
    ``keyword=``: the parameter is spelt so by its callers, and the misspelt call is the odd
    one out (the tests that validate a rename need not run that other call)."""
    return any(
        isinstance(node, ast.Call)
        and called_name(node) == function
        and any(k.arg == keyword for k in node.keywords)
        for _, tree in project.parsed_naming(keyword, project.python_files)
        for node in ast.walk(tree)
    )


def _added_parameters(site: CallSite, unexpected: list[str]) -> list[Candidate]:
    """Each unexpected keyword added as a parameter, where the body reads it unbound."""
    found = _unbound_reads(site)
    if found is None:
        return []
    definition, free = found
    candidates = []
    for wrong in (name for name in unexpected if name in free):
        added = _with_parameters(definition.text, definition.function, [wrong])
        if added is not None:
            candidates.append(
                Candidate(
                    "add-parameter",
                    f"add the parameter `{wrong}` to `{definition.function.name}` in "
                    f"{definition.path} (its body uses it, nothing binds it)",
                    [FileEdit(definition.path, added)],
                    0.92,
                )
            )
    return candidates


def _test_is_culprit(
    diagnosis: Diagnosis, project: Project, wrong: str, right: str, definition: Definition
) -> bool:
    """Whether a public parameter must keep its name: the project spells it so elsewhere."""
    function = definition.function
    if function.name.startswith("_") and not function.name.endswith("__"):
        return False
    span = (definition.path, function.lineno, function.end_lineno or function.lineno)
    if not test_is_culprit(project, wrong, right, definition=span):
        return False
    call_facts(diagnosis)["test_culprit"] = {"asked": wrong, "defined": right}
    return True


def _unbound_reads(site: CallSite) -> tuple[Definition, list[str]] | None:
    """The callee's definition, and the names its body reads that nothing binds."""
    definition = site.definition
    tree = parse(definition.text) if definition is not None else None
    if definition is None or tree is None:
        return None
    return definition, _free_names(definition.function, tree)


def _free_names(function: FunctionNode, module: ast.Module) -> list[str]:
    """Names the function reads but nothing binds: not a parameter, local, global or builtin."""
    bound = {*parameter_names(function.args), *_bound_inside(function)}
    known = bound | _module_names(module)
    loaded = (n.id for n in ast.walk(function) if isinstance(n, ast.Name))
    reads = dict.fromkeys(name for name in loaded if name not in known)
    return [name for name in reads if not hasattr(builtins, name)]


def _bound_inside(function: FunctionNode) -> set[str]:
    """The names the function's body binds: assigned, defined, or a nested function's
    parameters."""
    bound: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, _DEFINITIONS) and node is not function:
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return bound


def _module_names(module: ast.Module) -> set[str]:
    """The names a module binds: assigned anywhere, defined or imported at its top."""
    stored = (n for n in ast.walk(module) if isinstance(n, ast.Name))
    return top_level_names(module.body) | {n.id for n in stored if isinstance(n.ctx, ast.Store)}


def inserted_beside(
    text: str, lines: list[str], node: ast.AST, new: str, *, after: bool
) -> str | None:
    """``text`` with ``new`` inserted just before ``node`` (or just after it)."""
    span = node_span(node, lines)
    if span is None:
        return None
    at = span[2:] if after else span[:2]
    return replace_span(text, (*at, *at), new)


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


# -- too many arguments -------------------------------------------------------------------------


def extra_candidates(diagnosis: Diagnosis, site: CallSite, project: Project) -> list[Candidate]:
    """Parameters added or made positional at the definition; arguments packed or dropped."""
    facts = call_facts(diagnosis)
    extra = facts["extra"]
    return [
        *_free_parameters_added(site, extra),
        *_keyword_marker_removed(site, extra),
        *_arguments_packed(diagnosis, site),
        *(_arguments_dropped(diagnosis, site) if extra == 1 else []),
    ]


def _free_parameters_added(site: CallSite, extra: int) -> list[Candidate]:
    """The first ``extra`` names the body reads unbound, added as parameters."""
    found = _unbound_reads(site)
    if found is None:
        return []
    definition, free = found
    added = (
        _with_parameters(definition.text, definition.function, free[:extra])
        if len(free) >= extra
        else None
    )
    if added is None:
        return []
    names = ", ".join(f"`{n}`" for n in free[:extra])
    return [
        Candidate(
            "add-parameter",
            f"add the parameter {names} to `{definition.function.name}` in {definition.path} "
            "(its body uses it, nothing binds it)",
            [FileEdit(definition.path, added)],
            0.9,
        )
    ]


def _keyword_marker_removed(site: CallSite, extra: int) -> list[Candidate]:
    """The definition's keyword-only parameters made positional."""
    definition = site.definition
    loosened = (
        _without_keyword_marker(definition.text, definition.function, extra)
        if definition is not None
        else None
    )
    if definition is None or loosened is None:
        return []
    return [
        Candidate(
            "positional-parameter",
            f"let `{definition.function.name}` take its keyword-only parameter(s) by position "
            f"in {definition.path}",
            [FileEdit(definition.path, loosened)],
            0.85,
        )
    ]


def _arguments_packed(diagnosis: Diagnosis, site: CallSite) -> list[Candidate]:
    """The call's arguments passed as one tuple, to a callee that takes one."""
    found = site.editable_call()
    if found is None or diagnosis.path is None or call_facts(diagnosis)["accepts"] != 1:
        return []
    call_text, call = found
    if len(call.args) <= 1:
        return []
    lines = split_lines(call_text)
    first, last = node_span(call.args[0], lines), node_span(call.args[-1], lines)
    if first is None or last is None:
        return []
    whole = (first[0], first[1], last[2], last[3])
    packed = replace_span(call_text, whole, f"({segment(call_text, whole)})")
    return [
        Candidate(
            "pack-arguments",
            f"pass the arguments of `{call_facts(diagnosis)['callee']['text']}()` as one tuple "
            f"at {diagnosis.path}:{diagnosis.line}",
            [FileEdit(diagnosis.path, packed)],
            0.75,
        )
    ]


def _arguments_dropped(diagnosis: Diagnosis, site: CallSite) -> list[Candidate]:
    """The call without one of its positional arguments, the last first."""
    found = site.editable_call()
    if found is None or diagnosis.path is None:
        return []
    call_text, call = found
    items: list[ast.AST] = [*call.args, *call.keywords]
    candidates = []
    for rank, index in enumerate(reversed(range(len(call.args)))):
        new = without_item(call_text, items, index)
        if new is not None:
            candidates.append(
                Candidate(
                    "remove-argument",
                    f"drop the argument `{ast.unparse(call.args[index])}` from the call of "
                    f"`{call_facts(diagnosis)['callee']['text']}()` at "
                    f"{diagnosis.path}:{diagnosis.line}",
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
        return inserted_beside(text, lines, required[-1], f", {addition}", after=True)
    if plain:
        return inserted_beside(text, lines, plain[0], f"{addition}, ", after=False)
    header = lines[function.lineno - 1]
    opening = header.find("(", header.find(function.name))
    if opening < 0:
        return None
    rest = header[opening + 1 :].lstrip()
    separator = "" if rest.startswith(")") else ", "
    return replace_span(
        text, (function.lineno, opening + 1, function.lineno, opening + 1), addition + separator
    )


# -- operands of the wrong types ---------------------------------------------------------------


def operand_candidates(diagnosis: Diagnosis, project: Project) -> list[Candidate]:
    """A number and a string made the same type, with ``str()`` or the number's type."""
    path = diagnosis.path
    text = project.read_editable(path)
    found = _operation_at(text, diagnosis) if text is not None else None
    if path is None or text is None or found is None:
        return []
    node, lines = found
    candidates = []
    for rank, (operand, convert) in enumerate(_conversions(node, operand_facts(diagnosis))):
        operand_span = node_span(operand, lines)
        if operand_span is None or _is_augmented_target(node, operand):
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


Operation = ast.BinOp | ast.AugAssign


def _operation_at(text: str, diagnosis: Diagnosis) -> tuple[Operation, list[str]] | None:
    """The operation at the diagnosis's exact span, and the lines of ``text``."""
    tree = parse(text)
    span = diagnosis.span()
    if tree is None or span is None:
        return None
    lines = split_lines(text)
    operations = (n for n in ast.walk(tree) if isinstance(n, (ast.BinOp, ast.AugAssign)))
    node = next((n for n in operations if node_span(n, lines) == span), None)
    return (node, lines) if node is not None else None


def operands(node: Operation) -> tuple[ast.expr, ast.expr]:
    """The two sides of ``a + b`` (``a`` and ``b``), or of ``a += b``."""
    if isinstance(node, ast.BinOp):
        return node.left, node.right
    return node.target, node.value


def _conversions(node: Operation, facts: OperandFacts) -> list[tuple[ast.expr, str]]:
    """Which operand to convert with what, the string side's partner first."""
    left, right = operands(node)
    left_type, right_type = facts["left_type"], facts["right_type"]
    if left_type == "str" and right_type in _NUMBERS:
        return [(right, "str"), (left, right_type)]
    if right_type == "str" and left_type in _NUMBERS:
        return [(left, "str"), (right, left_type)]
    return []


def _is_augmented_target(node: Operation, operand: ast.expr) -> bool:
    """``x`` in ``x += ...``: a name assigned to cannot be wrapped in a conversion."""
    return (
        isinstance(node, ast.AugAssign) and isinstance(operand, ast.Name) and operand is node.target
    )
