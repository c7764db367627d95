"""Gate files: the built-in gates load, overrides apply, malformed files name file and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.errors import UsageError
from phasegate.gates.definition import CheckOverride, ConditionSpec, find_gates, load_gate


def test_built_in_gates_are_found_and_load(tmp_path: Path) -> None:
    known = find_gates(tmp_path)
    assert {"default", "pre-commit", "twelve-check"} <= set(known)
    gate, source = load_gate("twelve-check", tmp_path)
    assert source.origin == "built-in"
    twelve = {"syntax", "tests", "coverage", "lint", "security", "build", "deps", "breaking"}
    twelve |= {"review", "perf", "docs", "commit"}
    assert twelve <= set(gate.checks)
    assert gate.checks["mutation"].skip_allowed
    assert gate.checks["integrity"].skip_allowed
    assert gate.checks["review"].required == "in-pull-request"


def test_project_gates_come_first(tmp_path: Path) -> None:
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "default.toml").write_text('name = "default"\n[checks.tests]\n')
    gate, source = load_gate("default", tmp_path, gate_paths=["ci"])
    assert source.origin == "project"
    assert list(gate.checks) == ["tests"]


def test_overrides_replace_keys_and_merge_options(tmp_path: Path) -> None:
    override = CheckOverride(
        options={"severity": "low"},
        fail_when=[ConditionSpec(metric="issues", op=">", value=3)],
    )
    gate, _ = load_gate("default", tmp_path, overrides={"security": override})
    spec = gate.checks["security"]
    assert spec.options == {"severity": "low"}
    assert spec.fail_when == [ConditionSpec(metric="issues", op=">", value=3)]
    assert spec.required is True


def test_unknown_gate_lists_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="unknown gate 'strict'; known gates: default, "):
        load_gate("strict", tmp_path)


def test_malformed_gate_names_file_and_key(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(
        '[checks.coverage]\nfail_when = [{ metric = "line_rate", op = "=<", value = 0.8 }]\n'
    )
    with pytest.raises(UsageError) as caught:
        load_gate("bad.toml", tmp_path)
    message = str(caught.value)
    assert str(path) in message
    assert "key checks.coverage.fail_when.0.op = '=<' is not allowed" in message
    assert "'<='" in message


def test_unknown_key_in_a_gate_file_suggests_the_right_one(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[checks.lint]\nrequird = false\n")
    with pytest.raises(UsageError, match="did you mean 'required'"):
        load_gate("bad.toml", tmp_path)


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[checks.lint\n")
    with pytest.raises(UsageError, match=r"bad\.toml: not valid TOML"):
        load_gate("bad.toml", tmp_path)


def test_a_gate_needs_at_least_one_check(tmp_path: Path) -> None:
    path = tmp_path / "empty.toml"
    path.write_text('description = "nothing"\n')
    with pytest.raises(UsageError, match="key checks"):
        load_gate("empty.toml", tmp_path)


@pytest.mark.parametrize("name", ["x/../../workflows/demo", "../up", "a b", ".hidden"])
def test_a_gate_name_that_is_no_plain_file_name_is_refused(tmp_path: Path, name: str) -> None:
    (tmp_path / "odd.toml").write_text(f"name = {name!r}\n[checks.syntax]\n")
    with pytest.raises(UsageError) as caught:
        load_gate("odd.toml", tmp_path)
    assert f"key name = {name!r} is not allowed" in str(caught.value)
    assert "only letters, digits, '.', '-' and '_'" in str(caught.value)
