"""Reuse a check's measurement when nothing it depends on has changed.

The key of a measurement is a hash of: phasegate's version, the check's id and options, the
tool's version, the new-code fingerprint (which lines count as new), and the path and content
of every input file the check declares. One entry per check is kept, in
``.phasegate/cache/<check>.json``; an entry that cannot be read is simply not used (and kept
aside by the store).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from phasegate import __version__
from phasegate.canonical import canonical_json
from phasegate.gates.protocol import Measurement
from phasegate.model.base import ArtifactModel
from phasegate.model.gate import ToolInfo
from phasegate.store import Store

__all__ = ["CheckCache", "cache_key"]


class _Entry(ArtifactModel):
    key: str
    measurement: Measurement


def cache_key(
    check_id: str,
    *,
    tool: ToolInfo | None,
    options: dict[str, Any],
    new_code: str,
    root: Path,
    inputs: Sequence[Path],
) -> str:
    """The content key of one check's measurement."""
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
        try:
            content = path.read_bytes()
        except OSError:
            content = b"<unreadable>"
        name = path.relative_to(root).as_posix() if root in path.parents else str(path)
        hasher.update(f"\0{name}\0{len(content)}\0".encode())
        hasher.update(hashlib.sha256(content).digest())
    return hasher.hexdigest()


class CheckCache:
    """The cache folder of one artifacts store."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def get(self, check_id: str, key: str) -> Measurement | None:
        """The measurement stored under ``key``, if that is the entry's key."""
        entry = self._store.read_model(self._path(check_id), _Entry)
        if entry is None or entry.key != key:
            return None
        return entry.measurement

    def put(self, check_id: str, key: str, measurement: Measurement) -> None:
        """Store the measurement, replacing the check's previous entry."""
        self._store.write_model(self._path(check_id), _Entry(key=key, measurement=measurement))

    @staticmethod
    def _path(check_id: str) -> str:
        return f"cache/{check_id}.json"
