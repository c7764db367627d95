"""SARIF 2.1.0 for GitHub code scanning: one run per check, stable rule ids, fingerprints.

* Each check of the verdict is one run whose tool is ``phasegate-<check>`` and whose
  ``automationDetails.id`` is ``phasegate/<gate>/<check>/``, so code scanning keeps each
  check's alerts apart and closes those a later upload no longer has.
* Rule ids are ``<check>/<rule>`` (``lint/F401``): stable across runs and versions.
* ``partialFingerprints["phasegate/v1"]`` hashes the check, rule, path and message (not the
  line, so moving code does not reopen an alert) plus an occurrence number for repeats.
* Paths are relative to the repository root (``path_prefix`` is the project's folder inside
  the repository). Code scanning needs a file for every result, so findings without one, or
  outside the repository, are counted in the run's properties instead.
* Within GitHub's upload limits: at most 20 runs, 25,000 results per run, 10 MB gzipped; what
  is cut is counted in the run's properties and a tool notification.

The document is validated against the official OASIS schema in the tests. Written with plain
dicts: the object-model packages for SARIF are unmaintained or far larger than this needs.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple
from urllib.parse import quote

from phasegate import __version__
from phasegate.model.gate import CheckResult, CheckStatus, Finding, GateVerdict, Severity
from phasegate.report.limits import (
    SARIF_MAX_GZIP_BYTES,
    SARIF_MAX_RESULTS_PER_RUN,
    SARIF_MAX_RUNS,
)

__all__ = ["SARIF_SCHEMA_URI", "SarifOutput", "fingerprint", "render_sarif"]

SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
#: A JSON object of the SARIF log as it is written; the SARIF schema, checked in the tests,
#: says its shape.
JsonObject = dict[str, object]
_INFO_URI = "https://github.com/phasegate/pytest-phasegate"
_LEVEL = {
    Severity.CRITICAL: "error",
    Severity.HIGH: "error",
    Severity.MEDIUM: "warning",
    Severity.LOW: "note",
}
#: GitHub ranks security alerts by this property (CVSS-like, 0.0 to 10.0).
_SECURITY_SEVERITY = {
    Severity.CRITICAL: "9.5",
    Severity.HIGH: "8.0",
    Severity.MEDIUM: "5.5",
    Severity.LOW: "2.0",
}


@dataclass
class SarifOutput:
    """The SARIF document and what was left out of it."""

    document: JsonObject
    results: int = 0
    left_out: dict[str, int] = field(default_factory=dict)

    def dumps(self) -> str:
        """The document as compact JSON text."""
        return json.dumps(self.document, ensure_ascii=False, separators=(",", ":")) + "\n"


def fingerprint(check: str, finding: Finding) -> str:
    """A digest of what the finding is, independent of the line it is on."""
    message = " ".join(finding.message.split())
    key = "\0".join([check, finding.rule, finding.path or "", message])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def render_sarif(
    verdict: GateVerdict,
    *,
    path_prefix: str = "",
    max_results_per_run: int = SARIF_MAX_RESULTS_PER_RUN,
    max_gzip_bytes: int = SARIF_MAX_GZIP_BYTES,
) -> SarifOutput:
    """The verdict as a SARIF log within GitHub's limits."""
    prefix = path_prefix.strip("/")
    checks = sorted(verdict.checks, key=lambda c: (not c.findings, c.id))[:SARIF_MAX_RUNS]
    left_out: dict[str, int] = {}
    skipped_runs = len(verdict.checks) - len(checks)
    if skipped_runs:
        left_out["runs beyond GitHub's 20 per file"] = skipped_runs
    limit = max_results_per_run
    while True:
        output = _assembled([_run(verdict, check, prefix, limit) for check in checks], left_out)
        if _fits(output, max_gzip_bytes):
            return output
        if limit <= 1:
            raise ValueError("the SARIF document exceeds the upload limit even with 1 result")
        limit = max(1, limit // 2)


def _fits(output: SarifOutput, max_gzip_bytes: int) -> bool:
    """Whether the log, compressed, is within GitHub's upload limit.

    gzip never grows text by more than a few bytes per 16 KiB block, so only a large
    document needs the (slow) compression to check the limit.
    """
    text = output.dumps().encode("utf-8")
    return len(text) <= max_gzip_bytes or len(gzip.compress(text, 6)) <= max_gzip_bytes


def _assembled(runs: list[_Run], left_out: dict[str, int]) -> SarifOutput:
    """The SARIF log of ``runs``, with what they and the log (``left_out``) left out."""
    document: JsonObject = {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [run.document for run in runs],
    }
    output = SarifOutput(document, sum(run.results for run in runs), dict(left_out))
    for run in runs:
        for reason, count in run.left_out.items():
            output.left_out[reason] = output.left_out.get(reason, 0) + count
    return output


class _Run(NamedTuple):
    """One check's SARIF run, how many results it holds and what it left out."""

    document: JsonObject
    results: int
    left_out: dict[str, int]


def _run(verdict: GateVerdict, check: CheckResult, prefix: str, limit: int) -> _Run:
    rules, results, left = _results(check, prefix, limit)
    invocation = _invocation(check, left)
    document: JsonObject = {
        "tool": {
            "driver": {
                "name": f"phasegate-{check.id}",
                "fullName": f"phasegate {check.id} check ({check.title or check.id})",
                "version": __version__,
                "informationUri": _INFO_URI,
                "rules": list(rules.values()),
            }
        },
        "automationDetails": {"id": f"phasegate/{verdict.gate}/{check.id}/"},
        "invocations": [invocation],
        "results": results,
        "properties": {
            "phasegate": {
                "gate": verdict.gate,
                "status": check.status.value,
                "score": check.score,
                "reasoning": check.reasoning,
                "leftOut": left,
            }
        },
    }
    return _Run(document, len(results), left)


def _placeable(path: str | None) -> bool:
    """Whether a finding's path can be placed in the repository, as SARIF places results: a
    path relative to the project (not none, not absolute, not on a drive: ``C:``)."""
    return path is not None and not path.startswith("/") and ":" not in path[:3]


def _results(
    check: CheckResult, prefix: str, limit: int
) -> tuple[dict[str, JsonObject], list[JsonObject], dict[str, int]]:
    """The check's rules and results (at most ``limit``), and what was left out, and why."""
    rules: dict[str, JsonObject] = {}
    results: list[JsonObject] = []
    occurrences: dict[str, int] = {}
    unplaced = 0
    cut = 0
    for finding in _ordered(check.findings):
        if not _placeable(finding.path):
            unplaced += 1
            continue
        if len(results) >= limit:
            cut += 1
            continue
        rule_id = f"{check.id}/{finding.rule}"
        if rule_id not in rules:
            rules[rule_id] = _rule(check, finding, rule_id)
        digest = fingerprint(check.id, finding)
        occurrences[digest] = occurrences.get(digest, 0) + 1
        results.append(
            _result(
                finding, rule_id, list(rules).index(rule_id), prefix, digest, occurrences[digest]
            )
        )
    return rules, results, _left_out(check, unplaced, cut)


def _left_out(check: CheckResult, unplaced: int, cut: int) -> dict[str, int]:
    counts = {
        "findings without a file in the repository": unplaced,
        "findings beyond the results kept per run": cut,
        "findings the verdict file did not keep": max(
            0, check.findings_total - len(check.findings)
        ),
    }
    return {reason: count for reason, count in counts.items() if count}


def _invocation(check: CheckResult, left: dict[str, int]) -> JsonObject:
    """Whether the check ran, with a notification for each thing left out."""
    invocation: JsonObject = {"executionSuccessful": check.status is not CheckStatus.ERROR}
    notes = [f"{count} {reason}" for reason, count in left.items()]
    if check.status is CheckStatus.ERROR:
        notes.insert(0, f"the check could not run: {check.reasoning}")
    if notes:
        invocation["toolExecutionNotifications"] = [
            {"message": {"text": note}, "level": "warning"} for note in notes
        ]
    return invocation


def _ordered(findings: Iterable[Finding]) -> list[Finding]:
    order = {Severity.CRITICAL: 0, Severity.HIGH: 1, Severity.MEDIUM: 2, Severity.LOW: 3}
    return sorted(findings, key=lambda f: (not f.new, order[f.severity]))


def _rule(check: CheckResult, finding: Finding, rule_id: str) -> JsonObject:
    tags = ["phasegate", check.id]
    properties: JsonObject = {"tags": tags}
    if check.id == "security":
        properties["security-severity"] = _SECURITY_SEVERITY[finding.severity]
    return {
        "id": rule_id,
        "name": finding.rule,
        "shortDescription": {"text": f"{check.id}: {finding.rule}"},
        "defaultConfiguration": {"level": _LEVEL[finding.severity]},
        "properties": properties,
    }


def _result(
    finding: Finding, rule_id: str, index: int, prefix: str, digest: str, occurrence: int
) -> JsonObject:
    path = f"{prefix}/{finding.path}" if prefix else str(finding.path)
    location: JsonObject = {"artifactLocation": {"uri": quote(path, safe="/")}}
    if finding.line is not None and finding.line >= 1:
        region: JsonObject = {"startLine": finding.line}
        if finding.column is not None and finding.column >= 1:
            region["startColumn"] = finding.column
        location["region"] = region
    return {
        "ruleId": rule_id,
        "ruleIndex": index,
        "level": _LEVEL[finding.severity],
        "message": {"text": finding.message or finding.rule},
        "locations": [{"physicalLocation": location}],
        "partialFingerprints": {"phasegate/v1": f"{digest}:{occurrence}"},
        "properties": {"severity": finding.severity.value, "newCode": finding.new},
    }
