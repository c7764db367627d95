"""security: bandit over the package source, read from its JSON report.

bandit runs once over every source file of the packages (tests are left out: ``assert`` and
hard-coded test data are their business), through its library in this process
(:mod:`~phasegate.gates.checks.bandit_report`: the same steps and report as ``python -m bandit
-f json``, without a second interpreter's start). When ``pyproject.toml`` has a
``[tool.bandit]`` table it is bandit's configuration (as ``-c`` gives it), so the project's
``skips``, ``tests`` and ``exclude_dirs`` decide what counts. Findings below the
``confidence`` threshold are dropped; findings below the ``severity`` threshold are kept (and
counted in ``low``, ``medium``, ``high``) but are not ``issues``. A file bandit cannot scan
means the check could not measure: that is an error, never a pass.

bandit's report is recognized before it is believed: a ``results`` list of findings, an
``errors`` list, and ``metrics`` with its ``_totals`` and an entry for every file it scanned.
A file given to bandit that it did not scan is an error, unless one of ``[tool.bandit]``'s
``exclude_dirs`` accounts for it by its path in the project
(:mod:`~phasegate.gates.checks.bandit_excludes`: bandit also drops every file whose whole path
holds one of its excluded names, the project folder's own included).

bandit reads each file on its own, so its results are kept per file (when the settings' cache
is on, :class:`~phasegate.gates.cache.FileResults`): after a change, bandit runs only over the
files whose content changed, under the same bandit and ``[tool.bandit]``, and the kept results
of the others are recognized again before they are used (a kept entry of another shape is
scanned again). A scan that fails keeps nothing.

A project that tells ruff to ignore one of its flake8-bandit rules (``S307``, in ``ignore`` or
``per-file-ignores``) has stated its policy on bandit's twin test (``B307``): such findings are
left out and counted in ``ruff_ignored`` (see :mod:`phasegate.gates.ruff_policy`, which also
says why a whole family such as ``S`` is not taken).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal, TypedDict

from pydantic import Field

from phasegate.canonical import canonical_json
from phasegate.gates.cache import FileResults, content_digest
from phasegate.gates.checks.bandit_report import bandit_report
from phasegate.gates.definition import ConditionSpec
from phasegate.gates.findings import locate, score_from_count
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec
from phasegate.gates.tools import expect, require_tool
from phasegate.jsonvalues import is_int, value_at
from phasegate.model.gate import Finding, Severity, ToolInfo
from phasegate.settings import Section
from phasegate.tomlfile import table_in

if TYPE_CHECKING:
    from phasegate.gates.ruff_policy import RuffPolicy

__all__ = ["SecurityCheck", "SecurityOptions"]

Level = Literal["low", "medium", "high"]

_LEVELS: dict[str, int] = {"low": 0, "medium": 1, "high": 2}
_SEVERITIES = {"LOW": Severity.LOW, "MEDIUM": Severity.MEDIUM, "HIGH": Severity.HIGH}


class _BanditResult(TypedDict):
    """The keys of one of bandit's results that the check reads, checked where parsed."""

    test_id: str
    filename: str
    issue_severity: str
    issue_confidence: str
    issue_text: str
    test_name: str
    more_info: str
    line_number: int
    col_offset: int | None


class _BanditReport(TypedDict):
    results: list[_BanditResult]
    #: Lines bandit skipped for a ``# nosec`` comment (``metrics.<file>.nosec``, summed).
    nosec: int


class SecurityOptions(Section):
    """Options of the security check."""

    severity: Level = Field(
        default="medium",
        description="findings at this severity or above are issues (low, medium, high)",
    )
    confidence: Level = Field(
        default="low",
        description="findings bandit is less confident about than this are dropped",
    )


