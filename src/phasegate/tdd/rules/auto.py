"""``--tdd=auto``: which phase a run is, from the ledger's state and what changed."""

from __future__ import annotations

from phasegate.model.tdd import TddPhase
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
        ids = ", ".join(cycle.id for cycle in red)
        if source_changed:
            return "green", f"cycle(s) {ids} are red and source files changed since"
        return "red", f"cycle(s) {ids} are red and no source file changed since"
    tests = j.facts.tests
    changed_test_files = j.changed_paths("tests", since_green=True)
    new_failing = [
        nodeid
        for nodeid in j.not_passed
        if tests[nodeid].outcome in FAILING
        and (nodeid not in j.green_present or j.facts.nodeid_path(nodeid) in changed_test_files)
    ]
    if new_failing and not source_changed:
        return "red", f"{count(new_failing, 'new test')} fail and no source file changed"
    green = j.state.green
    if (
        green is not None
        and source_changed
        and not changed_test_files
        and all(tests[nodeid].outcome not in FAILING for nodeid in j.not_passed)
        and not interface_problems_since(j, green.files)
    ):
        return "phase0", "the only changes are new interfaces (stubs) in source files"
    if accepted and not source_changed and not changed_test_files:
        return "refactor", "nothing changed since the last green state"
    return "refactor", "no cycle is red and files changed since the last green state"
