"""The action and every workflow: valid against GitHub's schemas, pinned, injection-free."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO_ROOT

ACTION = REPO_ROOT / "github-actions" / "action.yml"
WORKFLOWS = sorted(
    [
        *(REPO_ROOT / "github-actions" / "examples").glob("*.yml"),
        *(REPO_ROOT / ".github" / "workflows").glob("*.yml"),
    ]
)
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")
ALLOWED_UNPINNED = {"./github-actions", "phasegate/pytest-phasegate/github-actions@v1"}


def check_jsonschema(schema: str, *files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_there_are_the_example_workflows_and_ci() -> None:
    names = {path.name for path in WORKFLOWS}
    assert names == {
        "pull-request.yml",
        "sharded.yml",
        "fork-safe-checks.yml",
        "fork-safe-comment.yml",
        "ci.yml",
    }


def test_the_action_validates_against_githubs_schema() -> None:
    result = check_jsonschema("vendor.github-actions", ACTION)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_workflow_validates_against_githubs_schema() -> None:
    result = check_jsonschema("vendor.github-workflows", *WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_broken_workflow_is_caught_by_the_validation(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text("on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    step: []\n")
    assert check_jsonschema("vendor.github-workflows", broken).returncode == 1


def uses_lines(path: Path) -> list[tuple[str, str]]:
    found = []
    for line in path.read_text().splitlines():
        match = re.match(r"^\s*(?:-\s+)?uses:\s*(\S+)\s*(#.*)?$", line)
        if match:
            found.append((match.group(1), match.group(2) or ""))
    return found


@pytest.mark.parametrize("path", [ACTION, *WORKFLOWS], ids=lambda p: p.name)
def test_third_party_actions_are_pinned_by_sha_with_a_version(path: Path) -> None:
    for target, comment in uses_lines(path):
        if target in ALLOWED_UNPINNED:
            continue
        assert PINNED.match(target), f"{path.name}: {target} is not pinned by a commit SHA"
        assert re.match(r"#\s*v\d+\.\d+\.\d+", comment), f"{path.name}: {target} lacks # vX.Y.Z"


def run_scripts(document: Any) -> list[str]:
    steps: list[Any] = []
    if "runs" in document:
        steps = document["runs"]["steps"]
    for job in document.get("jobs", {}).values():
        steps.extend(job.get("steps", []))
    return [step["run"] for step in steps if "run" in step]


@pytest.mark.parametrize("path", [ACTION, *WORKFLOWS], ids=lambda p: p.name)
def test_no_expression_is_interpolated_into_a_script(path: Path) -> None:
    document = yaml.safe_load(path.read_text())
    for script in run_scripts(document):
        assert "${{" not in script, f"{path.name}: pass values through env:, not into run:"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_workflow_states_minimal_permissions(path: Path) -> None:
    document = yaml.safe_load(path.read_text())
    permissions = document.get("permissions")
    assert isinstance(permissions, dict), f"{path.name} has no top-level permissions"
    assert permissions.get("contents", "read") == "read"
    assert "write-all" not in str(permissions)


def test_the_fork_safe_checks_never_get_a_write_token() -> None:
    document = yaml.safe_load(
        (REPO_ROOT / "github-actions/examples/fork-safe-checks.yml").read_text()
    )
    assert document["permissions"] == {"contents": "read"}
    comment = yaml.safe_load(
        (REPO_ROOT / "github-actions/examples/fork-safe-comment.yml").read_text()
    )
    steps = comment["jobs"]["comment"]["steps"]
    assert not any("checkout" in str(step.get("uses", "")) for step in steps)


def test_ci_uses_the_action_from_this_repository() -> None:
    document = yaml.safe_load((REPO_ROOT / ".github/workflows/ci.yml").read_text())
    uses = [step.get("uses") for step in document["jobs"]["gate"]["steps"]]
    assert "./github-actions" in uses
