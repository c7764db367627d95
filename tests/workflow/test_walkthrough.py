"""The SDLC walk-through of docs/workflows.md, run exactly as written, as a new user would.

Its shell blocks run in order in an empty folder (the first creates ``login-app``; each
later one runs there). The first test runs them as they are: EXECUTE is held by the built-in
twelve-check gate. The second adds, after the first block, a project copy of the sdlc
workflow whose EXECUTE phase is held by a smaller gate (syntax, tests, coverage, lint), so the
flow is shown with checks that do not need the network or a pull request.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

DOC = (REPO_ROOT / "docs" / "workflows.md").read_text(encoding="utf-8")
SDLC = REPO_ROOT / "src" / "phasegate" / "workflow" / "definitions" / "sdlc.toml"

SMALL_EXECUTE_GATE = """
mkdir -p workflows gates
sed 's/exit_gate = "twelve-check"/exit_gate = "execute"/' "$SDLC" > workflows/sdlc.toml
printf 'name = "execute"\\n[checks.syntax]\\n[checks.tests]\\n' > gates/execute.toml
printf '[checks.coverage]\\n[checks.lint]\\n' >> gates/execute.toml
printf '\\n[tool.phasegate]\\ngate_paths = ["gates"]\\n' >> pyproject.toml
sed -i 's/^members = .*$/&\\npaths = ["workflows"]/' pyproject.toml
git add -A && git commit -qm "chore: hold EXECUTE to a small gate"
"""


def walkthrough_blocks() -> list[str]:
    section = DOC.split("## Walk-through", 1)[1].split("\n## The handoff queue", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, re.S)


def run_blocks(folder: Path, blocks: list[str]) -> list[tuple[int, str]]:
    environment = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "GIT_AUTHOR_NAME": "Ann",
        "GIT_AUTHOR_EMAIL": "ann@example.invalid",
        "GIT_COMMITTER_NAME": "Ann",
        "GIT_COMMITTER_EMAIL": "ann@example.invalid",
        "SDLC": str(SDLC),
    }
    environment.pop("PHASEGATE_WORKFLOW_INSTANCE", None)
    results = []
    for index, block in enumerate(blocks):
        script = block if index == 0 else f"cd login-app\n{block}"
        completed = subprocess.run(
            ["bash", "-c", script],
            cwd=folder,
            env=environment,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        results.append((completed.returncode, completed.stdout + completed.stderr))
    return results


def check_walkthrough(results: list[tuple[int, str]], gate: str) -> None:
    outputs = [output for _, output in results]
    codes = [code for code, _ in results]
    assert codes[0] == 0, outputs[0]
    assert "login: sdlc instance RUNNING in BRAINSTORM" in outputs[1], outputs[1]
    assert "supervisor: ann" in outputs[1]
    assert outputs[2].count("is sufficient") == 3, outputs[2]
    assert "login: PLAN -> EXECUTE" in outputs[2]
    assert f"exit gate {gate} is insufficient" in outputs[3], outputs[3]
    assert "halted in EXECUTE" in outputs[3]
    assert f"gate {gate}: tests:" in outputs[3]
    assert "exit status 1" in outputs[3]
    assert "task EXEC_login_T1 is in queue/, not completed/" in outputs[3]
    assert "EXEC_login_T1: completed" in outputs[4], outputs[4]
    assert "approved by bob -> accepted" in outputs[4], outputs[4]
    assert codes[5] == 0, outputs[5]
    assert f"exit gate {gate} is sufficient" in outputs[5]
    assert "login: EXECUTE -> TRACK" in outputs[5]
    assert "the instance is COMPLETE" in outputs[5]


@pytest.mark.slow
def test_the_walkthrough_as_written_with_the_twelve_check_gate(tmp_path: Path) -> None:
    results = run_blocks(tmp_path, walkthrough_blocks())
    check_walkthrough(results, "twelve-check")


@pytest.mark.slow
def test_the_walkthrough_with_a_small_execute_gate(tmp_path: Path) -> None:
    blocks = walkthrough_blocks()
    blocks[0] += SMALL_EXECUTE_GATE
    results = run_blocks(tmp_path, blocks)
    check_walkthrough(results, "execute")
    instance = json.loads((tmp_path / "login-app/.phasegate/workflows/login.json").read_text())
    assert instance["state"] == "COMPLETE"
    halts = [h for h in instance["history"] if h["action"] == "halt"]
    assert [h["from_phase"] for h in halts] == ["EXECUTE"]
    assert any("tests" in line for line in halts[0]["details"])
