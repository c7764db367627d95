"""The deps check's measuring: pip check's answer, the declared dependencies, each import judged.

Apart from :mod:`phasegate.gates.checks.deps` (which describes the check and finds the imports
in the syntax trees) because this needs ``packaging`` and pip check's rules
(:mod:`phasegate.gates.consistency`), and planning a gate imports every check's module, in the
pytest process too, which has no use for them; the deps check imports this module where it
measures, in the static checks' process. What the check measures, and by which rules, is said
in :mod:`phasegate.gates.checks.deps`.
"""

from __future__ import annotations

import importlib.metadata
import os
import sys
from collections.abc import Iterable

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import InvalidVersion, Version

from phasegate.gates.checks.deps import Import, third_party_imports
from phasegate.gates.consistency import (
    broken_requirements,
    installed_distributions,
    legacy_installs,
)
from phasegate.gates.findings import locate
from phasegate.gates.module_providers import ModuleProviders
from phasegate.gates.protocol import CheckContext, CheckError
from phasegate.gates.tools import ToolRun, require_tool, run_tool
from phasegate.jsonvalues import value_at
from phasegate.model.gate import Finding, Severity
from phasegate.tomlfile import table_in

__all__ = [
    "declared_dependencies",
    "pip_check",
    "standard_library",
    "third_party_imports_of",
    "undeclared_imports",
]

_PIP_CLEAN = "No broken requirements found."
#: The pip release from which pip check also reports installed wheels this Python cannot use.
_PIP_CHECKS_WHEELS = "24.1"
#: The first pip that names a distribution without a ``Name`` by its ``.dist-info`` folder.
_PIP_NAMES_UNNAMED = "24.2"
#: The first Python on which pip reads the installed metadata with ``importlib.metadata``, as the
#: in-process answer does, unless ``_PIP_USE_IMPORTLIB_METADATA`` says which; before it, pip
#: reads it with ``pkg_resources``, which tells some distributions apart differently.
_PIP_IMPORTLIB_PYTHON = (3, 11)


def pip_check(ctx: CheckContext) -> list[Finding]:
    """pip check's answer for this environment, a finding per broken requirement: computed
    in-process where that answer is pip's own, else by running ``python -m pip check``."""
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


def third_party_imports_of(ctx: CheckContext) -> list[Import]:
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
    running = f">={sys.version_info[0]}.{sys.version_info[1]}"
    try:
        return SpecifierSet(requires_python or running)
    except InvalidSpecifier as exc:
        raise CheckError(
            f"pyproject.toml: [project].requires-python {requires_python!r} is not a version "
            f"specifier, so the Pythons the project supports are unknown: {exc}",
            fix="write it as a PEP 440 specifier, e.g. '>=3.10'",
        ) from exc


def declared_dependencies(ctx: CheckContext) -> tuple[set[NormalizedName], str]:
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


def undeclared_imports(
    ctx: CheckContext, imports: list[Import], declared: set[NormalizedName], source: str
) -> list[tuple[str, Finding]]:
    """Each import of a third-party module the project does not declare, with its module.

    Only the imported modules' distributions are looked up; a declared meta-package counts
    its own requirements as declared.
    """
    providers = ModuleProviders({imported.module for imported in imports})
    accepted = _with_meta_requirements(declared, providers)
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
