"""docs/tdd.md stays true to the code: every rule id and failure class is documented."""

from __future__ import annotations

import re

from phasegate.model.tdd import FailureClass
from phasegate.tdd.session_log import NOTE_STATUSES
from tests.conftest import REPO_ROOT

SOURCE = REPO_ROOT / "src" / "phasegate" / "tdd"
DOC = (REPO_ROOT / "docs" / "tdd.md").read_text(encoding="utf-8")


def rule_ids() -> set[str]:
    found: set[str] = set()
    for path in SOURCE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        found.update(re.findall(r'violate\(\s*"([a-z0-9-]+)"', text))
        found.update(re.findall(r'Violation\(\s*rule="([a-z0-9-]+)"', text))
        # the shared checks take the rule id as an argument
        found.update(re.findall(r'tests_unchanged\(\s*"([a-z0-9-]+)"', text))
        found.update(re.findall(r'must_still_pass\([^)]*?"([a-z0-9-]+)"\)', text, flags=re.S))
    return found


def test_the_source_has_the_rules_we_think_it_has() -> None:
    ids = rule_ids()
    assert {"red-passes", "red-wrong-reason", "green-changed-tests", "never-red"} <= ids
    assert {"green-broke-tests", "phase0-broke-tests", "phase0-changed-tests"} <= ids
    assert len(ids) >= 30


def test_every_rule_id_has_a_row_in_the_rules_table() -> None:
    rows = set(re.findall(r"^\| `([a-z0-9-]+)` \|", DOC, flags=re.MULTILINE))
    assert sorted(rule_ids() - rows) == []


def test_every_failure_class_is_documented() -> None:
    missing = [c.value for c in FailureClass if f"`{c.value}`" not in DOC]
    assert missing == []


def test_every_note_status_is_documented() -> None:
    missing = [status for status in NOTE_STATUSES if f"`{status}`" not in DOC]
    assert missing == []