class SecurityCheck:
    """bandit's findings; by default any issue at or above the thresholds on new code fails."""

    id: ClassVar[str] = "security"
    title: ClassVar[str] = "bandit"
    kind: ClassVar[Literal["static", "session"]] = "static"
    options_model: ClassVar[type[SecurityOptions]] = SecurityOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("issues", "findings at or above the severity and confidence thresholds"),
        MetricSpec("high", "high-severity findings (at or above the confidence threshold)"),
        MetricSpec("medium", "medium-severity findings (at or above the confidence threshold)"),
        MetricSpec("low", "low-severity findings (at or above the confidence threshold)"),
        MetricSpec(
            "suppressed",
            "lines bandit skipped for a '# nosec' comment (overall only: None on new code)",
        ),
        MetricSpec(
            "ruff_ignored",
            "findings left out because the project's ruff settings ignore their rule "
            "(S307 for B307; overall only: None on new code)",
        ),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="issues", scope="new", op=">", value=0),
    )

    def tool_info(self) -> ToolInfo | None:
        """bandit and its version; a CheckError with the install command when it is missing."""
        return require_tool("bandit", "bandit")

    def cache_inputs(self, ctx: CheckContext, options: SecurityOptions) -> Sequence[Path] | None:
        """The package source, pyproject.toml ([tool.bandit], [tool.ruff]) and ruff.toml."""
        root = ctx.project.root
        configs = [root / name for name in ("pyproject.toml", "ruff.toml", ".ruff.toml")]
        return [*ctx.project.source_files, *(path for path in configs if path.is_file())]

    def measure(self, ctx: CheckContext, options: SecurityOptions) -> Measurement:
        """Run bandit once over the package source and count what it finds."""
        files = ctx.project.source_files
        if not files:
            return _nothing_to_scan()
        report = _report(ctx, files)
        # Imported here, as bandit_excludes below: the pytest process plans this check and
        # never measures it.
        from phasegate.gates.ruff_policy import read_ruff_policy

        policy = read_ruff_policy(ctx.project.root, ctx.project.pyproject)
        found = _findings(ctx, report, options.confidence)
        findings, ignored = _kept_and_ignored(found, policy)
        issues = _at_least(findings, options.severity)
        new_issues = [f for f in issues if f.new]
        summary = _summary(issues, new_issues, len(files), options)
        return Measurement(
            summary=summary + _ignored_note(ignored, policy.source),
            score=score_from_count(len(new_issues), scale=2),
            metrics={
                **_counts(findings, issues, suppressed=report["nosec"]),
                "ruff_ignored": len(ignored),
            },
            new_code_metrics={
                **_counts([f for f in findings if f.new], new_issues, suppressed=None),
                "ruff_ignored": None,
            },
            findings=findings,
        )


def _nothing_to_scan() -> Measurement:
    empty: dict[str, int | None] = dict.fromkeys(("issues", "high", "medium", "low"), 0)
    return Measurement(
        summary="no package source files for bandit to scan",
        metrics={**empty, "suppressed": 0, "ruff_ignored": 0},
        new_code_metrics={**empty, "suppressed": None, "ruff_ignored": None},
    )


def _ignored_note(ignored: list[Finding], policy_source: str | None) -> str:
    """What the summary says of the findings left out because ruff's settings ignore them."""
    if not ignored:
        return ""
    codes = ", ".join(sorted({_ruff_code(f.rule) for f in ignored}))
    return f"; {len(ignored)} finding(s) left out as {policy_source} ignores their rule ({codes})"


def _findings(ctx: CheckContext, report: _BanditReport, confidence: str) -> list[Finding]:
    """bandit's results at or above the confidence threshold, as findings."""
    floor = _LEVELS[confidence]
    return [
        _finding(ctx, entry)
        for entry in report["results"]
        if _LEVELS.get(entry["issue_confidence"].lower(), 0) >= floor
    ]


def _ruff_code(bandit_id: str) -> str:
    """ruff's code for a bandit test: ``B307`` is ``S307``."""
    return "S" + bandit_id[1:] if bandit_id.startswith("B") else bandit_id


def _kept_and_ignored(
    found: list[Finding], policy: RuffPolicy
) -> tuple[list[Finding], list[Finding]]:
    """The findings kept, and those left out because ruff's settings ignore their rule."""
    kept: list[Finding] = []
    ignored: list[Finding] = []
    for finding in found:
        ignores = policy.ignores(_ruff_code(finding.rule), finding.path or "")
        (ignored if ignores else kept).append(finding)
    return kept, ignored


def _at_least(findings: list[Finding], severity: str) -> list[Finding]:
    threshold = _LEVELS[severity]
    return [f for f in findings if _LEVELS.get(f.severity.value, 0) >= threshold]


def _counts(
    findings: list[Finding], issues: list[Finding], *, suppressed: int | None
) -> dict[str, int | None]:
    by_severity = {
        level: sum(1 for finding in findings if finding.severity.value == level)
        for level in ("high", "medium", "low")
    }
    return {"issues": len(issues), **by_severity, "suppressed": suppressed}


def _report(ctx: CheckContext, files: Sequence[Path]) -> _BanditReport:
    """bandit's results over ``files``: kept ones for unchanged files, a bandit run for the rest.

    In the order of ``files``; each result's file is the name of the file it was kept or
    found for (never a name read back from the cache).
    """
    names = [ctx.project.relative(path) for path in files]
    scans = _scans(ctx, names, files)
    results = [_named(result, name) for name in names for result in scans[name]["results"]]
    return {"results": results, "nosec": sum(scans[name]["nosec"] for name in names)}


