"""Trying a candidate on the real files, and putting every byte back afterwards.

:meth:`Workspace.trial` writes a candidate's files and, unless the trial is kept, restores
each one byte for byte with its permissions and modification time (so a cached ``.pyc`` of the
original stays valid), whatever happens: a failed check, an exception, Ctrl-C, or SIGTERM /
SIGHUP (turned into ``KeyboardInterrupt`` while a trial runs). For what no ``finally`` can
catch (SIGKILL, a power cut) the original bytes are journaled to disk *before* a file is
touched; :func:`recover` puts them back on the next run, or ``phasegate autodebug restore``
does on request.

Only files the project allows to be edited are written (see
:meth:`~phasegate.autodebug.project.Project.editable`): inside the root, not a test file, not
through a symbolic link.

The journal names each file by its path relative to the project root. A journal is data on
disk, so :func:`recover` trusts none of it: every entry must name a Python file that resolves
inside the root (symbolic links followed), outside ``.git``, virtual environments and tool
folders, with a base64 original, an integer mode (only permission bits are restored) and
times; a journal with any other entry is refused whole, restores nothing, and is left in place
for a person to look at.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import signal
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TypedDict

from phasegate.autodebug.diagnosis import FileEdit
from phasegate.autodebug.live import project_path
from phasegate.autodebug.project import Project
from phasegate.errors import PhasegateError
from phasegate.store import write_atomically

__all__ = ["EditRefused", "Original", "Trial", "Workspace", "recover"]


class EditRefused(PhasegateError):
    """A candidate asked to write a file auto-debug must not write."""


#: The journal and an original set aside hold copies of source files: only their owner reads them.
_OWNER_ONLY = 0o600


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Original:
    """A file as a trial found it, byte for byte, with its permissions and times."""

    path: Path
    data: bytes
    mode: int
    atime_ns: int
    mtime_ns: int


@dataclass
class Trial:
    """A candidate's files, written; restored when the trial ends unless :meth:`keep` is called."""

    edits: list[FileEdit]
    kept: bool = False
    originals: dict[str, Original] = field(default_factory=dict)

    def keep(self) -> None:
        """Leave the candidate in place when the trial ends."""
        self.kept = True


