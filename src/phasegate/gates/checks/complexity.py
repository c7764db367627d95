"""complexity: radon's cyclomatic complexity and maintainability index of the package source.

``radon cc -j -s`` and ``radon mi -j`` each run once over every source file, in the project
folder (so radon's own configuration in ``radon.cfg``, ``setup.cfg`` or ``[tool.radon]``
applies). Functions, methods and nested functions count one by one: radon gives a nested
function its own complexity, not its parent's. Classes are left out, since radon's class
figure is a sum over its methods, which are already counted. A file radon cannot parse means
the check could not measure: that is an error.

radon's reports are recognized before they are believed: ``radon mi`` names every file it was
given (a file missing from it, or a file neither report was asked about, is an error; unless
radon's own configuration excludes or ignores files, which it then leaves out), and
``radon cc`` names those with functions, each a list of blocks with a name, lines and a
complexity.
"""

from __future__ import annotations

import configparser
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import Field

from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import locate, score_from_count
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec
from phasegate.gates.tools import expect, parse_json, require_tool, run_tool
from phasegate.jsonvalues import is_number
from phasegate.model.gate import Finding, MetricValue, Severity, ToolInfo
from phasegate.settings import Section
from phasegate.tomlfile import table_in

__all__ = ["ComplexityCheck", "ComplexityOptions"]

#: Complexity at which a function is a high-severity finding (radon's ranks E and F).
_HIGH_FROM = 31


class ComplexityOptions(Section):
    """Options of the complexity check."""

    max_complexity: int = Field(
        default=10, ge=1, description="functions with a cyclomatic complexity above this count"
    )


@dataclass(frozen=True)
class _Function:
    path: str
    name: str
    first: int
    last: int
    complexity: int
    rank: str


class ComplexityCheck:
    """Functions over the complexity limit, and the least maintainable module."""

    id: ClassVar[str] = "complexity"
    title: ClassVar[str] = "radon"
    kind: ClassVar[Literal["static", "session"]] = "static"
    options_model: ClassVar[type[ComplexityOptions]] = ComplexityOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec(
            "complex_functions",
            "functions above max_complexity (on new code: those with a changed line)",
        ),
        MetricSpec(
            "max_complexity",
            "the highest cyclomatic complexity of a function (None without functions)",
            "number",
        ),
        MetricSpec(
            "min_maintainability",
            "the lowest maintainability index of a module, 0..100 (None without modules)",
            "number",
        ),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="complex_functions", scope="new", op=">", value=0),
        ConditionSpec(metric="min_maintainability", scope="overall", op="<", value=10),
    )

    def tool_info(self) -> ToolInfo | None:
        """radon and its version; a CheckError with the install command when it is missing."""
        return require_tool("radon", "radon")

    def cache_inputs(self, ctx: CheckContext, options: ComplexityOptions) -> Sequence[Path] | None:
        """The package source and the files radon reads its configuration from."""
        configs = [
            path
            for name in ("pyproject.toml", "setup.cfg", "radon.cfg")
            if (path := ctx.project.root / name).is_file()
        ]
        return [*ctx.project.source_files, *configs]

    def measure(self, ctx: CheckContext, options: ComplexityOptions) -> Measurement:
        """Run radon cc and radon mi once each over the package source."""
        files = ctx.project.source_files
        limit = options.max_complexity
        if not files:
            return Measurement(
                summary="no package source files for radon to measure",
                metrics=_metrics([], [], limit),
                new_code_metrics=_metrics([], [], limit),
            )
        functions = self._functions(ctx, files)
        maintainability = self._maintainability(ctx, files)
        _refuse_unmeasured(ctx, files, maintainability, functions)
        touched = [f for f in functions if ctx.new_code.touches(f.path, f.first, f.last)]
        complex_ = [f for f in functions if f.complexity > limit]
        new_complex = [f for f in touched if f.complexity > limit]
        return Measurement(
            summary=_summary(complex_, new_complex, maintainability, limit),
            score=score_from_count(len(new_complex), scale=3),
            metrics=_metrics(functions, maintainability.values(), limit),
            new_code_metrics=_metrics(touched, _touched_indexes(ctx, maintainability), limit),
            findings=[_finding(ctx, f, limit, new=f in new_complex) for f in complex_],
        )

    @staticmethod
    def _functions(ctx: CheckContext, files: Sequence[Path]) -> list[_Function]:
        run = run_tool(
            "radon",
            ["cc", "-j", "-s", *(str(path) for path in files)],
            cwd=ctx.project.root,
            timeout_s=ctx.timeout_s,
        )
        report = _per_file(parse_json("radon", run.stdout), "radon cc")
        functions: list[_Function] = []
        for filename, blocks in report.items():
            path = ctx.project.relative(ctx.project.root / filename)
            if isinstance(blocks, dict):
                _refuse(path, blocks)
            if not isinstance(blocks, list):
                raise CheckError(f"radon cc printed {blocks!r:.200} for {path}, not a list")
            functions.extend(_walk(path, blocks, prefix=""))
        return functions

    @staticmethod
    def _maintainability(ctx: CheckContext, files: Sequence[Path]) -> dict[str, float]:
        run = run_tool(
            "radon",
            ["mi", "-j", *(str(path) for path in files)],
            cwd=ctx.project.root,
            timeout_s=ctx.timeout_s,
        )
        report = _per_file(parse_json("radon", run.stdout), "radon mi")
        indexes: dict[str, float] = {}
        for filename, entry in report.items():
            path = ctx.project.relative(ctx.project.root / filename)
            if not isinstance(entry, dict):
                raise CheckError(f"radon mi printed {entry!r:.200} for {path}, not an object")
            _refuse(path, entry)
            value = entry.get("mi")
            if not is_number(value):
                raise CheckError(f"radon mi gave {path} no maintainability index: {entry!r:.200}")
            indexes[path] = float(value)
        return indexes


