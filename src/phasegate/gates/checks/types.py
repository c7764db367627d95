"""types: mypy over the packages, read from its JSON output (``-O json``, mypy 1.11 or later).

mypy runs once, in the project folder, so the project's own configuration (``mypy.ini``,
``.mypy.ini``, ``[tool.mypy]`` in ``pyproject.toml`` or ``setup.cfg``) decides how strict it
is. It is given the package folders rather than each file, so that the configuration's
``exclude`` applies (mypy ignores ``exclude`` for files named on its command line). Its
incremental cache lives in the artifacts folder (``cache/mypy``), so a warm re-run only
re-checks what changed.

mypy exits with 1 when it found errors, which is a measurement, not a failure of the check;
with 2 it either met a blocking error it still reports as JSON (a syntax error: a finding like
any other) or could not run at all (a CheckError with what it printed).

mypy's JSON output says nothing when it finds nothing, so silence alone cannot be told from a
mypy that did not run. mypy is also asked for its JUnit report (``--junit-xml``, into a
temporary folder), which it writes when it finished: ``failures="0"`` for a clean run, else
the messages it printed. The check passes only when that report exists, says mypy ran without
an error of its own, and agrees with the JSON lines (as many, and none when it says clean).
The report is read with two regular expressions (the ``<testsuite>`` tag's counts, and the
``<failure>`` text): mypy writes it in one fixed shape, and an XML parser would be a second
parser of data only mypy writes, flagged by bandit for it.

Severities: an error is ``medium``; an error meaning the code fails as soon as it runs
(``syntax``, ``name-defined``) is ``high``; a note (``reveal_type``, an unchecked body) is
``low``.
"""

from __future__ import annotations

import html
import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar, Literal

from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import locate, score_from_count
from phasegate.gates.installed import metadata_files
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec, NoOptions
from phasegate.gates.tools import ToolRun, parse_json, require_tool, run_tool
from phasegate.model.gate import Finding, Severity, ToolInfo

__all__ = ["TypesCheck"]

#: Error codes that mean the code cannot work as written.
_SERIOUS_CODES = frozenset({"syntax", "name-defined"})
_CONFIG_FILES = ("mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg")
_SUITE = re.compile(r'<testsuite\b[^>]*?\berrors="(\d+)"[^>]*?\bfailures="(\d+)"')
_FAILURE = re.compile(r"<failure\b[^>]*>(.*?)</failure>", re.DOTALL)


class TypesCheck:
    """mypy's errors; by default any error on new code fails the check."""

    id: ClassVar[str] = "types"
    title: ClassVar[str] = "mypy"
    kind: ClassVar[Literal["static", "session"]] = "static"
    options_model: ClassVar[type[NoOptions]] = NoOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("errors", "mypy errors"),
        MetricSpec("notes", "mypy notes that stand alone (reveal_type, unchecked bodies)"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="errors", scope="new", op=">", value=0),
    )

    def tool_info(self) -> ToolInfo | None:
        """mypy and its version; a CheckError with the install command when it is missing."""
        return require_tool("mypy", "mypy")

    def cache_inputs(self, ctx: CheckContext, options: NoOptions) -> Sequence[Path] | None:
        """The source, mypy's configuration files and the installed distributions."""
        configs = [path for name in _CONFIG_FILES if (path := ctx.project.root / name).is_file()]
        return [*ctx.project.source_files, *configs, *metadata_files()]

    def measure(self, ctx: CheckContext, options: NoOptions) -> Measurement:
        """Run mypy over the packages and count its errors and notes."""
        targets = ctx.project.package_dirs
        if not targets:
            return Measurement(
                summary="no package found for mypy to check",
                metrics={"errors": 0, "notes": 0},
                new_code_metrics={"errors": 0, "notes": 0},
            )
        findings = [_finding(ctx, entry) for entry in _checked(ctx, targets)]
        errors = [f for f in findings if f.severity is not Severity.LOW]
        new_errors = [f for f in errors if f.new]
        notes = len(findings) - len(errors)
        return Measurement(
            summary=_summary(errors, new_errors, len(targets)),
            score=score_from_count(len(new_errors)),
            metrics={"errors": len(errors), "notes": notes},
            new_code_metrics={
                "errors": len(new_errors),
                "notes": sum(f.new for f in findings) - len(new_errors),
            },
            findings=findings,
        )


def _checked(ctx: CheckContext, targets: Sequence[Path]) -> list[object]:
    """mypy's JSON messages about ``targets``, once its exit status, its messages and its
    JUnit report are seen to tell one story."""
    with tempfile.TemporaryDirectory(prefix="phasegate-mypy-") as folder:
        junit = Path(folder) / "junit.xml"
        run = run_tool(
            "mypy",
            [
                "-O",
                "json",
                "--cache-dir",
                str(ctx.store.root / "cache" / "mypy"),
                "--junit-xml",
                str(junit),
                *(str(path) for path in targets),
            ],
            cwd=ctx.project.root,
            timeout_s=ctx.timeout_s,
            ok_codes=(0, 1, 2),
        )
        entries = _entries(run)
        _agree(run, entries, _junit_summary(junit, run))
    return entries


