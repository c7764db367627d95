"""The hooks phasegate offers the pre-commit framework run commands that exist, on gates that do."""

from __future__ import annotations

import shlex
from typing import Any

import pytest
import yaml

from phasegate.cli import build_parser
from tests.conftest import REPO_ROOT

HOOKS: list[dict[str, Any]] = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
BUILT_IN_GATES = {path.stem for path in (REPO_ROOT / "gates").glob("*.toml")}
#: The keys pre-commit requires of a hook, and the stages it knows.
REQUIRED = {"id", "name", "entry", "language"}
STAGES = {"pre-commit", "pre-merge-commit", "pre-push", "commit-msg", "manual", "post-commit"}


@pytest.mark.parametrize("hook", HOOKS, ids=[hook["id"] for hook in HOOKS])
def test_each_hook_runs_a_gate_that_exists(hook: dict[str, Any]) -> None:
    assert set(hook) >= REQUIRED
    assert set(hook.get("stages", [])) <= STAGES
    # The project's own environment runs its tests; files are not passed to a gate.
    assert (hook["language"], hook["pass_filenames"]) == ("system", False)
    program, *arguments = shlex.split(hook["entry"])
    assert program == "phasegate"
    args = build_parser("gate").parse_args(arguments)
    assert args.handler.__name__ == "_run"
    assert args.gate in BUILT_IN_GATES
    assert args.base  # new code is what the commit or the push adds, not the whole project


def test_the_hook_ids_are_unique_and_the_commit_hook_is_the_fast_gate() -> None:
    ids = [hook["id"] for hook in HOOKS]
    assert len(ids) == len(set(ids))
    (commit,) = [hook for hook in HOOKS if hook["id"] == "phasegate"]
    assert "--gate pre-commit" in commit["entry"]
