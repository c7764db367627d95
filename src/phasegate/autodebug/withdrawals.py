"""Which None guards a run kept are withdrawn at its end, and why.

Three rules, all about a guard that may only hide the fault (:mod:`.partial_repairs` takes
such guards out and escalates their failures): a ``none-guard`` kept in a file where a None
failure is left unrepaired (escalated, localized, or not attempted beyond ``max_failures``),
since the None failures of one file count as one None; one of a parameter whose caller handed
it a None ``x.name`` (:mod:`.patterns.none_handed`) while a None failure on ``name`` is left,
whose tests did not pass in the guard's trial; and one whose function the tests of a failure
left run, or may run (:mod:`.masking_guards`), unless that failure's tests all passed in the
guard's own trial. A repair at the None's origin (a lost ``return``, an empty initial value)
is left alone: it mends the place the None comes from, not one of its uses.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from phasegate.autodebug.localize import Spectrum
from phasegate.autodebug.masking_guards import masked_failures
from phasegate.autodebug.runner import RunResult
from phasegate.autodebug.validate import target_passes
from phasegate.model.autodebug import AutodebugFailure

if TYPE_CHECKING:  # partial_repairs, which holds it, withdraws by these reasons
    from phasegate.autodebug.partial_repairs import KeptRepair

__all__ = ["WhyWithdrawn", "unrepaired_nones", "withdrawal_reasons"]

#: The outcomes of a failure the run leaves failing.
_LEFT = ("escalated", "localized", "not-attempted")


def unrepaired_nones(entries: Iterable[AutodebugFailure]) -> dict[str, list[str]]:
    """The files where a None failure is left unrepaired, each with those failures' ids."""
    left: dict[str, list[str]] = {}
    for entry in entries:
        if entry.error_class == "none" and entry.outcome in _LEFT and entry.path is not None:
            left.setdefault(entry.path, []).append(entry.id)
    return left


@dataclass(frozen=True)
class WhyWithdrawn:
    """Why a kept guard is withdrawn: in the escalation (``because``, after "but") and, in
    short, in the failure's explanation."""

    because: str
    short: str


def withdrawal_reasons(
    kept: Sequence[KeptRepair], entries: Sequence[AutodebugFailure], spectrum: Spectrum | None
) -> list[tuple[KeptRepair, WhyWithdrawn]]:
    """The ``kept`` None guards whose failures are still said repaired that must be withdrawn,
    last kept first (so that each is undone on the text it left), and why: a None failure of
    its file is left unrepaired, or a failure left runs the function it guards (read from the
    run's per-test coverage ``spectrum``, None when it has none)."""
    unrepaired = unrepaired_nones(entries)
    left = [entry for entry in entries if entry.outcome in _LEFT]
    repaired = {entry.id: entry for entry in entries if entry.outcome == "repaired"}
    reasons = [
        (repair, _why_withdrawn(repair, repaired[repair.entry_id], unrepaired, left, spectrum))
        for repair in reversed(kept)
        if repair.candidate.kind == "none-guard" and repair.entry_id in repaired
    ]
    return [(repair, why) for repair, why in reasons if why is not None]


def _why_withdrawn(
    repair: KeptRepair,
    own: AutodebugFailure,
    unrepaired: Mapping[str, list[str]],
    left: Sequence[AutodebugFailure],
    spectrum: Spectrum | None,
) -> WhyWithdrawn | None:
    """Why the None guard ``repair`` of the failure ``own`` must be withdrawn, or None when it
    may stay."""
    if set(repair.candidate.paths) & unrepaired.keys():
        return _none_left(repair, unrepaired)
    still = [entry for entry in left if not _passed_with(repair.trial, entry)]
    if not still:
        return None
    handed = _handed_none_left(own, still)
    if handed is not None:
        return handed
    masked = masked_failures(repair.candidate, dict(repair.befores), still, spectrum, own.tests)
    if masked is None:
        return None
    return WhyWithdrawn(
        f"{masked}: a guard where a None arrives from elsewhere may hide the fault they fail on",
        "failures still left run the function it guards",
    )


def _handed_none_left(
    own: AutodebugFailure, still: Sequence[AutodebugFailure]
) -> WhyWithdrawn | None:
    """Why a guard of a parameter its caller handed None as ``x.name`` is withdrawn while a
    None failure on ``....name`` is left: the None is made where that value is, not here."""
    handed = own.facts.get("handed_as")
    if not isinstance(handed, str):
        return None
    same = [entry.id for entry in still if _fails_on(entry, handed.rpartition(".")[2])]
    if not same:
        return None
    return WhyWithdrawn(
        f"{', '.join(same)} still fail on the None its caller handed it as `{handed}`: a guard "
        "where a None is passed in hides where it is made",
        "the None its caller handed it still fails elsewhere",
    )


def _fails_on(entry: AutodebugFailure, name: str) -> bool:
    """Whether ``entry`` is a None failure on ``name`` or on an attribute ``name``."""
    expr = entry.facts.get("expr")
    return entry.error_class == "none" and str(expr).rpartition(".")[2] == name


def _passed_with(trial: RunResult | None, entry: AutodebugFailure) -> bool:
    """Whether every test of ``entry`` passed in ``trial``, the run a guard's trial passed: the
    guard repairs it too (in suggest mode, which leaves the tree as it was, it stays failing).
    An entry without a test is never said passed."""
    return (
        trial is not None
        and bool(entry.tests)
        and all(
            target_passes(trial.outcomes, trial.collection_errors, test) for test in entry.tests
        )
    )


def _none_left(repair: KeptRepair, unrepaired: Mapping[str, list[str]]) -> WhyWithdrawn:
    """Why ``repair``, a guard in a file whose None failures are not all repaired
    (``unrepaired``), is withdrawn."""
    still = [
        f"{', '.join(unrepaired[path])} in {path}"
        for path in repair.candidate.paths
        if path in unrepaired
    ]
    return WhyWithdrawn(
        f"the run still fails on None at other uses ({'; '.join(still)}): a guard at one use "
        "leaves the None where it is made",
        "other uses of the None still fail",
    )
