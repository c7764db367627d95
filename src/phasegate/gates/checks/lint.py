"""lint: ruff over every Python file, stub, notebook and ``pyproject.toml``, from its JSON.

The files are those ``ruff check .`` lints by default, of the project's files: Python files,
type stubs (``.pyi``), Jupyter notebooks (``.ipynb``, linted by default since ruff 0.6) and
``pyproject.toml`` (ruff's RUF200: a ``[project]`` table it cannot read). ruff places a
notebook's finding by its cell (``cell``, from 1) and the line within that cell, which is no
line of the notebook's file: such a finding names the file only, with the cell and the line in
its message, and it is on new code when the notebook changed at all.

ruff runs in the project folder, so the project's own ruff configuration (rules, ignores,
excludes: ``--force-exclude`` keeps excluded files out even though they are named) decides
what counts. ruff runs as its binary, found where ``python -m ruff`` would find it
(:func:`~phasegate.gates.tools.module_binary`), which saves starting Python only to exec it.

ruff always prints a JSON list (``[]`` when it found nothing); empty output, another document
or a finding without its code, file, place and message is an error, never a clean result.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, Literal, TypedDict

from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import locate, score_from_count
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec, NoOptions
from phasegate.gates.tools import (
    ToolRun,
    expect,
    module_binary,
    parse_json,
    require_tool,
    run_tool,
)
from phasegate.jsonvalues import is_int
from phasegate.model.gate import Finding, Severity, ToolInfo

__all__ = ["LintCheck"]

#: Rules that mean the code cannot work as written (syntax errors, undefined names).
_SERIOUS_PREFIXES = ("E9", "F63", "F7", "F82")


class _RuffFinding(TypedDict):
    """The keys of one of ruff's findings that the check reads, checked where parsed."""

    code: str | None  # None: a syntax error
    filename: str
    message: str
    row: int
    column: int | None
    fixable: bool
    cell: int | None  # the notebook cell (from 1) of a notebook's finding


class LintCheck:
    """ruff's findings; by default any finding on new code fails the check."""

    id: ClassVar[str] = "lint"
    title: ClassVar[str] = "ruff"
    kind: ClassVar[Literal["static", "session"]] = "static"
    options_model: ClassVar[type[NoOptions]] = NoOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("violations", "ruff findings"),
        MetricSpec("fixable", "findings ruff can fix itself (ruff check --fix)"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="violations", scope="new", op=">", value=0),
    )

    def tool_info(self) -> ToolInfo | None:
        return require_tool("ruff", "ruff")

    def cache_inputs(self, ctx: CheckContext, options: NoOptions) -> Sequence[Path] | None:
        return sorted({*_linted_files(ctx), *_config_files(ctx.project.root)})

    def measure(self, ctx: CheckContext, options: NoOptions) -> Measurement:
        files = _linted_files(ctx)
        if not files:
            return Measurement(
                summary="no Python files to lint",
                metrics={"violations": 0, "fixable": 0},
                new_code_metrics={"violations": 0, "fixable": 0},
            )
        entries = _entries(parse_json("ruff", _run_ruff(ctx, files).stdout))
        findings = [self._finding(ctx, entry) for entry in entries]
        fixable = [f for entry, f in zip(entries, findings, strict=True) if entry["fixable"]]
        new = [finding for finding in findings if finding.new]
        return Measurement(
            summary=_summary(findings, new, len(files)),
            score=score_from_count(len(new)),
            metrics={"violations": len(findings), "fixable": len(fixable)},
            new_code_metrics={
                "violations": len(new),
                "fixable": sum(1 for finding in fixable if finding.new),
            },
            findings=findings,
        )

    @staticmethod
    def _finding(ctx: CheckContext, entry: _RuffFinding) -> Finding:
        code = entry["code"] or "syntax-error"
        serious = code == "syntax-error" or code.startswith(_SERIOUS_PREFIXES)
        line, column, message = _place(entry)
        return locate(
            ctx.project,
            ctx.new_code,
            rule=code,
            severity=Severity.HIGH if serious else Severity.MEDIUM,
            message=message,
            path=entry["filename"],
            line=line,
            column=column,
        )


def _place(entry: _RuffFinding) -> tuple[int | None, int | None, str]:
    """A finding's line, column and message: a notebook's names its cell and the line in it
    in the message (ruff's row counts within the cell, not within the notebook's file); one
    without a cell (a notebook ruff cannot read) is about the whole notebook, never a line of
    its JSON."""
    if entry["cell"] is not None:
        return None, None, f"cell {entry['cell']}, line {entry['row']}: {entry['message']}"
    if entry["filename"].endswith(".ipynb"):
        return None, None, entry["message"]
    return entry["row"], entry["column"], entry["message"]


def _linted_files(ctx: CheckContext) -> list[Path]:
    """The project's Python files and notebooks, with its stubs and ``pyproject.toml`` files
    when it has any of them (none: nothing to lint)."""
    notebooks = [path for path in ctx.project.all_files if path.suffix == ".ipynb"]
    python = [*ctx.project.python_files, *notebooks]
    if not python:
        return []
    others = (
        path
        for path in ctx.project.all_files
        if path.suffix == ".pyi" or path.name == "pyproject.toml"
    )
    return sorted({*python, *others})


def _run_ruff(ctx: CheckContext, files: Sequence[Path]) -> ToolRun:
    """``ruff check`` over ``files``, as JSON, fixing nothing, honouring ruff's excludes."""
    return run_tool(
        "ruff",
        [
            "check",
            "--output-format",
            "json",
            "--no-fix",
            "--force-exclude",
            "--exit-zero",
            *(str(path) for path in files),
        ],
        cwd=ctx.project.root,
        timeout_s=ctx.timeout_s,
        program=module_binary("ruff", "find_ruff_bin", ctx.project.root),
    )


def _entries(document: object) -> list[_RuffFinding]:
    """ruff's findings, each checked for the keys a finding is made of."""
    if not isinstance(document, list):
        raise CheckError(f"ruff printed JSON that is not a list of findings: {document!r:.200}")
    return [_entry(entry) for entry in document]


def _entry(entry: object) -> _RuffFinding:
    found = expect("ruff", entry, dict, "a finding")
    location = expect("ruff", found.get("location"), dict, "a finding's location")
    column, cell = location.get("column"), found.get("cell")
    return {
        "code": expect("ruff", found.get("code"), (str, type(None)), "a finding's code"),
        "filename": expect("ruff", found.get("filename"), str, "a finding's filename"),
        "message": expect("ruff", found.get("message"), str, "a finding's message"),
        "row": expect("ruff", location.get("row"), int, "a finding's row"),
        "column": column if is_int(column) else None,
        "fixable": bool(found.get("fix")),
        "cell": cell if is_int(cell) else None,
    }


def _config_files(root: Path) -> list[Path]:
    return [
        path
        for name in ("pyproject.toml", "ruff.toml", ".ruff.toml")
        if (path := root / name).is_file()
    ]


def _summary(findings: list[Finding], new: list[Finding], files: int) -> str:
    if not findings:
        return f"ruff found nothing in {files} files"
    first = (new or findings)[0]
    return (
        f"ruff found {len(findings)} problem(s), {len(new)} on new code; first "
        f"{first.path}:{first.line} {first.rule} {first.message}"
    )
