"""Guards kept at the uses of a None while the run still fails on that None: withdrawn.

A None that comes from one place (an attribute a loop in ``__init__`` sets for every object,
a function's return) fails each test where it is read, each at its own use. A guard at one
use makes that use's tests pass and nothing else fail, so validation keeps it; yet the None
is still made where it was, and the other uses still fail. Such a partial repair hides the
fault it was meant to mend behind a tree that looks repaired: worse than none.

Which Nones come from one place cannot be read from one failure, so the run's failures are
taken together (which guards and why: :mod:`.withdrawals`): every ``none-guard`` kept in a
file where a None failure is left unrepaired is withdrawn, last kept first, and its failure
escalated with the reason; so is one whose function the tests of a failure left run, or may
run (:mod:`.masking_guards`). Rounds follow until none is left to withdraw: a failure
escalated in one round may call for the withdrawal of another guard. A failure whose tests
passed only once a withdrawn guard was in place is escalated too (one said fixed by another
repair, and, in apply mode, a repair kept after the guard whose tests fail when re-run once it
is taken out: :func:`unproven`; that repair is taken out too, and those kept after it re-run in
turn). In apply mode :class:`PartialGuards` (the engine's last step) takes the guard out of the
tree with :func:`undone`: on the file as the run left it, the lines the guard wrote are put back
as they were, as long as they are still there unchanged (a file nothing else changed gets back
the bytes and times its trial found); when a later repair rewrote one of them, or a text was
not UTF-8 (never read as empty), the guard stays in the file, and the escalation says so and
why (revert it by hand). Either way the failure is escalated, as in suggest mode. A repair at
the None's origin (a lost ``return``, an empty initial value) is left alone: it mends the place
the None comes from, not one of its uses.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from phasegate.autodebug.diagnosis import Candidate, FileEdit
from phasegate.autodebug.diffs import unified_diff
from phasegate.autodebug.localize import Spectrum
from phasegate.autodebug.project import Project
from phasegate.autodebug.runner import RunResult, TestRunner
from phasegate.autodebug.validate import Baseline, passing
from phasegate.autodebug.withdrawals import WhyWithdrawn, withdrawal_reasons
from phasegate.autodebug.workspace import Original, Workspace
from phasegate.model.autodebug import AutodebugFailure, Escalation

__all__ = [
    "KeptRepair",
    "PartialGuards",
    "escalate_fixed_by",
    "undone",
    "unproven",
    "withdraw",
]


@dataclass(frozen=True)
class KeptRepair:
    """A candidate validation kept for failure ``entry_id``, and its files before it: as text
    (None for a file that is not UTF-8 text) and as its trial found them (``originals``); and
    the whole run its trial passed (``trial``, when known)."""

    entry_id: str
    candidate: Candidate
    befores: Mapping[str, str | None]
    originals: Mapping[str, Original] = field(default_factory=dict)
    trial: RunResult | None = None

    @classmethod
    def from_trial(
        cls,
        entry_id: str,
        candidate: Candidate,
        originals: Mapping[str, Original],
        trial: RunResult | None = None,
    ) -> KeptRepair:
        """The repair kept for ``entry_id``, its texts before it read from the bytes its trial
        found (``originals``), with the whole run its trial passed (``trial``)."""
        befores = {path: _decoded(original.data) for path, original in originals.items()}
        return cls(entry_id, candidate, befores, dict(originals), trial)


def _decoded(data: bytes) -> str | None:
    """``data`` as text, as :meth:`~phasegate.autodebug.project.Project.read` reads a file (line
    endings kept), or None when it is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


class _Stays(Exception):
    """A repair's change cannot be taken out of a file; the message says why."""


