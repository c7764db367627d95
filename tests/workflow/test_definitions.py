"""The shipped workflow definitions load, and their exit gates are shipped too."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.errors import UsageError
from phasegate.gates.definition import find_gates, load_gate
from phasegate.workflow.definition import find_workflows, load_workflow, read_workflow


@pytest.mark.parametrize(
    ("name", "phases"),
    [
        ("edrr", ["EXPAND", "DIFFERENTIATE", "REFINE", "RETROSPECT"]),
        ("sdlc", ["BRAINSTORM", "DOCUMENT", "PLAN", "EXECUTE", "TRACK"]),
        ("golden-path", ["design", "implement", "review"]),
    ],
)
def test_the_built_in_workflows_load(tmp_path: Path, name: str, phases: list[str]) -> None:
    definition, source = load_workflow(name, tmp_path)
    assert definition.phases == phases
    assert source.origin == "built-in"
    for phase in definition.phases:
        gate = definition.spec(phase).exit_gate
        if gate:
            assert gate in find_gates(tmp_path), f"{name}.{phase} names a gate not shipped"


def test_the_sdlc_gates_are_one_to_four(tmp_path: Path) -> None:
    definition, _ = load_workflow("sdlc", tmp_path)
    gates = [definition.spec(p).exit_gate for p in definition.phases]
    assert gates == ["sdlc-1", "sdlc-2", "sdlc-3", "twelve-check", None]
    checks = [list(load_gate(g, tmp_path)[0].checks) for g in gates[:3]]
    assert checks == [["request"], ["spec"], ["plan"]]
    assert definition.spec("EXECUTE").review


def test_a_project_workflow_replaces_a_built_in_one(tmp_path: Path) -> None:
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "sdlc.toml").write_text('name = "sdlc"\nphases = ["ONLY"]\n')
    assert find_workflows(tmp_path, ["flows"])["sdlc"].origin == "project"
    assert load_workflow("sdlc", tmp_path, ["flows"])[0].phases == ["ONLY"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('phases = ["a", "a"]', r"key phases.1 = 'a' is listed twice"),
        ('phases = ["a b"]', r"key phases.0 = 'a b' is not allowed"),
        ('phases = ["a", "b"]\n[phase.b]\non_reject = "c"', r"transition to nowhere"),
        ('phases = ["a", "b"]\n[phase.a]\non_reject = "b"', r"loops forward"),
        ('phases = ["a"]\n[phase.z]\nreview = true', r"table \[phase.z\] names an unknown phase"),
        ('phases = ["a"]\n[phase.a]\nreveiw = true', r"unknown key phase.a.reveiw"),
        ("phases = []", r"key phases = \[\] is not allowed"),
        ('phases = ["a"', r"not valid TOML"),
    ],
)
def test_bad_workflow_files_are_usage_errors_naming_file_and_key(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(UsageError, match=message) as caught:
        read_workflow(path)
    assert str(path) in str(caught.value)
