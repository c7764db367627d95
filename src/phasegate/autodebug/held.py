"""The exceptions a failing test holds: raised by the code, caught, and kept to be asserted on.

A test of a command-line tool runs it through a runner that catches what the command raises
and keeps it (click's ``CliRunner`` returns a result whose ``exception`` is the
``NameError`` the command raised); the test then fails on an assertion about the output or
the exit code. The assertion only says that something went wrong; the kept exception says
what. It is found among the names of the test's frames: an exception object itself, or one
kept in an object's own attributes (its instance ``__dict__``, read without calling a
property). Only an exception that was raised (it has a traceback) through a frame of a
project file that is not the test's own counts.

A test's own failure can also be raised while the code's exception was being handled: a
``pytest.warns`` or ``pytest.raises`` block that the code left by raising ends in "DID NOT
WARN", whose implicit context (``__context__``) is the code's exception. That context counts
as held too (``where``: ``raised while handling``), after the exceptions the frames keep,
unless the test suppressed it (``raise ... from None``), as a traceback then leaves it out.
"""

from __future__ import annotations

from collections.abc import Iterator

from phasegate.autodebug.live import LiveFailure, LiveFrame, instance_dict

__all__ = ["held_exceptions"]


def held_exceptions(failure: LiveFailure) -> list[tuple[str, BaseException]]:
    """``(where, exception)`` for each exception the failing test's frames hold (``where``:
    ``result.exception``, ``error``), innermost frame first, raised through the project's code."""
    kept = [
        (where, exc)
        for frame in reversed(failure.frames)
        if frame.path is not None
        for where, exc in _kept_in(frame)
        if exc is not failure.exc and _raised_in_project(exc, failure, frame)
    ]
    return kept + _handled_while(failure)


def _handled_while(failure: LiveFailure) -> list[tuple[str, BaseException]]:
    """The exception the failure was raised while handling, when the project raised it
    through a file other than the test's."""
    test = next((frame for frame in failure.frames if frame.path is not None), None)
    context = None if failure.exc.__suppress_context__ else failure.exc.__context__
    if test is None or context is None or not _raised_in_project(context, failure, test):
        return []
    return [("raised while handling", context)]


def _kept_in(frame: LiveFrame) -> Iterator[tuple[str, BaseException]]:
    """The exceptions among a frame's names and their values' own attributes."""
    for name, value in list(frame.frame.f_locals.items()):
        if isinstance(value, BaseException):
            yield name, value
            continue
        for attribute, kept in instance_dict(value).items():
            if isinstance(kept, BaseException):
                yield f"{name}.{attribute}", kept


def _raised_in_project(exc: BaseException, failure: LiveFailure, holder: LiveFrame) -> bool:
    """Whether ``exc`` was raised through a project file other than the holding frame's."""
    held = LiveFailure.capture(exc, failure.root)
    return any(frame.path is not None and frame.path != holder.path for frame in held.frames)
