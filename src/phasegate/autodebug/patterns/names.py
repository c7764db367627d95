"""``NameError``: a typo of a name in scope, or a missing import.

Classified from the frame that raised: the names it sees (its locals, the enclosing
function's cells, the module's globals and the builtins) within typo distance of the
missing name. Candidates, best first:

* replace the misspelt use with a name in scope (locals before globals before builtins);
* rename a misspelt *definition* when the missing name is used several times and the close
  name only once (``lenght = ...`` followed by two uses of ``length``);
* import it: a standard-library module of that name, a project definition of that name
  (found through the context index), a standard-library symbol, an alias or a submodule
  (:mod:`.import_aliases`), or a close project name.
"""

from __future__ import annotations

import ast
import builtins
from typing import TYPE_CHECKING, NamedTuple, TypedDict, cast

from phasegate.autodebug.diagnosis import Candidate, Diagnosis, FileEdit
from phasegate.autodebug.distance import closest
from phasegate.autodebug.patterns.base import (
    closeness,
    definition_is_misspelt,
    diagnose,
    lines_apart,
    short,
)
from phasegate.autodebug.patterns.functions import bound_names, parents_of
from phasegate.autodebug.patterns.import_aliases import Statement, alias_statements
from phasegate.autodebug.patterns.import_names import relative_module
from phasegate.autodebug.patterns.imported_elsewhere import (
    imported_elsewhere,
    imported_elsewhere_first,
)
from phasegate.autodebug.source import (
    binding,
    count_names,
    enclosing_function,
    insert_import,
    node_span,
    parse,
    rename_names,
    replace_span,
    segment,
    split_lines,
)
from phasegate.autodebug.stdlib import is_stdlib_module, modules_defining, offers

if TYPE_CHECKING:
    from phasegate.autodebug.context_index import Definition
    from phasegate.autodebug.live import LiveFailure, LiveFrame
    from phasegate.autodebug.project import Project

__all__ = [
    "NameFacts",
    "NameMatch",
    "NamePattern",
    "import_candidates",
    "name_facts",
    "unbound_names",
]

_SCOPE_WEIGHT = {"local": 1.0, "enclosing": 0.97, "global": 0.94, "builtin": 0.85}
_MATCHES_KEPT = 8


class NameMatch(TypedDict):
    """A name in scope close to the one not defined, and the scope it is found in."""

    name: str
    scope: str
    distance: float


class NameFacts(TypedDict, total=False):
    """The name not defined (None when neither the exception nor the code says it), the
    names in scope close to it, and the function and module it is used in."""

    name: str | None
    matches: list[NameMatch]
    function: str
    module: str | None


def name_facts(diagnosis: Diagnosis) -> NameFacts:
    """The facts of a diagnosis of the name pattern."""
    return cast("NameFacts", diagnosis.facts)


class _Use(NamedTuple):
    """Where the name not defined is used: the file, its text and tree, the span of the use,
    and the function around it."""

    path: str
    text: str
    tree: ast.Module
    missing: str
    span: tuple[int, int, int, int]
    function: ast.FunctionDef | ast.AsyncFunctionDef | None


class NamePattern:
    """A name that is not defined where it is used."""

    name = "name"
    error_class = "name"

    def classify(self, failure: LiveFailure) -> Diagnosis | None:
        exc = failure.exc
        if not isinstance(exc, NameError):
            return None
        frame = failure.innermost
        kind = "unbound-local" if isinstance(exc, UnboundLocalError) else "undefined"
        node = failure.node_at(frame, (ast.Name,)) if frame is not None else None
        missing = _missing_name(exc, node)
        if frame is None or not isinstance(missing, str):
            return diagnose(self, failure, frame, kind=kind, facts={"name": missing})
        if not (isinstance(node, ast.Name) and node.id == missing):
            node = None
        facts = _facts(failure, frame, missing)
        return diagnose(self, failure, frame, kind=kind, facts=facts, node=node)

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        use = _use(diagnosis, project) if diagnosis.kind == "undefined" else None
        if use is None:
            return []
        candidates = _typo_candidates(use, diagnosis, project)
        # A close project name that also needs importing is the least likely repair: it is
        # looked for (and the TF-IDF index built) only when nothing likelier exists.
        near = use.span if not candidates else None
        candidates += import_candidates(
            use.text, use.path, use.missing, near, project, use.function
        )
        return sorted(candidates, key=lambda c: -c.score)

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        missing = name_facts(diagnosis).get("name")
        head = f"{short(diagnosis.exc_type)}: `{missing}`"
        if diagnosis.kind == "unbound-local":
            return (
                f"{head} is used before it is assigned in `{name_facts(diagnosis).get('function')}`"
            )
        if candidate is None:
            return (
                f"{head} is not defined, and no name in scope, in the project or in the "
                "standard library is close to it"
            )
        detail = candidate.detail
        if candidate.kind == "typo":
            suggestion = f"`{detail['replacement']}` ({detail['where']})"
            return f"{head} is not defined; did you mean {suggestion}?"
        if candidate.kind == "rename-definition":
            return (
                f"{head} is not defined; `{detail['replacement']}` ({detail['where']}) looks "
                f"like its misspelt definition: rename it to `{missing}`"
            )
        if candidate.kind == "missing-import":
            return (
                f"{head} is not defined; did you mean `{detail['statement']}` ({detail['where']})?"
            )
        return f"{head} is not defined; {candidate.description}"


