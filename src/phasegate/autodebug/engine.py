"""The auto-debug loop: group failures by cause, propose, validate, keep or escalate, localize.

For each root cause (several tests failing on one typo are one), in the order the failures
were seen:

1. its pattern proposes candidates against the files as they are now (one that would read a
   name nothing binds, :mod:`.unbound`, is dropped: it could only fail on a ``NameError``);
2. at most ``max_iterations`` of them, best first, are validated
   (:func:`~phasegate.autodebug.validate.validate`);
3. the first that passes is kept: its diff is written, and in apply mode it is left in the
   tree (the whole-suite run it passed becomes the new baseline, so later repairs are judged
   on top);
4. otherwise the failure is escalated, with every attempt and why it was rejected.

Failures without a repair (assertions, exceptions no pattern covers, escalations) are then
localized together in one extra run with per-test coverage (:mod:`.localize`). An assertion
or other exception may be a None that a lost guard no longer stops: in the functions the
ranking suspects most, guards are put back (:mod:`.patterns.lost_guards`) and validated as
any candidate is; one that passes repairs the failure. A guard changes nothing where the value
is not None, so the failure is first re-run as it is: one that passes then is flaky, and no
guard is tried for it.

Last, a None guard kept at one use of a None while a None failure of the same file is left
unrepaired, or while a failure left runs its function (read from the localization's per-test
coverage), is withdrawn (:mod:`.partial_repairs`), and its diff removed (kept when the file
keeps the guard: a later repair rewrote its lines).
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from phasegate import clock
from phasegate.autodebug.diagnosis import Candidate, Diagnosis
from phasegate.autodebug.diffs import unified_diff
from phasegate.autodebug.localize import Spectrum, collect_spectrum, rank_functions
from phasegate.autodebug.partial_repairs import KeptRepair, PartialGuards
from phasegate.autodebug.patterns.base import Pattern, short
from phasegate.autodebug.patterns.lost_guards import SUSPECTS_READ, lost_guard_candidates
from phasegate.autodebug.patterns.unbound_imports import unbound_import_candidates
from phasegate.autodebug.patterns.undefined_attributes import undefined_attribute_candidates
from phasegate.autodebug.patterns.unknown_attributes import unknown_attribute_candidates
from phasegate.autodebug.patterns.unknown_keywords import unknown_keyword_candidates
from phasegate.autodebug.project import Project
from phasegate.autodebug.runner import TestRunner
from phasegate.autodebug.settings import AutodebugSettings
from phasegate.autodebug.unbound import unbound_names
from phasegate.autodebug.validate import (
    Baseline,
    Verdict,
    failure_key,
    reproduces,
    target_passes,
    validate,
)
from phasegate.autodebug.workspace import EditRefused, Workspace
from phasegate.model.autodebug import (
    AutodebugCounts,
    AutodebugFailure,
    AutodebugReport,
    CandidateAttempt,
    ContextFigures,
    Escalation,
    Repair,
    SuspiciousFunction,
)

__all__ = ["DIFF_FOLDER", "Engine", "FailedTest", "remap_line", "unified_diff"]

#: Diffs are written under this folder of the artifacts folder.
DIFF_FOLDER = "autodebug"
_UNREPAIRED = ("assertion", "other")
#: Outcomes localization leaves as they are: nothing was tried, or a repair fixed it already.
_SETTLED = ("not-attempted", "fixed-by-another-repair")
#: Why a candidate kept for a localized failure repairs it, by its kind (else a None guard).
_WHY_KEPT = {
    "typo": "an attribute nothing defines is read, and shows only as a wrong value",
    "keyword-typo": "a keyword its function does not take is passed, and its error caught",
    "missing-import": "a name nothing binds is read, and its error caught",
}


@dataclass
class FailedTest:
    """A failing test (or collector) and the diagnosis made where it ran."""

    nodeid: str
    diagnosis: Diagnosis


@dataclass
class _Group:
    diagnosis: Diagnosis
    tests: list[str] = field(default_factory=list)


def remap_line(old: str, new: str, line: int) -> int | None:
    """Where line ``line`` of ``old`` is in ``new``, or None if that line itself changed."""
    matcher = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False)
    for tag, i1, i2, j1, _j2 in matcher.get_opcodes():
        if i1 <= line - 1 < i2:
            return j1 + (line - 1 - i1) + 1 if tag == "equal" else None
    return None


class Engine:
    """Runs auto-debug over the failures of one pytest run."""

    def __init__(
        self,
        *,
        project: Project,
        patterns: Sequence[Pattern],
        runner: TestRunner,
        workspace: Workspace,
        settings: AutodebugSettings,
        mode: Literal["suggest", "apply"],
        baseline: Baseline,
        write: Callable[[str, str], object],
        remove: Callable[[str], object],
        progress: Callable[[str], None] | None = None,
        localize_args: Sequence[str] = (),
    ) -> None:
        self.project = project
        self.patterns = {pattern.name: pattern for pattern in patterns}
        self.runner = runner
        self.workspace = workspace
        self.settings = settings
        self.mode = mode
        self.baseline = baseline
        self.write = write
        self.remove = remove
        self.progress = progress or (lambda _message: None)
        self.localize_args = list(localize_args)
        self.warnings: list[str] = []
        self._changed: dict[str, list[tuple[str, str]]] = {}
        self._causes: dict[str, _Group] = {}
        #: For each failure localized, the suspects a lost guard is looked for in (more than
        #: the report lists).
        self._suspects: dict[str, list[SuspiciousFunction]] = {}
        self._unbound_before: dict[tuple[str, str], set[str] | None] = {}
        self._kept: list[KeptRepair] = []
        #: For each failure fixed by another repair, the repairs kept when it was seen so.
        self._fixed_by: dict[str, list[str]] = {}
        #: The run's per-test coverage, once localization has read it.
        self._spectrum: Spectrum | None = None

    def run(self, failed: Sequence[FailedTest], *, run_id: str | None = None) -> AutodebugReport:
        """Work on every failure and return the report (diffs are written on the way)."""
        started = clock.utc_now()
        groups = _group(failed)
        self._causes = {_key(group): group for group in groups}
        entries: list[AutodebugFailure] = []
        try:
            for index, group in enumerate(groups):
                entries.append(self._attempted_or_not(index, group))
            self._localize(groups, entries)
        except Exception:
            # The guards kept are judged all the same (with no spectrum, fail closed; the
            # failures not reached count as left): none that must be withdrawn stays in the
            # tree because a later step broke.
            reached = len(entries)
            entries += [
                self._not_attempted(index, group, "auto-debug stopped before it")
                for index, group in enumerate(groups[reached:], start=reached)
            ]
            self._withdraw_partial_guards(entries)
            raise
        self._withdraw_partial_guards(entries)
        finished = clock.utc_now()
        return AutodebugReport(
            run_id=run_id,
            mode=self.mode,
            started_at=started,
            finished_at=finished,
            duration_s=(finished - started).total_seconds(),
            index=self._index_backend(),
            context=self._context_figures(),
            test_files=list(self.settings.test_files),
            counts=_count(entries),
            failures=entries,
            warnings=self.warnings,
        )

    def _attempted_or_not(self, index: int, group: _Group) -> AutodebugFailure:
        """The entry of the ``index``-th failure ``group``: worked on, or not attempted when
        it is beyond ``max_failures``."""
        if index >= self.settings.max_failures:
            why = f"beyond max_failures = {self.settings.max_failures}"
            return self._not_attempted(index, group, why)
        return self._work_on(_entry_id(index, group), group)

    def _not_attempted(self, index: int, group: _Group, why: str) -> AutodebugFailure:
        """The entry of the ``index``-th failure ``group``, not attempted (``why``)."""
        entry = self._entry(_entry_id(index, group), group, "not-attempted", None, [], 0.0)
        entry.escalation = Escalation(reason=why, tried=0)
        return entry

    def _withdraw_partial_guards(self, entries: list[AutodebugFailure]) -> None:
        """The run's last step: :class:`PartialGuards` withdraws the None guards kept that
        may mask a failure left."""
        PartialGuards(
            project=self.project,
            workspace=self.workspace,
            runner=self.runner,
            baseline=self.baseline,
            apply=self.mode == "apply",
            write=self.write,
            remove=self.remove,
            progress=self.progress,
            warnings=self.warnings,
        ).withdraw(entries, self._kept, self._fixed_by, self._spectrum)

    # -- one failure ------------------------------------------------------------------------

    def _work_on(self, entry_id: str, group: _Group) -> AutodebugFailure:
        started = clock.perf_counter()
        diagnosis = group.diagnosis
        if self._fixed_already(group):
            entry = self._entry(entry_id, group, "fixed-by-another-repair", None, [], 0.0)
            self._fixed_by_earlier(entry)
            return entry
        self._remap(diagnosis)
        pattern = self.patterns.get(diagnosis.pattern)
        candidates = self._candidates(pattern, diagnosis)
        attempts, kept = self._first_kept(entry_id, "", candidates, group)
        elapsed = clock.perf_counter() - started
        if kept is not None:
            entry = self._entry(entry_id, group, "repaired", kept, attempts, elapsed)
            entry.repair = self._write_repair(entry_id, kept, attempts[-1].diff)
            return entry
        entry = self._entry(
            entry_id, group, "escalated", candidates[0] if candidates else None, attempts, elapsed
        )
        if candidates:
            entry.explanation += " (not confirmed: no candidate passed the tests)"
        entry.escalation = Escalation(
            reason=self._why_escalated(pattern, diagnosis, candidates, attempts),
            tried=len(attempts),
        )
        return entry

    def _write_repair(self, entry_id: str, candidate: Candidate, diff: str) -> Repair:
        """Write a kept candidate's diff at once (an interrupted run leaves a record of what it
        applied), and return the repair that names it."""
        diff_file = f"{DIFF_FOLDER}/{entry_id}.diff"
        self.write(diff_file, diff)
        return Repair(
            files=candidate.paths, diff=diff, diff_file=diff_file, applied=self.mode == "apply"
        )

    def applied(self) -> list[tuple[str, list[str]]]:
        """The repairs this run has left in the tree so far (none in suggest mode): each
        failure's id and the files its repair changed."""
        if self.mode != "apply":
            return []
        return [(repair.entry_id, repair.candidate.paths) for repair in self._kept]

    def _fixed_by_earlier(self, entry: AutodebugFailure, when: str = "an earlier") -> None:
        """Say that another repair of this run (kept before ``entry`` was tried, or after:
        ``when``) fixed its tests, and which were kept."""
        entry.outcome = "fixed-by-another-repair"
        entry.explanation += f"; the tests pass since {when} repair of this run"
        self._fixed_by[entry.id] = [repair.entry_id for repair in self._kept]

    def _first_kept(
        self, entry_id: str, what: str, candidates: list[Candidate], group: _Group
    ) -> tuple[list[CandidateAttempt], Candidate | None]:
        """Validate ``candidates`` in turn until one is kept: the attempts, and that one."""
        attempts: list[CandidateAttempt] = []
        for rank, candidate in enumerate(candidates, start=1):
            self.progress(
                f"{entry_id}: trying {what}{rank}/{len(candidates)}: {candidate.description}"
            )
            befores = {edit.path: self.project.read(edit.path) or "" for edit in candidate.edits}
            attempts.append(self._attempt(entry_id, rank, candidate, group, befores))
            if attempts[-1].status == "kept":
                return attempts, candidate
        return attempts, None

    def _candidates(self, pattern: Pattern | None, diagnosis: Diagnosis) -> list[Candidate]:
        if pattern is None or diagnosis.error_class in _UNREPAIRED:
            return []
        try:
            proposed = pattern.propose(diagnosis, self.project)
        except Exception as exc:  # noqa: BLE001 - a faulty pattern must not stop the others
            self.warnings.append(
                f"pattern {diagnosis.pattern!r} failed to propose repairs: "
                f"{type(exc).__name__}: {exc}"
            )
            return []
        return self._usable(proposed)

    def _usable(self, proposed: list[Candidate]) -> list[Candidate]:
        """The best ``max_iterations`` candidates that edit only editable files and change
        them, without repeats, and read no name nothing binds."""
        unique: dict[tuple[str, ...], Candidate] = {}
        for candidate in sorted(proposed, key=lambda c: -c.score):
            if len(unique) >= self.settings.max_iterations:
                break
            key = tuple(f"{e.path}\0{e.text}" for e in candidate.edits)
            if key not in unique and self._worth_trying(candidate):
                unique[key] = candidate
        return list(unique.values())

    def _worth_trying(self, candidate: Candidate) -> bool:
        """Whether ``candidate`` edits only editable files, changes them, and reads no name
        nothing binds."""
        edits = candidate.edits
        if not all(self.project.editable(e.path) for e in edits):
            return False  # never offered: test files and files outside the project
        if all(self.project.read(e.path) == e.text for e in edits):  # none at all is no change
            return False
        # One that reads an unbound name could only fail on a NameError: not worth a re-run.
        return not any(self._reads_unbound(e.path, e.text) for e in edits)

    def _reads_unbound(self, path: str, text: str) -> bool:
        """Whether ``text`` reads a name nothing binds that the file as it is did not."""
        if not path.endswith(".py"):
            return False
        before = self.project.read(path) or ""
        if (path, before) not in self._unbound_before:
            self._unbound_before[(path, before)] = unbound_names(before, path)
        old = self._unbound_before[(path, before)]
        if old is None:
            return False
        new = unbound_names(text, path)
        return new is not None and bool(new - old)

    def _attempt(
        self,
        entry_id: str,
        rank: int,
        candidate: Candidate,
        group: _Group,
        befores: dict[str, str],
    ) -> CandidateAttempt:
        started = clock.perf_counter()
        base = _described(rank, candidate, befores)
        try:
            verdict = validate(
                candidate,
                group.tests,
                workspace=self.workspace,
                runner=self.runner,
                baseline=self.baseline,
                keep=self.mode == "apply",
                elsewhere=[key for key in self._causes if key != _key(group)],
            )
        except EditRefused as exc:
            return CandidateAttempt(
                **base, status="error", reason=str(exc), duration_s=clock.perf_counter() - started
            )
        if verdict.passed:
            kept = KeptRepair.from_trial(entry_id, candidate, verdict.originals, verdict.suite)
            self._kept.append(kept)
            self._take_passed(verdict, candidate, befores)
        return CandidateAttempt(
            **base,
            status="kept" if verdict.passed else "rejected",
            reason=verdict.reason,
            stages=verdict.stages,
            duration_s=round(clock.perf_counter() - started, 3),
        )

    def _take_passed(self, verdict: Verdict, candidate: Candidate, befores: dict[str, str]) -> None:
        """A candidate passed: each test it moved on to another cause of the run joins that
        cause; in apply mode its suite run is the new baseline, and its files before and
        after are kept to follow later failures' lines through it."""
        for test, key in verdict.moved.items():
            other = self._causes[key]  # that cause is now this test's failure too
            if test not in other.tests:
                other.tests.append(test)
        if self.mode != "apply" or verdict.suite is None:
            return
        self.baseline.update(verdict.suite)
        for edit in candidate.edits:
            self._changed.setdefault(edit.path, []).append((befores[edit.path], edit.text))

    def _fixed_already(self, group: _Group) -> bool:
        """In apply mode, an earlier repair may have fixed this failure's tests too."""
        outcomes, collection_errors = self.baseline.outcomes, self.baseline.collection_errors
        return bool(self._changed) and all(
            target_passes(outcomes, collection_errors, test) for test in group.tests
        )

    def _remap(self, diagnosis: Diagnosis) -> None:
        """Follow the fault's lines through repairs kept earlier in this run."""
        if diagnosis.path is None or diagnosis.line is None:
            return
        for old, new in self._changed.get(diagnosis.path, []):
            line = remap_line(old, new, diagnosis.line)
            if line is None:
                return
            diagnosis.line = line
            if diagnosis.end_line is not None:  # None as well when that line itself changed
                diagnosis.end_line = remap_line(old, new, diagnosis.end_line)

    def _why_escalated(
        self,
        pattern: Pattern | None,
        diagnosis: Diagnosis,
        candidates: list[Candidate],
        attempts: list[CandidateAttempt],
    ) -> str:
        if attempts:
            last = attempts[-1]
            return (
                f"none of the {len(attempts)} candidate(s) tried passed validation "
                f"(the last: {last.reason})"
            )
        if diagnosis.error_class in _UNREPAIRED:
            return "auto-debug never repairs this class of failure; see the suspicious functions"
        if not self.project.editable(diagnosis.path):
            return self.project.why_not_editable(diagnosis.path)
        if pattern is None:
            return f"the pattern {diagnosis.pattern!r} is not loaded in this process"
        return pattern.explain(diagnosis, None)

    def _entry(
        self,
        entry_id: str,
        group: _Group,
        outcome: Literal[
            "repaired", "escalated", "localized", "fixed-by-another-repair", "not-attempted"
        ],
        candidate: Candidate | None,
        attempts: list[CandidateAttempt],
        elapsed: float,
    ) -> AutodebugFailure:
        diagnosis = group.diagnosis
        pattern = self.patterns.get(diagnosis.pattern)
        try:
            explanation = pattern.explain(diagnosis, candidate) if pattern else diagnosis.message
        except Exception as exc:  # noqa: BLE001 - an explanation must never stop the report
            explanation = f"{diagnosis.exc_type}: {diagnosis.message}"
            self.warnings.append(f"pattern {diagnosis.pattern!r} failed to explain: {exc}")
        return AutodebugFailure(
            id=entry_id,
            error_class=diagnosis.error_class,
            pattern=diagnosis.pattern,
            kind=diagnosis.kind,
            tests=list(group.tests),
            exc_type=diagnosis.exc_type,
            message=diagnosis.message,
            path=diagnosis.path,
            line=diagnosis.line,
            explanation=explanation,
            cpython_suggestion=diagnosis.cpython_suggestion,
            outcome=outcome,
            attempts=attempts,
            facts=diagnosis.facts,
            duration_s=round(elapsed, 3),
        )

    # -- localization -----------------------------------------------------------------------

    def _localize(self, groups: list[_Group], entries: list[AutodebugFailure]) -> None:
        wanted = _unrepaired(groups, entries)
        tests_known = [(g, e) for g, e in wanted if any("::" in t for t in g.tests)]
        if self._localizes(tests_known, entries):
            self._rank_suspects(tests_known)
        self._settle_unrepaired(wanted)
        for group, entry in wanted:
            if entry.outcome == "localized" or self._seen_none_unranked(group, entry):
                self._put_back_lost_guard(group, entry)
        self._settle_fixed_later(wanted)

    def _seen_none_unranked(self, group: _Group, entry: AutodebugFailure) -> bool:
        """Whether a failure nothing could rank functions for (a collection error: no test
        ran) had a parameter None in its frames: a lost guard of it is looked for where it
        was seen, as for a failure localized."""
        seen = bool(group.diagnosis.facts.get("none_parameters"))
        unranked = entry.outcome == "escalated" and not entry.suspicious
        return self.settings.localize and seen and unranked

    def _settle_fixed_later(self, wanted: list[tuple[_Group, AutodebugFailure]]) -> None:
        """A failure left localized whose tests pass since a guard kept after it was tried (in
        apply mode) is fixed by that repair, not left failing."""
        for group, entry in wanted:
            if entry.outcome == "localized" and self._fixed_already(group):
                self._fixed_by_earlier(entry, "a later")

    def _localizes(
        self,
        tests_known: list[tuple[_Group, AutodebugFailure]],
        entries: list[AutodebugFailure],
    ) -> bool:
        """Whether localization is on, has tests to rank functions for, and has coverage.py
        (a warning says when it has not)."""
        if not self.settings.localize or not tests_known:
            return False
        if all(entry.outcome == "not-attempted" for entry in entries):
            return False
        from phasegate import optional

        if optional.is_available("coverage"):
            return True
        self.warnings.append(
            "localization needs coverage.py, which is not installed; install it with: "
            "pip install 'pytest-phasegate[autodebug]'"
        )
        return False

    def _rank_suspects(self, tests_known: list[tuple[_Group, AutodebugFailure]]) -> None:
        """Re-run the suite with per-test coverage and rank each failure's suspicious
        functions."""
        self.progress("localizing: re-running the suite with per-test coverage")
        spectrum = collect_spectrum(
            self.runner, self.project, self.runner.scratch, self.localize_args
        )
        if spectrum.error is not None:
            self.warnings.append(f"localization could not run: {spectrum.error}")
            return
        self._spectrum = spectrum
        for group, entry in tests_known:
            failing = [t for t in group.tests if "::" in t]
            top = self.settings.localize_top
            ranked = rank_functions(spectrum, failing, top=max(top, SUSPECTS_READ))
            entry.suspicious = ranked[:top]
            self._suspects[entry.id] = ranked
            if not entry.suspicious:
                self.warnings.append(
                    f"{entry.id}: localization ranked no function: none of its failing tests "
                    f"({', '.join(failing[:3])}) ran a project function in the re-run under "
                    "coverage (did its -k, -m or paths leave them out?)"
                )

    def _put_back_lost_guard(self, group: _Group, entry: AutodebugFailure) -> None:
        """Try guards put back in the suspicious functions, and the attribute names nothing
        defines there respelt; keep the first that passes."""
        if self._fixed_already(group):  # a guard kept for an earlier failure of this run
            self._fixed_by_earlier(entry)
            return
        started = clock.perf_counter()
        ranked = self._suspects.get(entry.id, entry.suspicious)
        proposed = lost_guard_candidates(group.diagnosis, self.project, ranked)
        proposed += unknown_attribute_candidates(self.project, entry.suspicious)
        proposed += undefined_attribute_candidates(self.project, ranked)
        proposed += unknown_keyword_candidates(self.project, entry.suspicious)
        proposed += unbound_import_candidates(self.project, entry.suspicious)
        candidates = self._usable(proposed)
        if candidates and not self._fails_again(group, entry):
            candidates = []
        attempts, kept = self._first_kept(entry.id, "a lost None guard ", candidates, group)
        entry.attempts.extend(attempts)
        if kept is not None:
            entry.outcome = "repaired"
            entry.escalation = None
            why = _WHY_KEPT.get(kept.kind, "a None flows on where a guard was lost")
            entry.explanation = f"{short(group.diagnosis.exc_type)}: {why}; {kept.description}"
            entry.repair = self._write_repair(entry.id, kept, attempts[-1].diff)
        entry.duration_s = round(entry.duration_s + clock.perf_counter() - started, 3)

    def _fails_again(self, group: _Group, entry: AutodebugFailure) -> bool:
        """Whether the failure repeats with nothing changed; if not, the entry says why no
        guard is tried (a guard passes wherever a flaky test happens to pass)."""
        self.progress(f"{entry.id}: re-running the failing tests unchanged before any guard")
        again = reproduces(
            group.tests, runner=self.runner, baseline=self.baseline, root=self.project.root
        )
        if again is True:
            return True
        if again is False:
            why = "the failing tests pass when re-run unchanged: the failure is flaky"
        else:
            why = f"the failing tests could not be re-run unchanged ({again})"
        entry.explanation += f"; {why}, so no lost None guard is tried"
        self.warnings.append(f"{entry.id}: {why}; no lost None guard was tried")
        return False

    @staticmethod
    def _settle_unrepaired(wanted: list[tuple[_Group, AutodebugFailure]]) -> None:
        for _group, entry in wanted:
            if entry.error_class not in _UNREPAIRED or entry.outcome in _SETTLED:
                continue
            if entry.suspicious:
                entry.outcome = "localized"
                entry.escalation = None
            else:
                entry.outcome = "escalated"
                entry.escalation = Escalation(
                    reason="auto-debug never repairs this class of failure, and no function "
                    "could be ranked as suspicious",
                    tried=0,
                )

    def _index_backend(self) -> str | None:
        cached = self.project.__dict__.get("index")
        return getattr(cached, "backend", None)

    def _context_figures(self) -> ContextFigures | None:
        """The context index's queries, if the run built the index."""
        index = self.project.__dict__.get("index")
        latencies = getattr(index, "latencies_ms", None)
        if index is None or latencies is None:
            return None
        return ContextFigures(
            queries=len(latencies),
            avg_latency_ms=round(sum(latencies) / len(latencies), 3) if latencies else None,
            relevance_scores=list(getattr(index, "relevance", [])),
        )


