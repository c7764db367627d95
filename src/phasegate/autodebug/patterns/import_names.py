"""``from m import name`` where ``m`` does not define ``name``: the name misspelt in the import
or where it is defined, or defined in another project module (found with the context index).

Also the text helpers both halves of the import pattern share: finding the import statement
at a diagnosis, and rewriting the module it names.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, cast

from phasegate.autodebug.diagnosis import Candidate, Diagnosis, FileEdit
from phasegate.autodebug.patterns.base import (
    closeness,
    definition_is_misspelt,
    test_is_culprit,
)
from phasegate.autodebug.source import (
    count_names,
    node_span,
    parse,
    rename_names,
    replace_span,
    segment,
    split_lines,
)

if TYPE_CHECKING:
    from phasegate.autodebug.patterns.imports import DefinedName, ImportNameFacts
    from phasegate.autodebug.project import Project

__all__ = ["import_statement", "name_candidates", "relative_module", "rewrite_module"]


def import_statement(
    text: str, diagnosis: Diagnosis
) -> tuple[ast.Import | ast.ImportFrom | None, tuple[int, int, int, int] | None]:
    tree = parse(text)
    if tree is None or diagnosis.line is None:
        return None, None
    lines = split_lines(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            end = node.end_lineno or node.lineno
            if node.lineno <= diagnosis.line <= end:
                return node, node_span(node, lines)
    return None, None


def rewrite_module(
    text: str, span: tuple[int, int, int, int], old: str, new: str, dots: int | None = None
) -> str | None:
    """The statement at ``span`` with the dotted module ``old`` written as ``new``.

    ``dots`` sets the number of leading dots (the relative level); None keeps them.
    """
    source = segment(text, span)
    found = re.search(rf"(\bfrom\s+|\bimport\s+)(\.*)\s*{re.escape(old)}\b", source)
    if found is None:
        return None
    level = "." * (len(found.group(2)) if dots is None else dots)
    rewritten = source[: found.start()] + found.group(1) + level + new + source[found.end() :]
    return replace_span(text, span, rewritten)


def name_candidates(diagnosis: Diagnosis, project: Project) -> list[Candidate]:
    """The name respelt in the import, the module's definition renamed, or the name imported
    from the project module that defines it."""
    facts = _name_facts(diagnosis)
    importer = diagnosis.path if project.editable(diagnosis.path) else None
    importer_text = project.read(importer) if importer else None
    importing = (importer, importer_text) if importer and importer_text is not None else None
    candidates: list[Candidate] = []
    for wanted, matches in facts.get("matches", {}).items():
        for match in matches:
            score = 0.95 * closeness(match["distance"], wanted)
            candidates += _respelt_import(facts, importing, wanted, match["name"], score)
            candidates += _renamed_in_module(
                diagnosis, project, (importer, importer_text), wanted, match, score
            )
    candidates += _moved_candidates(diagnosis, project, importer, importer_text)
    return sorted(candidates, key=lambda c: -c.score)


def _name_facts(diagnosis: Diagnosis) -> ImportNameFacts:
    return cast("ImportNameFacts", diagnosis.facts)


def _respelt_import(
    facts: ImportNameFacts,
    importing: tuple[str, str] | None,
    wanted: str,
    other: str,
    score: float,
) -> list[Candidate]:
    """``other`` imported instead of ``wanted`` in the importing file."""
    renamed = rename_names(importing[1], wanted, other, role="name") if importing else None
    if importing is None or renamed is None:
        return []
    return [
        Candidate(
            "typo",
            f"import `{other}` instead of `{wanted}` in {importing[0]}",
            [FileEdit(importing[0], renamed)],
            score,
            {
                "name": wanted,
                "replacement": other,
                "meaning": f"`{other}`, which `{facts.get('module')}` defines",
            },
        )
    ]


def _renamed_in_module(
    diagnosis: Diagnosis,
    project: Project,
    importing: tuple[str | None, str | None],
    wanted: str,
    match: DefinedName,
    score: float,
) -> list[Candidate]:
    """The module's ``other`` renamed ``wanted``, unless a test misspells a public name
    (``importing``: the importing file, when editable, and its text)."""
    importer, importer_text = importing
    other = match["name"]
    module_path = _name_facts(diagnosis).get("module_path")
    module_text = project.read_editable(module_path)
    renamed = (
        rename_names(module_text, other, wanted, role="name") if module_text is not None else None
    )
    if module_text is None or module_path is None or renamed is None:
        return []
    if importer is None and _test_misspells(diagnosis, project, wanted, other, module_text):
        return []  # contract first: the test misspells a public name
    asked = count_names(importer_text or "", wanted, role="name")
    prefer = importer is None or definition_is_misspelt(
        project,
        wanted,
        other,
        asked_uses=asked,
        definitions=count_names(module_text, other, role="name"),
    )
    return [
        Candidate(
            "rename-definition",
            f"rename `{other}` to `{wanted}` in {module_path}",
            [FileEdit(module_path, renamed)],
            score * (1.02 if prefer else 0.8),
            {
                "name": wanted,
                "replacement": wanted,
                "meaning": f"`{other}` of {module_path}, misspelt where it is defined",
            },
        )
    ]


def _test_misspells(
    diagnosis: Diagnosis, project: Project, wanted: str, other: str, module_text: str
) -> bool:
    """Whether the test asks for ``wanted`` where the project spells the public ``other``
    (noted as the test culprit)."""
    module_path = _name_facts(diagnosis).get("module_path")
    if other.startswith("_") or module_path is None:
        return False
    definition = _definition_line(module_text, other)
    if definition is None or not test_is_culprit(
        project, wanted, other, definition=(module_path, definition, definition)
    ):
        return False
    _name_facts(diagnosis)["test_culprit"] = {"asked": wanted, "defined": other}
    return True


def _definition_line(text: str, name: str) -> int | None:
    """The line of the top-level ``def``, ``class`` or assignment that defines ``name``."""
    tree = parse(text)
    for node in tree.body if tree is not None else []:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name:
                return node.lineno
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return node.lineno
    return None


def _moved_candidates(
    diagnosis: Diagnosis, project: Project, importer: str | None, text: str | None
) -> list[Candidate]:
    """``from m import name`` where another project module defines ``name`` (found with the
    context index): import it from there."""
    found = _single_from_import(diagnosis, importer, text)
    if found is None or importer is None or text is None:
        return []
    node, span, wanted = found
    module = diagnosis.facts.get("module")
    candidates = []
    for rank, definition in enumerate(project.index.exact(wanted)[:3]):
        if definition.module == module or definition.path == importer:
            continue
        written = _relative_to(definition.module, project.package_of(importer), node.level)
        bare = written.lstrip(".")
        new = rewrite_module(text, span, node.module or "", bare, dots=len(written) - len(bare))
        if new is None:
            continue
        meaning = f"`{wanted}` of `{definition.module}` ({definition.path}:{definition.line})"
        candidates.append(
            Candidate(
                "moved-import",
                f"import `{wanted}` from `{written}`, which defines it, in {importer}:{span[0]}",
                [FileEdit(importer, new)],
                0.8 - 0.02 * rank,
                {"name": wanted, "replacement": written, "meaning": meaning},
            )
        )
    return candidates


def _single_from_import(
    diagnosis: Diagnosis, importer: str | None, text: str | None
) -> tuple[ast.ImportFrom, tuple[int, int, int, int], str] | None:
    """The failing ``from m import name`` of one name (the node, its span, the name)."""
    if importer is None or text is None or not diagnosis.facts.get("module"):
        return None
    wanted = _only_name_imported(diagnosis.facts.get("statement"))
    if wanted is None:
        return None
    found, span = import_statement(text, diagnosis)
    if not isinstance(found, ast.ImportFrom) or span is None:
        return None
    return found, span, wanted


def _only_name_imported(statement: object) -> str | None:
    """The name of a ``from m import name`` statement (source text) of one name."""
    parsed = parse(statement) if isinstance(statement, str) else None
    node = parsed.body[0] if parsed is not None and parsed.body else None
    if not isinstance(node, ast.ImportFrom) or len(node.names) != 1:
        return None
    return node.names[0].name


def _relative_to(module: str, package: str, level: int) -> str:
    """``module`` written relatively from ``package`` when the import was relative."""
    if not level or not package or module.split(".")[0] != package.split(".")[0]:
        return module
    return relative_module(module, package)


def relative_module(module: str, package: str) -> str:
    """``module`` as a relative import from inside ``package`` writes it (``..b.c``)."""
    parts, own = module.split("."), package.split(".")
    common = 0
    while common < min(len(parts), len(own)) and parts[common] == own[common]:
        common += 1
    return "." * (len(own) - common + 1) + ".".join(parts[common:])
