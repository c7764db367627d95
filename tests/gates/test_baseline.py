"""The baseline of accepted findings: a first run on existing code, hiding nothing new."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from phasegate.cli import main
from phasegate.errors import UsageError
from phasegate.gates.baseline import (
    AcceptedFindings,
    baseline_path,
    build_baseline,
    fingerprint,
    load_baseline,
    write_baseline,
)
from phasegate.model.gate import Finding, Severity

OLD = "import os\nimport sys\n\n\ndef f():\n    return 1\n"


def finding(rule: str, path: str, line: int) -> Finding:
    return Finding(rule=rule, severity=Severity.LOW, message=f"{rule} here", path=path, line=line)


def accepted(root: Path, check: str, findings: list[Finding]) -> AcceptedFindings:
    baseline = build_baseline(root, "g", {check: findings})
    return AcceptedFindings(root, check, baseline.entries)


def test_an_accepted_finding_stays_accepted_when_its_line_moves(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(OLD)
    matcher = accepted(tmp_path, "lint", [finding("F401", "m.py", 1), finding("F401", "m.py", 2)])
    (tmp_path / "m.py").write_text("# a new first line\n\n" + OLD)  # both moved down by two
    assert matcher.accept("F401", "m.py", 3)
    assert matcher.accept("F401", "m.py", 4)
    assert matcher.accepted == 2


def test_a_new_finding_of_the_same_rule_in_the_same_file_is_not_accepted(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(OLD)
    matcher = accepted(tmp_path, "lint", [finding("F401", "m.py", 1)])
    (tmp_path / "m.py").write_text("import json\n" + OLD)
    assert not matcher.accept("F401", "m.py", 1)  # import json: a new line
    assert not matcher.accept("E501", "m.py", 2)  # the old line, another rule
    assert not matcher.accept("F401", "other.py", 2)  # another file
    assert matcher.accept("F401", "m.py", 2)  # import os: accepted, once
    assert matcher.accepted == 1


def test_a_copied_line_counts_beyond_what_was_recorded(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(OLD)
    matcher = accepted(tmp_path, "lint", [finding("F401", "m.py", 1)])
    (tmp_path / "m.py").write_text("import os\n" + OLD)  # the same text twice now
    assert [matcher.accept("F401", "m.py", line) for line in (1, 2)] == [True, False]


def test_the_check_is_part_of_the_fingerprint_and_whitespace_is_not(tmp_path: Path) -> None:
    assert fingerprint("lint", "X1", "a.py", "x  =  1 ") == fingerprint(
        "lint", "X1", "a.py", "x = 1"
    )
    assert fingerprint("lint", "X1", "a.py", "x = 1") != fingerprint("types", "X1", "a.py", "x = 1")
    (tmp_path / "m.py").write_text(OLD)
    matcher = accepted(tmp_path, "types", [finding("F401", "m.py", 1)])
    lint = AcceptedFindings(tmp_path, "lint", list(matcher.entries))
    assert not lint.accept("F401", "m.py", 1)


def test_findings_without_a_line_or_outside_the_project_are_never_accepted(
    tmp_path: Path,
) -> None:
    (tmp_path / "m.py").write_text(OLD)
    baseline = build_baseline(
        tmp_path,
        "g",
        {
            "lint": [
                Finding(rule="X", severity=Severity.LOW, message="m"),
                finding("X", "../m.py", 1),
            ]
        },
    )
    assert baseline.entries == []
    matcher = AcceptedFindings(tmp_path, "lint", [])
    assert not matcher.accept("X", "../../etc/passwd", 1)


def test_a_baseline_file_round_trips_and_a_bad_one_is_named(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(OLD)
    path = tmp_path / "phasegate-baseline.json"
    assert load_baseline(path) is None
    written = build_baseline(tmp_path, "g", {"lint": [finding("F401", "m.py", 1)]})
    write_baseline(path, written)
    assert load_baseline(path) == written
    path.write_text('{"kind": "baseline", "entries": 3}')
    with pytest.raises(UsageError, match=r"phasegate-baseline\.json is not a phasegate baseline"):
        load_baseline(path)
    newer = json.loads(written.model_dump_json())
    newer["schema_version"] = "99.0"
    path.write_text(json.dumps(newer))
    with pytest.raises(UsageError, match="newer than this phasegate's"):
        load_baseline(path)
    with pytest.raises(UsageError, match="leaves the project root"):
        baseline_path(tmp_path, "../elsewhere.json")


PROJECT = {
    "pyproject.toml": (
        '[project]\nname = "calc"\nversion = "1.0"\n\n[tool.ruff.lint]\nselect = ["F"]\n\n'
        '[tool.phasegate]\ngate_paths = ["ci"]\n'
    ),
    "ci/code.toml": 'name = "code"\n[checks.lint]\n[checks.docs]\n',
    "calc/__init__.py": '"""Calc."""\nimport os\n\n\ndef add(a, b):\n    return a + b\n',
}


def test_record_then_only_new_findings_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from phasegate.config import load_config
    from phasegate.extensions import make_plugin_manager
    from phasegate.gates.runner_factory import make_runner
    from phasegate.store import Store

    for name, text in PROJECT.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)

    def judge() -> dict[str, object]:
        loaded = load_config(tmp_path)
        store = Store(loaded.artifacts_path)
        runner = make_runner(
            loaded, store, make_plugin_manager([]), "code", base=None, environment={}
        )
        judged = runner.run_static()
        return {check: judgement.result for check, judgement in judged.items()}

    before = judge()
    assert [before[c].status.value for c in ("lint", "docs")] == ["failed", "failed"]

    assert main(["baseline", "record", "--gate", "code"]) == 0
    out = capsys.readouterr().out
    assert "recorded 2 accepted finding(s) of the gate code (docs 1, lint 1)" in out
    assert (tmp_path / "phasegate-baseline.json").is_file()

    after = judge()
    lint, docs = after["lint"], after["docs"]
    assert (lint.status.value, lint.baseline_accepted) == ("passed", 1)
    assert (
        "1 finding(s) accepted by the baseline phasegate-baseline.json, not counted as new"
        in lint.reasoning
    )
    assert lint.metrics["violations"] == 1  # all code still shows it
    assert (docs.status.value, docs.baseline_accepted) == ("passed", 1)

    # A new problem of the same rule in the same file still counts.
    source = tmp_path / "calc" / "__init__.py"
    source.write_text(source.read_text().replace("import os\n", "import os\nimport sys\n"))
    again = judge()["lint"]
    assert again.status.value == "failed"
    assert again.new_code_metrics["violations"] == 1
    assert again.baseline_accepted == 1


def test_a_baseline_is_written_whole_with_a_new_files_permissions(tmp_path: Path) -> None:
    import stat

    path = tmp_path / "phasegate-baseline.json"
    write_baseline(path, build_baseline(tmp_path, "g", {"lint": [finding("F401", "m.py", 1)]}))
    plain = tmp_path / "plain.txt"
    plain.write_text("")
    # It is committed beside the code: readable as any file the user makes, not 0600.
    assert stat.S_IMODE(path.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["phasegate-baseline.json", "plain.txt"]
