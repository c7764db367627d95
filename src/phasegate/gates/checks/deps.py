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

``packaging`` and pip check's rules are imported where the check measures: planning a gate
imports every check's module, in the pytest process too, which has no use for them.
"""

from __future__ import annotations

import ast
import importlib.metadata
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import locate, score_from_count
from phasegate.gates.installed import metadata_files
from phasegate.gates.parsed import SyntaxTrees, ending_name
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec, NoOptions
from phasegate.gates.tools import ToolRun, require_tool, run_tool
from phasegate.jsonvalues import value_at
from phasegate.model.gate import Finding, Severity, ToolInfo
from phasegate.tomlfile import table_in

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet
    from packaging.utils import NormalizedName

    from phasegate.gates.module_providers import ModuleProviders

__all__ = ["DepsCheck", "Import", "standard_library", "third_party_imports"]

_PIP_CLEAN = "No broken requirements found."
#: The pip release from which pip check also reports installed wheels this Python cannot use.
_PIP_CHECKS_WHEELS = "24.1"
#: The first pip that names a distribution without a ``Name`` by its ``.dist-info`` folder.
_PIP_NAMES_UNNAMED = "24.2"
#: The first Python on which pip reads the installed metadata with ``importlib.metadata``, as the
#: in-process answer does, unless ``_PIP_USE_IMPORTLIB_METADATA`` says which; before it, pip
#: reads it with ``pkg_resources``, which tells some distributions apart differently.
_PIP_IMPORTLIB_PYTHON = (3, 11)
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
        from phasegate.gates.module_providers import ModuleProviders

        pip_findings = self._pip_check(ctx)
        declared, source = _declared(ctx)
        imports = _third_party_imports_of(ctx)
        providers = ModuleProviders({imported.module for imported in imports})
        accepted = _with_meta_requirements(declared, providers)
        found = self._undeclared(ctx, imports, providers, accepted, source)
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

    @staticmethod
    def _undeclared(
        ctx: CheckContext,
        imports: list[Import],
        providers: ModuleProviders,
        accepted: set[NormalizedName],
        source: str,
    ) -> list[tuple[str, Finding]]:
        """Each import of a third-party module the project does not declare, with its module."""
        found: list[tuple[str, Finding]] = []
        for imported in imports:
            distributions = providers.distributions(imported.module)
            problem = _problem(imported.module, distributions, accepted, source)
            if problem is not None:
                finding = locate(
                    ctx.project,
                    ctx.new_code,
                    rule="undeclared-dependency",
                    severity=Severity.HIGH,
                    message=problem,
                    path=imported.path,
                    line=imported.line,
                )
                found.append((imported.module, finding))
        return found

    @staticmethod
    def _pip_check(ctx: CheckContext) -> list[Finding]:
        from packaging.version import InvalidVersion, Version

        from phasegate.gates.consistency import (
            broken_requirements,
            installed_distributions,
            legacy_installs,
        )

        try:
            pip = Version(require_tool("pip", "pip").version)
        except InvalidVersion:
            pip = None  # pip's rules are not known: ask pip itself
        if pip is None or not _pip_reads_importlib_metadata() or legacy_installs():
            problems = _pip_check_process(ctx)
        else:
            problems = broken_requirements(
                installed_distributions(unnamed_from_folder=pip >= Version(_PIP_NAMES_UNNAMED)),
                unsupported_wheels=pip >= Version(_PIP_CHECKS_WHEELS),
            )
        return [
            locate(
                ctx.project,
                ctx.new_code,
                rule="pip-check",
                severity=Severity.HIGH,
                message=line,
                path=None,
            )
            for line in problems
        ]


def _pip_reads_importlib_metadata() -> bool:
    """Whether pip reads the installed distributions as the in-process answer does: on
    :data:`_PIP_IMPORTLIB_PYTHON` and later, when ``_PIP_USE_IMPORTLIB_METADATA`` is not set."""
    return sys.version_info >= _PIP_IMPORTLIB_PYTHON and (
        "_PIP_USE_IMPORTLIB_METADATA" not in os.environ
    )


def _pip_check_process(ctx: CheckContext) -> list[str]:
    """``python -m pip check``'s problem lines, its output recognized first."""
    run = run_tool(
        "pip",
        ["check", "--disable-pip-version-check", "--no-color"],
        cwd=ctx.project.root,
        timeout_s=ctx.timeout_s,
        ok_codes=(0, 1),  # 1: broken requirements found
    )
    lines = [line.strip() for line in run.stdout.splitlines() if line.strip()]
    problems = [line for line in lines if line != _PIP_CLEAN]
    _refuse_unrecognized(run, lines, problems)
    return problems


def _refuse_unrecognized(run: ToolRun, lines: list[str], problems: list[str]) -> None:
    """A CheckError unless pip check said it is clean (exit 0) or named problems (exit 1)."""
    if run.returncode == 0 and lines != [_PIP_CLEAN]:
        raise CheckError(
            f"pip check exited 0 without saying {_PIP_CLEAN!r}; it printed "
            f"{run.stdout.strip()[:300] or 'nothing'!r}, so the environment is not known "
            "to be consistent",
            fix="run `python -m pip check` in the project's environment",
        )
    if run.returncode == 1 and (not problems or _PIP_CLEAN in lines):
        raise CheckError(
            f"pip check failed without naming a problem: "
            f"{(run.stderr.strip() or run.stdout.strip())[-500:] or '(no output)'}",
            fix="run `python -m pip check` in the project's environment",
        )