def _key(group: _Group) -> str:
    """The failure of a group as re-runs report it (a test failing on the same message as
    the group's own has not moved on to another cause)."""
    return failure_key(group.diagnosis.exc_type, group.diagnosis.message)


def _described(rank: int, candidate: Candidate, befores: dict[str, str]) -> dict[str, object]:
    """What an attempt records of its candidate, whatever the tests say of it: its rank, kind,
    description, score, files, and the diff from the files as they were (``befores``)."""
    diff = "".join(
        unified_diff(edit.path, befores[edit.path], edit.text) for edit in candidate.edits
    )
    return {
        "rank": rank,
        "kind": candidate.kind,
        "description": candidate.description,
        "score": round(candidate.score, 4),
        "files": candidate.paths,
        "diff": diff,
    }


def _unrepaired(
    groups: list[_Group], entries: list[AutodebugFailure]
) -> list[tuple[_Group, AutodebugFailure]]:
    """The failures localization is for: those escalated, and those of the classes no pattern
    repairs (an assertion, another exception)."""
    return [
        (group, entry)
        for group, entry in zip(groups, entries, strict=True)
        if entry.outcome == "escalated" or entry.error_class in _UNREPAIRED
    ]


def _entry_id(index: int, group: _Group) -> str:
    """The report's id of the ``index``-th failure (from 0): its number and class."""
    return f"{index + 1:02d}-{group.diagnosis.error_class}"


def _group(failed: Sequence[FailedTest]) -> list[_Group]:
    groups: dict[tuple[object, ...], _Group] = {}
    for test in failed:
        key = test.diagnosis.root_cause()
        if test.diagnosis.path is None:
            key = (*key, test.nodeid)  # a failure without a place is its own cause
        group = groups.setdefault(key, _Group(test.diagnosis))
        if test.nodeid not in group.tests:
            group.tests.append(test.nodeid)
    return list(groups.values())


def _count(entries: list[AutodebugFailure]) -> AutodebugCounts:
    outcomes = Counter(entry.outcome for entry in entries)
    return AutodebugCounts(
        failures=len(entries),
        repaired=outcomes["repaired"],
        escalated=outcomes["escalated"],
        localized=outcomes["localized"],
        fixed_by_another_repair=outcomes["fixed-by-another-repair"],
        not_attempted=outcomes["not-attempted"],
        candidates_tried=sum(len(entry.attempts) for entry in entries),
    )