def _entries(run: ToolRun) -> list[object]:
    """mypy's JSON lines; a CheckError when it did not check (or printed no JSON)."""
    entries = [parse_json("mypy", line) for line in run.stdout.splitlines() if line.startswith("{")]
    if entries or run.returncode == 0:
        return entries
    if run.returncode == 1:
        raise CheckError(
            f"mypy reported errors but printed no JSON: {run.stdout.strip()[:300]!r}",
            fix="JSON output (-O json) needs mypy 1.11 or later",
        )
    text = (run.stderr.strip() or run.stdout.strip() or "(no output)")[-1500:]
    raise CheckError(
        f"mypy could not check the project (exit status 2): {text}",
        fix="run `python -m mypy` in the project to see the whole output; "
        "JSON output needs mypy 1.11 or later",
    )


def _junit_summary(path: Path, run: ToolRun) -> tuple[int, int, str]:
    """``(errors, failures, failure text)`` of mypy's JUnit report; a CheckError without one."""
    try:
        report = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        text = (run.stderr.strip() or run.stdout.strip() or "(no output)")[-600:]
        raise CheckError(
            f"mypy exited with status {run.returncode} without writing its report, so it did "
            f"not finish checking: {text}",
            fix="run `python -m mypy` in the project to see the whole output",
        ) from exc
    suite = _SUITE.search(report)
    if suite is None:
        raise CheckError(f"mypy wrote a JUnit report of an unknown shape: {report[:200]!r}")
    text = "\n".join(html.unescape(found) for found in _FAILURE.findall(report))
    return int(suite.group(1)), int(suite.group(2)), text


def _agree(run: ToolRun, entries: list[object], summary: tuple[int, int, str]) -> None:
    """A CheckError unless mypy's exit status, JSON lines and JUnit report tell one story.

    Clean is exit status 0 with no JSON message, and a report of no failure, or of notes
    about the configuration only (``setup.cfg: note: unused section(s)``), which mypy prints
    as text and counts as a failure. Otherwise the report lists the JSON messages printed.
    """
    errors, failures, text = summary
    if errors:
        raise CheckError(
            f"mypy could not check the project: {text.strip()[-1500:] or '(no message)'}",
            fix="run `python -m mypy` in the project to see the whole output",
        )
    lines = [line for line in text.splitlines() if line.strip()]
    reported = sum(1 for line in lines if line.startswith("{"))
    if not _consistent(run.returncode, len(entries), failures, lines, reported):
        raise CheckError(
            f"mypy's output does not add up: exit status {run.returncode}, {len(entries)} JSON "
            f"message(s), and a report of {failures} failure(s) with {reported} message(s)",
            fix="run `python -m mypy` in the project to see the whole output",
        )


def _consistent(
    returncode: int, messages: int, failures: int, lines: list[str], reported: int
) -> bool:
    """Whether the exit status, the number of JSON messages and the report's failures (with
    the ``reported`` messages among its ``lines``) agree."""
    if messages:
        return failures == 1 and returncode != 0 and reported in (0, messages)
    return returncode == 0 and (
        failures == 0 or _configuration_notes_only(failures, lines, reported)
    )


def _configuration_notes_only(failures: int, lines: list[str], reported: int) -> bool:
    """A report of one failure whose text is notes only, no message: mypy's notes about its
    configuration (``setup.cfg: note: unused section(s)``)."""
    return failures == 1 and not reported and all(": note: " in line for line in lines)


def _finding(ctx: CheckContext, entry: object) -> Finding:
    if not isinstance(entry, dict):
        raise CheckError(f"mypy printed a JSON line that is not an object: {entry!r:.200}")
    code = str(entry.get("code") or "misc")
    message = str(entry.get("message", ""))
    if entry.get("hint"):
        message += f" ({entry['hint']})"
    column = entry.get("column")
    return locate(
        ctx.project,
        ctx.new_code,
        rule=code,
        severity=_severity(entry, code),
        message=message,
        path=ctx.project.root / str(entry.get("file", "")),
        line=entry.get("line") if isinstance(entry.get("line"), int) else None,
        # mypy's JSON columns are 0-based; findings count from 1.
        column=column + 1 if isinstance(column, int) and column >= 0 else None,
    )


def _severity(entry: Mapping[str, object], code: str) -> Severity:
    """A note is low; an error is high when its code is a serious one, else medium."""
    if entry.get("severity") == "note":
        return Severity.LOW
    return Severity.HIGH if code in _SERIOUS_CODES else Severity.MEDIUM


def _summary(errors: list[Finding], new: list[Finding], packages: int) -> str:
    if not errors:
        return f"mypy found no error in {packages} package(s)"
    first = (new or errors)[0]
    return (
        f"mypy found {len(errors)} error(s), {len(new)} on new code; first "
        f"{first.path}:{first.line} [{first.rule}] {first.message}"
    )
