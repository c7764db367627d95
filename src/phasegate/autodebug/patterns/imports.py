"""``ImportError`` and ``ModuleNotFoundError``: a misspelt module, a wrong relative import, a
name the module does not define, or a third-party module nobody installed or declared.

Classified from the live exception (``exc.name`` is the module that was not found, or the
module a name was asked of), the import statement the innermost project frame was running,
and the modules that really exist where that import looked: the submodules of the parent
package, or every top-level module on ``sys.path`` and in the standard library. Candidates
rewrite only the import statement, or rename a misspelt definition in the imported module.
A missing third-party module has no repair: the diagnosis says whether ``pyproject.toml``
declares it, and it is escalated.
"""

from __future__ import annotations

import ast
import pkgutil
import sys
from types import ModuleType
from typing import TYPE_CHECKING, TypedDict, cast

from phasegate.autodebug.diagnosis import Candidate, Diagnosis, FileEdit
from phasegate.autodebug.distance import closest
from phasegate.autodebug.live import project_path
from phasegate.autodebug.patterns.base import (
    CulpritFacts,
    best_per_edit,
    closeness,
    culprit_sentence,
    diagnose,
    short,
)
from phasegate.autodebug.patterns.import_names import (
    import_statement,
    name_candidates,
    rewrite_module,
)
from phasegate.autodebug.patterns.submodule_names import submodule_candidates
from phasegate.autodebug.stdlib import is_stdlib_module, stdlib_modules

if TYPE_CHECKING:
    from phasegate.autodebug.distance import Match
    from phasegate.autodebug.live import LiveFailure
    from phasegate.autodebug.project import Project

__all__ = ["DISTRIBUTIONS", "ImportPattern"]

#: Import names whose distribution is named otherwise, for the escalation message. Only the
#: common cases: an installed distribution is found through importlib.metadata instead.
DISTRIBUTIONS = {
    "yaml": "PyYAML",
    "PIL": "Pillow",
    "cv2": "opencv-python",
    "sklearn": "scikit-learn",
    "bs4": "beautifulsoup4",
    "dateutil": "python-dateutil",
    "dotenv": "python-dotenv",
    "jwt": "PyJWT",
    "git": "GitPython",
    "serial": "pyserial",
    "attr": "attrs",
    "google.protobuf": "protobuf",
}


class ModuleMatch(TypedDict):
    """A module close to the missing one: its full name, the part that differs, how close."""

    name: str
    part: str
    distance: float


class DefinedName(TypedDict):
    """A name the module defines, close to one it was asked for, and how close."""

    name: str
    distance: float


class _ImportStatementFacts(TypedDict, total=False):
    module: str | None  # the module the exception names
    statement: str  # the import statement, as written
    package: str | None  # the importing module's package
    test_culprit: CulpritFacts  # set by a repair that leaves the code alone


class ModuleFacts(_ImportStatementFacts, total=False):
    """A module that is not found (or an import that fails otherwise): the modules close to
    it; ``declared`` and ``in_project`` are added when repairs are proposed."""

    matches: list[ModuleMatch]
    declared: bool
    in_project: bool


class ImportNameFacts(_ImportStatementFacts, total=False):
    """Names a module does not define (``cannot-import-name``, ``circular-import``): the
    names, the module's names close to each, and the module's file."""

    names: list[str]
    matches: dict[str, list[DefinedName]]
    module_path: str | None


def module_facts(diagnosis: Diagnosis) -> ModuleFacts:
    """The facts of an import diagnosis of a module (not of ``_NAME_KINDS``)."""
    return cast("ModuleFacts", diagnosis.facts)


