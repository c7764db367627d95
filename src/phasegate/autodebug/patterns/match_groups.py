"""A lost guard's body for a regular expression's group that did not take part in the match.

``text = m.group("math_text_single")`` is None when the pattern's other alternative matched;
mistune's ``parse_block_math`` guarded it with ``if text is None: text =
m.group("math_text_multi")``. The other groups named in the same pattern (a string of the
module that names the group read) are the bodies: the same call, with the other group's name.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, TypeGuard

from phasegate.autodebug.patterns.expressions import called_name
from phasegate.autodebug.patterns.functions import assignments_of
from phasegate.autodebug.source import parse

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = ["match_group_bodies"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef
_WHY = "another group of the pattern its group is named in"
_MAX_GROUPS = 2
_GROUP = re.compile(r"\(\?P<(\w+)>")


def match_group_bodies(
    project: Project, path: str, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    """``<subject> = <m>.group("<other>")`` for a ``<subject> = <m>.group("<name>")`` of the
    function, for the other groups of the module's patterns naming ``<name>``."""
    reads = [a.value for a in assignments_of(function, subject) if _reads_a_group(a.value)]
    tree = parse(project.read(path) or "") if reads else None
    return _bodies(subject, _other_groups(tree, reads[-1])) if tree is not None else []


def _bodies(subject: str, values: list[str]) -> list[tuple[str, float, str]]:
    return [(f"{subject} = {value}", 0.8, _WHY) for value in values]


def _reads_a_group(value: ast.expr) -> TypeGuard[ast.Call]:
    """``<m>.group("<name>")``: one argument, a string."""
    return isinstance(value, ast.Call) and called_name(value) == "group" and _one_string(value)


def _one_string(call: ast.Call) -> bool:
    args = call.args
    return len(args) == 1 and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str)


def _other_groups(tree: ast.Module, call: ast.Call) -> list[str]:
    """The call with the name of each other group of the pattern naming its group."""
    name = ast.literal_eval(call.args[0])
    others = [g for g in _groups_beside(tree, name) if g != name][:_MAX_GROUPS]
    return [ast.unparse(_with_argument(call, other)) for other in others]


def _groups_beside(tree: ast.Module, name: str) -> list[str]:
    """The groups named in the module's first string that names group ``name``."""
    patterns = [_GROUP.findall(text) for text in _strings(tree)]
    return next((groups for groups in patterns if name in groups), [])


def _strings(tree: ast.Module) -> list[str]:
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and _is_text(n.value)]


def _is_text(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and "(?P<" in value


def _with_argument(call: ast.Call, argument: str) -> ast.Call:
    return ast.Call(call.func, [ast.Constant(argument)], call.keywords)
