"""syntax: every Python file of the project compiles (with the interpreter running the gate).

Each file is parsed once for every check that reads syntax trees
(:mod:`phasegate.gates.parsed`); the tree is then compiled, which adds the compiler's own
errors (``return`` outside a function, ``nonlocal`` at module level...), as ``compileall``
reports them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, Literal

from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import locate
from phasegate.gates.parsed import SyntaxTrees, Unparseable
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
        findings: list[Finding] = []
        files = ctx.project.python_files
        for path in files:
            problem = _compile_problem(ctx.project.trees, path)
            if problem is not None:
                message, line, column = problem
                findings.append(
                    locate(
                        ctx.project,
                        ctx.new_code,
                        rule="syntax-error",
                        severity=Severity.CRITICAL,
                        message=message,
                        path=path,
                        line=line,
                        column=column,
                    )
                )
        new = sum(1 for finding in findings if finding.new)
        if findings:
            first = findings[0]
            summary = (
                f"{len(findings)} of {len(files)} files do not compile, first "
                f"{first.path}:{first.line}: {first.message}"
            )
        else:
            summary = f"all {len(files)} Python files compile"
        return Measurement(
            summary=summary,
            score=1.0 if not findings else 0.0,
            metrics={"errors": len(findings), "files": len(files)},
            new_code_metrics={"errors": new, "files": len(files)},
            findings=findings,
        )


def _compile_problem(trees: SyntaxTrees, path: Path) -> tuple[str, int | None, int | None] | None:
    """Why ``path`` does not compile: its parse (shared with other checks), then the compiler's
    own checks on the tree (``return`` outside a function, a duplicate argument...)."""
    tree = trees.get(path)
    if isinstance(tree, Unparseable):
        return tree.message, tree.line, tree.column
    try:
        compile(tree, str(path), "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"{type(exc).__name__}: {exc.msg}", exc.lineno, exc.offset
    except ValueError as exc:
        return f"ValueError: {exc}", None, None
    return None
