"""Copies of file content at each green state, so a rollback can restore them byte for byte.

Content is stored once per distinct content, named by its SHA-256, under
``.phasegate/tdd/objects/ab/cdef...`` (the layout git uses for loose objects). A green state
in the ledger lists each file's hash, so the ledger plus this folder restore any green state.
Objects carry no ``.py`` suffix, so neither pytest nor a file listing ever picks them up.

Hand-written on the store's atomic writes, in a few lines: git's object database would need a
git repository (a project may have none) and must not be written to behind the user's back,
and no small library keeps a content-addressed folder better than this does.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from phasegate.errors import StoreError
from phasegate.store import Store
from phasegate.tdd.tree import hash_bytes

__all__ = ["OBJECTS_DIR", "FileChangedError", "ObjectStore", "snapshot_files"]

#: Where the objects live inside the artifacts folder.
OBJECTS_DIR = "tdd/objects"


class FileChangedError(StoreError):
    """A file's content is not what the run hashed: it changed while the tests ran."""

    def __init__(self, path: str) -> None:
        self.file = path
        super().__init__(
            f"{path} changed while the tests ran, so the state the tests saw cannot be "
            "kept; run again without editing files during the run"
        )


class ObjectStore:
    """Content-addressed file copies inside the artifacts folder."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def _relpath(self, sha: str) -> str:
        if len(sha) != 64 or not all(c in "0123456789abcdef" for c in sha):
            raise StoreError(f"{sha!r} is not a SHA-256 hex digest")
        return f"{OBJECTS_DIR}/{sha[:2]}/{sha[2:]}"

    def has(self, sha: str) -> bool:
        """Whether the content with this hash is kept."""
        return self._store.path(self._relpath(sha)).is_file()

    def put(self, data: bytes) -> str:
        """Keep ``data`` (once) and return its hash."""
        sha = hash_bytes(data)
        if not self.has(sha):
            self._store.write_bytes(self._relpath(sha), data)
        return sha

    def get(self, sha: str) -> bytes:
        """The content with this hash, checked; a missing or damaged copy is an error."""
        path = self._store.path(self._relpath(sha))
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise StoreError(
                f"the snapshot {path} is missing, so that content cannot be restored"
            ) from None
        except OSError as exc:
            raise StoreError(f"cannot read the snapshot {path}: {exc.strerror or exc}") from exc
        if hash_bytes(data) != sha:
            raise StoreError(f"the snapshot {path} is damaged: its content does not match its name")
        return data


def snapshot_files(root: Path, objects: ObjectStore, files: Mapping[str, str]) -> int:
    """Keep the content of each ``{path: hash}`` not kept yet; return how many were new.

    Each file is read again and must still have the hash the run recorded, otherwise
    :class:`FileChangedError` names it: the snapshot must be what the tests saw.
    """
    written = 0
    for relpath, sha in sorted(files.items()):
        if not objects.has(sha):
            objects.put(_read_as_recorded(root, relpath, sha))
            written += 1
    return written


def _read_as_recorded(root: Path, relpath: str, sha: str) -> bytes:
    """The file's content, which must still have the hash the run recorded for it."""
    try:
        data = (root / relpath).read_bytes()
    except FileNotFoundError:
        raise FileChangedError(relpath) from None
    except OSError as exc:
        raise StoreError(f"cannot read {root / relpath}: {exc.strerror or exc}") from exc
    if hash_bytes(data) != sha:
        raise FileChangedError(relpath)
    return data
