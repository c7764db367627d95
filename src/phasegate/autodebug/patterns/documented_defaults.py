"""What a parameter's docstring says its None stands for, for the body of a lost guard.

A parameter that defaults to None often says in the function's docstring what it is given
instead: ``:param dumps: ... which defaults to :func:`json.dumps`.`` (``dumps = json.dumps``),
``:param wrapstring: ... Defaults to :attr:`Environment.newline_sequence`.`` (``wrapstring =
environment.newline_sequence``, ``environment`` being the parameter annotated with that
class). The code each reference or literal of the parameter's own entry names is a body, when
what it reads is there where the guard goes: a parameter of the function (a class named
through the parameter annotated with it), a name the module binds, or a builtin. Sphinx
(``:param x:``), Google (``x (int):``) and numpydoc (``x : int``) entries are read alike: the
line that names the parameter and the lines indented under it.

Hand-written: docstring parsers (docstring_parser, numpydoc) split the entries but do not read
the references in them as code, and the engine takes no dependency for a few lines of regex.
"""

from __future__ import annotations

import ast
import builtins
import itertools
import re
from typing import TYPE_CHECKING

from phasegate.autodebug.patterns.functions import is_none, parameter_names
from phasegate.autodebug.patterns.kindred_names import module_names

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = ["docstring_entry", "documented_default_bodies", "documented_defaults_in"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef
#: A Sphinx role's target (``:func:`json.dumps```, ``:attr:`~Env.x```) or a literal (````x````).
_REFERENCE = re.compile(r":\w+:`[~.!]*([^`<>]+?)`|``(.+?)``")
#: What the prose says the default is: ``Defaults to False.``, ``Default is 2``, ``Default:
#: `m```, ``(default=len(s))``: a literal, or the word up to a space, comma or semicolon.
_SAID_DEFAULT = re.compile(
    r"\bdefault(?:s?\s+(?:is|to)|\s+value\s+is|\s*[:=])\s*"
    r"(?::\w+:`[~.!]*([^`<>]+?)`|``(.+?)``|`([^`]+)`|([^\s,;`]+))",
    re.IGNORECASE,
)
#: Bodies at most: the first references of the entry that read only what is there.
_MAX_BODIES = 2
_BUILTINS = frozenset(dir(builtins))
_SAID = "what its docstring says it defaults to"
_NAMED = "what its docstring names beside it"


def documented_default_bodies(
    project: Project, path: str, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    """``(<subject> = <code>, score, why)`` for the code the docstring's entry of the
    parameter ``subject`` names, as written there, when it reads only what is bound."""
    source = project.editable_source(path)
    return documented_defaults_in(source.tree, function, subject) if source is not None else []


def documented_defaults_in(
    tree: ast.Module, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    """:func:`documented_default_bodies` for ``function`` of the module ``tree``."""
    known = (module_names(tree) | set(parameter_names(function.args)) | _BUILTINS) - {subject}
    entry = docstring_entry(function, subject)
    said = _in_scope_only(_said(entry), function, known)
    found = [(code, 0.89, _SAID) for code in said]
    named = _in_scope_only(_references(entry), function, known)
    found += [(code, 0.77, _NAMED) for code in named if code not in said and _inert(code)]
    return [(f"{subject} = {code}", score, why) for code, score, why in found[:_MAX_BODIES]]


def _in_scope_only(codes: list[str], function: _Function, known: set[str]) -> list[str]:
    """Those of ``codes`` that read only what is there, each once, as :func:`_in_scope`
    writes them."""
    return list(dict.fromkeys(filter(None, (_in_scope(c, function, known) for c in codes))))


#: The calls a body the entry only names may make: builtins that build or measure a value.
_INERT_CALLS = frozenset(
    {"bool", "bytes", "dict", "float", "frozenset", "int", "len", "list", "max", "min"}
    | {"object", "range", "set", "sorted", "str", "sum", "tuple"}
)


def _inert(code: str) -> bool:
    """Whether ``code`` calls nothing but :data:`_INERT_CALLS`. Code the entry names beside
    the parameter (not as its default) may be anything the function does (``shutil.rmtree
    (folder)``), and validation would run it: only what it says the default is may call."""
    calls = [n for n in ast.walk(ast.parse(code, mode="eval")) if isinstance(n, ast.Call)]
    return all(isinstance(c.func, ast.Name) and c.func.id in _INERT_CALLS for c in calls)


def docstring_entry(function: _Function, subject: str) -> str:
    """The lines of the docstring's entry of the parameter ``subject``: the line naming it and
    those indented under it ("" if none)."""
    if subject not in parameter_names(function.args):
        return ""
    lines = (ast.get_docstring(function) or "").splitlines()
    start = next((i for i, line in enumerate(lines) if _names(line, subject)), len(lines))
    return " ".join(lines[start : start + 1] + _under(lines[start:]))


def _under(lines: list[str]) -> list[str]:
    """The lines right after the first that are indented deeper than it."""
    indent = _indent(lines[0]) if lines else 0
    return list(itertools.takewhile(lambda line: _deeper(line, indent), lines[1:]))


def _deeper(line: str, indent: int) -> bool:
    return bool(line.strip()) and _indent(line) > indent


def _names(line: str, subject: str) -> bool:
    """Whether ``line`` opens the entry of ``subject``: ``:param [type] subject:``,
    ``subject (type):``, ``subject : type`` or ``subject:``."""
    name = re.escape(subject)
    pattern = rf"\s*(?::param\s+(?:[^:]+\s+)?{name}\s*:|\*{{0,2}}{name}\s*(?:\([^)]*\))?\s*:)"
    return re.match(pattern, line) is not None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _said(entry: str) -> list[str]:
    """What the entry's prose says the default is, each as written (a bare word without the
    full stop or the closing parenthesis around it)."""
    return [_bare("".join(groups)) for groups in _SAID_DEFAULT.findall(entry)]


def _bare(word: str) -> str:
    word = word.rstrip(".")
    return word[:-1] if word.count(")") > word.count("(") else word


def _references(entry: str) -> list[str]:
    """The role targets and literals of the entry, in the order written."""
    return ["".join(groups) for groups in _REFERENCE.findall(entry)]


def _in_scope(code: str, function: _Function, known: set[str]) -> str | None:
    """``code`` as it reads where the guard goes, each name it reads ``known`` (a class whose
    instance a parameter annotated with it is, that parameter); None if it is not code, is
    None, or reads anything else."""
    node = _expression(code.partition(" = ")[2] or code)
    if node is None:
        return None
    _through_instance(node, function, known)
    return ast.unparse(node) if _reads_only(node, known) else None


def _expression(code: str) -> ast.expr | None:
    """``code`` parsed as a plain expression, or None."""
    try:
        node = ast.parse(code.strip(), mode="eval").body
    except SyntaxError:
        return None
    return node if _plain(node) else None


#: What a docstring's prose may be misread as code: these are never taken for a body.
_NOT_PLAIN = (
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.NamedExpr,
    ast.Await,
    ast.Yield,
    ast.YieldFrom,
    ast.Compare,
    ast.BoolOp,
    ast.IfExp,
    ast.Starred,
)


def _plain(node: ast.expr) -> bool:
    """Not None, and no lambda, comprehension, comparison or choice: code a body can be, not
    prose."""
    return not is_none(node) and not any(isinstance(n, _NOT_PLAIN) for n in ast.walk(node))


def _reads_only(node: ast.expr, known: set[str]) -> bool:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} <= known


def _through_instance(node: ast.expr, function: _Function, known: set[str]) -> None:
    """Make the class an attribute chain starts from the parameter annotated with it."""
    head = _head(node)
    if head is None:
        return
    instance = _annotated_with(function, head.id)
    head.id = instance if instance in known else head.id


def _head(node: ast.expr) -> ast.Name | None:
    """The name an attribute chain, subscript or call starts from; None for a literal."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = _inner(node)
    return node if isinstance(node, ast.Name) else None


def _inner(node: ast.Attribute | ast.Subscript | ast.Call) -> ast.expr:
    return node.func if isinstance(node, ast.Call) else node.value


def _annotated_with(function: _Function, cls: str) -> str:
    """The parameter annotated with the class ``cls`` (``environment: "Environment"``), or ""."""
    pattern = re.compile(rf"(?<!\w){re.escape(cls)}\b")
    every = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
    return next((a.arg for a in every if pattern.search(_annotation(a))), "")


def _annotation(argument: ast.arg) -> str:
    return ast.unparse(argument.annotation) if argument.annotation is not None else ""
