"""docs/gates.md stays true to the checks: every option, default, metric and condition."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from phasegate.gates.registry import BUILT_IN, CheckRegistry

DOC = (Path(__file__).resolve().parents[2] / "docs" / "gates.md").read_text(encoding="utf-8")
DOCUMENTED_HERE = list(BUILT_IN)


def section(check_id: str) -> str:
    match = re.search(rf"^### {check_id}\n(.*?)(?=^### |\Z)", DOC, flags=re.MULTILINE | re.S)
    assert match is not None, f"docs/gates.md has no '### {check_id}' section"
    return match.group(1)


@pytest.mark.parametrize("check_id", DOCUMENTED_HERE)
def test_options_and_defaults_are_documented(check_id: str) -> None:
    check = CheckRegistry().get(check_id).check
    text = section(check_id)
    fields = check.options_model.model_fields
    if not fields:
        assert "takes no options" in text
    for name, field in fields.items():
        default = field.get_default(call_default_factory=True)
        assert f"| `{name}` | `{json.dumps(default)}` |" in text, name


@pytest.mark.parametrize("check_id", DOCUMENTED_HERE)
def test_metrics_and_default_conditions_are_documented(check_id: str) -> None:
    check = CheckRegistry().get(check_id).check
    text = " ".join(section(check_id).split())
    for metric in check.metrics:
        assert f"| `{metric.name}` |" in text, metric.name
    for condition in check.default_conditions:
        scope = "on new code" if condition.scope == "new" else "overall"
        assert f"`{condition.metric} {condition.op} {condition.value}` {scope}" in text
