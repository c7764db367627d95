"""syntax: every Python file of the project compiles (with the interpreter running the gate).

Each file is compiled from its source, as ``compileall`` does it: the parser's errors and the
compiler's own (``return`` outside a function, ``nonlocal`` at module level...). No syntax tree
is built for it: turning a file into Python's ``ast`` objects and compiling those costs about
three times as much as compiling the source, and most of the files compiled here (the tests)
are read by no other check. The package's files, which the deps, docs and breaking checks
read, are parsed once for them (:mod:`phasegate.gates.parsed`), with the same messages.

Each file's answer is kept under its content's SHA-256 (when the settings' cache is on,
:class:`~phasegate.gates.cache.FileResults`, keyed by the interpreter and phasegate's versions):
after a change, only the files whose content changed are compiled again. A kept answer of
another shape is not believed: the file is compiled again.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar, Literal

from phasegate import __version__
from phasegate.canonical import canonical_json
from phasegate.gates.cache import FileResults, content_digest
from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import locate
from phasegate.gates.protocol import CheckContext, Measurement, MetricSpec, NoOptions
from phasegate.jsonvalues import is_int
from phasegate.model.gate import Finding, Severity, ToolInfo

__all__ = ["SyntaxCheck"]

#: Why a file does not compile: the message, its line and column (when known).
Problem = tuple[str, int | None, int | None]


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
        problems = _problems(ctx, files)
        findings = [
            _finding(ctx, path, problem)
            for path in files
            if (problem := problems[path]) is not None
        ]
        new = sum(1 for finding in findings if finding.new)
        return Measurement(
            summary=_summary(findings, len(files)),
            score=1.0 if not findings else 0.0,
            metrics={"errors": len(findings), "files": len(files)},
            new_code_metrics={"errors": new, "files": len(files)},
            findings=findings,
        )


def _problems(ctx: CheckContext, files: Sequence[Path]) -> dict[Path, Problem | None]:
    """Each file's problem (``None``: it compiles); kept answers for unchanged files."""
    if not ctx.reuse_file_results:
        return {path: _compile_problem(path) for path in files}
    kept = FileResults(ctx.store, "syntax", ctx.project)
    key = canonical_json({"python": sys.version, "phasegate": __version__})
    digests = {ctx.project.relative(path): content_digest(path) for path in files}
    known = kept.known(key, {name: d for name, d in digests.items() if d is not None})
    problems: dict[Path, Problem | None] = {}
    keep: dict[str, tuple[str, object]] = {}
    for path in files:
        name = ctx.project.relative(path)
        problem = _kept_or_compiled(path, name, known)
        problems[path] = problem
        if (digest := digests[name]) is not None:
            keep[name] = (digest, list(problem) if problem is not None else None)
    kept.keep(key, keep)
    return problems


def _kept_or_compiled(path: Path, name: str, known: Mapping[str, object]) -> Problem | None:
    """The answer kept for the file when there is one and it is recognized, else the file
    compiled now."""
    if name in known:
        recognized, problem = _kept_problem(known[name])
        if recognized:
            return problem
    return _compile_problem(path)


def _kept_problem(data: object) -> tuple[bool, Problem | None]:
    """Whether a kept answer is recognized, and its problem (``None``: the file compiles)."""
    if data is None:
        return True, None
    if not (isinstance(data, list) and len(data) == 3 and isinstance(data[0], str)):
        return False, None
    if not all(_line_or_none(value) for value in data[1:]):
        return False, None
    return True, (data[0], data[1], data[2])


def _line_or_none(value: object) -> bool:
    return value is None or is_int(value)


def _finding(ctx: CheckContext, path: Path, problem: Problem) -> Finding:
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


def _compile_problem(path: Path) -> Problem | None:
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
