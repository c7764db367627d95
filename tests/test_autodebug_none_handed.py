"""A guard of a parameter its caller handed a None that another failure of the run still fails
on is withdrawn: mistune's ``insert_rule(md.block.block_quote_rules, ...)`` guarded while
``self.block_quote_rules`` still fails where it is iterated (seed 15, kept wrong before)."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.autodebug.diagnosis import Candidate, FileEdit
from phasegate.autodebug.localize import Spectrum
from phasegate.autodebug.partial_repairs import KeptRepair
from phasegate.autodebug.runner import RunResult
from phasegate.autodebug.withdrawals import withdrawal_reasons
from phasegate.model.autodebug import AutodebugFailure
from tests.autodebug_support import diagnose

PARSER = """\
class Parser:
    def __init__(self, rules=None):
        self.rules = rules

    @staticmethod
    def insert_rule(rules, name):
        rules.append(name)


def plugin(parser):
    parser.insert_rule(parser.rules, "math")


def other(parser):
    Parser.insert_rule(name="math", rules=parser.rules)
"""

CORE = "def insert_rule(rules, name):\n    rules.append(name)\n"
GUARDED = "def insert_rule(rules, name):\n    if rules is None:\n        rules = []\n" + CORE[29:]
OWN, LEFT = "tests/test_core.py::test_plugin", "tests/test_parser.py::test_names"


@pytest.mark.needs_columns
@pytest.mark.parametrize("call", ["plugin", "other"])
def test_a_none_parameter_says_what_its_caller_handed_it_as(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: str
) -> None:
    diagnosis, _, _ = diagnose(
        tmp_path,
        {"nh_parser.py": PARSER},
        f"import nh_parser as m; m.{call}(m.Parser())",
        monkeypatch,
    )
    assert (diagnosis.error_class, diagnosis.facts["expr"]) == ("none", "rules")
    assert diagnosis.facts["handed_as"] == "parser.rules"


def test_a_none_the_caller_did_not_hand_in_says_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    diagnosis, _, _ = diagnose(
        tmp_path,
        {"nh_parser2.py": PARSER},
        "import nh_parser2 as m; m.Parser().rules.append(1)",
        monkeypatch,
    )
    assert diagnosis.facts.get("handed_as") is None


def _failure(entry_id: str, outcome: str, path: str, expr: str, test: str) -> AutodebugFailure:
    return AutodebugFailure(
        id=entry_id,
        error_class="none",
        pattern="none",
        kind="none-attribute",
        tests=[test],
        exc_type="AttributeError",
        message="'NoneType' object has no attribute 'append'",
        path=path,
        line=2,
        explanation=f"`{expr}` is None",
        outcome=outcome,  # type: ignore[arg-type]
        facts={"expr": expr, "handed_as": "md.block.rules" if expr == "rules" else None},
    )


def _reasons(left_expr: str) -> list[str]:
    own = _failure("02", "repaired", "pkg/core.py", "rules", OWN)
    left = _failure("01", "escalated", "pkg/parser.py", left_expr, LEFT)
    guard = Candidate(
        "none-guard", "put back `if rules is None`", [FileEdit("pkg/core.py", GUARDED)], 1
    )
    trial = RunResult(outcomes={OWN: "passed", LEFT: "failed"})
    kept = [KeptRepair("02", guard, {"pkg/core.py": CORE}, trial=trial)]
    # Only the guard's own test runs the function it guards: no masking seen by coverage.
    spectrum = Spectrum(covered={("pkg/core.py", "insert_rule", 1): {OWN}}, outcomes={})
    return [why.because for _, why in withdrawal_reasons(kept, [left, own], spectrum)]


def test_a_guard_of_a_none_handed_in_is_withdrawn_while_its_value_still_fails_elsewhere() -> None:
    [because] = _reasons("self.rules")
    assert "01 still fail on the None its caller handed it as `md.block.rules`" in because


def test_a_guard_of_a_none_handed_in_stays_when_no_failure_left_names_its_value() -> None:
    assert _reasons("self.other_rules") == []
