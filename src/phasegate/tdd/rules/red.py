"""RED: the new tests fail, for the right reason, and only tests changed since green.

A red that passes is RC (red complete); a red of a cycle that was red already, after test files
changed since the last accepted state (the QA agent adjusted the tests, often after a TI), is
RC and TA (test adjusted).
"""

from __future__ import annotations

from phasegate.model.outcome import Outcome
from phasegate.model.tdd import FINISHED_STATUSES, FailureClass, TddState
from phasegate.tdd.rules.judgement import FAILING, Judgement, class_name, count, listed
from phasegate.tdd.tree import changes

__all__ = ["judge_red", "next_cycle_id"]


_WRONG_REASON_ADVICE = {
    FailureClass.FIXTURE_ERROR: "The test never ran: its setup failed. Fix the fixture so that "
    "the test itself runs and fails. ",
    FailureClass.TEARDOWN_ERROR: "Its teardown failed, which says nothing about the code. ",
    FailureClass.EXCEPTION: "It raised an exception that does not show the missing behaviour. ",
    FailureClass.SYNTAX_ERROR: "A syntax error proves nothing about the code. ",
    FailureClass.SKIPPED: "A skipped test proves nothing: remove the skip. ",
    FailureClass.XFAILED: "An xfail mark hides the failure: remove it. ",
    FailureClass.XPASSED: "An xfail mark hides the outcome: remove it. ",
}


def judge_red(j: Judgement) -> None:
    """Every new (or changed and failing) test fails for a right reason; only tests changed."""
    target, new_cycle = _red_cycle(j)
    j.cycles = [target]
    candidates, broken = _red_candidates(j, target)
    j.cycle_tests = candidates
    j.collection_errors(
        "a red test must be collected and then fail when it runs; a test that imports a "
        "name that does not exist yet at the top of its file cannot be collected: import "
        "it inside the test, or declare it first (pytest --tdd=phase0)"
    )
    if not candidates and not j.facts.collection_errors:
        j.violate(
            "red-no-new-test",
            "no new test: every selected test existed at the last green state, and none was "
            "changed to fail. Write a test "
            "for behaviour the code does not have yet, and select it "
            "(pytest --tdd=red path/to/test_file.py::test_name)",
        )
    _red_passes(j, candidates)
    for nodeid in candidates:
        _wrong_reason(j, nodeid)
    _red_broke(j, broken)
    _red_file_scope(j)
    _red_batch(j, target, new_cycle)
    if not j.violations:
        _record_red(j, target, candidates, new_cycle)


def _red_broke(j: Judgement, broken: list[str]) -> None:
    """Tests that passed at the last green state, in files the red did not change, fail now."""
    if broken:
        j.violate(
            "red-broke-tests",
            f"{count(broken, 'test')} that passed at the last green state fail now and "
            f"their files did not change: {listed(broken)}. A red adds failing tests; it "
            "must not break others (look at conftest.py and shared fixtures)",
            tests=broken,
        )


def _record_red(j: Judgement, target: str, candidates: list[str], new_cycle: bool) -> None:
    """The status codes of a proved red (RC, and TA when tests were adjusted) and its summary."""
    j.status = ["RC", "TA"] if _tests_adjusted(j, new_cycle) else ["RC"]
    j.notes.append(
        f"cycle {target} is red: {count(candidates, 'test')} "
        f"{'fails' if len(candidates) == 1 else 'fail'} for the right reason; next: "
        "write the code, then pytest --tdd=green"
    )


def _red_candidates(j: Judgement, target: str) -> tuple[list[str], list[str]]:
    """The tests this red is for (new, or changed to fail), and the ones it broke.

    Tests of other red cycles are theirs. A test skipped or xfailed at the last green state,
    and still so, is no one's red.
    """
    others = j.tests_of(c for c in j.red_cycles() if c.id != target)
    changed_test_files = j.changed_paths("tests", since_green=True)
    candidates: list[str] = []
    broken: list[str] = []
    for nodeid, test in j.facts.tests.items():
        if nodeid in others or (nodeid in j.green_present and test.outcome not in FAILING):
            continue
        if nodeid not in j.green_present or j.facts.nodeid_path(nodeid) in changed_test_files:
            candidates.append(nodeid)  # a new test, or one changed to expect something new
        elif nodeid in j.green_passed:
            broken.append(nodeid)
    return candidates, broken


