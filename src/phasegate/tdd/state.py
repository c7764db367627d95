"""The cycle state: a fold over the ledger, cached in ``.phasegate/tdd/state.json``.

:func:`apply` is the one place that says what an entry means for the state; :func:`derive`
folds it over the whole ledger. The cache is only an optimization: it records how much of
the ledger it covers (a :class:`~phasegate.model.tdd.LedgerMark`), :func:`load_state` extends
it with the entries appended since, and anything unexpected (a rewritten or truncated ledger,
a damaged cache) rebuilds it from the ledger. Every effect of an entry is written in the entry
itself (the cycles it closed, the tests of a red), so the state never depends on the
configuration in force when it is rebuilt.
"""

from __future__ import annotations

from collections.abc import Iterable

from phasegate.model.outcome import Outcome
from phasegate.model.tdd import (
    FINISHED_STATUSES,
    AcceptedFiles,
    AcceptEntry,
    CycleState,
    GreenState,
    PendingRollback,
    ReviewEntry,
    ReviewRecord,
    RollbackEntry,
    RunEntry,
    RunSummary,
    TddState,
)
from phasegate.tdd.ledger import Entry, Ledger

__all__ = ["ROLLBACK_RULES", "STATE_FILE", "apply", "derive", "load_state", "save_state"]

#: The cached state's path inside the artifacts folder.
STATE_FILE = "tdd/state.json"
#: Refactor failures a rollback to the last green state undoes (a new test that was never
#: red, say, is not one: rolling back would only delete the test).
ROLLBACK_RULES = frozenset(
    {"refactor-regression", "refactor-complexity-rose", "refactor-fewer-assertions", "not-run"}
)

_FAILING = (Outcome.FAILED, Outcome.ERROR)


def apply(state: TddState, entry: Entry) -> None:
    """Change ``state`` as ``entry`` says (in place)."""
    if isinstance(entry, RunEntry):
        _apply_run(state, entry)
    elif isinstance(entry, ReviewEntry):
        _apply_review(state, entry)
    elif isinstance(entry, RollbackEntry):
        _apply_rollback(state, entry)
    elif isinstance(entry, AcceptEntry):
        for nodeid in entry.tests:
            state.accepted_tests[nodeid] = entry.reason


def derive(entries: Iterable[Entry]) -> TddState:
    """The state after every entry, from nothing."""
    state = TddState()
    for entry in entries:
        apply(state, entry)
    return state


def load_state(ledger: Ledger, *, rebuild: bool = False) -> TddState:
    """The state of the whole ledger, from the cache where it is still valid.

    Call it while holding the ``tdd`` lock of the store when the state will be written back.
    """
    cached = None if rebuild else _cached_state(ledger)
    if cached is not None:
        return cached
    entries, _read = ledger.read_all()
    state = derive(entries)
    state.ledger = ledger.mark(len(entries))
    return state


def _cached_state(ledger: Ledger) -> TddState | None:
    """The cached state with the entries appended since applied; None when there is none, or
    the ledger changed other than by appending (it is read in full then)."""
    cached = ledger.store.read_model(STATE_FILE, TddState)
    if cached is None or cached.ledger is None:
        return None
    appended = ledger.read_after(cached.ledger)
    if appended is None:
        return None
    for entry in appended:
        apply(cached, entry)
    if appended:
        cached.ledger = ledger.mark(cached.ledger.entries + len(appended))
    return cached


def save_state(ledger: Ledger, state: TddState) -> None:
    """Write the cache atomically."""
    ledger.store.write_model(STATE_FILE, state)


# -- what each entry means -----------------------------------------------------------------


def _apply_run(state: TddState, entry: RunEntry) -> None:
    state.runs += 1
    state.last_run = RunSummary(
        run_id=entry.run_id,
        time=entry.time,
        phase=entry.phase,
        verdict=entry.verdict,
        cycles=list(entry.cycles),
        status=list(entry.status),
        violations=[violation.rule for violation in entry.violations],
    )
    for cycle in _known_cycles(state, entry):
        cycle.last_run = entry.run_id
    if entry.verdict == "failed":
        # A failure that is not a broken refactor keeps the rollback still due, if any.
        state.pending_rollback = _rollback_due(entry) or state.pending_rollback
        return
    _apply_passed_run(state, entry)