def _refuse_unmeasured(
    ctx: CheckContext,
    files: Sequence[Path],
    maintainability: dict[str, float],
    functions: Sequence[_Function],
) -> None:
    """A CheckError unless radon measured exactly the files it was given."""
    given = {ctx.project.relative(path) for path in files}
    missing = sorted(given - maintainability.keys())
    unknown = sorted((maintainability.keys() | {f.path for f in functions}) - given)
    if missing and not _radon_excludes(ctx.project.root, ctx.project.pyproject):
        raise CheckError(
            f"radon mi measured {len(given) - len(missing)} of the {len(given)} files it was "
            f"given (first missing: {missing[0]}), so their complexity is unknown",
            fix="run `python -m radon mi -j` on the file to see why",
        )
    if unknown:
        raise CheckError(f"radon reported on a file it was not given: {unknown[0]}")


def _radon_excludes(root: Path, pyproject: Mapping[str, object]) -> bool:
    """Whether radon's configuration may leave files out (``exclude`` or ``ignore``).

    radon reads ``RADONCFG``, ``radon.cfg``, ``[tool.radon]``, ``setup.cfg`` and
    ``~/.radon.cfg``; a file it leaves out on purpose is not a file it failed to measure.
    """
    if os.environ.get("RADONCFG"):
        return True
    table = table_in(pyproject, "tool", "radon")
    if "exclude" in table or "ignore" in table:
        return True
    parser = configparser.ConfigParser()
    try:
        parser.read([root / "radon.cfg", root / "setup.cfg", Path.home() / ".radon.cfg"])
    except configparser.Error:
        return True  # radon could not read it either; its own run would have said so
    return parser.has_option("radon", "exclude") or parser.has_option("radon", "ignore")


def _walk(path: str, blocks: list[object], *, prefix: str) -> Iterator[_Function]:
    for block in blocks:
        if not isinstance(block, dict):
            raise CheckError(f"radon cc printed {block!r:.200} for {path}, not a block")
        if block.get("type") not in ("function", "method"):
            continue
        owner = f"{block['classname']}." if block.get("classname") else ""
        name = f"{prefix}{owner}{block.get('name', '?')}"
        first = expect("radon", block.get("lineno"), int, f"the line of {name} in {path}")
        complexity = expect("radon", block.get("complexity"), int, f"the complexity of {name}")
        yield _Function(
            path=path,
            name=name,
            first=first,
            last=int(block.get("endline") or first),
            complexity=complexity,
            rank=str(block.get("rank", "?")),
        )
        closures = expect("radon", block.get("closures", []), list, f"the closures of {name}")
        yield from _walk(path, closures, prefix=f"{name}.")


def _per_file(report: object, command: str) -> dict[str, object]:
    """radon's report, one entry per file; each entry is narrowed where it is read."""
    if not isinstance(report, dict):
        raise CheckError(f"{command} printed JSON that is not an object per file: {report!r:.200}")
    return {str(filename): entry for filename, entry in report.items()}


def _refuse(path: str, entry: Mapping[str, object]) -> None:
    if "error" in entry:
        raise CheckError(
            f"radon could not measure {path}: {entry['error']}",
            fix="make the file parse (see the syntax check)",
        )


def _metrics(
    functions: Sequence[_Function], indexes: Iterable[float], limit: int
) -> dict[str, MetricValue]:
    return {
        "complex_functions": sum(1 for function in functions if function.complexity > limit),
        "max_complexity": max((function.complexity for function in functions), default=None),
        "min_maintainability": _lowest(indexes),
    }


def _touched_indexes(ctx: CheckContext, maintainability: dict[str, float]) -> list[float]:
    """The maintainability indexes of the modules with new lines."""
    indexes: list[float] = []
    for path, index in maintainability.items():
        lines = ctx.new_code.lines_of(path)
        if lines is None or lines:
            indexes.append(index)
    return indexes


def _lowest(values: Iterable[float]) -> float | None:
    found = [round(value, 2) for value in values]
    return min(found) if found else None


def _finding(ctx: CheckContext, function: _Function, limit: int, *, new: bool) -> Finding:
    located = locate(
        ctx.project,
        ctx.new_code,
        rule=f"complexity-{function.rank}",
        severity=Severity.HIGH if function.complexity >= _HIGH_FROM else Severity.MEDIUM,
        message=f"{function.name} has cyclomatic complexity {function.complexity} (rank "
        f"{function.rank}), above the limit of {limit}",
        path=ctx.project.root / function.path,
        line=function.first,
    )
    # New when any line of the function changed, not only the line of its ``def``.
    return located.model_copy(update={"new": new})


def _summary(
    complex_: list[_Function],
    new: list[_Function],
    maintainability: dict[str, float],
    limit: int,
) -> str:
    lowest = min(maintainability.items(), key=lambda item: item[1], default=None)
    least = f"; least maintainable module {lowest[0]} (MI {lowest[1]:.1f})" if lowest else ""
    if not complex_:
        return f"no function is above complexity {limit}{least}"
    worst = max(new or complex_, key=lambda function: function.complexity)
    return (
        f"{len(complex_)} function(s) above complexity {limit}, {len(new)} on new code; "
        f"worst {worst.path}:{worst.first} {worst.name} ({worst.complexity}){least}"
    )