def _outdate_bytecode(original: Original) -> None:
    """Make sure no ``.pyc`` of the original passes for the candidate just written.

    A ``.pyc`` is checked against its source's size and modification time in whole seconds. A
    candidate of the original's size, written within the second the original was last
    written, would be taken for it and the re-run would test the old code. Its modification
    time is moved to the next second then; restoring puts the original's back.
    """
    written = original.path.stat()
    if written.st_mtime_ns // 1_000_000_000 == original.mtime_ns // 1_000_000_000:
        later = (original.mtime_ns // 1_000_000_000 + 1) * 1_000_000_000
        os.utime(original.path, ns=(written.st_atime_ns, later))


class Workspace:
    """Writes candidates into the project and restores it; ``journal`` survives crashes."""

    def __init__(self, project: Project, journal: Path) -> None:
        self.project = project
        self.journal = journal

    @contextlib.contextmanager
    def trial(self, edits: list[FileEdit]) -> Iterator[Trial]:
        """Apply ``edits`` for the length of the ``with`` block (see the module doc)."""
        trial = Trial(edits)
        for edit in edits:
            trial.originals[edit.path] = self._original(edit)
        new_bytes = {edit.path: edit.text.encode("utf-8") for edit in edits}
        self._journal_add(trial, new_bytes)
        try:
            with _signals_interrupt():
                for relpath, data in new_bytes.items():
                    original = trial.originals[relpath]
                    write_atomically(original.path, data, mode=original.mode)
                    _outdate_bytecode(original)
                yield trial
        finally:
            if not trial.kept:
                self._restore(trial)
            self._journal_remove(trial)

    def put_back(self, edits: list[FileEdit], originals: Mapping[str, Original]) -> None:
        """Write ``edits`` for good, as a kept trial does; each file whose new bytes are its
        bytes in ``originals`` gets its times back too, as a restore gives them (so a cached
        ``.pyc`` of it stays valid)."""
        with self.trial(edits) as trial:
            trial.keep()
        for edit in edits:
            original = originals.get(edit.path)
            if original is not None and edit.text.encode("utf-8") == original.data:
                os.utime(original.path, ns=(original.atime_ns, original.mtime_ns))

    def _original(self, edit: FileEdit) -> Original:
        """The file ``edit`` rewrites, as it is now; EditRefused if auto-debug must not write it."""
        if not self.project.editable(edit.path):
            raise EditRefused(
                f"refused to write {edit.path}: {self.project.why_not_editable(edit.path)}"
            )
        path = self.project.abspath(edit.path)
        stat = path.stat()
        return Original(
            path, path.read_bytes(), stat.st_mode & 0o7777, stat.st_atime_ns, stat.st_mtime_ns
        )

    def _restore(self, trial: Trial) -> None:
        for original in trial.originals.values():
            write_atomically(original.path, original.data, mode=original.mode)
            os.utime(original.path, ns=(original.atime_ns, original.mtime_ns))
            if _sha256(original.path.read_bytes()) != _sha256(original.data):
                raise PhasegateError(f"{original.path} could not be restored byte for byte")

    # -- the journal ------------------------------------------------------------------------

    def _read_journal(self) -> dict[str, object]:
        """The journal's entries by file, as on disk (each is vetted when it is recovered)."""
        try:
            data = json.loads(self.journal.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise PhasegateError(
                f"the auto-debug journal {self.journal} cannot be read: {exc}"
            ) from exc
        return data if isinstance(data, dict) else {}

    def _write_journal(self, data: dict[str, object]) -> None:
        self.journal.parent.mkdir(parents=True, exist_ok=True)
        if data:
            write_atomically(
                self.journal, json.dumps(data, indent=1).encode("utf-8"), mode=_OWNER_ONLY
            )
        else:
            with contextlib.suppress(FileNotFoundError):
                self.journal.unlink()

    def _journal_add(self, trial: Trial, new_bytes: dict[str, bytes]) -> None:
        data = self._read_journal()
        for relpath, original in trial.originals.items():
            data[relpath] = _JournalRecord(
                original=base64.b64encode(original.data).decode("ascii"),
                mode=original.mode,
                mtime_ns=original.mtime_ns,
                candidate_sha256=_sha256(new_bytes[relpath]),
            )
        self._write_journal(data)

    def _journal_remove(self, trial: Trial) -> None:
        data = self._read_journal()
        for relpath in trial.originals:
            data.pop(relpath, None)
        self._write_journal(data)


class _JournalRecord(TypedDict):
    """One file's entry in the journal, as written: the original's bytes in base64."""

    original: str
    mode: int
    mtime_ns: int
    candidate_sha256: str


@dataclass(frozen=True)
class _JournalEntry:
    path: Path
    original: bytes
    mode: int
    mtime_ns: int
    candidate_sha256: str


def recover(journal: Path, root: Path) -> list[str]:
    """Put back every file a crashed run left with a candidate in it; one message per file.

    A file that changed since (someone edited it) is left alone and its original is written
    beside the journal as ``<name>.orig``, so nothing is lost either way. A journal that names
    anything but a Python file of the project (see the module doc) is refused whole.
    """
    try:
        data = json.loads(journal.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise PhasegateError(f"the auto-debug journal {journal} cannot be read: {exc}") from exc
    messages = [_put_back(entry, journal) for entry in _vetted(journal, root, data)]
    journal.unlink()
    return messages


def _put_back(entry: _JournalEntry, journal: Path) -> str:
    """Restore one file a crashed run left with a candidate in it, or, when it changed since,
    set its original aside beside the journal; what was done, in a sentence."""
    path = entry.path
    try:
        current: bytes | None = path.read_bytes()
    except FileNotFoundError:
        current = None
    if current is None or _sha256(current) == entry.candidate_sha256:
        write_atomically(path, entry.original, mode=entry.mode)
        os.utime(path, ns=(entry.mtime_ns, entry.mtime_ns))
        return f"restored {path}, which an interrupted auto-debug run left changed"
    aside = journal.with_name(f"{path.name}.orig")
    write_atomically(aside, entry.original, mode=_OWNER_ONLY)
    return (
        f"{path} changed since an interrupted auto-debug run tried a repair on it; "
        f"left as it is, its original is in {aside}"
    )


def _vetted(journal: Path, root: Path, data: object) -> list[_JournalEntry]:
    """The journal's entries, each checked; a PhasegateError naming the first bad one."""
    if not isinstance(data, dict):
        raise _refusal(journal, data, "is not a table of files")
    real_root = root.resolve()
    return [
        _vetted_record(journal, name, record, _vetted_path(journal, name, root, real_root))
        for name, record in sorted(data.items())
    ]


def _refusal(journal: Path, name: object, why: str) -> PhasegateError:
    return PhasegateError(
        f"the auto-debug journal {journal} names {name!r}, which {why}; nothing was "
        "restored and the journal was left in place: look at it, then delete it"
    )


def _vetted_path(journal: Path, name: str, root: Path, real_root: Path) -> Path:
    """Where the file a journal entry names is, when it is a Python file of the project."""
    try:
        path = Path(name) if Path(name).is_absolute() else root / name
        relative = project_path(path.resolve(), real_root)
    except (OSError, ValueError) as exc:  # a NUL byte, a loop of links...
        raise _refusal(journal, name, f"is not a usable path ({exc})") from exc
    if relative is None:
        raise _refusal(
            journal, name, f"is outside the project root {real_root} (or in a tool folder)"
        )
    if not relative.endswith(".py"):
        raise _refusal(journal, name, "is not a Python file, the only kind auto-debug edits")
    return real_root / relative


def _vetted_record(journal: Path, name: str, record: object, path: Path) -> _JournalEntry:
    """A journal entry's record of the file at ``path``, when it is complete and well typed."""
    if not isinstance(record, dict):
        raise _refusal(journal, name, "has no original recorded")
    try:
        original = base64.b64decode(str(record["original"]), validate=True)
        mode, mtime_ns = record["mode"], record["mtime_ns"]
        digest = record["candidate_sha256"]
    except (KeyError, ValueError) as exc:
        raise _refusal(journal, name, f"has a broken record ({exc})") from exc
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in (mode, mtime_ns)):
        raise _refusal(journal, name, "has a mode or time that is not a number")
    if not isinstance(digest, str):
        raise _refusal(journal, name, "has no digest of the candidate")
    return _JournalEntry(path, original, mode & 0o777, mtime_ns, digest)


@contextlib.contextmanager
def _signals_interrupt() -> Iterator[None]:
    """Turn SIGTERM and SIGHUP into KeyboardInterrupt, so ``finally`` blocks run."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    wanted = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    previous = {number: signal.signal(number, interrupt) for number in wanted}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
