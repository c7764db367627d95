"""``--tdd=auto``: which phase a run is, from the ledger's state and what changed."""

from __future__ import annotations

from collections.abc import Collection

from phasegate.model.tdd import CycleState, TddPhase
from phasegate.tdd.rules.judgement import FAILING, Judgement, count
from phasegate.tdd.rules.phase0 import interface_problems_since
from phasegate.tdd.tree import changes

__all__ = ["infer"]


def infer(j: Judgement) -> tuple[TddPhase, str]:
    """The phase this run is, and why: the reason goes into the verdict's notes."""
    red = j.red_cycles()
    if j.state.green is None and not red:
        return "green", "the ledger has no green state yet (this run is the starting point)"
    accepted = j.state.accepted
    source_changed = bool(accepted and changes(accepted.files.source, j.facts.files.source))
    if red:
        return _with_red_cycles(red, source_changed)
    return _without_red_cycles(j, source_changed)


def _with_red_cycles(red: list[CycleState], source_changed: bool) -> tuple[TddPhase, str]:
    """With cycles red, a source change makes the run their green; else it is more red."""
    ids = ", ".join(cycle.id for cycle in red)
    if source_changed:
        return "green", f"cycle(s) {ids} are red and source files changed since"
    return "red", f"cycle(s) {ids} are red and no source file changed since"


def _without_red_cycles(j: Judgement, source_changed: bool) -> tuple[TddPhase, str]:
    """No cycle is red: new failing tests are a red, new stubs a phase 0, else a refactor."""
    changed_test_files = j.changed_paths("tests", since_green=True)
    new_failing = _new_failing(j, changed_test_files)
    if new_failing and not source_changed:
        return "red", f"{count(new_failing, 'new test')} fail and no source file changed"
    if source_changed and not changed_test_files and _only_new_interfaces(j):
        return "phase0", "the only changes are new interfaces (stubs) in source files"
    if j.state.accepted and not source_changed and not changed_test_files:
        return "refactor", "nothing changed since the last green state"
    return "refactor", "no cycle is red and files changed since the last green state"


def _new_failing(j: Judgement, changed_test_files: Collection[str]) -> list[str]:
    """The failing tests that are new since green, or in a test file changed since."""
    tests = j.facts.tests
    return [
        nodeid
        for nodeid in j.not_passed
        if tests[nodeid].outcome in FAILING
        and (nodeid not in j.green_present or j.facts.nodeid_path(nodeid) in changed_test_files)
    ]


def _only_new_interfaces(j: Judgement) -> bool:
    """Nothing fails, and the source changes since green are new interfaces only."""
    green = j.state.green
    if green is None:
        return False
    tests = j.facts.tests
    if any(tests[nodeid].outcome in FAILING for nodeid in j.not_passed):
        return False
    return not interface_problems_since(j, green.files)