def _missing_name(exc: NameError, node: ast.AST | None) -> object:
    """The name not defined: the exception's, or the one at the failing span (an
    ``UnboundLocalError`` does not always carry the name)."""
    missing = getattr(exc, "name", None)
    if missing is None and isinstance(node, ast.Name):
        return node.id
    return missing


def _facts(failure: LiveFailure, frame: LiveFrame, missing: str) -> NameFacts:
    """The names in the frame's scopes close to ``missing``, and where it is used."""
    module = frame.frame.f_globals.get("__name__")
    return {
        "name": missing,
        "matches": _name_matches(missing, _scopes(failure, frame))[:_MATCHES_KEPT],
        "function": frame.frame.f_code.co_name,
        "module": module if isinstance(module, str) else None,
    }


def _use(diagnosis: Diagnosis, project: Project) -> _Use | None:
    """The use of the missing name in an editable file that parses, if it can be found."""
    path, line, missing = diagnosis.path, diagnosis.line, name_facts(diagnosis).get("name")
    if path is None or line is None or missing is None:
        return None
    source = project.editable_source(path)
    if source is None:
        return None
    text, tree = source.text, source.tree
    span = _use_span(text, tree, diagnosis, missing)
    if span is None:
        return None
    return _Use(path, text, tree, missing, span, enclosing_function(tree, line))


def _scopes(failure: LiveFailure, frame: LiveFrame) -> list[tuple[str, set[str]]]:
    """The names the frame sees, scope by scope, the nearest first."""
    code = frame.frame.f_code
    local_names = {*frame.frame.f_locals, *code.co_varnames, *code.co_cellvars}
    outer = _outer_function(failure, frame)
    if outer is not None:
        # A comprehension (before Python 3.12) or a lambda runs in a frame of its own,
        # but reads as part of the function around it.
        local_names |= {*outer.frame.f_locals, *outer.frame.f_code.co_varnames}
    return [
        ("local", local_names),
        ("enclosing", {*code.co_freevars, *_around_bindings(failure, frame)}),
        ("global", set(frame.frame.f_globals)),
        ("builtin", set(frame.frame.f_builtins)),
    ]


def _around_bindings(failure: LiveFailure, frame: LiveFrame) -> set[str]:
    """The parameters and assigned names of the functions around the frame's function, read
    from the source: a nested function reads them as closure cells, but one whose only use of
    such a name was misspelt no longer has the cell (``co_freevars`` leaves it out)."""
    tree = failure.tree(frame.filename)
    own = enclosing_function(tree, frame.line) if tree is not None else None
    if tree is None or own is None:
        return set()
    parents = parents_of(tree)
    names: set[str] = set()
    node = parents.get(id(own))
    while node is not None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names |= bound_names(node, nested=False)
        node = parents.get(id(node))
    return names


def _name_matches(missing: str, scopes: list[tuple[str, set[str]]]) -> list[NameMatch]:
    """The names close to ``missing``, each in the nearest scope that has it, the closest
    first (and of two as close, the nearer scope's)."""
    matches: list[NameMatch] = []
    seen = {missing}
    for scope, names in scopes:
        for match in closest(missing, (n for n in names if _may_mean(missing, n))):
            if match.name not in seen:
                seen.add(match.name)
                matches.append({"name": match.name, "scope": scope, "distance": match.distance})
    matches.sort(key=lambda m: (m["distance"], -_SCOPE_WEIGHT[m["scope"]]))
    return matches


