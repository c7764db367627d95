"""The TDD verdict and the cycle state as styled lines, for the terminal and the command line.

Returns ``(text, markup)`` pairs like :mod:`phasegate.report.terminal`; at ``-q`` a verdict is
its headline and its violations, from ``-v`` on every test of the cycle is listed too.
"""

from __future__ import annotations

from collections.abc import Sequence

from phasegate.model.tdd import CycleState, RunEntry, RunSummary, TddState
from phasegate.report.terminal import Line

__all__ = ["PHASE_NAMES", "cycle_next_step", "run_lines", "state_lines"]

PHASE_NAMES = {"red": "RED", "green": "GREEN", "refactor": "REFACTOR", "phase0": "PHASE 0"}

_GOOD = {"green": True}
_BAD = {"red": True, "bold": True}


def run_lines(
    entry: RunEntry | None,
    errors: Sequence[str],
    *,
    verbosity: int,
    ledger_path: str | None = None,
) -> list[Line]:
    """The verdict of one judged run."""
    lines: list[Line] = [(f"error: {message}", dict(_BAD)) for message in errors]
    if entry is None:
        return lines
    lines.append(_headline(entry))
    detailed = verbosity > 0 or not entry.violations
    lines.extend(_violation_and_note_lines(entry, detailed=detailed))
    lines.extend(_detail_lines(entry, detailed=detailed, verbose=verbosity > 0))
    if verbosity >= 0 and ledger_path:
        lines.append((f"ledger: {ledger_path} (run {entry.run_id})", {}))
    return lines


def _violation_and_note_lines(entry: RunEntry, *, detailed: bool) -> list[Line]:
    """Each rule the run broke, then its notes (the first only, under violations, unless
    ``-v``)."""
    lines: list[Line] = [
        (f"  - [{violation.rule}] {violation.message}", {"red": True})
        for violation in entry.violations
    ]
    lines.extend((f"  {note}", {}) for note in (entry.notes if detailed else entry.notes[:1]))
    return lines


def state_lines(state: TddState, *, ledger_path: str) -> list[Line]:
    """``phasegate tdd status``: the open cycles, the last green state, the last run."""
    entries = state.ledger.entries if state.ledger else 0
    lines: list[Line] = [(f"ledger: {ledger_path} ({entries} entries)", {})]
    lines.append((_green_line(state), {}))
    lines.extend(_cycle_lines(state))
    if state.last_run is not None:
        lines.append(_last_run_line(state.last_run))
    pending = state.pending_rollback
    if pending is not None:
        lines.append(
            (
                f"refactor run {pending.failed_run} regressed: phasegate tdd rollback restores "
                "the last green state",
                {"yellow": True, "bold": True},
            )
        )
    if state.accepted_tests:
        lines.append((f"tests accepted without a red: {len(state.accepted_tests)}", {}))
    return lines


def _detail_lines(entry: RunEntry, *, detailed: bool, verbose: bool) -> list[Line]:
    """A red run's cycle tests (unless violations hide them), else complexity at ``-v``."""
    if entry.phase == "red" and entry.cycle_tests and detailed:
        return _red_test_lines(entry)
    if verbose and entry.complexity:
        return _complexity_lines(entry)
    return []


def _red_test_lines(entry: RunEntry) -> list[Line]:
    """Each test of a red run's cycle: whether it failed, and for the right reason."""
    tests = {test.nodeid: test for test in entry.tests}
    lines: list[Line] = []
    for nodeid in entry.cycle_tests:
        test = tests[nodeid]
        if test.outcome.value == "passed":
            lines.append((f"  {nodeid}: passed", {"red": True}))
            continue
        judged = "right reason" if test.right_reason else "WRONG reason"
        style = {} if test.right_reason else {"red": True}
        lines.append((f"  {nodeid}: {judged}, {_class(test)}: {test.detail}", style))
    return lines


def _complexity_lines(entry: RunEntry) -> list[Line]:
    return [
        (
            f"  complexity at {label}: max {figures.max}, mean {figures.mean}, "
            f"total {figures.total} over {figures.blocks} blocks",
            {},
        )
        for label, figures in entry.complexity.items()
    ]


def _green_line(state: TddState) -> str:
    green = state.green
    if green is None:
        return "last green state: none yet (start with: pytest --tdd=green)"
    return (
        f"last green state: run {green.run_id} ({PHASE_NAMES[green.phase]}), "
        f"{len(green.passed)} tests passed"
    )


def _cycle_lines(state: TddState) -> list[Line]:
    """The open cycles, each with its tests and its next step, and how many are closed."""
    open_cycles = [cycle for cycle in state.cycles.values() if cycle.status != "closed"]
    closed = len(state.cycles) - len(open_cycles)
    if not open_cycles:
        return [(f"open cycles: none ({closed} closed)", {})]
    lines: list[Line] = [(f"open cycles ({len(open_cycles)}; {closed} closed):", {"bold": True})]
    for cycle in open_cycles:
        style = {"red": True} if cycle.status == "red" else dict(_GOOD)
        lines.append(
            (
                f"  {cycle.id}: {cycle.status}, {len(cycle.tests)} test(s), round "
                f"{cycle.round}{_reviews(cycle)}",
                style,
            )
        )
        lines.extend((f"      {nodeid}", {}) for nodeid in cycle.tests)
        lines.append((f"      next: {cycle_next_step(cycle)}", {}))
    return lines


def _last_run_line(last: RunSummary) -> Line:
    verdict = "passed" if last.verdict == "passed" else "FAILED"
    codes = f" ({'+'.join(last.status)})" if last.status else ""
    rules = f": {', '.join(last.violations)}" if last.violations else ""
    style = dict(_GOOD) if last.verdict == "passed" else {"red": True}
    return (f"last run: {last.run_id} {PHASE_NAMES[last.phase]} {verdict}{codes}{rules}", style)


def cycle_next_step(cycle: CycleState) -> str:
    """What the cycle needs next, as a command where there is one."""
    if cycle.status == "red":
        return "write the code, then: pytest --tdd=green"
    latest = cycle.reviews[-1].status if cycle.reviews else None
    if latest == "changes_requested":
        return f"address the review, pytest --tdd=refactor, then phasegate tdd review {cycle.id}"
    return (
        f"refactor (pytest --tdd=refactor), review (phasegate tdd review {cycle.id} "
        "--approved --reviewer NAME), or start the next red"
    )


def _headline(entry: RunEntry) -> Line:
    phase = _phase_shown(entry)
    cycles = f" {', '.join(entry.cycles)}" if entry.cycles else ""
    if entry.verdict == "passed":
        codes = f" ({'+'.join(entry.status)})" if entry.status else ""
        return (f"{phase}{cycles}: passed{codes}", {"green": True, "bold": True})
    count = len(entry.violations)
    codes = f", {'+'.join(entry.status)}" if entry.status else ""
    noun = "violation" if count == 1 else "violations"
    return (f"{phase}{cycles}: FAILED ({count} {noun}{codes})", dict(_BAD))


def _phase_shown(entry: RunEntry) -> str:
    """The run's phase, said as the starting point's GREEN, and whether ``auto`` chose it."""
    phase = "GREEN (starting point)" if entry.starting_point else PHASE_NAMES[entry.phase]
    return f"{phase} (auto)" if entry.requested == "auto" else phase


def _class(test: object) -> str:
    failure_class = getattr(test, "failure_class", None)
    return failure_class.value if failure_class is not None else "no failure"


def _reviews(cycle: CycleState) -> str:
    if not cycle.reviews:
        return ""
    last = cycle.reviews[-1]
    return f", review: {last.status} by {last.reviewer}"
