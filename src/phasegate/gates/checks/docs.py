"""docs: the share of the public API that has a docstring, read with griffe.

griffe fits this job: it reads the packages statically (without importing the project),
knows what Python considers public (``__all__`` when a module has one, else names without a
leading underscore), and follows names a package re-exports from its private modules to
where they are defined, so ``pkg._impl.Thing`` exported as ``pkg.Thing`` counts once, as
public. ``ast`` alone would have to re-implement all of that.

Counted: public modules (their module docstring), classes, functions, methods and
properties, inside public modules and classes. Not counted: special methods (``__init__``,
``__eq__``: the class docstring describes them, as pydocstyle's D105/D107 are usually left
off), plain attributes (they rarely carry docstrings), and names imported from other
distributions. An object is on new code when any line of its definition changed (a module:
when its first line did, which includes a new file).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

from phasegate.gates.api import load_packages, package_name
from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import locate
from phasegate.gates.protocol import CheckContext, Measurement, MetricSpec, NoOptions
from phasegate.gates.tools import require_tool
from phasegate.model.gate import Finding, Severity, ToolInfo

if TYPE_CHECKING:
    import griffe

__all__ = ["RULE", "DocsCheck", "PublicObject", "public_objects"]

#: The rule of a finding: a public object without a docstring.
RULE = "missing-docstring"


@dataclass(frozen=True)
class PublicObject:
    """A public object of the API and whether it has a docstring."""

    kind: str
    path: str
    file: Path
    first: int
    last: int
    documented: bool


class DocsCheck:
    """Docstring coverage of the public API; by default under 80% on new code fails."""

    id: ClassVar[str] = "docs"
    title: ClassVar[str] = "public docstrings"
    kind: ClassVar[Literal["static", "session"]] = "static"
    options_model: ClassVar[type[NoOptions]] = NoOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec(
            "docstring_rate",
            "public objects with a docstring, 0..1 (None without public objects)",
            "rate",
        ),
        MetricSpec("missing", "public objects without a docstring"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="docstring_rate", scope="new", op="<", value=0.8),
    )

    def tool_info(self) -> ToolInfo | None:
        """griffe and its version; a CheckError with the install command when it is missing."""
        return require_tool("griffe", "griffe")

    def cache_inputs(self, ctx: CheckContext, options: NoOptions) -> Sequence[Path] | None:
        """The package source."""
        return ctx.project.source_files

    def measure(self, ctx: CheckContext, options: NoOptions) -> Measurement:
        """Load each package with griffe and count its public objects with a docstring."""
        ctx.project.trees.require(ctx.project.source_files, what="the public API")
        everything = _every_public_object(ctx)
        new = [item for item in everything if _judged_as_new(ctx, item)]
        findings = [
            _finding(ctx, item, new=item in new) for item in everything if not item.documented
        ]
        rate, new_rate = _rate(everything), _rate(new)
        score = new_rate if new_rate is not None else 1.0
        return Measurement(
            summary=_summary(everything, new, findings),
            score=round(score, 4),
            metrics={"docstring_rate": rate, "missing": len(findings)},
            new_code_metrics={
                "docstring_rate": new_rate,
                "missing": sum(1 for finding in findings if finding.new),
            },
            findings=findings,
        )


def _every_public_object(ctx: CheckContext) -> list[PublicObject]:
    """The public objects of every package, each once (the first package that has it)."""
    objects: dict[str, PublicObject] = {}
    packages = ctx.project.package_dirs
    for package, module in zip(packages, load_packages(packages), strict=True):
        for found in public_objects(module, package_name(package)):
            objects.setdefault(found.path, found)
    return list(objects.values())


def _judged_as_new(ctx: CheckContext, item: PublicObject) -> bool:
    """Whether the change touches the object, and it is not an undocumented one the
    baseline accepted."""
    touched = ctx.new_code.touches(ctx.project.relative(item.file), item.first, item.last)
    return touched and not (item.documented is False and _accepted(ctx, item))


def public_objects(module: griffe.Module, package: str) -> list[PublicObject]:
    """The public modules, classes, functions, methods and properties of a package."""
    found: dict[str, PublicObject] = {}
    if not package.startswith("_"):  # a private top-level package (like _pytest) has no API
        _visit(module, package, found)
    return list(found.values())


def _visit(obj: griffe.Object, package: str, found: dict[str, PublicObject]) -> None:
    record = _record(obj)
    if record is None or record.path in found:
        return
    found[record.path] = record
    if obj.kind.value not in ("module", "class"):
        return
    for member in _public_members(obj, package):
        _visit(member, package, found)


def _public_members(obj: griffe.Object, package: str) -> Iterator[griffe.Object]:
    import griffe

    for member in list(obj.members.values()):
        if not member.is_public:
            continue
        if isinstance(member, griffe.Alias):
            target = _reexported(member, package)
            if target is not None:
                yield target
        else:
            yield member


def _reexported(alias: griffe.Alias, package: str) -> griffe.Object | None:
    """An explicit re-export's object, counted where the package defines it (None when it
    is defined outside the package, or cannot be resolved)."""
    import griffe

    try:
        target = alias.final_target
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None
    if isinstance(target, griffe.Object) and (
        target.path == package or target.path.startswith(f"{package}.")
    ):
        return target
    return None


def _record(obj: griffe.Object) -> PublicObject | None:
    """What the docs check counts of ``obj``, or None for what it leaves out."""
    kind = _kind(obj)
    file = obj.filepath
    if kind is None or not isinstance(file, Path):
        return None  # left out, or a namespace package (no file, no docstring to have)
    first, last = (1, 1) if kind == "module" else _span(obj)
    docstring = obj.docstring
    return PublicObject(
        kind=kind,
        path=obj.path,
        file=file,
        first=first,
        last=last,
        documented=docstring is not None and bool(docstring.value.strip()),
    )


def _span(obj: griffe.Object) -> tuple[int, int]:
    """The first and last lines of a class, function or property definition."""
    first = obj.lineno or 1
    return first, obj.endlineno or first


def _kind(obj: griffe.Object) -> str | None:
    """module, class, function, method or property; None for what is not counted."""
    kind = str(obj.kind.value)
    if kind in ("module", "class"):
        return kind
    if kind == "attribute":
        return "property" if "property" in obj.labels else None
    if kind != "function" or (obj.name.startswith("__") and obj.name.endswith("__")):
        return None
    parent = obj.parent
    return "method" if parent is not None and parent.is_class else "function"


def _accepted(ctx: CheckContext, item: PublicObject) -> bool:
    """Whether the project's baseline accepts this object's missing docstring."""
    return ctx.new_code.accepts(RULE, ctx.project.relative(item.file), item.first)


def _finding(ctx: CheckContext, item: PublicObject, *, new: bool) -> Finding:
    located = locate(
        ctx.project,
        dataclasses.replace(ctx.new_code, accepted=None),  # the baseline was asked already
        rule=RULE,
        severity=Severity.LOW,
        message=f"public {item.kind} {item.path} has no docstring",
        path=item.file,
        line=item.first,
    )
    # New when any line of the definition changed, not only its first line.
    return located.model_copy(update={"new": new})


def _rate(objects: list[PublicObject]) -> float | None:
    if not objects:
        return None
    return round(sum(1 for item in objects if item.documented) / len(objects), 4)


def _summary(
    everything: list[PublicObject], new: list[PublicObject], findings: list[Finding]
) -> str:
    if not everything:
        return "no public module, class or function found to document"
    documented = len(everything) - len(findings)
    text = f"{documented} of {len(everything)} public objects have a docstring"
    new_missing = [finding for finding in findings if finding.new]
    if new:
        text += f" ({len(new) - len(new_missing)} of {len(new)} on new code)"
    if findings:
        first = (new_missing or findings)[0]
        text += f"; first without: {first.path}:{first.line} {first.message.split(' ')[2]}"
    return text