def undone(before: str, after: str, current: str) -> str | None:
    """``current`` with the change from ``before`` to ``after`` taken out of it, or None when
    a later edit rewrote a line that change wrote, or the lines it wrote repeat right beside
    them or occur more than once in ``current`` (a later edit among or between such copies
    leaves no way to tell which one is the change's), or the change only removed lines
    (where to put them back is then a guess)."""
    old, new, now = (text.splitlines(keepends=True) for text in (before, after, current))
    where = _unchanged_lines(new, now)
    result = list(now)
    changes = difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in reversed(changes):  # from the end, so earlier places hold
        if tag == "equal":
            continue
        start = _still_at(where, j1, j2)
        if start is None or _repeats_beside(new, j1, j2) or _runs_of(new[j1:j2], now) > 1:
            return None
        result[start : start + j2 - j1] = old[i1:i2]
    return "".join(result)


def _still_at(where: Mapping[int, int], start: int, end: int) -> int | None:
    """Where lines ``start:end`` of a text are in a later one, if they are all still there,
    unchanged and in a row (``where``: :func:`_unchanged_lines`); None for no lines."""
    now = where.get(start)
    if now is None or start == end:
        return None
    return now if all(where.get(j) == now + j - start for j in range(start, end)) else None


def _repeats_beside(lines: list[str], start: int, end: int) -> bool:
    """Whether the block ``lines[start:end]`` could as well be read one line earlier or later:
    the line before it is its last line, or the line after it its first."""
    before = start > 0 and lines[start - 1] == lines[end - 1]
    return before or (end < len(lines) and lines[end] == lines[start])


def _runs_of(block: list[str], lines: list[str]) -> int:
    """How many times ``block`` occurs in ``lines`` as a run of lines."""
    size = len(block)
    return sum(lines[k : k + size] == block for k in range(len(lines) - size + 1))


def _unchanged_lines(old: list[str], new: list[str]) -> dict[int, int]:
    """Where each line of ``old`` that ``new`` keeps unchanged is in ``new``."""
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    return {i + k: j + k for i, j, size in matcher.get_matching_blocks() for k in range(size)}


def _without(repair: KeptRepair, guards: Sequence[KeptRepair]) -> tuple[KeptRepair, str] | None:
    """``repair``'s change as it would be on a tree without ``guards`` (kept before it, in that
    order), and its diff; None when a guard cannot be taken out of its texts (:func:`undone`)."""
    befores = dict(repair.befores)
    edits, diffs = [], []
    for edit in repair.candidate.edits:
        before = _undone_all(befores[edit.path], edit.path, guards)
        after = _undone_all(edit.text, edit.path, guards)
        if before is None or after is None:
            return None
        befores[edit.path] = before
        edits.append(FileEdit(edit.path, after))
        diffs.append(unified_diff(edit.path, before, after))
    without = replace(repair, candidate=replace(repair.candidate, edits=edits), befores=befores)
    return without, "".join(diffs)


def _in_files_of(repair: KeptRepair, others: Sequence[KeptRepair]) -> list[KeptRepair]:
    """The repairs of ``others`` that changed one of ``repair``'s files."""
    paths = set(repair.candidate.paths)
    return [other for other in others if paths & set(other.candidate.paths)]


def _undone_all(text: str | None, path: str, guards: Sequence[KeptRepair]) -> str | None:
    """``text`` of ``path`` with the changes ``guards`` made to that file taken out, the last
    kept first (each is undone on the text it left); None when one cannot be."""
    for guard in reversed(guards):
        for change in guard.candidate.edits:
            before = guard.befores[path] if change.path == path else ""
            if before is None:
                return None  # never taken out of the tree: the file was not UTF-8 text
            if change.path == path and text is not None:
                text = undone(before, change.text, text)
    return text


