"""SARIF 2.1.0 output: valid against the official schema, one run per check, stable ids."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from phasegate.model.gate import CheckStatus, Severity
from phasegate.report.sarif import fingerprint, render_sarif
from tests.conftest import REPO_ROOT
from tests.factories import check, finding, verdict
from tests.report.conftest import sample_verdict

SCHEMA = json.loads((REPO_ROOT / "tests/data/sarif-schema-2.1.0.json").read_text())


def validate(document: dict[str, Any]) -> None:
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker()).validate(document)


def test_the_document_is_valid_sarif_with_one_run_per_check() -> None:
    document = render_sarif(sample_verdict(), path_prefix="app").document
    validate(document)
    tools = [run["tool"]["driver"]["name"] for run in document["runs"]]
    assert sorted(tools) == [
        "phasegate-coverage",
        "phasegate-lint",
        "phasegate-review",
        "phasegate-tests",
    ]
    lint = next(r for r in document["runs"] if r["tool"]["driver"]["name"] == "phasegate-lint")
    assert lint["automationDetails"] == {"id": "phasegate/default/lint/"}
    assert [rule["id"] for rule in lint["tool"]["driver"]["rules"]] == ["lint/F401", "lint/E501"]
    first = lint["results"][0]
    assert first["ruleId"] == "lint/F401"
    assert first["level"] == "warning"
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "app/src/app/core.py"
    assert location["region"] == {"startLine": 1}
    assert first["properties"] == {"severity": "medium", "newCode": True}


def test_fingerprints_ignore_the_line_and_count_repeats() -> None:
    moved = finding("F401", "src/a.py", 1)
    assert fingerprint("lint", moved) == fingerprint("lint", finding("F401", "src/a.py", 90))
    assert fingerprint("lint", moved) != fingerprint("lint", finding("F401", "src/b.py", 1))
    gate = verdict([check("lint", CheckStatus.FAILED, findings=[moved, moved])])
    results = render_sarif(gate).document["runs"][0]["results"]
    prints = [r["partialFingerprints"]["phasegate/v1"] for r in results]
    assert prints[0].endswith(":1")
    assert prints[1].endswith(":2")
    assert prints[0].split(":")[0] == prints[1].split(":")[0]


def test_findings_without_a_file_in_the_repository_are_counted_not_sent() -> None:
    gate = verdict(
        [
            check(
                "tests",
                CheckStatus.FAILED,
                findings=[finding("incomplete", None, None), finding("x", "/usr/lib/x.py", 3)],
            )
        ]
    )
    output = render_sarif(gate)
    validate(output.document)
    run = output.document["runs"][0]
    assert run["results"] == []
    assert run["properties"]["phasegate"]["leftOut"] == {
        "findings without a file in the repository": 2
    }
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert notes[0]["message"]["text"] == "2 findings without a file in the repository"


def test_a_check_that_could_not_run_says_so_and_security_rules_carry_a_severity() -> None:
    gate = verdict(
        [
            check("types", CheckStatus.ERROR, reasoning="mypy is not installed"),
            check(
                "security",
                CheckStatus.FAILED,
                findings=[finding("B602", "src/a.py", 4, severity=Severity.HIGH)],
            ),
        ]
    )
    document = render_sarif(gate).document
    validate(document)
    runs = {run["tool"]["driver"]["name"]: run for run in document["runs"]}
    invocation = runs["phasegate-types"]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert "mypy is not installed" in invocation["toolExecutionNotifications"][0]["message"]["text"]
    rule = runs["phasegate-security"]["tool"]["driver"]["rules"][0]
    assert rule["properties"]["security-severity"] == "8.0"
    assert runs["phasegate-security"]["results"][0]["level"] == "error"


def test_odd_paths_are_encoded_as_uri_references() -> None:
    gate = verdict(
        [check("lint", CheckStatus.FAILED, findings=[finding("E1", "src/my dir/ü.py", 2)])]
    )
    document = render_sarif(gate).document
    validate(document)
    uri = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"][
        "uri"
    ]
    assert uri == "src/my%20dir/%C3%BC.py"


def test_the_sarif_command_writes_a_valid_file(
    artifacts: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phasegate.cli import main

    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out.sarif"
    code = main(
        ["report", "sarif", "--dir", str(artifacts), "--out", str(out), "--path-prefix", ""]
    )
    assert code == 0
    validate(json.loads(out.read_text()))