def _red_passes(j: Judgement, candidates: list[str]) -> None:
    tests = j.facts.tests
    passing = [nodeid for nodeid in candidates if tests[nodeid].outcome == Outcome.PASSED]
    if passing:
        j.violate(
            "red-passes",
            f"{count(passing, 'test')} passed: {listed(passing)}. A red test must fail "
            "before the code exists; if the behaviour is there already, this test is not "
            "the next step (test something the code cannot do yet)",
            tests=passing,
        )


def _wrong_reason(j: Judgement, nodeid: str) -> None:
    """A red test that fails, but not on a right reason (a fixture, a skip, a crash...)."""
    test = j.facts.tests[nodeid]
    if test.outcome == Outcome.PASSED or test.right_reason:
        return
    advice = _WRONG_REASON_ADVICE.get(test.failure_class, "") if test.failure_class else ""
    j.violate(
        "red-wrong-reason",
        f"{nodeid} fails for the wrong reason: {class_name(test.failure_class)} "
        f"({test.detail}). {advice}A right-reason red fails on "
        f"{j.right_reasons_phrase()}",
        tests=[nodeid],
    )


def _tests_adjusted(j: Judgement, new_cycle: bool) -> bool:
    """TA (test adjusted): a red of a cycle that was red already, after its tests changed."""
    accepted = j.state.accepted
    if new_cycle or accepted is None:
        return False
    return bool(changes(accepted.files.tests, j.facts.files.tests))


def _red_cycle(j: Judgement) -> tuple[str, bool]:
    """The cycle this red is for, and whether it starts it."""
    name = j.facts.cycle
    red = j.red_cycles()
    if name is None:
        if red:
            return red[-1].id, False
        return next_cycle_id(j.state), True
    existing = j.state.cycles.get(name)
    if existing is None:
        return name, True
    if existing.status != "red":
        j.violate(
            "cycle-not-red",
            f"cycle {name} is {existing.status} already; new failing tests start a new "
            "cycle: name it with --tdd-cycle NEW_NAME, or leave --tdd-cycle out",
        )
    return name, False


def _red_file_scope(j: Judgement) -> None:
    accepted = j.state.accepted
    if accepted is None:
        j.notes.append(
            "no earlier state in the ledger: which files changed is not checked this time"
        )
        return
    changed = changes(accepted.files.source, j.facts.files.source)
    if changed:
        j.violate(
            "red-changed-source",
            f"source files changed since the last accepted state (run {accepted.run_id}): "
            f"{listed(changed)}. A red may change tests only: set the source changes aside "
            "(git stash, or undo them) and bring them back for the green step",
            paths=[change.path for change in changed],
        )


def _red_batch(j: Judgement, target: str, new_cycle: bool) -> None:
    red_after = {cycle.id for cycle in j.red_cycles()} | {target}
    if len(red_after) > j.config.batch_size:
        others = sorted(red_after - {target})
        j.violate(
            "batch-full",
            f"{len(others)} cycles are red already ({', '.join(others)}) and batch_size is "
            f"{j.config.batch_size}: make one of them green before starting {target}",
        )
    if new_cycle:
        _close_finished(j)


def _close_finished(j: Judgement) -> None:
    """A new cycle closes the green ones, once they are reviewed when ``require_review``."""
    finished = [c for c in j.state.cycles.values() if c.status in FINISHED_STATUSES]
    if not finished:
        return
    if j.config.require_review:
        ids = ", ".join(cycle.id for cycle in finished)
        j.violate(
            "review-pending",
            f"cycle(s) {ids} are green but not approved, and require_review is on: review "
            f"them first (phasegate tdd review {finished[0].id} --approved --reviewer NAME)",
        )
    else:
        j.closes = [cycle.id for cycle in finished]


def next_cycle_id(state: TddState) -> str:
    """The next free automatic cycle name: ``c1``, ``c2``..."""
    number = len(state.cycles) + 1
    while f"c{number}" in state.cycles:
        number += 1
    return f"c{number}"
