"""The checks' temporary folders, removed when a check is done with them or, in the static
checks' process, once its judgements are written.

Removing the build check's copy of the project and the sdist's extraction folder took 0.10 and
0.04 s at the end of the build check (more-itertools, under load), which ends the static checks'
process's critical path on small suites: the parent waits for its judgements, not for folders
nobody reads again. So the static checks' process (:mod:`phasegate.gates.static_process`) calls
:func:`defer_removal` first: a folder a check is done with is then kept until
:func:`remove_deferred`, called once the judgements are written (while the parent judges), and
every folder still there, in use or not, is removed by :func:`remove_all` when the process is
stopped (SIGTERM) or ends at once. Anywhere else (``phasegate gate run``'s threads, a test) a
folder is removed as soon as its check is done with it, as :class:`tempfile.TemporaryDirectory`
would.

Not :class:`tempfile.TemporaryDirectory`: its removal cannot be put off, and a process that
ends without the interpreter's teardown (``os._exit``) never runs its finalizer.

The folders a check or a library makes on its own (types' and breaking's
:class:`tempfile.TemporaryDirectory`, ``pyproject_hooks``' ``input.json`` of the build's front
end, a tool's files) would escape all this; so the static checks' process first makes one
folder of its own the temporary folder of everything it runs (:func:`temporary_root`:
``tempfile``'s and, for the tools, ``TMPDIR``), and :func:`remove_all` removes it whole.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

__all__ = ["defer_removal", "remove_all", "remove_deferred", "scratch_folder", "temporary_root"]

#: Re-entrant: the SIGTERM handler (:func:`remove_all`) runs on the main thread, which may
#: hold it already (a plain lock would wait on itself for ever; the handler never returns).
_lock = threading.RLock()
#: Folders a check still uses.
_in_use: set[Path] = set()
#: Folders their checks are done with, kept until :func:`remove_deferred`.
_done_with: set[Path] = set()
_deferring = False
#: The temporary folder of everything this process runs, see :func:`temporary_root`.
_roots: list[Path] = []


def defer_removal() -> None:
    """Keep the folders the checks are done with until :func:`remove_deferred`."""
    global _deferring
    with _lock:
        _deferring = True


@contextlib.contextmanager
def scratch_folder(prefix: str) -> Iterator[Path]:
    """A new temporary folder, removed once the block ends (or later, see the module)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    with _lock:
        _in_use.add(folder)
    try:
        yield folder
    finally:
        with _lock:
            _in_use.discard(folder)
            kept = _deferring
            if kept:
                _done_with.add(folder)
        if not kept:
            _remove(folder)


def remove_deferred() -> None:
    """Remove the folders kept so far; any done with later is removed at once."""
    global _deferring
    with _lock:
        _deferring = False
        folders = sorted(_done_with)
        _done_with.clear()
    for folder in folders:
        _remove(folder)


def remove_all() -> None:
    """Remove every folder of this process, those still in use too (their checks' tools were
    killed: the process is about to end)."""
    with _lock:
        folders = [*sorted(_in_use | _done_with), *_roots]
        _in_use.clear()
        _done_with.clear()
    for folder in folders:
        _remove(folder)


@contextlib.contextmanager
def temporary_root(prefix: str) -> Iterator[Path]:
    """A new folder made the temporary folder of this process (``tempfile``'s) and of the
    tools it starts (``TMPDIR``) for the block, removed whole once the block ends or by
    :func:`remove_all`. Entered before any thread starts: the environment is the process's."""
    saved = tempfile.tempdir, os.environ.get("TMPDIR")  # before mkdtemp sets the first
    root = Path(tempfile.mkdtemp(prefix=prefix))
    tempfile.tempdir = os.environ["TMPDIR"] = str(root)
    with _lock:
        _roots.append(root)
    try:
        yield root
    finally:
        _restore_temporary_folder(*saved)
        with _lock:
            _roots.remove(root)
        _remove(root)


def _restore_temporary_folder(tempdir: str | None, environment: str | None) -> None:
    tempfile.tempdir = tempdir
    if environment is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = environment


def _remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
