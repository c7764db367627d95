"""deps: the environment is consistent, and every third-party import of the package is declared.

Two measurements:

* pip check's answer for the interpreter running the gate: each broken requirement is a
  finding (``pip_problems``). It is computed in-process from ``importlib.metadata`` with pip's
  own rules (:mod:`phasegate.gates.consistency`), which spares starting pip (half a second of
  CPU); where ``sys.path`` holds setuptools' legacy ``.egg``/``.egg-link`` installs, which only
  pip reads, or pip reads the metadata with ``pkg_resources`` (on Python 3.10, or when
  ``_PIP_USE_IMPORTLIB_METADATA`` is set), ``python -m pip check`` runs instead and its output
  is recognized: exit status 0
  with pip's own "No broken requirements found." is clean; exit status 1 with problems listed
  is a measurement; anything else (no output, another sentence, a failure naming nothing) is
  an error.
* Every module the package source imports (found by walking its syntax trees, not by running
  it) must come from a distribution declared in ``[project].dependencies`` or any
  ``[project.optional-dependencies]`` group. Relative imports, the standard library, the
  project's own packages, imports under
  ``if TYPE_CHECKING:`` and imports guarded by ``try: ... except ImportError:`` (they are
  written to work without the module) are left out. Import names become distributions by the
  rule of Python 3.11's ``importlib.metadata.packages_distributions()``; a declared
  distribution that installs no module of its own (a meta-package such as ``griffe``, which
  installs ``griffelib``) counts its own requirements as declared (judged on the distribution
  of that name that ``importlib.metadata`` finds first, whose requirements are the ones
  counted). Only the imported modules are looked up (:mod:`phasegate.gates.module_providers`,
  the same rule on every Python), not the whole mapping. An import that no installed
  distribution provides and no declared name matches is a finding too, saying it is not
  installed.

The standard library is that of every Python the project supports, not only the one running
the gate: a module new in Python 3.14 (``annotationlib``), imported under a version check,
is no third-party import on 3.11. The lists of each version's modules come from
`stdlib-list <https://pypi.org/project/stdlib-list/>`_; the supported versions are those
``[project].requires-python`` allows (without it, the running one and every later one).
Without stdlib-list installed, only the running Python's list is known, so such an import
is a finding: the check errs on the side of failing, never of passing.

When ``pyproject.toml`` has no static ``[project].dependencies`` (a ``setup.py`` project, or
``dynamic = ["dependencies"]``), the declared dependencies are read from the installed
metadata of the project; a project that is neither is an error: there is nothing to compare.

What needs ``packaging`` and pip check's rules is in :mod:`phasegate.gates.checks.deps_measure`,
imported where the check measures: planning a gate imports every check's module, in the pytest
process too, which has no use for them.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import score_from_count
from phasegate.gates.installed import metadata_files
from phasegate.gates.parsed import SyntaxTrees, ending_name
from phasegate.gates.protocol import CheckContext, Measurement, MetricSpec, NoOptions
from phasegate.gates.tools import require_tool
from phasegate.model.gate import Finding, ToolInfo

__all__ = ["DepsCheck", "Import", "third_party_imports"]

_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})


@dataclass(frozen=True)
class Import:
    """A top-level module name imported at a place in the source."""

    module: str
    path: Path
    line: int


class DepsCheck:
    """pip check and undeclared imports; by default either kind of problem fails the check."""

    id: ClassVar[str] = "deps"
    title: ClassVar[str] = "dependencies"
    kind: ClassVar[Literal["static", "session"]] = "static"
    options_model: ClassVar[type[NoOptions]] = NoOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec(
            "undeclared",
            "third-party modules the package imports without declaring their distribution",
        ),
        MetricSpec(
            "pip_problems",
            "broken requirements pip check reports in the environment (overall only)",
        ),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="undeclared", scope="overall", op=">", value=0),
        ConditionSpec(metric="pip_problems", scope="overall", op=">", value=0),
    )

    def tool_info(self) -> ToolInfo | None:
        """pip and its version; a CheckError with the install command when it is missing."""
        return require_tool("pip", "pip")

    def cache_inputs(self, ctx: CheckContext, options: NoOptions) -> Sequence[Path] | None:
        """The package source, pyproject.toml and the installed distributions."""
        config = [path for path in (ctx.project.root / "pyproject.toml",) if path.is_file()]
        return [*ctx.project.source_files, *config, *metadata_files()]

    def measure(self, ctx: CheckContext, options: NoOptions) -> Measurement:
        """Run pip check, then compare the package's imports with its declared dependencies."""
        from phasegate.gates.checks import deps_measure as measuring

        pip_findings = measuring.pip_check(ctx)
        declared, source = measuring.declared_dependencies(ctx)
        imports = measuring.third_party_imports_of(ctx)
        found = measuring.undeclared_imports(ctx, imports, declared, source)
        undeclared = {module for module, _finding in found}
        new_undeclared = {module for module, finding in found if finding.new}
        findings = [*pip_findings, *(finding for _module, finding in found)]
        return Measurement(
            summary=_summary(undeclared, findings, pip_findings, source),
            score=score_from_count(len(undeclared) + len(pip_findings), scale=2),
            metrics={"undeclared": len(undeclared), "pip_problems": len(pip_findings)},
            new_code_metrics={"undeclared": len(new_undeclared), "pip_problems": None},
            findings=findings,
        )


