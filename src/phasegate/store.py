"""The artifacts folder (``.phasegate/`` by default): safe writes, locks, JSONL, schema checks.

Every write goes to a temporary file in the same folder and is renamed over the target, so a
reader sees the old file or the new one, never half of either. Writers that may run at once
(several pytest processes, queue workers) take a named lock. Nothing is ever lost: a file that
cannot be read is moved aside under a timestamped name before anything replaces it, and bad
lines of a JSONL file are moved to a side file while the good ones stay. "Cannot be read"
includes valid JSON of the wrong shape: before a model is written over a file, the file is
validated against that model. A file written by a newer major schema version is refused with
:class:`~phasegate.errors.SchemaVersionError` and left as it is.

The run report is large, and validating it in full before every run would cost more than
recording does; so when it is written, its SHA-256 is kept beside it (``cache/written/``), and
:meth:`Store.vet` parses and validates only a report that is not byte for byte the one
phasegate wrote. Hashing it is the larger part of what vetting costs (about 26 instructions a
byte, 2 MB for 5,000 tests), so a :class:`Store` hashes a file once: a run vets the report
before its tests and again before replacing it, and the second time compares the bytes with
the ones the first found as written (exact, and hundreds of times cheaper).

pydantic is imported only by the methods that read or append models: recording a run writes
plain JSON and loads no pydantic (see :mod:`phasegate.config.settings_cache`).

File locking uses the ``filelock`` package (portable, well kept) rather than hand-written
``fcntl``/``msvcrt`` code.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Generic, TypeVar

from phasegate import clock
from phasegate.errors import StoreError
from phasegate.versioning import check_version

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

__all__ = [
    "AUTODEBUG_JOURNAL_FILE",
    "AUTODEBUG_REPORT_FILE",
    "DEFAULT_LOCK_TIMEOUT_S",
    "REFINEMENT_FILE",
    "RUN_REPORT_FILE",
    "JsonlRead",
    "RejectedLine",
    "Store",
    "first_error",
    "write_atomically",
]

M = TypeVar("M", bound="BaseModel")

#: How long a writer waits for another one before giving up with a clear error.
DEFAULT_LOCK_TIMEOUT_S = 60.0

#: The latest run's report (:class:`~phasegate.model.run.RunReport`), in the artifacts folder.
RUN_REPORT_FILE = "report.json"
#: The latest auto-debug report (:class:`~phasegate.model.autodebug.AutodebugReport`).
AUTODEBUG_REPORT_FILE = "autodebug.json"
#: The original bytes of the files auto-debug is trying a candidate in, for recovery.
AUTODEBUG_JOURNAL_FILE = "autodebug/journal.json"
#: The refinement loop's state (:class:`~phasegate.model.refine.RefinementState`).
REFINEMENT_FILE = "refinement.json"

_ARTIFACT_HEADER = re.compile(rb'\A\{\s*"schema_version"\s*:\s*"(\d+\.\d+)"')
#: Where the digests of files written with ``keep_digest`` are kept.
_DIGESTS = "cache/written"
_GITIGNORE = "# Written by phasegate: its artifacts are build output, not sources.\n*\n"


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


#: Temporary files are created private (0600); the renamed result gets the usual mode.
_FILE_MODE = 0o666 & ~_current_umask()


def _timestamp() -> str:
    return clock.utc_now().strftime("%Y%m%dT%H%M%S%fZ")


def _stderr_notice(message: str) -> None:
    print(f"phasegate: warning: {message}", file=sys.stderr)


@dataclass(frozen=True)
class RejectedLine:
    """A line of a JSONL file that could not be read, and why."""

    number: int
    text: str
    reason: str


@dataclass
class JsonlRead(Generic[M]):
    """The valid entries of a JSONL file, in order, and the lines that were set aside."""

    entries: list[M] = field(default_factory=list)
    rejected: list[RejectedLine] = field(default_factory=list)
    moved_to: Path | None = None


class Store:
    """One artifacts folder. Paths given to its methods are relative to it.

    ``on_notice`` receives one sentence for each thing the store did that a user should know
    (a corrupt file moved aside); the pytest plugin shows them in its terminal section.
    """

    def __init__(
        self,
        root: Path,
        *,
        on_notice: Callable[[str], None] | None = None,
        lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S,
    ) -> None:
        self.root = Path(os.path.abspath(root))
        self.notices: list[str] = []
        self._on_notice = on_notice or _stderr_notice
        self._lock_timeout_s = lock_timeout_s
        #: The bytes of each file this store found as phasegate wrote them (its digest held).
        self._found_as_written: dict[Path, bytes] = {}

    # -- the folder ------------------------------------------------------------------------

    def ensure_writable(self) -> None:
        """Create the folder if needed and prove a file can be written there.

        Raises :class:`StoreError` naming the folder and the operating system's reason.
        """
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            gitignore = self.root / ".gitignore"
            if not gitignore.exists():
                write_atomically(gitignore, _GITIGNORE.encode())
            probe = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed just below
                dir=self.root, prefix=".probe-", delete=True
            )
            probe.close()
        except OSError as exc:
            raise StoreError(
                f"cannot write artifacts to {self.root}: {exc.strerror or exc}; "
                "choose a writable folder with artifacts_dir in [tool.phasegate] "
                "or --phasegate-dir"
            ) from exc

    def path(self, relpath: str | Path) -> Path:
        """The absolute path of ``relpath``, refusing anything that escapes the folder.

        Symbolic links are followed: a link inside the folder that leads out of it (a
        ``gates`` folder linked to somewhere else) is refused like a ``..`` would be.
        """
        candidate = Path(os.path.abspath(self.root / relpath))
        if candidate != self.root and self.root not in candidate.parents:
            raise StoreError(f"{relpath} is outside the artifacts folder {self.root}")
        real_root = self.root.resolve()
        real = candidate.resolve()
        if real != real_root and real_root not in real.parents:
            raise StoreError(
                f"{relpath} leads out of the artifacts folder {self.root} through a symbolic "
                f"link (to {real}); phasegate writes nothing through it"
            )
        return candidate

    @contextlib.contextmanager
    def lock(self, name: str) -> Iterator[None]:
        """Hold the named lock; other processes asking for the same name wait."""
        lock_dir = self.path(".locks")
        if not name or "/" in name or "\\" in name:
            raise StoreError(
                f"the lock name {name!r} is not allowed: a lock is a file of {lock_dir}, so "
                "its name is not empty and holds no '/' or '\\'"
            )
        lock_dir.mkdir(parents=True, exist_ok=True)
        lock_path = lock_dir / f"{name}.lock"
        import filelock  # only writers that share a file pay for it

        lock = filelock.FileLock(str(lock_path), timeout=self._lock_timeout_s)
        try:
            with lock:
                yield
        except filelock.Timeout as exc:
            raise StoreError(
                f"waited {self._lock_timeout_s:.0f}s for the lock {lock_path}; another "
                "phasegate process holds it. If none is running, delete the lock file."
            ) from exc

    def notice(self, message: str) -> None:
        """Record and pass on one thing the user should know."""
        self.notices.append(message)
        self._on_notice(message)

    # -- where artifacts live --------------------------------------------------------------

    @staticmethod
    def verdict_file(gate: str) -> str:
        """Where the verdict of gate ``gate`` is kept, relative to the folder."""
        return f"gates/{gate}.json"

    @staticmethod
    def gate_log_file(gate: str) -> str:
        """Where the output of the pytest run that judged gate ``gate`` is kept."""
        return f"gates/{gate}.pytest.log"

    # -- whole files -----------------------------------------------------------------------

    def write_text(self, relpath: str | Path, text: str, *, keep_digest: bool = False) -> Path:
        """Write ``text`` atomically and return the absolute path.

        ``keep_digest`` keeps the SHA-256 of what was written, so that :meth:`vet` can tell
        the file is still phasegate's own without parsing it.
        """
        target = self.path(relpath)
        data = text.encode("utf-8")
        self._found_as_written.pop(target, None)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(target, data)
            if keep_digest:
                digest = self.path(f"{_DIGESTS}/{_lock_name(relpath)}.sha256")
                digest.parent.mkdir(parents=True, exist_ok=True)
                write_atomically(digest, hashlib.sha256(data).hexdigest().encode("ascii"))
        except OSError as exc:
            raise StoreError(f"cannot write {target}: {exc.strerror or exc}") from exc
        return target

    def write_bytes(self, relpath: str | Path, data: bytes) -> Path:
        """Write ``data`` atomically and return the absolute path."""
        target = self.path(relpath)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(target, data)
        except OSError as exc:
            raise StoreError(f"cannot write {target}: {exc.strerror or exc}") from exc
        return target

    def write_model(
        self, relpath: str | Path, model: BaseModel, *, keep_digest: bool = False
    ) -> Path:
        """Write a model as indented JSON, atomically (``keep_digest``: see :meth:`write_text`).

        An existing file that cannot be read as this model is moved aside first (never
        overwritten), and one written by a newer major schema is refused.
        """
        self.vet(relpath, type(model))
        text = model.model_dump_json(indent=2) + "\n"
        return self.write_text(relpath, text, keep_digest=keep_digest)

    def read_model(self, relpath: str | Path, model_type: type[M]) -> M | None:
        """Read a model, or ``None`` if the file is missing or was corrupt (and moved aside)."""
        target = self.path(relpath)
        try:
            raw = target.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(f"cannot read {target}: {exc.strerror or exc}") from exc
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            self.move_aside(target, f"it is not valid JSON ({exc})")
            return None
        self._check_version(target, data)
        from pydantic import ValidationError

        try:
            return model_type.model_validate(data)
        except ValidationError as exc:
            self.move_aside(target, f"it does not match the schema ({first_error(exc)})")
            return None

    def vet(self, relpath: str | Path, model_type: type[BaseModel] | str | None = None) -> None:
        """Make way for a new ``relpath``: move an unreadable file aside, refuse a newer schema.

        Called before a run starts, so a problem shows before the tests spend their time, and
        again before the file is replaced. ``model_type`` (a class, or ``"module:Class"`` to
        import only when needed) is what the file must validate as; a file byte for byte as
        phasegate last wrote it (see ``keep_digest``) is not parsed again. Without a model, a
        file that opens with an artifact header and ends with its closing brace is taken as
        whole (writes are atomic) and only its version is read.
        """
        target = self.path(relpath)
        try:
            raw = target.read_bytes()
        except OSError:
            return  # missing, or unreadable here: the write that follows will say what is wrong
        version = self._version_of_whole(relpath, raw, checked=model_type is not None)
        if version is not None:
            self._check_version(target, {"schema_version": version})
            return
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            self.move_aside(target, f"it is not valid JSON ({exc})")
            return
        self._check_version(target, data)
        if model_type is not None:
            self._vet_schema(target, data, _model_class(model_type))

    def _version_of_whole(self, relpath: str | Path, raw: bytes, *, checked: bool) -> str | None:
        """The schema version of a file taken as whole unparsed; ``None``: parse it.

        A file is whole when it opens with an artifact header and ends with its closing brace;
        one ``checked`` against a model must also be byte for byte as phasegate last wrote it.
        """
        header = _ARTIFACT_HEADER.match(raw[:200])
        if header is None or not raw.rstrip().endswith(b"}"):
            return None
        if checked and not self._as_written(relpath, raw):
            return None
        return header.group(1).decode()

    def _vet_schema(self, target: Path, data: object, model: type[BaseModel]) -> None:
        """Move ``target`` aside unless ``data`` validates as ``model``."""
        from pydantic import ValidationError

        try:
            model.model_validate(data)
        except ValidationError as exc:
            self.move_aside(target, f"it does not match the schema ({first_error(exc)})")

    def is_as_written(self, relpath: str | Path) -> bool:
        """Whether ``relpath`` is byte for byte what phasegate last wrote there with
        ``keep_digest`` (``False`` when it, or its digest, cannot be read)."""
        try:
            raw = self.path(relpath).read_bytes()
        except OSError:
            return False
        return self._as_written(relpath, raw)

    def _as_written(self, relpath: str | Path, raw: bytes) -> bool:
        """Whether ``raw`` is what phasegate last wrote to ``relpath`` with ``keep_digest``.

        Bytes this store already found as written are taken as such without hashing them again.
        """
        target = self.path(relpath)
        if self._found_as_written.get(target) == raw:
            return True
        try:
            digest = self.path(f"{_DIGESTS}/{_lock_name(relpath)}.sha256").read_text("ascii")
        except (OSError, UnicodeDecodeError):
            return False
        if digest.strip() != hashlib.sha256(raw).hexdigest():
            return False
        self._found_as_written[target] = raw
        return True

    def move_aside(self, target: Path, why: str) -> Path:
        """Rename ``target`` to ``<name>.corrupt-<UTC timestamp>`` and say so."""
        aside = target.with_name(f"{target.name}.corrupt-{_timestamp()}")
        try:
            os.replace(target, aside)
        except OSError as exc:
            raise StoreError(
                f"{target} cannot be read ({why}) and could not be moved aside: "
                f"{exc.strerror or exc}"
            ) from exc
        self.notice(f"{self._display(target)} could not be read: {why}; kept as {aside.name}")
        return aside

    # -- JSONL -----------------------------------------------------------------------------

    def append_jsonl(
        self,
        relpath: str | Path,
        entries: Sequence[BaseModel] | BaseModel,
        *,
        exclude_none: bool = False,
    ) -> Path:
        """Append one line per entry under the file's lock, flushed and synced to disk.

        ``exclude_none`` leaves out fields whose value is ``None`` (they read back as their
        default), which keeps logs with many optional fields small.
        """
        from pydantic import BaseModel

        target = self.path(relpath)
        batch = [entries] if isinstance(entries, BaseModel) else list(entries)
        payload = "".join(
            entry.model_dump_json(exclude_none=exclude_none) + "\n" for entry in batch
        ).encode("utf-8")
        with self.lock(_lock_name(relpath)):
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                with open(target, "ab+") as handle:
                    handle.write(_line_end_owed(handle) + payload)
                    handle.flush()
                    os.fsync(handle.fileno())
            except OSError as exc:
                raise StoreError(f"cannot append to {target}: {exc.strerror or exc}") from exc
        return target

    def read_jsonl(self, relpath: str | Path, model_type: type[M]) -> JsonlRead[M]:
        """Read every valid entry; lines that cannot be read are moved to a side file.

        The side file (``<name>.corrupt-<timestamp>``) keeps each bad line with its number and
        the reason; the original keeps its valid lines, in order. Nothing is dropped.
        """
        target = self.path(relpath)
        result: JsonlRead[M] = JsonlRead()
        with self.lock(_lock_name(relpath)):
            try:
                raw = target.read_bytes()
            except FileNotFoundError:
                return result
            except OSError as exc:
                raise StoreError(f"cannot read {target}: {exc.strerror or exc}") from exc
            good_lines = self._parse_lines(target, raw, model_type, result)
            if result.rejected:
                result.moved_to = self._set_lines_aside(target, good_lines, result.rejected)
        if result.moved_to is not None:
            self._notice_lines_aside(target, result, result.moved_to)
        return result

    def entries_in(self, relpath: str | Path, raw: bytes, model_type: type[M]) -> list[M]:
        """The valid entries of ``raw``, bytes the JSONL file ``relpath`` held, read line by
        line as :meth:`read_jsonl` reads the file; nothing is set aside or written."""
        result: JsonlRead[M] = JsonlRead()
        self._parse_lines(self.path(relpath), raw, model_type, result)
        return result.entries

    def _parse_lines(
        self, target: Path, raw: bytes, model_type: type[M], result: JsonlRead[M]
    ) -> list[bytes]:
        """Parse each line into ``result``; return the lines that were read."""
        good_lines: list[bytes] = []
        for number, line in enumerate(raw.splitlines(), start=1):
            if not line.strip():
                continue
            entry = self._parse_line(target, number, line, model_type, result.rejected)
            if entry is not None:
                result.entries.append(entry)
                good_lines.append(line)
        return good_lines

    def _notice_lines_aside(self, target: Path, result: JsonlRead[M], moved_to: Path) -> None:
        rejected = result.rejected
        numbers = ", ".join(str(r.number) for r in rejected[:10])
        more = "" if len(rejected) <= 10 else f" and {len(rejected) - 10} more"
        self.notice(
            f"{self._display(target)}: {len(rejected)} unreadable line(s) "
            f"(line {numbers}{more}) moved to {moved_to.name}; "
            f"{len(result.entries)} valid entries kept"
        )

    # -- internals -------------------------------------------------------------------------

    def _parse_line(
        self,
        target: Path,
        number: int,
        line: bytes,
        model_type: type[M],
        rejected: list[RejectedLine],
    ) -> M | None:
        text = line.decode("utf-8", errors="replace")
        try:
            data = json.loads(line)
        except ValueError as exc:
            rejected.append(RejectedLine(number, text, f"not valid JSON ({exc})"))
            return None
        self._check_version(target, data, line=number)
        from pydantic import ValidationError

        try:
            return model_type.model_validate(data)
        except ValidationError as exc:
            rejected.append(RejectedLine(number, text, first_error(exc)))
            return None

    def _set_lines_aside(
        self, target: Path, good_lines: list[bytes], rejected: list[RejectedLine]
    ) -> Path:
        aside = target.with_name(f"{target.name}.corrupt-{_timestamp()}")
        record = "".join(
            json.dumps({"line": r.number, "reason": r.reason, "text": r.text}) + "\n"
            for r in rejected
        )
        try:
            write_atomically(aside, record.encode("utf-8"))
            write_atomically(target, b"".join(line + b"\n" for line in good_lines))
        except OSError as exc:
            raise StoreError(
                f"{target} has unreadable lines that could not be set aside: {exc.strerror or exc}"
            ) from exc
        return aside

    def _check_version(self, target: Path, data: object, *, line: int | None = None) -> None:
        check_version(target if line is None else f"{target} line {line}", data)

    def _display(self, target: Path) -> str:
        try:
            return str(target.relative_to(self.root.parent))
        except ValueError:
            return str(target)


def _model_class(model_type: type[BaseModel] | str) -> type[BaseModel]:
    if not isinstance(model_type, str):
        return model_type
    module, _, name = model_type.partition(":")
    found: type[BaseModel] = getattr(importlib.import_module(module), name)
    return found


def write_atomically(target: Path, payload: bytes, *, mode: int | None = None) -> None:
    """Write ``payload`` to a temporary file beside ``target``, synced, then rename it over.

    The file gets permission bits ``mode``, or by default those a new file gets under the
    process's umask. A reader sees the old file or the new one, never half of either; on any
    error the temporary file is removed and ``target`` is left as it was.
    """
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - renamed or removed below
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp", delete=False
    )
    try:
        with handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, _FILE_MODE if mode is None else mode)
        os.replace(handle.name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(handle.name)
        raise


def _line_end_owed(handle: BinaryIO) -> bytes:
    """The newline a log opened for appending owes before the next entry: a writer that died
    mid-line left none, and the new entry must not be glued to its stub (the stub is set
    aside when the log is read)."""
    if handle.seek(0, os.SEEK_END) == 0:
        return b""
    handle.seek(-1, os.SEEK_END)
    return b"" if handle.read(1) == b"\n" else b"\n"


def _lock_name(relpath: str | Path) -> str:
    return str(relpath).replace("/", "__").replace("\\", "__")


def first_error(exc: ValidationError) -> str:
    """The first problem of a file that does not match its model, as ``dotted.key: message``
    (``top level`` for the document itself)."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "top level"
    return f"{where}: {first['msg']}"