class ImportPattern:
    """An import that fails."""

    name = "import"
    error_class = "import"

    def classify(self, failure: LiveFailure) -> Diagnosis | None:
        exc = failure.exc
        if not isinstance(exc, ImportError):
            return None
        frame = failure.project_frame
        node = failure.node_at(frame, (ast.Import, ast.ImportFrom)) if frame is not None else None
        kind = _import_kind(exc, node)
        facts = _kind_facts(failure, exc, kind, node)
        facts["module"] = exc.name
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            facts["statement"] = ast.unparse(node)
        facts["package"] = frame.frame.f_globals.get("__package__") if frame is not None else None
        return diagnose(self, failure, frame, kind=kind, facts=facts, node=node)

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        if diagnosis.kind == "module-not-found":
            _note_where_module_is(diagnosis, project)
        if diagnosis.kind == "cannot-import-name":
            return name_candidates(diagnosis, project)
        site = _failing_import(diagnosis, project)
        if site is None:
            return []
        candidates: list[Candidate] = []
        if diagnosis.kind == "module-not-found":
            candidates += _typo_candidates(*site, diagnosis, project)
        if diagnosis.kind in ("module-not-found", "relative-import"):
            candidates += _relocation_candidates(*site, diagnosis, project)
        if diagnosis.kind == "relative-import":
            candidates += submodule_candidates(site[0], site[1], site[2], project)
        return best_per_edit(candidates)

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        facts = module_facts(diagnosis)
        module = facts.get("module")
        head = _head(diagnosis)
        if diagnosis.kind == "circular-import":
            return head
        if candidate is not None:
            return f"{head}; did you mean {candidate.detail.get('meaning', candidate.description)}?"
        if facts.get("test_culprit"):
            return f"{head}; {culprit_sentence(facts['test_culprit'], 'name')}"
        if diagnosis.kind == "module-not-found" and module and not facts.get("in_project"):
            return f"{head}; {missing_dependency(module, facts.get('declared'))}"
        return f"{head}, and nothing close to it exists"


_NAME_KINDS = ("circular-import", "cannot-import-name")


def _head(diagnosis: Diagnosis) -> str:
    """What went wrong, in the words of the diagnosis's kind."""
    facts = module_facts(diagnosis)
    exc, module = short(diagnosis.exc_type), facts.get("module")
    if diagnosis.kind == "cannot-import-name":
        absent = cast("ImportNameFacts", diagnosis.facts).get("names", [])
        return f"{exc}: module `{module}` does not define " + ", ".join(f"`{n}`" for n in absent)
    if diagnosis.kind == "circular-import":
        return (
            f"{exc}: `{module}` is imported while it is still being initialized (a circular import)"
        )
    if diagnosis.kind == "relative-import":
        return f"{exc}: the relative import `{facts.get('statement')}` does not resolve"
    return f"{exc}: no module named `{module}`"


def _note_where_module_is(diagnosis: Diagnosis, project: Project) -> None:
    """Add to the facts whether the module not found is declared as a dependency, and
    whether its top-level package is the project's own (what :meth:`explain` says)."""
    facts = module_facts(diagnosis)
    module = facts.get("module")
    if module:
        facts["declared"] = _declared(module, project)
        facts["in_project"] = module.split(".")[0] in project.modules


def _failing_import(
    diagnosis: Diagnosis, project: Project
) -> tuple[str, str, ast.Import | ast.ImportFrom, tuple[int, int, int, int]] | None:
    """``(text, path, statement, span)`` of the failing import, in a file that may change."""
    path = diagnosis.path
    text = project.read_editable(path)
    statement, span = import_statement(text, diagnosis) if text is not None else (None, None)
    if path is None or text is None or statement is None or span is None:
        return None
    return text, path, statement, span


def _import_kind(exc: ImportError, node: ast.AST | None) -> str:
    """Which way the import fails: a module not found, a name the module does not define
    (or not yet: a circular import), a relative import, or any other."""
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        return "module-not-found"
    if exc.name and isinstance(node, ast.ImportFrom) and exc.name in sys.modules:
        spec = getattr(sys.modules[exc.name], "__spec__", None)
        return "circular-import" if getattr(spec, "_initializing", False) else "cannot-import-name"
    if isinstance(node, ast.ImportFrom) and node.level > 0:
        return "relative-import"
    return "import-error"


