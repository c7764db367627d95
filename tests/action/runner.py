"""Run a composite action's ``shell: bash`` steps locally, as the GitHub runner would.

What the runner does and this does too: inputs take their defaults unless given; each step's
``env:`` and ``working-directory`` are evaluated; the script runs with
``bash --noprofile --norc -eo pipefail``; ``GITHUB_OUTPUT`` is a fresh file per step, read back
into ``steps.<id>.outputs``; ``GITHUB_STEP_SUMMARY`` is a fresh file per step; the event
payload is a file at ``GITHUB_EVENT_PATH``. A failing step ends the run.

What it cannot do offline: steps that ``uses:`` another action (upload-artifact,
upload-sarif, the cache) are skipped and listed in :attr:`ActionRun.skipped`.

Only the expressions the action needs are understood (``inputs.x``, ``steps.x.outputs.y``,
``github.token``, ``github.action_path``, and ``==``/``!=``/``&&`` of them in ``if:``); any
other expression fails the test, so the action cannot drift past what is checked here.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@dataclass
class StepResult:
    name: str
    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


@dataclass
class ActionRun:
    steps: list[StepResult] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)

    @property
    def failed(self) -> StepResult | None:
        return next((s for s in self.steps if s.returncode != 0), None)

    @property
    def summary(self) -> str:
        return "".join(step.summary for step in self.steps)

    def step(self, name: str) -> StepResult:
        return next(s for s in self.steps if s.name == name)


class Context:
    def __init__(self, inputs: dict[str, str], github: dict[str, str]) -> None:
        self.inputs = inputs
        self.github = github
        self.steps: dict[str, dict[str, str]] = {}

    def value(self, expression: str) -> str:
        expression = expression.strip()
        if match := re.fullmatch(r"'([^']*)'", expression):
            return match.group(1)
        if match := re.fullmatch(r"inputs\.([\w-]+)", expression):
            return self.inputs[match.group(1)]
        if match := re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression):
            return self.steps.get(match.group(1), {}).get(match.group(2), "")
        if match := re.fullmatch(r"github\.(token|action_path)", expression):
            return self.github[match.group(1)]
        raise AssertionError(f"the local runner does not understand ${{{{ {expression} }}}}")

    def truth(self, expression: str) -> bool:
        return all(self._compare(part) for part in expression.split("&&"))

    def _compare(self, part: str) -> bool:
        for op in ("==", "!="):
            if op in part:
                left, right = part.split(op, 1)
                same = self.value(left) == self.value(right)
                return same if op == "==" else not same
        return self.value(part) not in ("", "false")

    def render(self, text: str) -> str:
        return _EXPR.sub(lambda m: self.value(m.group(1)), text)


def run_action(
    action: Path,
    *,
    inputs: dict[str, str],
    workspace: Path,
    environment: dict[str, str],
    token: str = "t0ken",
) -> ActionRun:
    document: Any = yaml.safe_load(action.read_text())
    values = {name: str(spec.get("default", "")) for name, spec in document["inputs"].items()}
    context = Context({}, {"token": token, "action_path": str(action.parent)})
    for name in values:  # defaults may be expressions themselves (github.token)
        values[name] = context.render(values[name])
    unknown = set(inputs) - set(values)
    assert not unknown, f"not inputs of the action: {unknown}"
    values.update(inputs)
    context.inputs = values
    run = ActionRun()
    scratch = workspace.parent / "runner"
    scratch.mkdir(exist_ok=True)
    for number, step in enumerate(document["runs"]["steps"]):
        name = step.get("name", f"step {number}")
        if "uses" in step:
            run.skipped.append(f"{name} ({step['uses'].split('@')[0]})")
            continue
        assert "if" not in step, f"{name}: run steps decide in their script, not with if:"
        assert step.get("shell") == "bash", f"{name}: only shell: bash steps are run"
        output_file = scratch / f"output-{number}"
        summary_file = scratch / f"summary-{number}"
        output_file.write_text("")
        summary_file.write_text("")
        env = {
            **environment,
            "GITHUB_OUTPUT": str(output_file),
            "GITHUB_STEP_SUMMARY": str(summary_file),
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_ACTION_PATH": str(action.parent),
            **{key: context.render(str(value)) for key, value in (step.get("env") or {}).items()},
        }
        script = scratch / f"step-{number}.sh"
        script.write_text(step["run"])
        folder = workspace / context.render(step.get("working-directory", "."))
        completed = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        outputs = dict(
            line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line
        )
        if "id" in step:
            context.steps[step["id"]] = outputs
        run.steps.append(
            StepResult(
                name,
                completed.returncode,
                completed.stdout,
                completed.stderr,
                outputs,
                summary_file.read_text(),
            )
        )
        if completed.returncode != 0:
            break
    for name, spec in document.get("outputs", {}).items():
        run.outputs[name] = context.render(spec["value"])
    return run


def base_environment() -> dict[str, str]:
    """What the test's process has that a runner would (PATH with this venv's python)."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    env = {key: os.environ[key] for key in keep if key in os.environ}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env