def _third_party_imports_of(ctx: CheckContext) -> list[Import]:
    """The package's imports of modules from neither the standard library nor the project."""
    requires_python = table_in(ctx.project.pyproject, "project").get("requires-python")
    stdlib = standard_library(requires_python if isinstance(requires_python, str) else None)
    return list(
        third_party_imports(
            ctx.project.source_files, ctx.project.top_level_names, stdlib, trees=ctx.project.trees
        )
    )


def standard_library(requires_python: str | None) -> frozenset[str]:
    """The top-level modules of the standard library of every Python 3 the project supports."""
    names = set(sys.stdlib_module_names)
    try:
        import stdlib_list
    except ImportError:
        return frozenset(names)
    supported = _supported_pythons(requires_python)
    for version in stdlib_list.short_versions:
        if version.startswith("3.") and supported.contains(f"{version}.0", prereleases=True):
            names.update(name for name in stdlib_list.stdlib_list(version) if "." not in name)
    return frozenset(names)


def _supported_pythons(requires_python: str | None) -> SpecifierSet:
    """``requires-python`` as a specifier (without one: this Python and later)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    running = f">={sys.version_info[0]}.{sys.version_info[1]}"
    try:
        return SpecifierSet(requires_python or running)
    except InvalidSpecifier as exc:
        raise CheckError(
            f"pyproject.toml: [project].requires-python {requires_python!r} is not a version "
            f"specifier, so the Pythons the project supports are unknown: {exc}",
            fix="write it as a PEP 440 specifier, e.g. '>=3.10'",
        ) from exc


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


def _declared(ctx: CheckContext) -> tuple[set[NormalizedName], str]:
    """The declared distributions, and where they were read."""
    project = ctx.project.pyproject.get("project")
    if isinstance(project, dict) and "dependencies" not in project.get("dynamic", []):
        texts = list(project.get("dependencies", []))
        for group in (project.get("optional-dependencies") or {}).values():
            texts.extend(group)
        return _names(texts, "pyproject.toml"), "pyproject.toml"
    name = value_at(project, "name")
    for candidate in [name, *ctx.project.top_level_names]:
        requires = _installed_requires(candidate)
        if requires is not None:
            where = f"the installed metadata of {candidate}"
            return _names(requires, where), where
    raise CheckError(
        "the project declares no static [project].dependencies in pyproject.toml and is not "
        "installed, so its declared dependencies are unknown",
        fix="declare [project].dependencies in pyproject.toml, or install the project "
        "(pip install -e .) so its metadata can be read",
    )


def _installed_requires(candidate: object) -> list[str] | None:
    """The requirements in the installed metadata of ``candidate``; None when none is installed
    under that name."""
    if not candidate:
        return None
    try:
        return importlib.metadata.requires(str(candidate)) or []
    except importlib.metadata.PackageNotFoundError:
        return None


def _names(texts: Iterable[str], where: str) -> set[NormalizedName]:
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    names: set[NormalizedName] = set()
    for text in texts:
        try:
            names.add(canonicalize_name(Requirement(text).name))
        except InvalidRequirement as exc:
            raise CheckError(
                f"{where}: {text!r} is not a valid requirement: {exc}",
                fix="write requirements as PEP 508 strings, e.g. 'requests>=2.31'",
            ) from exc
    return names


def _with_meta_requirements(
    declared: set[NormalizedName], providers: ModuleProviders
) -> set[NormalizedName]:
    """Declared names, plus the requirements of declared meta-packages (they install no module)."""
    accepted = set(declared)
    for name in declared:
        if not providers.installs_modules(name):
            accepted.update(_unconditional_requirements(name))
    return accepted


def _unconditional_requirements(name: str) -> set[NormalizedName]:
    """What the installed distribution ``name`` always requires (nothing if not installed)."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    try:
        texts = importlib.metadata.requires(name) or []
    except importlib.metadata.PackageNotFoundError:
        return set()
    names: set[NormalizedName] = set()
    for text in texts:
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            continue
        if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
            names.add(canonicalize_name(requirement.name))
    return names


def _problem(
    module: str,
    distributions: list[str],
    accepted: set[NormalizedName],
    source: str,
) -> str | None:
    from packaging.utils import canonicalize_name

    if any(canonicalize_name(dist) in accepted for dist in distributions):
        return None
    if not distributions:
        if canonicalize_name(module) in accepted:
            return None  # declared under its import name, not installed here (a marker)
        return (
            f"imports {module!r}, which no installed distribution provides and no "
            f"dependency in {source} declares"
        )
    shown = " or ".join(repr(dist) for dist in sorted(set(distributions)))
    return f"imports {module!r} from {shown}, which {source} does not declare"


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
