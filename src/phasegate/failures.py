"""Describe a live exception as a ``Failure``-shaped dict (see :class:`phasegate.model.Failure`).

Taken from the exception object and its traceback, never from printed text, so the type,
message and raising frame are exact. Paths inside the project root are made relative to it.
Plain dicts, not models, because this runs inside the test run (see :mod:`phasegate.recording`).
"""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType

from phasegate.documents import RaisedDocument

__all__ = [
    "MAX_MESSAGE_CHARS",
    "describe_exception",
    "exception_type_name",
    "first_line",
    "relative_path",
]

#: Exception messages can be huge (a repr of a large object); this much is kept.
MAX_MESSAGE_CHARS = 2000


def exception_type_name(exc: BaseException) -> str:
    """``ValueError`` for builtins, ``package.module.Class`` for everything else."""
    cls = type(exc)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def first_line(message: str) -> str:
    """The first line of an exception's message, the way a one-line report shows it ("" for
    a message of blank space only)."""
    lines = message.strip().splitlines()
    return lines[0] if lines else ""


def relative_path(path: str | os.PathLike[str], root: Path) -> str:
    """``path`` relative to ``root`` with ``/`` separators, or absolute when outside it."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:
        return absolute.as_posix()


def _last_frame(tb: TracebackType | None) -> tuple[str, int] | None:
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename, tb.tb_lineno


def describe_exception(exc: BaseException, *, phase: str, root: Path) -> RaisedDocument:
    """The failure as phasegate records it, without the traceback text (added later).

    ``phase`` is ``setup``, ``call``, ``teardown`` or ``collect``.
    """
    message = str(exc)
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[:MAX_MESSAGE_CHARS] + " [... cut by phasegate]"
    where = _fault_at(exc)
    path = relative_path(where[0], root) if where and not where[0].startswith("<") else None
    return {
        "phase": phase,
        "exc_type": exception_type_name(exc),
        "message": message,
        "path": path,
        "line": where[1] if where and path else None,
    }


def _fault_at(exc: BaseException) -> tuple[str, int | None] | None:
    """The file and line of the fault: where a SyntaxError points (its raising frame is the
    import machinery), else the frame that raised."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return exc.filename, exc.lineno
    return _last_frame(exc.__traceback__)