def third_party_imports(
    files: Iterable[Path],
    own: set[str],
    stdlib: frozenset[str] | None = None,
    *,
    trees: SyntaxTrees | None = None,
) -> Iterator[Import]:
    """Absolute imports of modules that are neither standard library nor the project's.

    ``stdlib`` is the standard library's top-level modules (default: the running Python's);
    ``trees`` the project's shared syntax trees (default: the files are parsed here).
    """
    standard = stdlib if stdlib is not None else frozenset(sys.stdlib_module_names)
    parsed = trees if trees is not None else SyntaxTrees()
    for path in files:
        tree = parsed.tree(path, what="its imports")
        for node, line in _imports(tree.body, guarded=False):
            if node not in standard and node not in own and node != "__main__":
                yield Import(node, path, line)


def _imports(body: Iterable[ast.stmt], *, guarded: bool) -> Iterator[tuple[str, int]]:
    """(top-level module, line) of each import in ``body``, nested blocks included."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            if not guarded:
                yield from _imported(node)
        elif isinstance(node, ast.If) and ending_name(node.test) == "TYPE_CHECKING":
            yield from _imports(node.orelse, guarded=guarded)
        elif isinstance(node, ast.Try):
            yield from _try_imports(node, guarded=guarded)
        else:
            yield from _nested_imports(node, guarded=guarded)


def _try_imports(node: ast.Try, *, guarded: bool) -> Iterator[tuple[str, int]]:
    """The imports of a ``try`` statement: those in its body are guarded when a handler
    catches ImportError (an optional dependency)."""
    shields = any(_catches_import_error(handler) for handler in node.handlers)
    yield from _imports(node.body, guarded=guarded or shields)
    for handler in node.handlers:
        yield from _imports(handler.body, guarded=guarded)
    yield from _imports([*node.orelse, *node.finalbody], guarded=guarded)


def _imported(node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, int]]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name.split(".", 1)[0], node.lineno
    elif node.level == 0 and node.module:  # relative imports are the project's own
        yield node.module.split(".", 1)[0], node.lineno


def _nested_imports(node: ast.stmt, *, guarded: bool) -> Iterator[tuple[str, int]]:
    for field in ("body", "orelse", "finalbody"):
        inner: object = getattr(node, field, None)
        if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
            yield from _imports(inner, guarded=guarded)
    if isinstance(node, ast.Match):
        for case in node.cases:
            yield from _imports(case.body, guarded=guarded)


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    caught = handler.type
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return any(ending_name(name) in _IMPORT_ERRORS for name in names if name is not None)


def _summary(undeclared: set[str], findings: list[Finding], pip: list[Finding], source: str) -> str:
    parts: list[str] = []
    if undeclared:
        first = next(f for f in findings if f.rule == "undeclared-dependency")
        parts.append(
            f"{len(undeclared)} imported module(s) not declared in {source} "
            f"({', '.join(sorted(undeclared))}); first at {first.path}:{first.line}"
        )
    if pip:
        parts.append(f"pip check reports {len(pip)} broken requirement(s): {pip[0].message}")
    if not parts:
        return f"every third-party import is declared in {source} and pip check is clean"
    return "; ".join(parts)
