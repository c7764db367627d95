"""syntax: every Python file of the project compiles (with the interpreter running the gate).

Each file is compiled from its source, as ``compileall`` does it: the parser's errors and the
compiler's own (``return`` outside a function, ``nonlocal`` at module level...). No syntax tree
is built for it: turning a file into Python's ``ast`` objects and compiling those costs about
three times as much as compiling the source, and most of the files compiled here (the tests)
are read by no other check. The package's files, which the deps, docs and breaking checks
read, are parsed once for them (:mod:`phasegate.gates.parsed`), with the same messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, Literal

from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import locate
from phasegate.gates.protocol import CheckContext, Measurement, MetricSpec, NoOptions
from phasegate.model.gate import Finding, Severity, ToolInfo

__all__ = ["SyntaxCheck"]


class SyntaxCheck:
    """Compiles every tracked Python file; each one that does not compile is a finding."""

    id: ClassVar[str] = "syntax"
    title: ClassVar[str] = "every Python file compiles"
    kind: ClassVar[Literal["static", "session"]] = "static"
    options_model: ClassVar[type[NoOptions]] = NoOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("errors", "files that do not compile"),
        MetricSpec("files", "Python files compiled"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="errors", scope="overall", op=">", value=0),
    )

    def tool_info(self) -> ToolInfo | None:
        return None  # the interpreter itself: its version is part of phasegate's cache key

    def cache_inputs(self, ctx: CheckContext, options: NoOptions) -> Sequence[Path] | None:
        return ctx.project.python_files

    def measure(self, ctx: CheckContext, options: NoOptions) -> Measurement:
        files = ctx.project.python_files
        findings = [
            _finding(ctx, path, problem)
            for path in files
            if (problem := _compile_problem(path)) is not None
        ]
        new = sum(1 for finding in findings if finding.new)
        return Measurement(
            summary=_summary(findings, len(files)),
            score=1.0 if not findings else 0.0,
            metrics={"errors": len(findings), "files": len(files)},
            new_code_metrics={"errors": new, "files": len(files)},
            findings=findings,
        )


def _finding(ctx: CheckContext, path: Path, problem: tuple[str, int | None, int | None]) -> Finding:
    message, line, column = problem
    return locate(
        ctx.project,
        ctx.new_code,
        rule="syntax-error",
        severity=Severity.CRITICAL,
        message=message,
        path=path,
        line=line,
        column=column,
    )


def _summary(findings: list[Finding], files: int) -> str:
    if not findings:
        return f"all {files} Python files compile"
    first = findings[0]
    return (
        f"{len(findings)} of {files} files do not compile, first "
        f"{first.path}:{first.line}: {first.message}"
    )


def _compile_problem(path: Path) -> tuple[str, int | None, int | None] | None:
    """Why ``path`` does not compile, as the parser or the compiler says it; None if it does."""
    try:
        source = path.read_bytes()
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}", None, None
    try:
        compile(source, str(path), "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"{type(exc).__name__}: {exc.msg}", exc.lineno, exc.offset
    except ValueError as exc:  # null bytes in the source
        return f"ValueError: {exc}", None, None
    return None
