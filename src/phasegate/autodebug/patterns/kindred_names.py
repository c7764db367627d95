"""Names of the same kind as a lost guard's value, for the body of ``if x is None:``.

A parameter that may be None is often given, when it is, another value of the same kind that
is there already, and the names say so:

* **another name of the same kind** (a parameter, a local): its name ends with the same word
  (``if base_uri is None: base_uri = retrieval_uri``, ``n_jobs = backend_n_jobs``,
  ``result_reducers = job_reducers``);
* **a module constant named for it**: a name the module binds in capitals that holds each word
  of the value's name (``protocol = DEFAULT_PROTOCOL``, ``file = NULL_FILE``, ``loky_pickler =
  ENV_LOKY_PICKLER``), those that say ``DEFAULT`` first.

Read from the names alone; the tests decide, as for every candidate. Counted on the installed
packages the real-code benchmark never draws from (``benchmarks/guard_bodies.py``).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from phasegate.autodebug.patterns.functions import bound_names
from phasegate.autodebug.source import top_level_names

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = ["kindred_name_bodies", "kindred_names_in", "module_names"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef
#: The shortest last word that says what kind a value is (``uri``, not ``x`` or ``id``).
_SHORTEST_WORD = 3
#: Bodies at most of each kind.
_MAX_BODIES = 2
_REBINDING = (ast.For, ast.AsyncFor, ast.AugAssign)
_KIN = "another name of the same kind"
_CONSTANT = "the module's constant named for it"


def kindred_name_bodies(
    project: Project, path: str, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    """``(<subject> = <name>, score, why)`` for the parameters and module constants named as
    values of the kind ``subject`` is."""
    source = project.editable_source(path)
    return kindred_names_in(source.tree, function, subject) if source is not None else []


def kindred_names_in(
    tree: ast.Module, function: _Function, subject: str
) -> list[tuple[str, float, str]]:
    """:func:`kindred_name_bodies` for ``function`` of the module ``tree``."""
    if "." in subject:
        return []
    names = bound_names(function, nested=False) - {"self", "cls", subject}
    return _kin_bodies(sorted(names), subject) + _constant_bodies(tree, subject)


def _kin_bodies(others: list[str], subject: str) -> list[tuple[str, float, str]]:
    """The other names whose last word is ``subject``'s (a word long enough to say a kind)."""
    last = _last_word(subject)
    kin = [name for name in others if _last_word(name) == last] if last else []
    return [(f"{subject} = {name}", 0.715, _KIN) for name in kin[:_MAX_BODIES]]


def _last_word(name: str) -> str:
    """The last word of ``name``, or "" if too short to say a kind."""
    word = name.lower().rpartition("_")[2]
    return word if len(word) >= _SHORTEST_WORD else ""


def _constant_bodies(tree: ast.Module, subject: str) -> list[tuple[str, float, str]]:
    """The module's names in capitals holding each word of ``subject``, ``DEFAULT`` first."""
    wanted = set(_words(subject))
    named = [name for name in module_names(tree) if name.isupper() and wanted <= _words(name)]
    ordered = sorted(named, key=lambda name: ("default" not in _words(name), name))
    return [(f"{subject} = {name}", 0.77, _CONSTANT) for name in ordered[:_MAX_BODIES]]


def _words(name: str) -> set[str]:
    return set(name.lower().split("_")) - {""}


def module_names(tree: ast.Module) -> set[str]:
    """The names the module's top-level statements bind: :func:`top_level_names`, and the
    plain targets of a top-level loop or augmented assignment."""
    targets = (getattr(s, "target", None) for s in tree.body if isinstance(s, _REBINDING))
    return top_level_names(tree.body) | {t.id for t in targets if isinstance(t, ast.Name)}
