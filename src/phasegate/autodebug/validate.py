"""Prove a candidate by re-running the tests, and keep it only if it fixes without breaking.

A candidate is applied (:mod:`~phasegate.autodebug.workspace`) and the tests are re-run in
two stages, each in a fresh subprocess (:mod:`~phasegate.autodebug.runner`):

1. ``targets``: the failing tests' modules (as much of them as the original run named).
   Every failing test must now pass (a module that failed to collect must collect, and all
   its tests pass), and no test of those modules that passed before may fail.
2. ``suite``: the whole original run, again with no test that passed before failing, and no
   new collection error. When the original run named nothing outside the targets' modules,
   the targets stage was that run, and is judged again as the whole.

A parametrized test whose parameter id changes from run to run (one made from the time of
day) reports under a new id: a test the re-run does not report under its old id takes the
outcome of its function's tests under ids unknown before that differ from it in their digits
alone, when they are as many and all passed (:func:`renamed_outcomes`); otherwise it has no
result and fails its stage. A repair that changes the data a test is parametrized over
(``[yaml]`` become ``[yml]``) renames no test: the tests it took away have no result.

When the run is small (at most :data:`SMALL_RUN` tests) or the targets' modules hold at least
half of its tests, the targets stage would cost nearly what the whole run costs (a re-run's
time is mostly pytest's start-up), so the whole run is run once and judged as both stages.

Only then is the candidate kept; otherwise the files are restored byte for byte. "Passed
before" is the :class:`Baseline`: the run being debugged, updated after each kept repair.
When that run stopped early (``-x``, a collection error) and no complete run of the suite
could be taken, a failing test it has no result for counts as newly failing: it may have
passed before.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from phasegate import clock
from phasegate.autodebug.diagnosis import Candidate
from phasegate.autodebug.runner import RunResult, TestRunner, full_limit
from phasegate.autodebug.workspace import Original, Workspace
from phasegate.model.autodebug import ValidationStage

__all__ = [
    "OK_OUTCOMES",
    "SMALL_RUN",
    "Baseline",
    "Verdict",
    "clean",
    "failure_key",
    "fresh_baseline",
    "judge",
    "one_run_suffices",
    "passing",
    "renamed_outcomes",
    "reproduces",
    "target_passes",
    "target_selection",
    "validate",
]

#: Outcomes that count as "not failing".
OK_OUTCOMES = frozenset({"passed", "skipped", "xfailed", "xpassed"})
_SHOWN = 5
#: A run of at most this many tests is re-run whole rather than in two stages.
SMALL_RUN = 200


@dataclass
class Baseline:
    """The outcome of each test before the candidate, and the collectors that failed.

    ``pending``, when set, takes a complete "before" (the run being debugged stopped early,
    so some tests have no result). It is called only when a re-run is not clean
    (:func:`clean`): a re-run in which every test passes cannot show a regression whatever
    the complete "before" would say, so the extra run is saved.

    ``partial`` is true while the "before" is that early-stopped run: a test it has no result
    for then counts as newly failing when it fails (fail closed: it may have passed).
    """

    outcomes: dict[str, str] = field(default_factory=dict)
    collection_errors: set[str] = field(default_factory=set)
    pending: Callable[[], None] | None = field(default=None, repr=False, compare=False)
    partial: bool = False

    def update(self, run: RunResult) -> None:
        """Take a kept repair's suite run (or a fresh run of the suite) as the new "before"."""
        self.outcomes = dict(run.outcomes)
        self.collection_errors = set(run.collection_errors)
        self.pending = None
        self.partial = False

    def complete(self) -> None:
        """Take the complete "before" now, if it is still pending."""
        pending, self.pending = self.pending, None
        if pending is not None:
            pending()


