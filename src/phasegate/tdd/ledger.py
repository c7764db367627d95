"""The append-only ledger, ``.phasegate/tdd/ledger.jsonl``: one judged event per line.

Lines are appended through :meth:`phasegate.store.Store.append_jsonl` (under the file's lock,
synced) and read through :meth:`~phasegate.store.Store.read_jsonl`, which moves unreadable
lines to ``ledger.jsonl.corrupt-<timestamp>`` and keeps the valid ones: nothing is lost, and
a torn last line never hides the entries before it.

Each entry names the SHA-256 of the line before it (``previous``; :data:`GENESIS` for the first),
so a line removed, edited or moved breaks the chain where it was (:mod:`phasegate.tdd.verify`).
Ledgers written before the chain read as before: their entries have no ``previous``.

Reading a long ledger in full on every run would cost time in proportion to its history, so
:meth:`Ledger.read_after` reads only what was appended after a :class:`LedgerMark` (the size,
modification time and last bytes of the part already read). Anything else (the file shrank,
was rewritten, or a new line cannot be read) answers ``None``, and the caller reads the whole
file again, which is where bad lines are set aside and reported.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import ValidationError

from phasegate.errors import StoreError
from phasegate.model.tdd import (
    AcceptEntry,
    LedgerLine,
    LedgerMark,
    ReviewEntry,
    RollbackEntry,
    RunEntry,
)
from phasegate.store import JsonlRead, Store
from phasegate.versioning import SCHEMA_VERSION, schema_major

__all__ = ["GENESIS", "LEDGER_FILE", "TAIL_BYTES", "Entry", "Ledger", "line_digest"]

#: The ledger's path inside the artifacts folder.
LEDGER_FILE = "tdd/ledger.jsonl"
#: The ``previous`` of the first entry of a ledger.
GENESIS = "0" * 64
#: How many of the last bytes a mark remembers, to notice a ledger rewritten in place.
TAIL_BYTES = 4096

Entry = RunEntry | ReviewEntry | RollbackEntry | AcceptEntry


class Ledger:
    """The ledger of one artifacts folder."""

    def __init__(self, store: Store) -> None:
        self.store = store

    @property
    def path(self) -> Path:
        """The ledger file."""
        return self.store.path(LEDGER_FILE)

    def append(self, entry: Entry) -> None:
        """Append one entry, chained to the line before it (null fields are left out).

        The caller holds the store's ``tdd`` lock, so no other line comes between the one read
        here and the one appended.
        """
        entry.previous = line_digest(self._last_line())
        self.store.append_jsonl(LEDGER_FILE, entry, exclude_none=True)

    def _last_line(self) -> bytes | None:
        """The ledger's last line (without its newline), or ``None`` for an empty ledger."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(f"cannot read {self.path}: {exc.strerror or exc}") from exc
        start, chunk = size, b""
        while start > 0:
            start = max(0, start - 65536)
            chunk = self._read_range(start, size)
            body = chunk.rstrip(b"\n")
            if b"\n" in body or start == 0:
                return body.rsplit(b"\n", 1)[-1] if body else None
        return None

    def read_all(self) -> tuple[list[Entry], JsonlRead[LedgerLine]]:
        """Every valid entry, in order; unreadable lines are moved aside with a notice."""
        read = self.store.read_jsonl(LEDGER_FILE, LedgerLine)
        return [line.root for line in read.entries], read

    def mark(self, entries: int) -> LedgerMark:
        """Where the ledger ends now, for a state that covers ``entries`` entries."""
        try:
            status = self.path.stat()
        except FileNotFoundError:
            return LedgerMark(size=0, mtime_ns=0, tail_sha256=_sha(b""), entries=0)
        except OSError as exc:
            raise StoreError(f"cannot read {self.path}: {exc.strerror or exc}") from exc
        tail = self._read_range(max(0, status.st_size - TAIL_BYTES), status.st_size)
        return LedgerMark(
            size=status.st_size,
            mtime_ns=status.st_mtime_ns,
            tail_sha256=_sha(tail),
            entries=entries,
        )

    def read_after(self, mark: LedgerMark) -> list[Entry] | None:
        """The entries appended since ``mark``, or ``None`` when the whole file must be read."""
        try:
            status = self.path.stat()
        except FileNotFoundError:
            return [] if mark.size == 0 else None
        except OSError:
            return None
        if status.st_size <= mark.size:
            # Not grown: unchanged, or rewritten (shorter, or as long but touched since).
            same = status.st_size == mark.size and status.st_mtime_ns == mark.mtime_ns
            return [] if same else None
        appended = self._appended_bytes(mark, status.st_size)
        return None if appended is None else _appended_entries(appended)

    def _appended_bytes(self, mark: LedgerMark, size: int) -> bytes | None:
        """The whole lines written after ``mark`` in a ledger now ``size`` bytes long; None
        when the lines before it are not what they were, or the last line is torn."""
        start = max(0, mark.size - TAIL_BYTES)
        chunk = self._read_range(start, size)
        if _sha(chunk[: mark.size - start]) != mark.tail_sha256:
            return None
        appended = chunk[mark.size - start :]
        if not appended.endswith(b"\n"):
            return None  # a torn line: the full read sets it aside
        return appended

    def _read_range(self, start: int, end: int) -> bytes:
        try:
            with open(self.path, "rb") as handle:
                handle.seek(start)
                return handle.read(end - start)
        except OSError as exc:
            raise StoreError(f"cannot read {self.path}: {exc.strerror or exc}") from exc


def _appended_entries(appended: bytes) -> list[Entry] | None:
    """The entries of the appended lines; ``None`` (read the whole file) at any doubt."""
    entries: list[Entry] = []
    for line in appended.splitlines():
        if not line.strip():
            continue
        entry = _quick_entry(line)
        if entry is None:
            return None
        entries.append(entry)
    return entries


def _quick_entry(line: bytes) -> Entry | None:
    """One appended line's entry; ``None`` when it is unreadable or of a newer schema (the full
    read refuses it with a clear error)."""
    try:
        data = json.loads(line)
        if schema_major(str(data.get("schema_version", SCHEMA_VERSION))) > schema_major(
            SCHEMA_VERSION
        ):
            return None
        return LedgerLine.model_validate(data).root
    except (ValueError, ValidationError, AttributeError):
        return None


def line_digest(line: bytes | None) -> str:
    """What the next entry's ``previous`` holds: SHA-256 of ``line``, or :data:`GENESIS`."""
    return GENESIS if line is None else _sha(line)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
