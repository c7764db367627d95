"""The gate a runner is made with: integrity added where a project's own gate leaves it out."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.gates.definition import CheckOverride, CheckSpec, GateDefinition, GateSource
from phasegate.gates.runner_factory import judged_by_integrity
from phasegate.model.gate import BaseInfo

SYNTAX_ONLY = GateDefinition(name="twelve-check", checks={"syntax": CheckSpec()})
WITH_BASE = BaseInfo(ref="main", sha="0" * 40, available=True)


def source(origin: str) -> GateSource:
    return GateSource("twelve-check", Path("ci/twelve-check.toml"), origin)  # type: ignore[arg-type]


@pytest.mark.parametrize("origin", ["project", "file"])
def test_a_projects_gate_without_integrity_gets_it_reported_only(origin: str) -> None:
    overrides = {"integrity": CheckOverride(options={"missing_base": "error"})}
    gate = judged_by_integrity(SYNTAX_ONLY, source(origin), WITH_BASE, overrides)
    assert sorted(gate.checks) == ["integrity", "syntax"]
    added = gate.checks["integrity"]
    assert (added.required, added.skip_allowed) == (False, True)
    assert added.options == {"missing_base": "error"}
    assert sorted(SYNTAX_ONLY.checks) == ["syntax"]  # the definition read is left as it was


def test_a_built_in_gate_a_gate_with_integrity_or_a_run_without_base_is_left_alone() -> None:
    kept = GateDefinition(
        name="twelve-check", checks={"syntax": CheckSpec(), "integrity": CheckSpec()}
    )
    no_base = BaseInfo(note="not a git work tree")
    assert judged_by_integrity(SYNTAX_ONLY, source("built-in"), WITH_BASE, {}) is SYNTAX_ONLY
    assert judged_by_integrity(SYNTAX_ONLY, source("project"), no_base, {}) is SYNTAX_ONLY
    assert judged_by_integrity(kept, source("project"), WITH_BASE, {}) is kept