def fresh_baseline(
    runner: TestRunner, baseline: Baseline, timeout_s: float | None, reasons: str
) -> str:
    """Take a complete "before" for ``baseline``, and say how it went.

    A collection error, ``-x`` or ``--maxfail`` leave tests without a result, and a repair
    could break them unseen; so the suite is run once more, as it is (with every candidate's
    files restored), the first time a re-run shows a failure. It may take the whole
    ``timeout_s`` (a bound of the run's own time knows too few of its tests). When it cannot
    be taken, the baseline stays partial: a failing test it has no result for counts as new.
    """
    run = runner.run(None, limit=full_limit(timeout_s))
    if run.error is not None:
        return (
            f"the run was incomplete ({reasons}) and a fresh baseline could not be taken: "
            f"{run.error}; a failing test this run has no result for counted as newly failing"
        )
    baseline.update(run)
    return (
        f"the run was incomplete ({reasons}); repairs were judged against a fresh run "
        f"of the suite ({len(run.outcomes)} test(s))"
    )


def clean(run: RunResult, baseline: Baseline, modules: Collection[str] | None = None) -> bool:
    """Whether ``run`` reported every test the baseline knows (of ``modules``, if given), and
    every test it ran passed, with no collection error: nothing in it can be a regression."""
    return (
        run.error is None
        and not run.collection_errors
        and all(outcome in OK_OUTCOMES for outcome in run.outcomes.values())
        and all(
            nodeid in run.outcomes
            for nodeid in baseline.outcomes
            if modules is None or _module(nodeid) in modules
        )
    )


@dataclass
class Verdict:
    """Whether a candidate passed both stages, and what each stage showed.

    ``moved`` are failing tests that now fail on another known cause instead (see
    :func:`validate`); ``originals``, of a candidate that passed, are its files as the trial
    found them.
    """

    passed: bool
    reason: str
    stages: list[ValidationStage]
    suite: RunResult | None = None
    moved: dict[str, str] = field(default_factory=dict)
    originals: dict[str, Original] = field(default_factory=dict)


def failure_key(exc_type: str, message: str) -> str:
    """A failure as compared across runs: the exception's class and its message's start."""
    return f"{exc_type.rpartition('.')[2]}: {message.strip()[:150]}"


def _moved(run: RunResult, targets: list[str], elsewhere: Collection[str]) -> dict[str, str]:
    """Failing tests that, in ``run``, fail on one of the other known causes ``elsewhere``
    (with the :func:`failure_key` of that cause)."""
    moved: dict[str, str] = {}
    for target in targets:
        text = _failure_text(run, target)
        if text is None or target_passes(run.outcomes, run.collection_errors, target):
            continue
        exc_type, _, message = text.partition(": ")
        key = failure_key(exc_type, message)
        if key in elsewhere:
            moved[target] = key
    return moved


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _digitless(nodeid: str) -> str | None:
    """A parametrized test's id with each number of its parameters' id masked
    (``t.py::test_x[11:20:49]`` is ``t.py::test_x[#:#:#]``); None for a test that is not
    parametrized."""
    function, bracket, parameters = nodeid.partition("[")
    if not bracket or "::" not in function:
        return None
    return f"{function}[{re.sub(r'[0-9]+', '#', parameters)}"