def _apply_passed_run(state: TddState, entry: RunEntry) -> None:
    """A run the rules passed: its files are accepted, and its cycles move on (a red run opens
    or extends its cycles; any other sets the green state and advances them)."""
    state.accepted = AcceptedFiles(run_id=entry.run_id, files=entry.files)
    state.pending_rollback = None
    if entry.phase == "red":
        _open_or_extend(state, entry)
        return
    state.green = _green_state(entry)
    for cycle in _known_cycles(state, entry):
        _advance_cycle(cycle, entry)


def _known_cycles(state: TddState, entry: RunEntry) -> list[CycleState]:
    """The cycles a run was for that the state knows."""
    return [state.cycles[c] for c in entry.cycles if c in state.cycles]


def _rollback_due(entry: RunEntry) -> PendingRollback | None:
    """The rollback a failed refactor that broke tests makes due; None for other failures."""
    if entry.phase != "refactor" or not any(v.rule in ROLLBACK_RULES for v in entry.violations):
        return None
    broken = [test.nodeid for test in entry.tests if test.outcome in _FAILING]
    return PendingRollback(failed_run=entry.run_id, files=entry.files, broken=broken)


def _green_state(entry: RunEntry) -> GreenState:
    """An accepted green or refactor run as the new green state: what passed, what did not."""
    passed_outcome = Outcome.PASSED  # looked up once: enum members are descriptors
    passed: list[str] = []
    others: dict[str, str] = {}
    for test in entry.tests:
        if test.outcome is passed_outcome:
            passed.append(test.nodeid)
        else:
            others[test.nodeid] = test.outcome.value
    return GreenState(
        run_id=entry.run_id,
        phase=entry.phase,
        time=entry.time,
        passed=passed,
        others=others,
        files=entry.files,
    )


def _advance_cycle(cycle: CycleState, entry: RunEntry) -> None:
    """A cycle of an accepted green turns green; of an accepted refactor, refactored."""
    if entry.phase == "green":
        cycle.status = "green"
        cycle.green_run = entry.run_id
        cycle.round = max(cycle.round, 1)
    elif entry.phase == "refactor" and cycle.status in FINISHED_STATUSES:
        cycle.status = "refactored"


def _open_or_extend(state: TddState, entry: RunEntry) -> None:
    """A red run opens its cycles, or adds its tests to those open; it closes those it names."""
    for cycle_id in entry.cycles:
        cycle = state.cycles.get(cycle_id)
        if cycle is None:
            cycle = CycleState(id=cycle_id, status="red", opened_run=entry.run_id)
            state.cycles[cycle_id] = cycle
        cycle.status = "red"
        cycle.tests = sorted(set(cycle.tests) | set(entry.cycle_tests))
        cycle.red_run = entry.run_id
        cycle.last_run = entry.run_id
    state.seen_red = sorted(set(state.seen_red) | set(entry.cycle_tests))
    _close_cycles(state, entry)


def _close_cycles(state: TddState, entry: RunEntry) -> None:
    """The cycles a red run closes (those still open), closed by it."""
    for cycle_id in entry.closes:
        cycle = state.cycles.get(cycle_id)
        if cycle is not None and cycle.status != "closed":
            cycle.status = "closed"
            cycle.closed_by = entry.run_id


def _apply_review(state: TddState, entry: ReviewEntry) -> None:
    cycle = state.cycles.get(entry.cycle)
    if cycle is None:
        return  # recorded by hand for a cycle the ledger does not know: nothing to change
    cycle.reviews.append(
        ReviewRecord(
            status=entry.status, reviewer=entry.reviewer, time=entry.time, round=entry.round
        )
    )
    if entry.status == "approved":
        cycle.status = "closed"
        cycle.closed_by = f"review by {entry.reviewer}"
    else:
        cycle.round += 1


def _apply_rollback(state: TddState, entry: RollbackEntry) -> None:
    state.pending_rollback = None
    if state.green is not None:
        state.accepted = AcceptedFiles(run_id=entry.green_run, files=state.green.files)