def withdraw(
    entry: AutodebugFailure,
    repair: KeptRepair,
    reason: WhyWithdrawn,
    *,
    left_because: str | None = None,
) -> None:
    """Turn the repaired ``entry`` into an escalation that says why its guard was withdrawn
    (``reason``; and, if it is ``left_because`` of a reason, that its files still hold it)."""
    why = (
        f"the repair ({repair.candidate.description}) passed this failure's tests, but "
        f"{reason.because}, so it was withdrawn"
    )
    if left_because is not None:
        why += (
            f"; its guard could not be taken out of the tree ({left_because}): "
            f"{', '.join(repair.candidate.paths)} still holds it; revert it by hand"
        )
        if entry.repair is not None:
            why += f" (its diff: {entry.repair.diff_file})"
    kept = entry.attempts[-1]  # the attempts stop at the one kept
    kept.status = "rejected"
    kept.reason = f"{kept.reason}; withdrawn at the end of the run"
    entry.outcome = "escalated"
    entry.repair = None
    entry.explanation += f" (withdrawn: {reason.short})"
    entry.escalation = Escalation(reason=why, tried=len(entry.attempts))


def escalate_fixed_by(
    entries: Iterable[AutodebugFailure],
    fixed_by: Mapping[str, list[str]],
    withdrawn: Sequence[str],
) -> None:
    """Escalate each failure said fixed by another repair when one of the repairs kept before
    it (``fixed_by``) was withdrawn: its tests passed with that repair, not without."""
    for entry in entries:
        gone = set(fixed_by.get(entry.id, ())) & set(withdrawn)
        if gone and entry.outcome == "fixed-by-another-repair":  # not escalated in a round before
            entry.outcome = "escalated"
            entry.explanation += " (that repair was withdrawn)"
            entry.escalation = Escalation(
                reason=f"its tests passed once {', '.join(sorted(gone))} was kept, then withdrawn",
                tried=len(entry.attempts),
            )


def unproven(
    entry: AutodebugFailure,
    withdrawn: Sequence[str],
    error: str | None,
    *,
    left_because: str | None = None,
) -> None:
    """Escalate the repaired ``entry``, kept after the ``withdrawn`` repairs, whose tests fail
    (or could not be re-run: ``error``) once those are out of the tree: it may be half of a
    repair, but nothing proves it, so apply mode takes it out too, unless it could not be
    (``left_because``: then its change stays applied and the reason says so). An entry
    escalated already (a guard withdrawn, yet left in a file a later repair rewrote) keeps its
    own reason."""
    if entry.outcome != "repaired":
        return
    names = ", ".join(withdrawn)
    seen = f"could not be re-run ({error})" if error else "fail"
    kept = entry.attempts[-1]  # the attempts stop at the one kept
    kept.status = "rejected"
    kept.reason = f"{kept.reason}; its tests {seen} once the repair of {names} was taken out"
    entry.outcome = "escalated"
    entry.explanation += f" (not proven: its tests passed only with the repair of {names})"
    why = (
        f"its tests passed with the repair of {names} in the tree, and {seen} once it was taken out"
    )
    if left_because is None:
        why += "; an unproven change is not left applied: it was taken out of the tree too"
    else:
        files = ", ".join(entry.repair.files) if entry.repair else "its files"
        why += (
            f"; its change could not be taken out of the tree ({left_because}) and stays "
            f"applied in {files}: review it or revert it by hand"
        )
    entry.escalation = Escalation(reason=why, tried=len(entry.attempts))