def _scans(
    ctx: CheckContext, names: Sequence[str], files: Sequence[Path]
) -> dict[str, _BanditReport]:
    """Each file's results by name: kept ones for files unchanged since they were kept (when
    the run reuses them), a bandit run for the rest, whose results are kept in turn."""
    if not ctx.reuse_file_results:
        return _scan(ctx, files) if files else {}
    kept, key = FileResults(ctx.store, "security", ctx.project), _tool_key(ctx)
    digests = _digests(names, files)
    scans = _known_scans(kept, key, digests)
    unscanned = [path for name, path in zip(names, files, strict=True) if name not in scans]
    if unscanned:
        scans.update(_scan(ctx, unscanned))
    kept.keep(key, {n: (digests[n], scans[n]) for n in names if n in digests})
    return scans


def _digests(names: Sequence[str], files: Sequence[Path]) -> dict[str, str]:
    """Each file's content digest by its name (a file that cannot be read has none)."""
    return {
        name: digest
        for name, path in zip(names, files, strict=True)
        if (digest := content_digest(path)) is not None
    }


def _known_scans(kept: FileResults, key: str, digests: dict[str, str]) -> dict[str, _BanditReport]:
    """The kept results of the files unchanged since, each recognized as :func:`_scan` made
    it (one that is not is scanned again)."""
    return {
        name: scan
        for name, data in kept.known(key, digests).items()
        if (scan := _kept_scan(data)) is not None
    }


def _named(result: _BanditResult, name: str) -> _BanditResult:
    named = result.copy()
    named["filename"] = name
    return named


def _tool_key(ctx: CheckContext) -> str:
    """What bandit's answer for a file depends on besides the file: bandit and its settings."""
    tool = require_tool("bandit", "bandit")
    settings = table_in(ctx.project.pyproject, "tool", "bandit")
    return canonical_json({"bandit": tool.model_dump(), "settings": settings})


def _kept_scan(data: object) -> _BanditReport | None:
    """A kept file's results, recognized as :func:`_scan` made them; else ``None``."""
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        return None
    nosec = data.get("nosec")
    if not is_int(nosec) or nosec < 0:
        return None
    try:
        return {"results": [_result(entry) for entry in data["results"]], "nosec": nosec}
    except CheckError:
        return None


def _scan(ctx: CheckContext, files: Sequence[Path]) -> dict[str, _BanditReport]:
    """bandit's JSON report of ``files``, per file; a CheckError when one could not be scanned.

    A file that ``[tool.bandit]`` excludes has no results.
    """
    report, entries = _bandit_json(ctx, files)
    results = [_result(entry) for entry in entries]
    _refuse_unscanned(ctx, expect("bandit", report.get("errors", []), list, "errors"))
    metrics = expect("bandit", report.get("metrics"), dict, "metrics")
    totals = expect("bandit", metrics.get("_totals"), dict, "metrics._totals")
    _refuse_missing(ctx, metrics, files)
    nosec = expect("bandit", totals.get("nosec", 0), int, "metrics._totals.nosec")
    scans = _per_file(ctx, files, metrics, results)
    if sum(scan["nosec"] for scan in scans.values()) != nosec:
        raise CheckError(
            f"bandit's nosec counts per file do not add up to its total ({nosec}): its report "
            "cannot be read per file"
        )
    return scans


def _bandit_json(
    ctx: CheckContext, files: Sequence[Path]
) -> tuple[dict[str, object], list[object]]:
    """bandit's JSON report of ``files`` (made in this process, see
    :mod:`~phasegate.gates.checks.bandit_report`), and its list of results."""
    root = ctx.project.root
    configured = "bandit" in table_in(ctx.project.pyproject, "tool")
    report = bandit_report(root, files, root / "pyproject.toml" if configured else None)
    results = value_at(report, "results")
    if not isinstance(results, list):
        raise CheckError(f"bandit made a report without a results list: {report!r:.200}")
    return report, results