def _kind_facts(
    failure: LiveFailure, exc: ImportError, kind: str, node: ast.AST | None
) -> ModuleFacts | ImportNameFacts:
    """What the kind of failure needs: the names a module lacks (and what it has that is
    close), or the modules close to one not found."""
    if kind in _NAME_KINDS and exc.name and isinstance(node, ast.ImportFrom):
        return _absent_names(failure, sys.modules[exc.name], node)
    if kind == "module-not-found":
        return {"matches": _module_matches(exc.name)}
    return {}


def _absent_names(
    failure: LiveFailure, module: ModuleType, node: ast.ImportFrom
) -> ImportNameFacts:
    """The names ``node`` imports that ``module`` lacks, the module's names closest to each,
    and the module's file."""
    names = [alias.name for alias in node.names if not hasattr(module, alias.name)]
    public = [n for n in dir(module) if not n.startswith("__")]
    module_file = getattr(module, "__file__", None)
    return {
        "names": names,
        "matches": {
            n: [{"name": m.name, "distance": m.distance} for m in closest(n, public)[:5]]
            for n in names
        },
        "module_path": project_path(module_file, failure.root) if module_file else None,
    }


def missing_dependency(module: str, declared: bool | None) -> str:
    """The sentence that escalates a third-party module that is not installed."""
    top = module.split(".")[0]
    distribution = DISTRIBUTIONS.get(module) or DISTRIBUTIONS.get(top) or top
    if declared:
        return f"`{distribution}` is declared in pyproject.toml but not installed here: install it"
    return (
        f"it is not a module of the project or the standard library: if it comes from "
        f"`{distribution}`, declare that in pyproject.toml's dependencies and install it"
    )


def _declared(module: str, project: Project) -> bool:
    from packaging.utils import canonicalize_name

    top = module.split(".")[0]
    distribution = DISTRIBUTIONS.get(module) or DISTRIBUTIONS.get(top) or top
    names = {canonicalize_name(distribution), canonicalize_name(top)}
    return bool(names & project.declared_dependencies)


def _module_matches(missing: str | None) -> list[ModuleMatch]:
    """Existing modules close to the failing part of ``missing``, as the worker sees them."""
    if not missing:
        return []
    parent, _, last = missing.rpartition(".")
    names = _importable_names(parent)
    return [
        _module_match(parent, match)
        for match in closest(last, (n for n in names if not n.startswith("_")))[:5]
    ]


def _importable_names(parent: str) -> set[str]:
    """The names of the modules importable inside package ``parent`` (at the top level, the
    standard library's included, when ``parent`` is empty)."""
    if not parent:
        names = {info.name for info in pkgutil.iter_modules()}
        return names | {m.name for m in stdlib_modules() if "." not in m.name}
    where = getattr(sys.modules.get(parent), "__path__", None)
    return {info.name for info in pkgutil.iter_modules(where)} if where is not None else set()


def _module_match(parent: str, match: Match) -> ModuleMatch:
    """A module close to the missing one: its full name, its last part and the distance."""
    name = f"{parent}.{match.name}" if parent else match.name
    return {"name": name, "part": match.name, "distance": match.distance}


def _typo_candidates(
    text: str,
    path: str,
    statement: ast.Import | ast.ImportFrom,
    span: tuple[int, int, int, int],
    diagnosis: Diagnosis,
    project: Project,
) -> list[Candidate]:
    missing = module_facts(diagnosis).get("module") or ""
    last = missing.rpartition(".")[2]
    written = _written_module(statement, missing)
    if written is None:
        return []
    candidates = []
    for match in _with_project_modules(
        module_facts(diagnosis).get("matches", []), missing, project
    ):
        new_written = _respell(written, last, match["part"])
        if new_written is None:
            continue
        new = rewrite_module(text, span, written, new_written)
        if new is None:
            continue
        what = "standard library module" if is_stdlib_module(match["name"]) else "module"
        candidates.append(
            Candidate(
                "module-typo",
                f"import `{new_written}` instead of `{written}` in {path}:{span[0]}",
                [FileEdit(path, new)],
                0.9 * closeness(match["distance"], last),
                {
                    "name": written,
                    "replacement": new_written,
                    "meaning": f"the {what} `{match['name']}`",
                },
            )
        )
    return candidates


