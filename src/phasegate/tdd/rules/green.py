"""GREEN: the cycle's tests pass, nothing else broke, and the tests were not touched."""

from __future__ import annotations

from phasegate.model.outcome import Outcome
from phasegate.model.tdd import CycleState
from phasegate.tdd.rules.judgement import FAILING, TEST_ISSUE_CLASSES, Judgement, count, details

__all__ = ["judge_green"]


def judge_green(j: Judgement) -> None:
    """The red cycles' tests pass, the last green state's tests still pass, tests unchanged."""
    targets = _green_targets(j)
    if not targets:
        if j.facts.cycle is None and j.state.green is None:
            _starting_point(j)
        elif j.facts.cycle is None:
            j.violate(
                "green-no-red-cycle",
                "no cycle is red, so there is nothing to make green: write a failing test "
                "and prove it with pytest --tdd=red first",
            )
        return
    j.cycles = [cycle.id for cycle in targets]
    tests = j.facts.tests
    for cycle in targets:
        missing = [nodeid for nodeid in cycle.tests if nodeid not in tests]
        if missing:
            j.not_run(missing, f"cycle {cycle.id}'s tests")
        failing = [n for n in cycle.tests if n in tests and tests[n].outcome != Outcome.PASSED]
        issues = [n for n in failing if tests[n].failure_class in TEST_ISSUE_CLASSES]
        still = [n for n in failing if n not in issues]
        if still:
            j.violate(
                "green-still-failing",
                f"cycle {cycle.id} is not green yet: {details(still, tests)}. Change the "
                "source until its tests pass",
                tests=still,
            )
        if issues:
            j.violate(
                "green-test-error",
                f"cycle {cycle.id}'s tests did not get to run: {details(issues, tests)}. "
                "This is a test issue (TI): the test must run and pass as written at red",
                tests=issues,
            )
    waiting = j.tests_of(c for c in j.red_cycles() if c not in targets)
    j.must_still_pass(j.green_passed - waiting, "green-broke-tests")
    j.tests_unchanged("green-changed-tests", "A green may change source files only")
    j.never_red()
    j.collection_errors("every test must be collected to prove nothing else broke")
    if j.state.green is None:
        j.notes.append("no earlier green state: tests outside the cycle are taken as they are")
    if not j.violations:
        j.status = ["GC"]
        own = sum(len(cycle.tests) for cycle in targets)
        j.notes.append(
            f"{'cycle' if len(targets) == 1 else 'cycles'} {', '.join(j.cycles)} green: "
            f"{count(own, 'cycle test')} and the {count(len(j.green_passed), 'test')} "
            "of the last green state pass; next: pytest --tdd=refactor, or the next red"
        )


def _green_targets(j: Judgement) -> list[CycleState]:
    red = j.red_cycles()
    name = j.facts.cycle
    if name is not None:
        cycle = j.state.cycles.get(name)
        if cycle is None or cycle.status != "red":
            what = "there is no such cycle" if cycle is None else f"it is {cycle.status}"
            red_ids = ", ".join(c.id for c in red) or "none"
            j.violate(
                "cycle-not-red",
                f"cycle {name} cannot turn green: {what} (red cycles: {red_ids})",
            )
            return []
        return [cycle]
    if j.facts.requested == "auto":
        tests = j.facts.tests
        done = [
            cycle
            for cycle in red
            if all(n in tests and tests[n].outcome == Outcome.PASSED for n in cycle.tests)
        ]
        return done or red
    return red


def _starting_point(j: Judgement) -> None:
    j.starting_point = True
    failing = [n for n in j.not_passed if j.facts.tests[n].outcome in FAILING]
    if failing:
        j.violate(
            "start-not-green",
            f"the ledger starts from a passing suite, and {count(failing, 'test')} fail: "
            f"{details(failing, j.facts.tests)}. Make them pass (or deselect them) and "
            "run pytest --tdd=green again",
            tests=failing,
        )
    j.collection_errors("the starting point must collect every test")
    if not j.violations:
        passed = len(j.passed_now)
        j.notes.append(
            f"starting point recorded: {count(passed, 'test')} pass; tests written "
            "from now on must be seen red before they pass"
        )