def _by_digitless(nodeids: Iterable[str]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for nodeid in nodeids:
        masked = _digitless(nodeid)
        if masked is not None:
            grouped.setdefault(masked, []).append(nodeid)
    return grouped


def renamed_outcomes(outcomes: Mapping[str, str], known: Iterable[str]) -> dict[str, str]:
    """``outcomes`` with a ``passed`` for each parametrized test of ``known`` it does not
    report, when the same function's tests it reports under ids ``known`` lacks, that differ
    from those in their digits alone, are as many and all passed: the same tests under
    parameter ids that change from run to run (the time of day)."""
    known = set(known)
    missing = _by_digitless(nodeid for nodeid in known if nodeid not in outcomes)
    new = _by_digitless(nodeid for nodeid in outcomes if nodeid not in known)
    merged = dict(outcomes)
    for function, old_ids in missing.items():
        now = new.get(function, [])
        if len(now) == len(old_ids) and all(outcomes[n] == "passed" for n in now):
            merged.update(dict.fromkeys(old_ids, "passed"))
    return merged


def target_passes(
    outcomes: Mapping[str, str], collection_errors: Collection[str], target: str
) -> bool:
    """Whether a failing test passes, given each test's outcome and the modules that failed to
    collect; for a failing module, whether it collects and every test of it passes."""
    if "::" in target or target in collection_errors:
        return outcomes.get(target) == "passed"
    tests = [o for nodeid, o in outcomes.items() if _module(nodeid) == target]
    return bool(tests) and all(o in OK_OUTCOMES for o in tests)


def _listing(nodeids: list[str]) -> str:
    shown = ", ".join(nodeids[:_SHOWN])
    return shown if len(nodeids) <= _SHOWN else f"{shown} and {len(nodeids) - _SHOWN} more"


def _how(run: RunResult, target: str) -> str:
    """How a target ended in a run, in a few words."""
    return _failure_text(run, target) or run.outcomes.get(target, "no result")


def _failure_text(run: RunResult, target: str) -> str | None:
    """The exception a failing test (or a module's collection) ended on in ``run``."""
    return run.failures.get(target) or run.collection_errors.get(target)


def judge(
    run: RunResult,
    targets: Iterable[str],
    baseline: Baseline,
    *,
    stage: str,
    modules: set[str] | None = None,
) -> ValidationStage:
    """One stage's result: ``targets`` must pass, and nothing that passed before may fail.

    ``modules`` limits the "passed before" check to the tests of those modules.
    """
    if run.error is not None:
        return ValidationStage(
            stage=stage, passed=False, detail=run.error, duration_s=run.duration_s
        )
    targets = list(targets)
    outcomes = renamed_outcomes(run.outcomes, [*baseline.outcomes, *targets])
    still = [t for t in targets if not target_passes(outcomes, run.collection_errors, t)]
    new = _newly_failing(run, outcomes, baseline, modules)
    return ValidationStage(
        stage=stage,
        passed=not still and not new,
        tests=len(run.outcomes),
        still_failing=still,
        new_failures=new,
        detail=_stage_detail(run, still, new, baseline.partial),
        duration_s=round(run.duration_s, 3),
    )


def _newly_failing(
    run: RunResult, outcomes: Mapping[str, str], baseline: Baseline, modules: set[str] | None
) -> list[str]:
    """Tests (of ``modules``, if given) that passed before and do not now (in ``outcomes``,
    the run's as :func:`renamed_outcomes` reads them), then, when the "before" is incomplete,
    failing tests it has no result for, then the collectors that newly fail to collect."""
    broken = sorted(c for c in run.collection_errors if c not in baseline.collection_errors)
    failing = [
        nodeid
        for nodeid, outcome in baseline.outcomes.items()
        if outcome in OK_OUTCOMES
        and (modules is None or _module(nodeid) in modules)
        and outcomes.get(nodeid, "missing") not in OK_OUTCOMES
        and _module(nodeid) not in broken  # its module's collection error says it all
    ]
    return failing + _unseen_failing(outcomes, baseline) + broken


def _unseen_failing(outcomes: Mapping[str, str], baseline: Baseline) -> list[str]:
    """Failing tests a partial "before" has no result for (none when it is complete), but
    those of a module that failed to collect before: its target says how they end."""
    if not baseline.partial:
        return []
    unseen = [nodeid for nodeid in outcomes if nodeid not in baseline.outcomes]
    return [
        nodeid
        for nodeid in unseen
        if outcomes[nodeid] not in OK_OUTCOMES and _module(nodeid) not in baseline.collection_errors
    ]


def _stage_detail(run: RunResult, still: list[str], new: list[str], partial: bool) -> str:
    """A stage's result in a sentence, the graver news first."""
    if new:
        before = "passed before or have no result before" if partial else "passed before"
        detail = f"{len(new)} test(s) that {before} now fail: {_listing(new)}"
        if still:
            detail += f"; and {len(still)} failing test(s) still fail"
        return detail
    if still:
        why = "; ".join(f"{t}: {_how(run, t)}" for t in still[:2])
        return f"{len(still)} failing test(s) still fail ({why})"
    return f"{len(run.outcomes)} test(s) ran; the failing tests pass and nothing new fails"


def target_selection(
    base_args: list[str], modules: list[str], root: Path, cwd: Path
) -> tuple[list[str], bool]:
    """What the targets stage runs, and whether that is the whole original run too.

    The failing tests' modules, but only as much of them as the original run asked for: when
    it named tests one by one (``tests/test_a.py::test_x``), those tests. When every path the
    run named lies in those modules, the targets stage runs the whole run, and the suite stage
    need not run it again.
    """
    wanted = {os.path.normpath(root / module): module for module in modules}
    chosen: list[str] = []
    named: set[str] = set()
    outside = not base_args
    for arg in base_args:
        module = wanted.get(os.path.normpath(cwd / arg.split("::", 1)[0]))
        if module is None:
            outside = True
            continue
        chosen.append(arg)
        named.add(module)
    chosen += [str(root / module) for module in modules if module not in named]
    return chosen, not outside and named == set(modules)


def _within(run: RunResult, modules: set[str]) -> RunResult:
    """What ``run`` showed of the tests and collectors of ``modules``."""
    return RunResult(
        outcomes=_of_modules(run.outcomes, modules),
        collection_errors=_of_modules(run.collection_errors, modules),
        failures=_of_modules(run.failures, modules),
        exit_status=run.exit_status,
        duration_s=run.duration_s,
        error=run.error,
    )


def _of_modules(by_nodeid: dict[str, str], modules: set[str]) -> dict[str, str]:
    return {nodeid: text for nodeid, text in by_nodeid.items() if _module(nodeid) in modules}


def one_run_suffices(baseline: Baseline, modules: Collection[str]) -> bool:
    """Whether one re-run of the whole run is cheaper than the targets stage and then it.

    True when the run being debugged is small, or the targets' modules hold at least half of
    its tests: then a passing candidate saves a start-up, and a failing one costs little more.
    """
    total = len(baseline.outcomes)
    inside = sum(1 for nodeid in baseline.outcomes if _module(nodeid) in modules)
    return total <= SMALL_RUN or 2 * inside >= total


def reproduces(
    targets: list[str], *, runner: TestRunner, baseline: Baseline, root: Path
) -> bool | str:
    """Whether ``targets`` fail again when re-run with nothing changed, run as a candidate's
    first stage would run them.

    A candidate that changes nothing where the tests pass (a None guard where the value is
    never None) is proven only by a failure that repeats: one that passes when run again is
    flaky, and would let any such candidate through. True when some target fails again, False
    when every one passes; the re-run's error (a text) when it could not tell.
    """
    passed = passing(targets, runner=runner, baseline=baseline, root=root)
    return passed if isinstance(passed, str) else len(passed) < len(set(targets))


def passing(
    targets: list[str], *, runner: TestRunner, baseline: Baseline, root: Path
) -> set[str] | str:
    """Which of ``targets`` pass when re-run on the tree as it is, run as a candidate's first
    stage would run them; the re-run's error (a text) when it could not tell."""
    run = runner.run(_plan(targets, runner, baseline, root).first_run)
    if run.error is not None:
        return run.error
    outcomes = renamed_outcomes(run.outcomes, [*baseline.outcomes, *targets])
    return {t for t in targets if target_passes(outcomes, run.collection_errors, t)}


def validate(
    candidate: Candidate,
    targets: list[str],
    *,
    workspace: Workspace,
    runner: TestRunner,
    baseline: Baseline,
    keep: bool,
    elsewhere: Collection[str] = (),
) -> Verdict:
    """Apply ``candidate``, run both stages, and keep it (if ``keep``) only if both pass.

    With ``keep`` false (suggest mode) a candidate that passes is restored all the same; the
    files are restored byte for byte whenever it does not pass.

    One root cause at a time: a failing test that a second fault failed too now fails on
    that other cause (its :func:`failure_key` is in ``elsewhere``, the other failures of the
    run). It no longer counts against this candidate, as long as some of the candidate's own
    failing tests pass; the verdict names it in ``moved``.

    A pending baseline is taken the first time a re-run is not clean: the candidate's files
    are restored first, so that it is the "before", and the candidate is then tried again.
    """
    try:
        return _validate(
            candidate,
            targets,
            workspace=workspace,
            runner=runner,
            baseline=baseline,
            keep=keep,
            elsewhere=elsewhere,
        )
    except _BaselineNeeded:
        baseline.complete()  # the trial ended: the files are as they were before it
    return _validate(
        candidate,
        targets,
        workspace=workspace,
        runner=runner,
        baseline=baseline,
        keep=keep,
        elsewhere=elsewhere,
    )


class _BaselineNeeded(Exception):
    """A re-run was not clean and the complete "before" has not been taken yet."""


def _validate(
    candidate: Candidate,
    targets: list[str],
    *,
    workspace: Workspace,
    runner: TestRunner,
    baseline: Baseline,
    keep: bool,
    elsewhere: Collection[str],
) -> Verdict:
    started = clock.perf_counter()
    plan = _plan(targets, runner, baseline, workspace.project.root)
    with workspace.trial(candidate.edits) as trial:
        first = runner.run(plan.first_run)
        # Run whole, the targets stage looks at the targets' modules only, as if run alone.
        first_targets = _within(first, plan.modules) if plan.at_once else first
        targets, moved = _own_targets(first_targets, targets, elsewhere)
        _require_baseline(first_targets, baseline, plan.modules)
        stage = judge(first_targets, targets, baseline, stage="targets", modules=plan.modules)
        if not stage.passed:
            return Verdict(False, stage.detail, [stage])
        # When the targets were all the run asked for, that run was the whole run already.
        suite = first if plan.whole_run or plan.at_once else runner.run(None)
        _require_baseline(suite, baseline)
        whole = _suite_stage(suite, targets, baseline, plan)
        if not whole.passed:
            return Verdict(False, whole.detail, [stage, whole])
        if keep:
            trial.keep()
    reason = _passing_reason(clock.perf_counter() - started, moved)
    return Verdict(True, reason, [stage, whole], suite, moved, trial.originals)


class _Plan(NamedTuple):
    """How a candidate's two stages are run."""

    #: The failing tests' modules.
    modules: set[str]
    #: What the first run runs: the targets stage's selection, or None for the whole run.
    first_run: list[str] | None
    #: The targets stage's selection is the whole original run.
    whole_run: bool
    #: One run of the whole run judges both stages (:func:`one_run_suffices`).
    at_once: bool


def _plan(targets: list[str], runner: TestRunner, baseline: Baseline, root: Path) -> _Plan:
    modules = sorted({_module(target) for target in targets})
    selection, whole_run = target_selection(runner.base_args, modules, root, runner.cwd)
    at_once = not whole_run and one_run_suffices(baseline, modules)
    return _Plan(set(modules), None if at_once else selection, whole_run, at_once)


def _own_targets(
    run: RunResult, targets: list[str], elsewhere: Collection[str]
) -> tuple[list[str], dict[str, str]]:
    """The targets still this candidate's own, and those that moved to another cause of the
    run (see :func:`_moved`)."""
    moved = _moved(run, targets, elsewhere) if elsewhere else {}
    if len(moved) == len(targets):
        return targets, {}  # nothing of its own was fixed: that is no progress
    return [target for target in targets if target not in moved], moved


def _require_baseline(
    run: RunResult, baseline: Baseline, modules: Collection[str] | None = None
) -> None:
    """Stop the trial when the complete "before" is pending and ``run`` is not clean."""
    if baseline.pending is not None and not clean(run, baseline, modules):
        raise _BaselineNeeded


def _suite_stage(
    suite: RunResult, targets: list[str], baseline: Baseline, plan: _Plan
) -> ValidationStage:
    """The suite stage's result, saying when the first run stood in for it (and then taking
    no time of its own)."""
    whole = judge(suite, targets, baseline, stage="suite")
    if plan.whole_run:
        whole.detail += " (the targets stage ran the whole run)"
    elif plan.at_once and whole.passed:
        whole.detail += " (one run of the whole run judged both stages)"
    if plan.whole_run or plan.at_once:
        whole.duration_s = 0.0
    return whole


def _passing_reason(elapsed: float, moved: dict[str, str]) -> str:
    reason = f"the failing tests pass and the whole run shows nothing new failing ({elapsed:.1f}s)"
    if moved:
        reason += (
            f"; {len(moved)} of them now fail on another failure of this run: "
            f"{_listing(list(moved))}"
        )
    return reason
