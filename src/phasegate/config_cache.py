"""A cache of validated ``[tool.phasegate]`` settings, so that recording a run loads no pydantic.

Validating the settings means importing pydantic and building the config models: about 435 M
instructions, 3% of a plain pytest run of 5,000 small tests, on every run. The result depends
only on the table, the command-line overrides and the code that validates them, so the pytest
plugin keeps it in ``<artifacts>/cache/settings/config.json``, keyed by:

* the table and the overrides, as canonical JSON with every value tagged with its type (so
  that no string can stand for a TOML date), phasegate's version and where phasegate,
  pydantic and pydantic-core are installed (a SHA-256 digest): another virtual environment or
  another copy of phasegate sharing the project's artifacts folder is a miss;
* the size and modification time of every phasegate module loaded when the settings were
  validated, and of pydantic's and pydantic-core's own modules, each checked again on use: an
  edited or reinstalled validator is a miss.

The file lives in a folder of its own, ``cache/settings/``, where no check's cached result
(``cache/<check>.json``, :mod:`phasegate.gates.cache`) can take its name. ``cache = false``
in the table turns this cache off too.

The file keeps the last :data:`ENTRIES` keys validated, most recent first (a hit does not
move its entry, which would cost a write on every run), so that runs that alternate
between settings (``pytest --gate=record`` and ``pytest --gate=twelve-check``, or ``phasegate
gate run`` and the pytest run it starts) each find their own.

Only a table that validated is cached, so a bad key fails the same way on every run. A cache
file that cannot be read or does not match is a miss and is replaced: it holds derived data,
not state, so nothing is lost. Hand-written (some fifty lines over the standard library)
because the check-result cache (:mod:`phasegate.gates.cache`) keys by file contents and is
itself built on pydantic, which is what this cache exists to avoid.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import sys
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from phasegate import __version__
from phasegate.canonical import typed
from phasegate.store import write_atomically

__all__ = ["CACHE_FILE", "ENTRIES", "cache_path", "cacheable", "input_key", "lookup", "save"]

#: The cache's path inside the artifacts folder.
CACHE_FILE = "cache/settings/config.json"
_FORMAT = 2
#: How many settings (keys) the file keeps, the most recently validated first.
ENTRIES = 8
_DEFAULT_ARTIFACTS_DIR = ".phasegate"
#: Top-level packages whose loaded modules decide what a valid setting is.
_VALIDATING_PACKAGES = ("phasegate", "pydantic", "pydantic_core")


def cache_path(project_root: Path, table: Mapping[str, Any], overrides: Mapping[str, Any]) -> Path:
    """Where the cache of these settings lives: the artifacts folder they name."""
    folder = overrides.get("artifacts_dir", table.get("artifacts_dir"))
    if not isinstance(folder, str) or not folder:
        folder = _DEFAULT_ARTIFACTS_DIR  # a bad value is never cached: validation rejects it
    return project_root / folder / CACHE_FILE


def cacheable(value: object) -> bool:
    """Whether settings given as ``value`` come back the same from the cache's plain JSON.

    A TOML date or time, or a float that is not finite, would come back as a string or
    ``null`` (in a check's ``options``, say): such a table is validated on every run instead.
    """
    if isinstance(value, Mapping):
        return all(cacheable(item) for item in value.values())
    if isinstance(value, list | tuple):
        return all(cacheable(item) for item in value)
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, bool | int | str)


def input_key(table: Mapping[str, Any], overrides: Mapping[str, Any]) -> str:
    """A digest of the settings as given and of the phasegate version and install judging them."""
    text = json.dumps(
        {
            "phasegate": __version__,
            "installed": _installation(),
            "table": typed(table),
            "overrides": typed(overrides),
        },
        sort_keys=True,
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def lookup(path: Path, key: str) -> dict[str, Any] | None:
    """The validated settings cached for ``key``, or ``None`` (no file, no such key, stale)."""
    for entry in _entries(path):
        if entry.get("key") != key:
            continue
        values, modules = entry.get("values"), entry.get("modules")
        if not isinstance(values, dict) or not isinstance(modules, list):
            return None
        for module in modules:
            try:
                file, mtime_ns, size = module
                status = os.stat(file)
            except (OSError, TypeError, ValueError):
                return None
            if status.st_mtime_ns != mtime_ns or status.st_size != size:
                return None
        return values
    return None


def save(path: Path, key: str, values: Mapping[str, Any]) -> None:
    """Cache ``values`` for ``key`` first, keeping the other keys' entries up to :data:`ENTRIES`.

    A folder that cannot be written is left alone.
    """
    entry = {"key": key, "modules": _validating_modules(), "values": values}
    others = [other for other in _entries(path) if other.get("key") != key]
    payload = {"format": _FORMAT, "entries": [entry, *others][:ENTRIES]}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, json.dumps(payload, indent=1).encode("utf-8"))
    except OSError:
        return  # only a cache: the store reports an unwritable artifacts folder itself


def _entries(path: Path) -> list[dict[str, Any]]:
    """The entries of the cache file; none if it is missing, unreadable or of another format."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return []
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return []
    entries = data.get("entries")
    if not isinstance(entries, list):
        return []
    return [entry for entry in entries if isinstance(entry, dict)]


def _validating_modules() -> list[tuple[str, int, int]]:
    """``(file, mtime_ns, size)`` of each loaded module of the validating packages."""
    modules: list[tuple[str, int, int]] = []
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] not in _VALIDATING_PACKAGES:
            continue
        file = getattr(module, "__file__", None)
        if not file:
            continue
        try:
            status = os.stat(file)
        except OSError:
            continue
        modules.append((file, status.st_mtime_ns, status.st_size))
    return sorted(modules)


@cache
def _installation() -> list[str | None]:
    """Where each validating package is installed (found without importing it)."""
    locations: list[str | None] = []
    for name in _VALIDATING_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        locations.append(None if spec is None else spec.origin)
    return locations