class PartialGuards:
    """The engine's last step: withdraws the partial None guards of a run (see the module doc),
    taking them out of the tree in ``apply`` mode, and escalates what passed only with them."""

    def __init__(
        self,
        *,
        project: Project,
        workspace: Workspace,
        runner: TestRunner,
        baseline: Baseline,
        apply: bool,
        write: Callable[[str, str], object],
        remove: Callable[[str], object],
        progress: Callable[[str], None],
        warnings: list[str],
    ) -> None:
        self.project = project
        self.workspace = workspace
        self.runner = runner
        self.baseline = baseline
        self.apply = apply
        self.write = write
        self.remove = remove
        self.progress = progress
        self.warnings = warnings
        self._kept: list[KeptRepair] = []
        self._by_id: dict[str, AutodebugFailure] = {}
        self._order: dict[str, int] = {}
        self._first: dict[str, Original] = {}

    def withdraw(
        self,
        entries: list[AutodebugFailure],
        kept: list[KeptRepair],
        fixed_by: Mapping[str, list[str]],
        spectrum: Spectrum | None = None,
    ) -> None:
        """Withdraw the None guards in ``kept`` (the run's kept repairs, in order; a repair
        taken out of the tree leaves the list) where the run still fails on None, or whose
        function the tests of a failure left run (read from the run's per-test coverage
        ``spectrum``, None when it has none), and escalate the failures ``fixed_by`` them and,
        in apply mode, the repairs that passed only with them. A repair kept after a guard
        taken out of its file gets its diff rewritten without the guard."""
        self._kept, self._by_id = kept, {entry.id: entry for entry in entries}
        self._order = {repair.entry_id: index for index, repair in enumerate(kept)}
        self._first = _first_originals(kept)
        partial = withdrawal_reasons(kept, entries, spectrum)
        while partial:  # a failure escalated in one round may call for more: each ends one
            self._withdraw_round(partial, entries, fixed_by)
            partial = withdrawal_reasons(self._kept, entries, spectrum)

    def _withdraw_round(
        self,
        partial: list[tuple[KeptRepair, WhyWithdrawn]],
        entries: list[AutodebugFailure],
        fixed_by: Mapping[str, list[str]],
    ) -> None:
        """Withdraw the guards ``partial`` (last kept first, with why), escalate what passed
        only with them, and, in apply mode, re-check the repairs kept after those taken out."""
        for repair, reason in partial:
            self._withdraw(repair, reason)
        escalate_fixed_by(entries, fixed_by, [repair.entry_id for repair, _reason in partial])
        taken_out = [repair for repair, _reason in reversed(partial) if repair not in self._kept]
        if self.apply and taken_out:
            self._after_taking_out(taken_out)

    def _withdraw(self, repair: KeptRepair, reason: WhyWithdrawn) -> None:
        """Withdraw one partial guard: take it out of the tree (in apply mode) and remove its
        diff; when it cannot be taken out, the file and the diff keep it."""
        entry = self._by_id[repair.entry_id]
        left = self._take_out(repair) if self.apply else None
        if left is None:
            self._forget(repair, entry)
        withdraw(entry, repair, reason, left_because=left)

    def _after_taking_out(self, taken_out: list[KeptRepair]) -> None:
        """The repairs kept after the first repair ``taken_out`` of the tree (in the order kept)
        were validated and diffed with it there: rewrite their diffs without it and re-run
        their tests; each whose tests no longer pass is unproven and taken out too, and the
        same is done for those kept after it, until every repair left passed its tests on the
        tree as it is."""
        gone = [repair.entry_id for repair in taken_out]
        while taken_out:
            for repair in self._kept_after(taken_out[0]):
                self._rediff(repair, taken_out)
            taken_out = self._recheck(self._kept_after(taken_out[0]), gone)
            gone += [repair.entry_id for repair in taken_out]

    def _kept_after(self, repair: KeptRepair) -> list[KeptRepair]:
        """The repairs still kept that were kept after ``repair``."""
        return [
            other
            for other in self._kept
            if self._order[other.entry_id] > self._order[repair.entry_id]
        ]

    def _rediff(self, repair: KeptRepair, taken_out: list[KeptRepair]) -> None:
        """Rewrite the diff (its file, the report's ``repair.diff``) of ``repair`` without the
        repairs ``taken_out`` of the tree since that were kept before it in its files: written
        against the tree they were in, it would apply to no tree that exists. (Its texts are
        without those taken out in earlier rounds already.)"""
        at = self._order[repair.entry_id]
        guards = [g for g in _in_files_of(repair, taken_out) if self._order[g.entry_id] < at]
        if not guards:
            return
        without = _without(repair, guards)
        if without is None:
            self.warnings.append(
                f"{repair.entry_id}: its diff still shows the change of "
                f"{', '.join(guard.entry_id for guard in guards)}, taken out of the tree since"
            )
            return
        self._kept[self._kept.index(repair)], diff = without
        entry = self._by_id[repair.entry_id]
        if entry.repair is not None:
            entry.repair.diff = diff
            self.write(entry.repair.diff_file, diff)

    def _recheck(self, later: list[KeptRepair], gone: list[str]) -> list[KeptRepair]:
        """Escalate each of the ``later`` repairs whose tests fail now that ``gone`` are out
        of the tree, and take it out too, the last kept first: those taken out, in the order
        kept."""
        failing, error = self._failing(later)
        taken_out: list[KeptRepair] = []
        for repair in reversed(failing):  # each undone on the text it left
            entry = self._by_id[repair.entry_id]
            left = self._take_out(repair)
            unproven(entry, gone, error, left_because=left)
            if left is None:
                self._forget(repair, entry)
                taken_out.insert(0, repair)
        return taken_out

    def _failing(self, later: list[KeptRepair]) -> tuple[list[KeptRepair], str | None]:
        """Re-run the tests of the ``later`` repairs in one run: those still said repaired
        whose tests fail (all of them when the run cannot tell), and the run's error."""
        repaired = [r for r in later if self._by_id[r.entry_id].outcome == "repaired"]
        if not repaired:
            return [], None
        self.progress("re-running the tests of the repairs kept after a withdrawn one")
        tests = [test for repair in later for test in self._by_id[repair.entry_id].tests]
        passed = passing(tests, runner=self.runner, baseline=self.baseline, root=self.project.root)
        if isinstance(passed, str):
            return repaired, passed
        return [r for r in repaired if not set(self._by_id[r.entry_id].tests) <= passed], None

    def _forget(self, repair: KeptRepair, entry: AutodebugFailure) -> None:
        """``repair``, taken out of the tree, is no longer kept: its diff is removed."""
        self._kept.remove(repair)
        if entry.repair is not None:
            self.remove(entry.repair.diff_file)
            entry.repair = None

    def _take_out(self, repair: KeptRepair) -> str | None:
        """Take a kept repair's change out of the files as they are now, byte for byte as its
        trial found them where nothing else changed them (a file back as it was before the
        run gets its times back too); else why it cannot be (the files keep the change, and a
        warning says so)."""
        try:
            edits = [
                FileEdit(edit.path, _taken_out(repair, edit, self.project.read(edit.path)))
                for edit in repair.candidate.edits
            ]
        except _Stays as stays:
            self.warnings.append(
                f"{repair.entry_id}: its change stays in {', '.join(repair.candidate.paths)}: "
                f"{stays}; revert it by hand"
            )
            return str(stays)
        self.workspace.put_back(edits, self._first)
        return None


def _first_originals(kept: Sequence[KeptRepair]) -> dict[str, Original]:
    """Each file of the ``kept`` repairs as the first trial of it found it: as it was before
    the run (a trial not kept restores it), so a file taken back to those bytes, by however
    many repairs taken out, gets its times back too."""
    first: dict[str, Original] = {}
    for repair in kept:
        for path, original in repair.originals.items():
            first.setdefault(path, original)
    return first


def _taken_out(repair: KeptRepair, edit: FileEdit, current: str | None) -> str:
    """``current``, the text of ``edit``'s file now, with ``repair``'s change of it taken out;
    :class:`_Stays` when it cannot be."""
    before = repair.befores.get(edit.path)
    if before is None or current is None:
        when = "before the repair" if before is None else "now"
        raise _Stays(f"{edit.path} was not readable as UTF-8 text {when}")
    text = undone(before, edit.text, current)
    if text is None:
        raise _Stays(
            f"a later repair rewrote the lines it wrote in {edit.path}, or lines equal to them "
            "beside them leave unclear which copy is the guard's"
        )
    return text
