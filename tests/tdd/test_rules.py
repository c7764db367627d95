"""The RED, GREEN, REFACTOR and phase 0 rules, judged on a small project without pytest."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.model.run import Outcome
from phasegate.model.tdd import FailureClass, LedgerCollectionError, LedgerTest
from phasegate.tdd.config import TddConfig
from tests.tdd.flow import (
    PEEK,
    POP,
    POP_CODE,
    POP_TEST,
    PUSH,
    STACK,
    TESTS,
    Flow,
    failed,
    passed,
    rules,
)


@pytest.fixture
def flow(tmp_path: Path) -> Flow:
    return Flow(tmp_path)


# -- the starting point ----------------------------------------------------------------------


def test_the_first_green_is_the_starting_point(flow: Flow) -> None:
    entry = flow.start()
    assert entry.starting_point is True
    assert entry.status == []
    assert "starting point recorded: 2 tests pass" in entry.notes[0]
    state = flow.project.state()
    assert state.green is not None
    assert sorted(state.green.passed) == [PEEK, PUSH]


def test_a_starting_point_with_failing_tests_is_refused(flow: Flow) -> None:
    entry = flow.run("green", passed(PUSH), failed(PEEK))
    assert rules(entry) == ["start-not-green"]
    assert PEEK in entry.violations[0].message
    assert flow.project.state().green is None


# -- RED -------------------------------------------------------------------------------------


def test_red_passes_when_the_new_test_fails_for_the_right_reason(flow: Flow) -> None:
    flow.start()
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    result = flow.judge("red", passed(PUSH), passed(PEEK), failed(POP), cycle="pop")
    assert result.entry.verdict == "passed"
    assert result.entry.status == ["RC"]
    assert result.entry.cycle_tests == [POP]
    assert result.expected_failures == {POP}
    cycle = result.state.cycles["pop"]
    assert (cycle.status, cycle.tests) == ("red", [POP])


def test_a_red_that_passes_is_refused(flow: Flow) -> None:
    flow.start()
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    entry = flow.run("red", passed(PUSH), passed(PEEK), passed(POP))
    assert rules(entry) == ["red-passes"]
    assert entry.violations[0].tests == [POP]
    assert "A red test must fail before the code exists" in entry.violations[0].message
    assert flow.project.state().cycles == {}


def test_a_wrong_reason_red_is_refused_with_the_reason(flow: Flow) -> None:
    flow.start()
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    fixture = failed(
        POP, FailureClass.FIXTURE_ERROR, right=False, detail="fixture 'full' not found"
    )
    entry = flow.run("red", fixture)
    assert rules(entry) == ["red-wrong-reason"]
    assert entry.status == ["TI"]
    message = entry.violations[0].message
    assert "fixture-error (fixture 'full' not found)" in message
    assert "The test never ran" in message


def test_a_red_with_a_collection_error_is_a_wrong_reason(flow: Flow) -> None:
    flow.start()
    error = LedgerCollectionError(
        nodeid="tests/test_stack.py",
        failure_class=FailureClass.SYNTAX_ERROR,
        detail="SyntaxError at tests/test_stack.py:3: invalid syntax",
    )
    entry = flow.run("red", collection_errors=(error,))
    assert rules(entry) == ["collection-error"]
    assert entry.status == ["TI"]
    assert "could not be collected (syntax-error" in entry.violations[0].message


def test_a_test_skipped_at_the_last_green_state_is_no_ones_red(flow: Flow) -> None:
    skipped = LedgerTest(nodeid="tests/test_stack.py::test_later", outcome=Outcome.SKIPPED)
    assert flow.run("green", passed(PUSH), passed(PEEK), skipped).starting_point
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    entry = flow.run("red", passed(PUSH), passed(PEEK), skipped, failed(POP))
    assert (entry.verdict, entry.cycle_tests) == ("passed", [POP])
    assert flow.run("auto", passed(PUSH), passed(PEEK), skipped, failed(POP)).phase == "red"


def test_red_without_a_new_test_says_to_write_one(flow: Flow) -> None:
    flow.start()
    entry = flow.run("red", passed(PUSH))
    assert rules(entry) == ["red-no-new-test"]


def test_red_may_not_change_source(flow: Flow) -> None:
    flow.start()
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    flow.write("src/stack.py", STACK + POP_CODE)
    entry = flow.run("red", failed(POP))
    assert rules(entry) == ["red-changed-source"]
    assert entry.violations[0].paths == ["src/stack.py"]
    assert "src/stack.py (changed)" in entry.violations[0].message


def test_a_changed_old_test_that_now_fails_belongs_to_the_cycle(flow: Flow) -> None:
    flow.start()
    flow.write("tests/test_stack.py", TESTS.replace("== 2", "== 3"))
    entry = flow.run("red", passed(PUSH), failed(PEEK))
    assert entry.verdict == "passed"
    assert entry.cycle_tests == [PEEK]


def test_red_may_not_break_an_unchanged_test(flow: Flow) -> None:
    flow.start()
    flow.write("tests/test_other.py", "def test_new():\n    assert False\n")
    entry = flow.run("red", failed(PUSH), failed("tests/test_other.py::test_new"))
    assert rules(entry) == ["red-broke-tests"]
    assert entry.violations[0].tests == [PUSH]


def test_a_second_red_extends_the_red_cycle(flow: Flow) -> None:
    flow.start()
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    flow.run("red", failed(POP))
    flow.write("tests/test_stack.py", TESTS + POP_TEST + "\ndef test_more():\n    assert 0\n")
    more = "tests/test_stack.py::test_more"
    entry = flow.run("red", failed(POP), failed(more))
    assert entry.cycles == ["c1"]
    assert flow.project.state().cycles["c1"].tests == sorted([POP, more])


def test_a_named_green_cycle_cannot_take_new_reds(flow: Flow) -> None:
    flow.full_cycle("pop")
    flow.write("tests/test_stack.py", TESTS + POP_TEST + "\ndef test_more():\n    assert 0\n")
    entry = flow.run("red", failed("tests/test_stack.py::test_more"), cycle="pop")
    assert rules(entry) == ["cycle-not-red"]
    assert "cycle pop is green already" in entry.violations[0].message


def test_batches_hold_at_most_batch_size_red_cycles(tmp_path: Path) -> None:
    flow = Flow(tmp_path, TddConfig(batch_size=2))
    flow.start()
    extra = ""
    for name in ("a", "b", "c"):
        extra += f"\ndef test_{name}():\n    assert 0\n"
        flow.write("tests/test_stack.py", TESTS + extra)
        entry = flow.run("red", failed(f"tests/test_stack.py::test_{name}"), cycle=name)
    assert rules(entry) == ["batch-full"]
    assert "2 cycles are red already (a, b) and batch_size is 2" in entry.violations[0].message


def test_without_require_review_a_new_red_closes_green_cycles(tmp_path: Path) -> None:
    flow = Flow(tmp_path, TddConfig(require_review=False))
    flow.full_cycle("pop")
    flow.write("tests/test_stack.py", TESTS + POP_TEST + "\ndef test_more():\n    assert 0\n")
    entry = flow.run("red", failed("tests/test_stack.py::test_more"))
    assert entry.closes == ["pop"]
    assert flow.project.state().cycles["pop"].status == "closed"


def test_by_default_a_new_red_waits_for_the_approval(flow: Flow) -> None:
    flow.full_cycle("pop")
    flow.write("tests/test_stack.py", TESTS + POP_TEST + "\ndef test_more():\n    assert 0\n")
    more = failed("tests/test_stack.py::test_more")
    entry = flow.run("red", more)
    assert rules(entry) == ["review-pending"]
    assert "phasegate tdd review pop --approved" in entry.violations[0].message
    flow.project.review("pop", "approved", "ana")
    assert flow.run("red", more).verdict == "passed"


# -- GREEN -----------------------------------------------------------------------------------


def test_green_passes_when_the_cycle_passes_and_nothing_broke(flow: Flow) -> None:
    flow.full_cycle("pop")
    state = flow.project.state()
    assert state.cycles["pop"].status == "green"
    assert state.last_run is not None
    assert state.last_run.status == ["GC"]


def test_green_that_edits_a_test_is_refused(flow: Flow) -> None:
    flow.start()
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    flow.run("red", failed(POP), cycle="pop")
    flow.write("tests/test_stack.py", TESTS + POP_TEST.replace("== 1", "is None"))
    entry = flow.run("green", passed(PUSH), passed(PEEK), passed(POP))
    assert rules(entry) == ["green-changed-tests"]
    assert entry.status == ["TI"]
    assert entry.violations[0].paths == ["tests/test_stack.py"]


def test_green_that_breaks_another_test_is_refused(flow: Flow) -> None:
    flow.start()
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    flow.run("red", failed(POP), cycle="pop")
    flow.write("src/stack.py", STACK + POP_CODE)
    entry = flow.run(
        "green", passed(PUSH), failed(PEEK, detail="AssertionError: assert 1 == 2"), passed(POP)
    )
    assert rules(entry) == ["green-broke-tests"]
    assert entry.violations[0].tests == [PEEK]
    assert "assert 1 == 2" in entry.violations[0].message


def test_green_not_reached_yet(flow: Flow) -> None:
    flow.start()
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    flow.run("red", failed(POP), cycle="pop")
    entry = flow.run("green", passed(PUSH), passed(PEEK), failed(POP))
    assert rules(entry) == ["green-still-failing"]
    assert flow.project.state().cycles["pop"].status == "red"


def test_green_with_an_erroring_cycle_test_is_a_test_issue(flow: Flow) -> None:
    flow.start()
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    flow.run("red", failed(POP), cycle="pop")
    error = failed(POP, FailureClass.FIXTURE_ERROR, right=False)
    entry = flow.run("green", passed(PUSH), passed(PEEK), error)
    assert rules(entry) == ["green-test-error"]
    assert entry.status == ["TI"]


def test_green_must_run_the_tests_of_the_last_green_state(flow: Flow) -> None:
    flow.start()
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    flow.run("red", failed(POP), cycle="pop")
    flow.write("src/stack.py", STACK + POP_CODE)
    entry = flow.run("green", passed(POP))
    assert rules(entry) == ["not-run"]
    assert entry.violations[0].tests == [PEEK, PUSH]


def test_green_without_a_red_cycle_is_refused(flow: Flow) -> None:
    flow.start()
    entry = flow.run("green", passed(PUSH), passed(PEEK))
    assert rules(entry) == ["green-no-red-cycle"]


def test_a_new_test_green_without_ever_being_red_is_flagged(flow: Flow) -> None:
    flow.start()
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    flow.run("red", failed(POP), cycle="pop")
    flow.write("src/stack.py", STACK + POP_CODE)
    sneaky = "tests/test_stack.py::test_sneaky"
    entry = flow.run("green", passed(PUSH), passed(PEEK), passed(POP), passed(sneaky))
    assert "never-red" in rules(entry)
    never = next(v for v in entry.violations if v.rule == "never-red")
    assert never.tests == [sneaky]
    assert "phasegate tdd accept" in never.message


def test_an_accepted_test_is_not_flagged(flow: Flow) -> None:
    flow.start()
    characterization = "tests/test_stack.py::test_characterization"
    flow.project.accept([characterization], "pins existing behaviour", "ana")
    entry = flow.run("refactor", passed(PUSH), passed(PEEK), passed(characterization))
    assert entry.verdict == "passed"


def test_green_of_one_cycle_expects_the_other_reds_to_fail(flow: Flow) -> None:
    flow.start()
    flow.write("tests/test_stack.py", TESTS + POP_TEST + "\ndef test_size():\n    assert 0\n")
    size = "tests/test_stack.py::test_size"
    flow.run("red", failed(POP), cycle="pop")
    flow.run("red", failed(POP), failed(size), cycle="size")
    flow.write("src/stack.py", STACK + POP_CODE)
    result = flow.judge("green", passed(PUSH), passed(PEEK), passed(POP), failed(size), cycle="pop")
    assert result.entry.verdict == "passed", result.entry.violations
    assert result.expected_failures == {size}
    assert result.state.cycles["size"].status == "red"


def test_auto_green_picks_the_cycles_that_pass(flow: Flow) -> None:
    flow.start()
    flow.write("tests/test_stack.py", TESTS + POP_TEST + "\ndef test_size():\n    assert 0\n")
    size = "tests/test_stack.py::test_size"
    flow.run("red", failed(POP), cycle="pop")
    flow.run("red", failed(POP), failed(size), cycle="size")
    flow.write("src/stack.py", STACK + POP_CODE)
    entry = flow.run("auto", passed(PUSH), passed(PEEK), passed(POP), failed(size))
    assert (entry.phase, entry.cycles, entry.verdict) == ("green", ["pop"], "passed")


# -- REFACTOR --------------------------------------------------------------------------------


def test_refactor_of_the_source_is_ric(flow: Flow) -> None:
    flow.full_cycle()
    flow.write(
        "src/stack.py", STACK.replace("_items", "_stack") + POP_CODE.replace("_items", "_stack")
    )
    entry = flow.run("refactor", passed(PUSH), passed(PEEK), passed(POP))
    assert (entry.verdict, entry.status) == ("passed", ["RIC"])
    assert set(entry.complexity) == {"green", "now"}
    assert flow.project.state().cycles["pop"].status == "refactored"


def test_refactor_of_the_tests_is_rtc(flow: Flow) -> None:
    flow.full_cycle()
    flow.write("tests/test_stack.py", "# tidied\n" + TESTS + POP_TEST)
    entry = flow.run("refactor", passed(PUSH), passed(PEEK), passed(POP))
    assert entry.status == ["RTC"]


def test_a_refactor_regression_names_the_broken_tests_and_the_rollback(flow: Flow) -> None:
    flow.full_cycle()
    flow.write("src/stack.py", STACK + POP_CODE.replace("pop()", "pop(0)"))
    entry = flow.run("refactor", passed(PUSH), passed(PEEK), failed(POP, detail="assert 2 == 1"))
    assert rules(entry) == ["refactor-regression"]
    message = entry.violations[0].message
    assert "broke 1 test: tests/test_stack.py::test_pop (assert 2 == 1)" in message
    assert "phasegate tdd rollback restores the 1 file changed" in message
    pending = flow.project.state().pending_rollback
    assert pending is not None
    assert pending.broken == [POP]


def test_a_refactor_may_not_remove_assertions(flow: Flow) -> None:
    flow.full_cycle()
    flow.write(
        "tests/test_stack.py", TESTS.replace("    assert stack._items == [1, 2]\n", "") + POP_TEST
    )
    entry = flow.run("refactor", passed(PUSH), passed(PEEK), passed(POP))
    assert rules(entry) == ["refactor-fewer-assertions"]
    assert "tests/test_stack.py::test_peek (1, was 2)" in entry.violations[0].message


def test_a_refactor_may_not_raise_complexity(flow: Flow) -> None:
    flow.full_cycle()
    branchy = POP_CODE.replace(
        "        return self._items.pop()\n",
        "        if not self._items:\n            return None\n        if len(self._items) > 3:\n"
        "            return self._items.pop()\n        return self._items.pop()\n",
    )
    flow.write("src/stack.py", STACK + branchy)
    entry = flow.run("refactor", passed(PUSH), passed(PEEK), passed(POP))
    assert rules(entry) == ["refactor-complexity-rose"]
    assert "max 3 (was 1)" in entry.violations[0].message
    assert entry.complexity["now"].worst == "src/stack.py:Stack.pop"


def test_a_deleted_test_is_not_run(flow: Flow) -> None:
    flow.full_cycle()
    entry = flow.run("refactor", passed(PUSH), passed(PEEK))
    assert rules(entry) == ["not-run"]
    assert "deleted or renamed?" in entry.violations[0].message


def test_refactor_needs_a_green_state(flow: Flow) -> None:
    entry = flow.run("refactor", passed(PUSH))
    assert rules(entry) == ["refactor-no-green"]


def test_refactor_while_a_cycle_is_red_is_refused(flow: Flow) -> None:
    flow.start()
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    flow.run("red", failed(POP), cycle="pop")
    entry = flow.run("refactor", passed(PUSH), passed(PEEK), failed(POP))
    assert rules(entry) == ["refactor-while-red"]


# -- phase 0 ---------------------------------------------------------------------------------


def test_phase0_accepts_stubs(flow: Flow) -> None:
    flow.start()
    flow.write("src/stack.py", STACK + "\n    def pop(self):\n        raise NotImplementedError\n")
    entry = flow.run("phase0", passed(PUSH), passed(PEEK))
    assert (entry.verdict, entry.status) == ("passed", ["P0C"])


def test_phase0_refuses_behaviour(flow: Flow) -> None:
    flow.start()
    flow.write("src/stack.py", STACK + POP_CODE)
    entry = flow.run("phase0", passed(PUSH), passed(PEEK))
    assert rules(entry) == ["phase0-not-interface"]
    assert "src/stack.py line 11: Stack.pop is not a stub" in entry.violations[0].message


def test_phase0_may_not_touch_tests_or_come_after_red(flow: Flow) -> None:
    flow.start()
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    flow.run("red", failed(POP), cycle="pop")
    flow.write("tests/test_stack.py", TESTS)
    entry = flow.run("phase0", passed(PUSH), passed(PEEK))
    assert rules(entry) == ["phase0-after-red", "phase0-changed-tests"]


# -- auto ------------------------------------------------------------------------------------


def test_auto_infers_each_phase(flow: Flow) -> None:
    assert flow.run("auto", passed(PUSH), passed(PEEK)).starting_point is True
    flow.write("src/stack.py", STACK + "\n    def pop(self):\n        ...\n")
    assert flow.run("auto", passed(PUSH), passed(PEEK)).phase == "phase0"
    flow.write("tests/test_stack.py", TESTS + POP_TEST)
    red = flow.run("auto", passed(PUSH), passed(PEEK), failed(POP))
    assert (red.phase, red.verdict) == ("red", "passed")
    flow.write("src/stack.py", STACK + POP_CODE)
    green = flow.run("auto", passed(PUSH), passed(PEEK), passed(POP))
    assert (green.phase, green.verdict) == ("green", "passed")
    same = flow.run("auto", passed(PUSH), passed(PEEK), passed(POP))
    assert (same.phase, same.verdict, same.status) == ("refactor", "passed", [])
    assert "nothing changed since the last green state" in same.notes[0]


def test_auto_flags_a_test_green_without_red(flow: Flow) -> None:
    flow.full_cycle()
    flow.write("tests/test_stack.py", TESTS + POP_TEST + "\ndef test_len():\n    assert 1\n")
    entry = flow.run(
        "auto", passed(PUSH), passed(PEEK), passed(POP), passed("tests/test_stack.py::test_len")
    )
    assert (entry.phase, rules(entry)) == ("refactor", ["never-red"])
    assert flow.project.state().pending_rollback is None  # nothing a rollback would fix


def test_an_interrupted_run_fails(flow: Flow) -> None:
    flow.start()
    entry = flow.run("refactor", passed(PUSH), passed(PEEK), interrupted=True)
    assert rules(entry) == ["interrupted"]
