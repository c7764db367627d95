"""A None guard kept in a function the tests of failures still left run: it may mask the fault.

A None made in one place (a caller's lost guard, a function's lost ``return``) travels on and
fails where it is read. A guard at that use (``if value is None: return value``) makes that
failure's tests pass and nothing else fail, so validation keeps it; yet the None is still
made, and the tests where it changes what the code computes still fail, on an assertion or an
error message far from the guard. The guard then hides the fault behind a tree that looks
repaired: worse than an escalation.

So, at the end of a run, a ``none-guard`` is kept only when no failure the run leaves
unrepaired has a test that ran the function the guard is in. Which tests ran which function
is read from the spectrum localization collected (one coverage context per test,
:mod:`.localize`); functions are matched by file and qualified name, as the lines of a file may
have moved since. When a failure is left and this cannot be told (no spectrum: localization
off, coverage.py missing or its run failed; a failure without a test, as a collection error;
a guard outside any function; a spectrum that did not see the guarded function run, not even
by the tests of the failure the guard repairs, which must have run it: its contexts file never
written, which coverage.py reads as empty, or the function run in a subprocess or under a
tracer of the project's own), the guard is taken to mask it: the rule fails closed.

Two independent faults whose tests run the same function then leave the guard of one
escalated where it could have been kept: an escalation, never a masking guard kept. The
withdrawal itself (taking the guard out of the tree, the escalations) is
:mod:`.partial_repairs`'.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Sequence

from phasegate.autodebug.diagnosis import Candidate, FileEdit
from phasegate.autodebug.localize import Spectrum, function_spans
from phasegate.model.autodebug import AutodebugFailure

__all__ = ["guarded_function", "masked_failures"]


def guarded_function(before: str | None, edit: FileEdit) -> str | None:
    """The qualified name of the innermost function holding the first line ``edit`` changed
    in its file (``before`` it), or None when that is outside any function or cannot be
    told (a text that is not UTF-8, or does not parse)."""
    if before is None:
        return None
    line = _first_changed_line(before, edit.text)
    try:
        spans = function_spans(ast.parse(edit.text))
    except (SyntaxError, ValueError):
        return None
    holding = [(first, name) for name, first, last in spans if first <= line <= last]
    return max(holding)[1] if holding else None  # the innermost starts last


def _first_changed_line(before: str, after: str) -> int:
    """The line (from 1) of ``after`` where it first differs from ``before``."""
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    changes = [j1 for tag, _i1, _i2, j1, _j2 in matcher.get_opcodes() if tag != "equal"]
    return changes[0] + 1 if changes else 0


def masked_failures(
    candidate: Candidate,
    befores: dict[str, str | None],
    left: Sequence[AutodebugFailure],
    spectrum: Spectrum | None,
    own_tests: Sequence[str],
) -> str | None:
    """Why the guard ``candidate`` (its files ``befores`` it) may mask the failures the run
    leaves unrepaired (``left``, not empty): which of them run its function, or why that
    cannot be told; None when none of them does. ``own_tests`` are the tests of the failure
    the guard repairs: a spectrum that did not see them run its function cannot see it."""
    places = [
        (edit.path, guarded_function(befores.get(edit.path), edit)) for edit in candidate.edits
    ]
    if spectrum is None:
        return _cannot_tell(left, "no per-test coverage was read in this run")
    unknown = _why_unknown(places, left)
    if unknown is not None:
        return _cannot_tell(left, unknown)
    running = _tests_running(spectrum, places)
    reached = [entry.id for entry in left if running & set(entry.tests)]
    if reached:
        return f"the tests of failures still left ({', '.join(reached)}) run the function it guards"
    if not running & set(own_tests):
        return _cannot_tell(
            left,
            "the per-test coverage did not see the function it guards run, not even by the "
            "tests of the failure it repairs",
        )
    return None


def _cannot_tell(left: Sequence[AutodebugFailure], why: str) -> str:
    """Why a guard is taken to mask the failures ``left``: which of their tests run its
    function cannot be told (``why``)."""
    ids = ", ".join(entry.id for entry in left)
    return (
        f"failures are still left ({ids}), and whether they run the function it guards cannot "
        f"be told ({why})"
    )


def _why_unknown(
    places: list[tuple[str, str | None]], left: Sequence[AutodebugFailure]
) -> str | None:
    """Why the tests of ``left`` that run the functions at ``places`` cannot be told from a
    spectrum, or None."""
    if None in (name for _path, name in places):
        return "the guard is outside any function, or its file does not parse"
    untested = [entry.id for entry in left if not _measured(entry)]
    return f"{', '.join(untested)} has no test to measure" if untested else None


def _measured(entry: AutodebugFailure) -> bool:
    """Whether ``entry`` has a test the spectrum measures (a collection error has none)."""
    return any("::" in test for test in entry.tests)


def _tests_running(spectrum: Spectrum, places: list[tuple[str, str | None]]) -> set[str]:
    """The tests the spectrum saw run any of the functions at ``places``."""
    wanted = set(places)
    return {
        test
        for (path, name, _line), tests in spectrum.covered.items()
        if (path, name) in wanted
        for test in tests
    }
