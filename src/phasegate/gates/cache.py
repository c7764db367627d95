"""Reuse a check's measurement when nothing it depends on has changed.

The key of a measurement is a hash of: phasegate's version, the check's id and options, the
tool's version, the new-code fingerprint (which lines count as new), and the path and content
of every input file the check declares. One entry per check is kept, in
``.phasegate/cache/<check>.json``; an entry that cannot be read is simply not used (and kept
aside by the store).

When any input changed, a check whose tool reads each file on its own (bandit) need not run it
over every file again: :class:`FileResults` keeps the tool's raw results per file, in
``.phasegate/cache/<check>.files.json``, each under the SHA-256 of the file's content and a key
of everything else the tool's answer depends on (its version, its settings). The check runs
the tool on the files whose content changed and takes the rest from there; it then judges all
of them as it would judge one whole run, so both scopes (all code, new code) are computed
afresh. Only the current files' names are looked up: no path is read from the file.

An entry is believed only as this machine wrote it (review finding 2: the key is computable by
anyone, so a forged "clean" entry committed with ``git add -f`` was believed in a fresh clone).
It is refused, and the check measured again, when git lists the entry's file (tracked, or
not ignored: a commit would carry it; the project's file listing, which the checks ask git for
anyway, is shared: no git process is added) or when it is not byte for byte what phasegate last
wrote (the store keeps each entry's SHA-256 beside it, in ``cache/written/``). The runner says
so in the check's summary. The digest stops an entry edited in place, not a forger who rewrites
the digest too: that one is left to integrity's ``artifact-committed`` and to the git rule,
which holds in a fresh clone (CI), where only committed files exist.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import JsonValue

from phasegate import __version__
from phasegate.canonical import canonical_json
from phasegate.gates.protocol import Measurement
from phasegate.model.base import ArtifactModel, Model
from phasegate.model.gate import ToolInfo
from phasegate.store import Store

if TYPE_CHECKING:
    from phasegate.gates.project import GateProject

__all__ = [
    "CheckCache",
    "ContentDigests",
    "FileResults",
    "cache_key",
    "content_digest",
    "refusal",
]


class _Entry(ArtifactModel):
    key: str
    measurement: Measurement


def cache_key(
    check_id: str,
    *,
    tool: ToolInfo | None,
    options: Mapping[str, object],
    new_code: str,
    root: Path,
    inputs: Sequence[Path],
    digest: Callable[[Path], str | None] | None = None,
) -> str:
    """The content key of one check's measurement; ``digest`` gives each input's content
    digest (default: :func:`content_digest`, the file read now)."""
    hasher = hashlib.sha256()
    header = {
        "phasegate": __version__,
        "check": check_id,
        "tool": tool.model_dump() if tool else None,
        "options": options,
        "new_code": new_code,
    }
    hasher.update(canonical_json(header).encode())
    for path in sorted(inputs):
        content = (digest or content_digest)(path) or "<unreadable>"
        hasher.update(f"\0{_input_name(path, root)}\0{content}".encode())
    return hasher.hexdigest()


def _input_name(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` when it is inside it, else as it is."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def refusal(store: Store, relpath: str, project: GateProject | None) -> str | None:
    """Why the entry ``relpath`` of the store is not believed; ``None``: it is this machine's.

    ``project`` (its git listing) is where git's answer comes from; without one, only the
    digest is compared.
    """
    shown = f"{store.root.name}/{relpath}"
    if not store.is_as_written(relpath):
        return f"{shown} is not what phasegate wrote there"
    if project is not None and _listed_by_git(project, store.path(relpath)):
        return f"{shown} is in git (tracked, or not ignored): not this machine's measurement"
    return None


def _listed_by_git(project: GateProject, path: Path) -> bool:
    """Whether git lists ``path`` among the project's files (the listing is asked once a run).

    Both paths are resolved: the store's root and the project's may name the same folder
    through a symbolic link, and a name outside the root is never in git's listing.
    """
    return project.in_git and (
        _input_name(path.resolve(), project.root.resolve()) in project.git_listing
    )


class CheckCache:
    """The cache folder of one artifacts store; ``project`` is the one the gate checks (its
    git listing tells an entry a commit brought: see the module's docstring)."""

    def __init__(self, store: Store, project: GateProject | None = None) -> None:
        self._store = store
        self._project = project
        #: Why a matching entry was not believed, by check (the runner says so).
        self.refused: dict[str, str] = {}

    def get(self, check_id: str, key: str) -> Measurement | None:
        """The measurement stored under ``key``, if that is the entry's key and the entry is
        this machine's (else the reason is kept in :attr:`refused`, until the next look)."""
        self.refused.pop(check_id, None)
        entry = self._store.read_model(self._path(check_id), _Entry)
        if entry is None or entry.key != key:
            return None
        why = refusal(self._store, self._path(check_id), self._project)
        if why is not None:
            self.refused[check_id] = why
            return None
        return entry.measurement

    def put(self, check_id: str, key: str, measurement: Measurement) -> None:
        """Store the measurement, replacing the check's previous entry."""
        entry = _Entry(key=key, measurement=measurement)
        self._store.write_model(self._path(check_id), entry, keep_digest=True)

    @staticmethod
    def _path(check_id: str) -> str:
        return f"cache/{check_id}.json"


def content_digest(path: Path) -> str | None:
    """The SHA-256 of the file's content; ``None`` when it cannot be read."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


class ContentDigests:
    """Each file's :func:`content_digest`, read once for the cache keys of one run.

    The checks of a gate hash many of the same files for their keys (the package's sources
    for syntax, lint, deps, docs and the build): the run reads and hashes each once. A new run
    takes a new instance, so it reads the files again.
    """

    def __init__(self) -> None:
        self._known: dict[Path, str | None] = {}
        self._lock = threading.Lock()  # the checks run in threads

    def __call__(self, path: Path) -> str | None:
        with self._lock:
            if path not in self._known:
                self._known[path] = content_digest(path)
            return self._known[path]


class _FileEntry(Model):
    digest: str
    data: JsonValue


class _FileEntries(ArtifactModel):
    key: str
    files: dict[str, _FileEntry]


class FileResults:
    """One check's raw results per file, reused for the files whose content is unchanged."""

    def __init__(self, store: Store, check_id: str, project: GateProject | None = None) -> None:
        self._store = store
        self._path = f"cache/{check_id}.files.json"
        self._project = project

    def known(self, key: str, digests: dict[str, str]) -> dict[str, JsonValue]:
        """The kept results of the files named in ``digests`` (name: content digest) whose
        content and ``key`` are those they were kept under; the check validates them again.

        Kept results that are not this machine's (:func:`refusal`) are not used, and the store
        says so in a notice."""
        entries = self._store.read_model(self._path, _FileEntries)
        if entries is None or entries.key != key:
            return {}
        why = refusal(self._store, self._path, self._project)
        if why is not None:
            self._store.notice(f"{why}; its files are checked again")
            return {}
        return {
            name: entry.data
            for name, entry in entries.files.items()
            if digests.get(name) == entry.digest
        }

    def keep(self, key: str, results: Mapping[str, tuple[str, object]]) -> None:
        """Keep ``results`` (name: (content digest, raw results as JSON data)), replacing what
        was kept."""
        files = {
            name: _FileEntry.model_validate({"digest": digest, "data": data})
            for name, (digest, data) in results.items()
        }
        entries = _FileEntries(key=key, files=files)
        self._store.write_model(self._path, entries, keep_digest=True)