def _may_mean(missing: str, name: str) -> bool:
    """Whether ``name`` is one a misspelt ``missing`` may mean: not a compiler's name (``.0``),
    nor one of ``__`` (``__builtins__``, ``__name__``) unless ``missing`` is one of ``__`` too
    (jinja2's ``__context`` parameter, which no class mangles in a module-level function)."""
    return not name.startswith(".") and (not name.startswith("__") or missing.startswith("__"))


def _outer_function(failure: LiveFailure, frame: LiveFrame) -> LiveFrame | None:
    """The frame of the function a comprehension or lambda frame belongs to."""
    if not frame.function.startswith("<") or frame.function == "<module>":
        return None
    index = failure.frames.index(frame)
    if index > 0 and failure.frames[index - 1].filename == frame.filename:
        return failure.frames[index - 1]
    return None


def _use_span(
    text: str, tree: ast.Module, diagnosis: Diagnosis, missing: str
) -> tuple[int, int, int, int] | None:
    span = diagnosis.span()
    if span is not None and segment(text, span) == missing:
        return span
    lines = split_lines(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == missing and node.lineno == diagnosis.line:
            return node_span(node, lines)
    return None


def _typo_candidates(use: _Use, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
    """For each close name in scope: the use respelt as it, and (for a name the file defines
    itself) its definition renamed to the use's spelling."""
    path, missing, function = use.path, use.missing, use.function
    line = use.span[0]
    candidates: list[Candidate] = []
    for match in name_facts(diagnosis).get("matches", []):
        other, scope = match["name"], match["scope"]
        score = _SCOPE_WEIGHT.get(scope, 0.8) * closeness(match["distance"], missing)
        owner: ast.AST | None = function if scope == "local" else use.tree
        bound = binding(owner, other) if owner is not None else None
        where = _where(scope, bound, line, function)
        candidates.append(
            Candidate(
                "typo",
                f"replace `{missing}` with `{other}` at {path}:{line}",
                [FileEdit(path, replace_span(use.text, use.span, other))],
                score,
                {"name": missing, "replacement": other, "scope": scope, "where": where},
            )
        )
        if scope in ("local", "global") and bound is not None and bound[1] != "imported":
            candidates += _definition_renamed(use, other, scope, bound, score, project)
    return candidates


def _definition_renamed(
    use: _Use, other: str, scope: str, bound: tuple[int, str], score: float, project: Project
) -> list[Candidate]:
    """``other``'s definition (``bound``: its line and how, in ``scope``) renamed to the
    missing name."""
    text, missing = use.text, use.missing
    first, last = (1, None)
    if scope == "local" and use.function is not None:
        first, last = use.function.lineno, use.function.end_lineno
    renamed = rename_names(text, other, missing, first_line=first, last_line=last, role="name")
    if renamed is None:
        return []
    definitions = count_names(text, other, first_line=first, last_line=last, role="name")
    uses = count_names(text, missing, first_line=first, last_line=last, role="name")
    # One misspelt definition and several uses of the right spelling: the definition is
    # the typo. So it is when the file elsewhere spells it as the use does (the
    # project's vocabulary). Otherwise a misspelt use is the likelier fault.
    elsewhere_missing = count_names(text, missing) - uses
    elsewhere_other = count_names(text, other) - definitions
    seen_by_tests = scope != "local" or bound[1] == "parameter"
    misspelt = (elsewhere_missing > elsewhere_other and definitions == 1) or _misspelt_by_uses(
        project, missing, other, (uses, definitions), seen_by_tests=seen_by_tests
    )
    return [
        Candidate(
            "rename-definition",
            f"rename `{other}` to `{missing}` in {_scope_phrase(scope, use.function)} "
            f"of {use.path}",
            [FileEdit(use.path, renamed)],
            score * (1.02 if misspelt else 0.8),
            {"name": missing, "replacement": other, "scope": scope, "where": f"line {bound[0]}"},
        )
    ]


def _misspelt_by_uses(
    project: Project, missing: str, other: str, counts: tuple[int, int], *, seen_by_tests: bool
) -> bool:
    """Whether ``other``'s definition is likelier the typo, by ``counts`` (the uses of
    ``missing``, the occurrences of ``other``) and, for a name the tests can spell, by how
    the tests spell it. A function's own variable is none of theirs: parso's local ``pos``
    misspelt ``os`` in one use was renamed ``os`` everywhere because the tests write ``os``
    (the module) far more often; a parameter is theirs (they pass it by keyword)."""
    uses, definitions = counts
    if not seen_by_tests:
        return definitions == 1 and uses >= 2
    return definition_is_misspelt(project, missing, other, asked_uses=uses, definitions=definitions)


def _where(
    scope: str,
    bound: tuple[int, str] | None,
    line: int,
    function: ast.FunctionDef | ast.AsyncFunctionDef | None,
) -> str:
    if scope == "builtin":
        return "a builtin"
    if scope == "enclosing":
        return "from the enclosing function"
    if bound is None:
        return "in the module's globals" if scope == "global" else "a local name"
    if bound[1] == "parameter" and function is not None:
        return f"a parameter of `{function.name}`"
    verb = {"assigned": "defined", "defined": "defined", "imported": "imported"}[bound[1]]
    if scope == "global":
        return f"{verb} at line {bound[0]}"
    return f"{verb} {lines_apart(bound[0], line)}"


def _scope_phrase(scope: str, function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> str:
    if scope == "local" and function is not None:
        return f"`{function.name}`"
    return "the module"


def _module_as_written(text: str, path: str, module: str, project: Project) -> str:
    """``module`` as this file would write it: as it already does, or relative when the file
    imports its own package relatively."""
    tree = parse(text)
    package = project.package_of(path)
    written, relative = _as_imported(tree, module, package)
    if written is not None:
        return written
    parts, own = module.split("."), package.split(".") if package else []
    if not own or parts[0] != own[0]:
        return module
    if not relative and not _imports_own_package(tree, own[0]):
        relative = project.relative_imports  # nothing to go by in the file: the project's habit
    return relative_module(module, package) if relative else module


def _as_imported(tree: ast.Module | None, module: str, package: str) -> tuple[str | None, bool]:
    """``module`` as one of the file's ``from`` imports writes it (None if none does), and
    whether the file imports relatively (one of its imports before that one, or any)."""
    relative = False
    imports = (
        [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)] if tree is not None else []
    )
    for node in imports:
        relative = relative or node.level > 0
        written = _written_by(node, module, package)
        if written is not None:
            return written, relative
    return None, relative


def _written_by(node: ast.ImportFrom, module: str, package: str) -> str | None:
    """``module`` as the ``from`` import ``node`` (of a file of ``package``) writes it, if it
    imports from that module."""
    if node.level == 0:
        return module if node.module == module else None
    return "." * node.level + (node.module or "") if _resolved(node, package) == module else None


def _resolved(node: ast.ImportFrom, package: str) -> str:
    """The absolute name of the module a relative import names, from ``package``."""
    base = package.split(".")[: len(package.split(".")) - node.level + 1] if package else []
    return ".".join([*base, node.module or ""]).strip(".")


def _imports_own_package(tree: ast.Module | None, top: str) -> bool:
    return tree is not None and any(
        isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == top
        for node in ast.walk(tree)
    )


def unbound_names(text: str) -> list[str]:
    """The names ``text`` reads that nothing in it binds and no builtin supplies, in order."""
    tree = parse(text)
    if tree is None:
        return []
    bound: set[str] = set(dir(builtins))
    loaded: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loaded.setdefault(node.id, node.lineno)
        else:
            bound.update(_bound_by(node))
    return sorted((n for n in loaded if n not in bound), key=lambda n: (loaded[n], n))


def _bound_by(node: ast.AST) -> list[str]:
    """The names ``node`` itself binds (a stored name, a definition, an argument, an import,
    an ``except ... as``, a ``global``, a match capture)."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).split(".")[0] for alias in node.names]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return node.names
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
        return [node.name]
    return []


def _names(names: list[str]) -> str:
    """Imported names in isort's order: CONSTANTS, Classes, functions, each alphabetical."""

    def key(name: str) -> tuple[int, str]:
        kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
        return (kind, name.lower())

    return ", ".join(sorted(dict.fromkeys(names), key=key))


#: An import statement to propose, its score, and where it says the name is defined.


def import_candidates(
    text: str,
    path: str,
    missing: str,
    span: tuple[int, int, int, int] | None,
    project: Project,
    function: ast.AST | None = None,
) -> list[Candidate]:
    """Imports that would define ``missing`` in ``path``: stdlib, then project, then close names.

    With ``span`` (where the name is used), close project names are proposed too, spelt
    right and imported, when no exact import exists.
    """
    context = ast.unparse(function) if function is not None else ""
    # A deleted `from m import a, b` leaves every name it bound unbound: they come back together.
    unbound = unbound_names(text)

    def as_written(module: str) -> str:
        return _module_as_written(text, path, module, project)

    modules = _module_imports(path, missing, project)
    statements = [
        *(imported_elsewhere_first(path, missing, project, as_written) if modules else []),
        *modules,
        *_project_imports(text, path, missing, project, context, unbound),
        *_stdlib_imports(missing, unbound, project),
        *alias_statements(path, missing, unbound, project, as_written),
    ] or imported_elsewhere(path, missing, project, as_written)
    candidates = _imports_added(text, path, missing, statements)
    if span is None or candidates:
        return candidates
    return _respelt_and_imported(text, path, missing, span, project, context)


def _module_imports(path: str, missing: str, project: Project) -> list[Statement]:
    """``import missing``, for a module of the standard library or of the project."""
    statements: list[Statement] = []
    if is_stdlib_module(missing):
        statements.append((f"import {missing}", 0.9, "standard library module"))
    if missing in project.modules and missing != project.module_name(path):
        statements.append((f"import {missing}", 0.88, f"project module {project.modules[missing]}"))
    return statements


def _project_imports(
    text: str, path: str, missing: str, project: Project, context: str, unbound: list[str]
) -> list[Statement]:
    """``from <module> import missing`` for the project's best three definitions of it, with
    the other unbound names that module defines."""
    statements = []
    for rank, definition in enumerate(_definitions_of(missing, path, project, context)[:3]):
        written = _module_as_written(text, path, definition.module, project)
        also = [
            name
            for name in unbound
            if name != missing
            and any(d.module == definition.module for d in project.index.exact(name))
        ]
        statements.append(
            (
                f"from {written} import {_names([missing, *also])}",
                0.87 - 0.01 * rank,
                f"defined in {definition.path}:{definition.line}",
            )
        )
    return statements


def _definitions_of(missing: str, path: str, project: Project, context: str) -> list[Definition]:
    """The project's definitions of ``missing`` outside ``path``'s module, the one the index
    ranks nearest to ``context`` (the function the name is used in) first."""
    own_module = project.module_name(path)
    exact = [d for d in project.index.exact(missing) if d.module != own_module]
    if len(exact) > 1:
        order = {
            d.qualified: rank
            for rank, (d, _s) in enumerate(project.index.query(missing, context, k=50))
        }
        exact.sort(key=lambda d: (order.get(d.qualified, len(order)), d.qualified))
    return exact


def _stdlib_imports(missing: str, unbound: list[str], project: Project) -> list[Statement]:
    """``from <module> import missing`` for the standard library modules that define it, the
    ones the project imports most first."""
    habits = project.imported_modules
    stdlib = sorted(
        enumerate(modules_defining(missing)[:4]), key=lambda item: (-habits[item[1]], item[0])
    )
    statements = []
    for rank, (_order, module) in enumerate(stdlib):
        names = [missing] + [n for n in unbound if n != missing and offers(module, n)]
        statements.append(
            (f"from {module} import {_names(names)}", 0.8 - 0.01 * rank, "standard library")
        )
    return statements


def _imports_added(
    text: str, path: str, missing: str, statements: list[Statement]
) -> list[Candidate]:
    candidates: list[Candidate] = []
    for statement, score, where in statements:
        new = insert_import(text, statement)
        if new is not None:
            candidates.append(
                Candidate(
                    "missing-import",
                    f"add `{statement}` to {path}",
                    [FileEdit(path, new)],
                    score,
                    {"name": missing, "statement": statement, "where": where},
                )
            )
    return candidates


def _respelt_and_imported(
    text: str,
    path: str,
    missing: str,
    span: tuple[int, int, int, int],
    project: Project,
    context: str,
) -> list[Candidate]:
    """A close name the project defines elsewhere, spelt right at ``span`` and imported."""
    own_module = project.module_name(path)
    candidates: list[Candidate] = []
    for definition, _score in project.index.query(missing, context, k=10):
        if definition.module == own_module or definition.name == missing:
            continue
        near = closest(missing, [definition.name])
        statement = f"from {definition.module} import {definition.name}"
        renamed = (
            insert_import(replace_span(text, span, definition.name), statement) if near else None
        )
        if renamed is None:
            continue
        candidates.append(
            Candidate(
                "typo-and-import",
                f"replace `{missing}` with `{definition.name}` and add `{statement}` to {path}",
                [FileEdit(path, renamed)],
                0.6 * closeness(near[0].distance, missing),
                {
                    "name": missing,
                    "replacement": definition.name,
                    "statement": statement,
                    "where": f"defined in {definition.path}:{definition.line}",
                },
            )
        )
    return candidates