def _per_file(
    ctx: CheckContext,
    files: Sequence[Path],
    metrics: dict[str, object],
    results: list[_BanditResult],
) -> dict[str, _BanditReport]:
    """Each file's results and ``# nosec`` count, from bandit's per-file metrics; a result
    for a file it was not given is a CheckError."""
    scans: dict[str, _BanditReport] = {
        ctx.project.relative(path): {"results": [], "nosec": 0} for path in files
    }
    for name, figures in metrics.items():
        if name != "_totals" and (scan := scans.get(_relative(ctx, name))) is not None:
            counts = expect("bandit", figures, dict, f"metrics.{name}")
            scan["nosec"] = expect("bandit", counts.get("nosec", 0), int, f"metrics.{name}.nosec")
    for result in results:
        scan = scans.get(_relative(ctx, result["filename"]))
        if scan is None:
            raise CheckError(f"bandit reported a file it was not given: {result['filename']}")
        scan["results"].append(result)
    return scans


def _relative(ctx: CheckContext, name: str) -> str:
    return ctx.project.relative(ctx.project.root / name)


def _result(entry: object) -> _BanditResult:
    """One of bandit's results, once its test, file and severity are text and its line a
    number (a column is optional: older bandit releases do not give one)."""
    found = expect("bandit", entry, dict, "a result")
    column = found.get("col_offset")
    return {
        "test_id": expect("bandit", found.get("test_id"), str, "a result's test_id"),
        "filename": expect("bandit", found.get("filename"), str, "a result's filename"),
        "issue_severity": expect(
            "bandit", found.get("issue_severity"), str, "a result's issue_severity"
        ),
        "issue_confidence": str(found.get("issue_confidence", "")),
        "issue_text": str(found.get("issue_text", "")),
        "test_name": str(found.get("test_name", "")),
        "more_info": str(found.get("more_info", "")),
        "line_number": expect("bandit", found.get("line_number"), int, "a result's line_number"),
        "col_offset": column if is_int(column) else None,
    }


def _refuse_missing(ctx: CheckContext, metrics: dict[str, object], files: Sequence[Path]) -> None:
    """A CheckError when bandit's metrics do not show it scanned a file it was given that
    ``[tool.bandit]``'s ``exclude_dirs`` does not account for (see
    :mod:`~phasegate.gates.checks.bandit_excludes`)."""
    scanned = {_relative(ctx, name) for name in metrics if name != "_totals"}
    missing = [path for path in files if ctx.project.relative(path) not in scanned]
    from phasegate.gates.checks.bandit_excludes import excluded_dirs, left_out_by_settings

    patterns = excluded_dirs(table_in(ctx.project.pyproject, "tool", "bandit"))
    root = ctx.project.root
    unaccounted = [path for path in missing if not left_out_by_settings(root, path, patterns)]
    if unaccounted:
        raise CheckError(
            f"bandit's report shows {len(files) - len(missing)} of the {len(files)} files it "
            f"was given as scanned, and [tool.bandit] exclude_dirs leaves out none of "
            f"{len(unaccounted)} of the others (first: {ctx.project.relative(unaccounted[0])}), "
            "so their security is unknown",
            fix="run `python -m bandit -f json` on the file to see why (bandit leaves out "
            "every path with one of its excluded names in it, .git or CVS among them, the "
            "project folder's own name too)",
        )


def _finding(ctx: CheckContext, entry: _BanditResult) -> Finding:
    severity = _SEVERITIES.get(entry["issue_severity"].upper(), Severity.LOW)
    confidence = entry["issue_confidence"].lower()
    column = entry["col_offset"]
    return locate(
        ctx.project,
        ctx.new_code,
        rule=entry["test_id"],
        severity=severity,
        message=f"{entry['issue_text']} ({confidence} confidence; "
        f"{entry['test_name']}: {entry['more_info']})",
        path=ctx.project.root / entry["filename"],
        line=entry["line_number"],
        column=column + 1 if column is not None else None,
    )


def _refuse_unscanned(ctx: CheckContext, errors: list[object]) -> None:
    if not errors:
        return
    shown = "; ".join(
        f"{_relative(ctx, str(error.get('filename', '?')))}: "
        f"{error.get('reason', 'unknown reason')}"
        for error in errors[:3]
        if isinstance(error, dict)
    )
    raise CheckError(
        f"bandit could not scan {len(errors)} file(s), so their security is unknown: {shown}",
        fix="make the files parse (see the syntax check), or exclude them in [tool.bandit]",
    )


def _summary(
    issues: list[Finding], new: list[Finding], files: int, options: SecurityOptions
) -> str:
    if not issues:
        return (
            f"bandit found no issue of {options.severity} severity or above in {files} source files"
        )
    first = (new or issues)[0]
    return (
        f"bandit found {len(issues)} issue(s) of {options.severity} severity or above, "
        f"{len(new)} on new code; first {first.path}:{first.line} {first.rule}: "
        f"{first.message.split(' (', 1)[0]}"
    )
