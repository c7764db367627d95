"""REFACTOR: everything still passes, no test got weaker, the code got no more complex."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from phasegate.model.tdd import FINISHED_STATUSES, ComplexityFigures, FileHashes, GreenState
from phasegate.tdd.assertions import count_assertions
from phasegate.tdd.rules.judgement import FAILING, Judgement, count, details, listed
from phasegate.tdd.tree import changes

__all__ = ["judge_refactor"]


def judge_refactor(j: Judgement) -> None:
    """Everything passes, no test lost assertions, complexity is not worse than at green."""
    green = j.state.green
    if green is None:
        j.violate(
            "refactor-no-green",
            "there is no green state to refactor from: record one with pytest --tdd=green",
        )
        return
    j.cycles = _refactor_cycles(j)
    red = j.red_cycles()
    if red:
        j.violate(
            "refactor-while-red",
            f"cycle(s) {', '.join(c.id for c in red)} are red: refactor on green only "
            "(make them pass with pytest --tdd=green first)",
        )
    _regression(j, green, j.tests_of(red))
    j.not_run(
        sorted(j.green_passed.difference(j.facts.tests)),
        "tests that passed at the last green state (deleted or renamed?)",
    )
    _assertions_kept(j, green.files)
    _complexity_kept(j, green.files)
    j.never_red()
    j.collection_errors("every test must be collected to prove nothing broke")
    if not j.violations:
        _record_refactor(j, green.files)


def _regression(j: Judgement, green: GreenState, red_tests: set[str]) -> None:
    """A test outside the red cycles that fails now, or passed at green and does not now."""
    tests = j.facts.tests
    failing = [
        n
        for n in j.not_passed
        if n not in red_tests and (tests[n].outcome in FAILING or n in j.green_passed)
    ]
    if not failing:
        return
    files = len(changes(green.files.source, j.facts.files.source)) + len(
        changes(green.files.tests, j.facts.files.tests)
    )
    j.violate(
        "refactor-regression",
        f"the refactor broke {count(failing, 'test')}: {details(failing, tests)}. "
        f"phasegate tdd rollback restores the {count(files, 'file')} changed "
        f"since the last green state (run {green.run_id}), byte for byte",
        tests=failing,
    )


def _record_refactor(j: Judgement, green_files: FileHashes) -> None:
    """The status codes of a kept refactor (RTC tests, RIC source) and its summary."""
    if changes(green_files.tests, j.facts.files.tests):
        j.status.append("RTC")
    if changes(green_files.source, j.facts.files.source):
        j.status.append("RIC")
    if not j.status:
        j.notes.append("nothing changed since the last green state")
        return
    summary = f"{count(len(j.passed_now), 'test')} pass"
    if j.complexity:
        before, after = j.complexity["green"], j.complexity["now"]
        summary += (
            f"; complexity max {before.max} -> {after.max}, mean {before.mean} -> {after.mean}"
        )
    j.notes.append(summary)


def _refactor_cycles(j: Judgement) -> list[str]:
    name = j.facts.cycle
    finished = [c.id for c in j.state.cycles.values() if c.status in FINISHED_STATUSES]
    if name is None:
        return finished
    if name not in finished:
        j.violate(
            "cycle-not-green",
            f"cycle {name} cannot be refactored: {j.named_cycle_status(name)} (green cycles: "
            f"{', '.join(finished) or 'none'})",
        )
        return []
    return [name]


def _assertions_kept(j: Judgement, green_files: FileHashes) -> None:
    changed = {change.path for change in changes(green_files.tests, j.facts.files.tests)}
    if not changed:
        return
    weaker = {
        nodeid: f"{nodeid} ({after}, was {before})"
        for nodeid, before, after in _assertion_changes(j, green_files, changed)
        if after < before
    }
    if weaker:
        j.violate(
            "refactor-fewer-assertions",
            f"{count(weaker, 'test')} lost assertions: {listed(weaker.values())}. A refactor "
            "may restructure tests but not weaken them",
            tests=list(weaker),
        )


def _assertion_changes(
    j: Judgement, green_files: FileHashes, changed: set[str]
) -> Iterator[tuple[str, int, int]]:
    """Each test of the green state in a changed test file: its assertions then and now."""
    for nodeid in sorted(j.green_passed):
        path = j.facts.nodeid_path(nodeid)
        if path not in changed or nodeid not in j.facts.tests:
            continue
        counts = _assertion_counts(j, green_files, path, nodeid)
        if counts is not None:
            yield nodeid, *counts


def _assertion_counts(
    j: Judgement, green_files: FileHashes, path: str, nodeid: str
) -> tuple[int, int] | None:
    """A test's assertions at green and now; None when either cannot be counted."""
    now = j.workspace.now(path)
    before_sha = green_files.tests.get(path)
    if now is None or before_sha is None:
        return None
    calls = j.config.assertion_calls
    before = count_assertions(j.workspace.read(path, before_sha), nodeid, calls)
    after = count_assertions(now, nodeid, calls)
    if before is None or after is None:
        return None
    return before, after


def _complexity_kept(j: Judgement, green_files: FileHashes) -> None:
    if not changes(green_files.source, j.facts.files.source):
        return
    meter = j.workspace.meter
    before = meter.measure(green_files.source, j.workspace.read)
    after = meter.measure(j.facts.files.source, j.workspace.read)
    j.complexity = {"green": before, "now": after}
    risen = _risen(before, after, j.config.complexity_must_not_rise)
    if risen:
        worst = f"; the most complex block is {after.worst}" if after.worst else ""
        j.violate(
            "refactor-complexity-rose",
            f"cyclomatic complexity rose: {', '.join(risen)}{worst}. A refactor must "
            "leave the code no more complex than at the last green state",
            paths=[after.worst.split(":", 1)[0]] if after.worst else [],
        )


def _risen(
    before: ComplexityFigures, after: ComplexityFigures, metrics: Iterable[str]
) -> list[str]:
    """The figures of ``metrics`` that rose, with what they were."""
    return [
        f"{metric} {getattr(after, metric)} (was {getattr(before, metric)})"
        for metric in metrics
        if getattr(after, metric) > getattr(before, metric)
    ]