def _with_project_modules(
    matches: list[ModuleMatch], missing: str, project: Project
) -> list[ModuleMatch]:
    """The worker's matches and the project's own modules beside the missing one.

    A package whose import failed is gone from ``sys.modules`` by the time the worker looks,
    so its submodules are found on disk here.
    """
    parent, _, last = missing.rpartition(".")
    known = {m["name"] for m in matches}
    siblings = [
        name.rpartition(".")[2]
        for name in project.modules
        if name.rpartition(".")[0] == parent and name not in known
    ]
    extra = [_module_match(parent, match) for match in closest(last, siblings)]
    return sorted([*matches, *extra], key=lambda m: m["distance"])


def _written_module(statement: ast.Import | ast.ImportFrom, missing: str) -> str | None:
    """The module as the statement writes it (``utlis`` of ``from .utlis import x``)."""
    if isinstance(statement, ast.ImportFrom):
        return statement.module
    for alias in statement.names:
        if alias.name == missing or f".{missing}.".find(f".{alias.name}.") == 0:
            return alias.name
        if alias.name.startswith(f"{missing}."):
            return alias.name
    return None


def _respell(written: str, last: str, part: str) -> str | None:
    """``written`` with its component ``last`` spelt ``part`` (the last such component)."""
    pieces = written.split(".")
    for index in range(len(pieces) - 1, -1, -1):
        if pieces[index] == last:
            pieces[index] = part
            return ".".join(pieces)
    return None


def _relocation_candidates(
    text: str,
    path: str,
    statement: ast.Import | ast.ImportFrom,
    span: tuple[int, int, int, int],
    diagnosis: Diagnosis,
    project: Project,
) -> list[Candidate]:
    """The same module reached another way: another relative level, relative or absolute."""
    if not isinstance(statement, ast.ImportFrom) or not statement.module:
        return []
    wanted = statement.module
    options = _other_levels(statement, wanted, project.package_of(path), project)
    options += _same_name_elsewhere(wanted, {full for _l, _m, full in options}, project)
    candidates = []
    for level, module_text, full in options:
        new = rewrite_module(text, span, statement.module, module_text, dots=level)
        if new is None:
            continue
        written = "." * level + module_text
        candidates.append(
            Candidate(
                "relative-import",
                f"import from `{written}` instead of "
                f"`{'.' * statement.level}{statement.module}` in {path}:{span[0]}",
                [FileEdit(path, new)],
                0.85 if level else 0.8,
                {
                    "name": statement.module,
                    "replacement": written,
                    "meaning": f"`from {written} import ...` (the project module `{full}`)",
                },
            )
        )
    return candidates


def _same_name_elsewhere(
    wanted: str, found: set[str], project: Project
) -> list[tuple[int, str, str]]:
    """``(0, full name, full name)`` for each project module with ``wanted``'s last name,
    other than ``wanted`` and those ``found`` already."""
    last = wanted.rpartition(".")[2]
    return [
        (0, full, full)
        for full in project.modules
        if full.rpartition(".")[2] == last and full != wanted and full not in found
    ]


def _other_levels(
    statement: ast.ImportFrom, wanted: str, package: str, project: Project
) -> list[tuple[int, str, str]]:
    """``(dots, module text, full name)`` for each other relative level (0: absolute) at
    which ``wanted`` names a project module (or, absolute, a standard library one)."""
    parts = package.split(".") if package else []
    options: list[tuple[int, str, str]] = []
    for level in range(len(parts) + 1):
        base = parts[: len(parts) - level + 1] if level else []
        full = ".".join([*base, wanted]) if level else wanted
        if level != statement.level and (
            full in project.modules or (level == 0 and is_stdlib_module(full))
        ):
            options.append((level, wanted, full))
    return options
