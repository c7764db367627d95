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

Only a table that validated is cached, so a bad key fails the same way on every run. A file
of another format is a miss and is replaced. An entry is believed only if it is intact: its
values carry their own SHA-256, the keys a plain recording run reads (``artifacts_dir``,
``gate``, ``plugins``, ``max_traceback_chars``) have the types and values the table and the
flags give (or their defaults), and every key the table gives is in the values as written
(strict validation never changes a value). A poisoned file (unreadable, or an entry that is not
intact) is moved aside (``config.json.corrupt-<time>``) and the settings are validated again.
No other value is trusted: :class:`~phasegate.config.LoadedConfig` builds its model from
the table, and sets the file aside the same way when the cached values say otherwise.
Hand-written (some hundred lines over the standard library) because the check-result cache
(:mod:`phasegate.gates.cache`) keys by file contents and is itself built on pydantic, which is
what this cache exists to avoid.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import sys
from collections.abc import Mapping
from datetime import datetime, timezone
from functools import cache
from pathlib import Path

from phasegate import __version__
from phasegate.canonical import typed
from phasegate.store import write_atomically

__all__ = [
    "CACHE_FILE",
    "ENTRIES",
    "LIGHT_DEFAULTS",
    "cache_path",
    "cacheable",
    "input_key",
    "lookup",
    "save",
    "set_aside",
]

#: The cache's path inside the artifacts folder.
CACHE_FILE = "cache/settings/config.json"
_FORMAT = 3
#: How many settings (keys) the file keeps, the most recently validated first.
ENTRIES = 8
_DEFAULT_ARTIFACTS_DIR = ".phasegate"
#: Top-level packages whose loaded modules decide what a valid setting is.
_VALIDATING_PACKAGES = ("phasegate", "pydantic", "pydantic_core")
#: The keys a run that only records reads from the values, and their defaults (a test keeps
#: them in step with :class:`phasegate.config.PhasegateConfig`).
LIGHT_DEFAULTS: Mapping[str, object] = {
    "artifacts_dir": ".phasegate",
    "gate": "default",
    "plugins": [],
    "max_traceback_chars": 4000,
}


def cache_path(
    project_root: Path, table: Mapping[str, object], overrides: Mapping[str, object]
) -> Path | None:
    """Where the cache of these settings lives: the artifacts folder they name.

    ``None`` when the table names a folder outside the project root: such settings are
    validated every time (and refused).
    """
    folder = overrides.get("artifacts_dir", table.get("artifacts_dir"))
    if not isinstance(folder, str) or not folder:
        folder = _DEFAULT_ARTIFACTS_DIR  # a bad value is never cached: validation rejects it
    path = project_root / folder / CACHE_FILE
    if "artifacts_dir" not in overrides:
        root = project_root.resolve()
        if root not in path.resolve().parents:
            return None
    return path


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


def input_key(table: Mapping[str, object], overrides: Mapping[str, object]) -> str:
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


def lookup(
    path: Path,
    key: str,
    table: Mapping[str, object] | None = None,
    overrides: Mapping[str, object] | None = None,
) -> dict[str, object] | None:
    """The validated settings cached for ``key``, or ``None`` (no file, no such key, stale).

    A file or an entry that is not intact (see the module doc) is moved aside: ``None``.
    """
    entry = next((entry for entry in _entries(path) if entry.get("key") == key), None)
    if entry is None:
        return None
    found = _intact_entry(path, entry, table or {}, overrides or {})
    if found is None:
        return None
    values, modules = found
    return values if _modules_unchanged(modules) else None


def _intact_entry(
    path: Path,
    entry: Mapping[str, object],
    table: Mapping[str, object],
    overrides: Mapping[str, object],
) -> tuple[dict[str, object], list[object]] | None:
    """An entry's values and validating modules when it is intact; else the file is set aside
    (None)."""
    values, modules = entry.get("values"), entry.get("modules")
    if not isinstance(values, dict) or not isinstance(modules, list):
        set_aside(path, "an entry of it has no values")
        return None
    if not _intact(entry, values, table, overrides):
        set_aside(path, "an entry of it does not match the settings it was made from")
        return None
    return values, modules


def _intact(
    entry: Mapping[str, object],
    values: Mapping[str, object],
    table: Mapping[str, object],
    overrides: Mapping[str, object],
) -> bool:
    """An entry whose values hash as recorded and say what the table and flags say."""
    return entry.get("sha256") == _digest(values) and _agrees_with(values, table, overrides)


def _modules_unchanged(modules: list[object]) -> bool:
    """Whether each validating module recorded as ``[file, mtime_ns, size]`` is as it was."""
    return all(_module_unchanged(module) for module in modules)


def _module_unchanged(module: object) -> bool:
    if not isinstance(module, list) or len(module) != 3 or not isinstance(module[0], str):
        return False  # not what save() writes: stale
    file, mtime_ns, size = module
    try:
        status = os.stat(file)
    except (OSError, ValueError):
        return False
    return bool(status.st_mtime_ns == mtime_ns and status.st_size == size)


def set_aside(path: Path, why: str) -> None:
    """Move a poisoned cache file to ``<name>.corrupt-<UTC time>`` and say so on stderr."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    try:
        os.replace(path, aside)
    except OSError:
        return  # gone already, or another run moved it: the next save writes a fresh one
    print(
        f"phasegate: warning: the settings cache {path} could not be used ({why}); kept as "
        f"{aside.name}, the settings are validated again",
        file=sys.stderr,
    )


def _digest(values: object) -> str:
    text = json.dumps(values, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _agrees_with(
    values: Mapping[str, object], table: Mapping[str, object], overrides: Mapping[str, object]
) -> bool:
    """Whether cached values say what the table and flags say, where they say it."""
    for name, default in LIGHT_DEFAULTS.items():
        expected = overrides.get(name, table.get(name, default))
        if not _same(expected, values.get(name)):
            return False
    return _same({k: v for k, v in table.items() if k not in overrides}, values, subset=True)


def _same(given: object, cached: object, *, subset: bool = False) -> bool:
    """``given`` as validation keeps it: the same value of the same type (an int may have
    become a float); with ``subset``, tables in ``cached`` may hold more keys (defaults)."""
    if isinstance(given, dict):
        return isinstance(cached, dict) and _same_table(given, cached, subset=subset)
    if isinstance(given, list):
        return isinstance(cached, list) and _same_list(given, cached, subset=subset)
    if type(given) is int and type(cached) is float:
        return given == cached
    return type(given) is type(cached) and given == cached


def _same_list(given: list[object], cached: list[object], *, subset: bool) -> bool:
    if len(given) != len(cached):
        return False
    return all(_same(a, b, subset=subset) for a, b in zip(given, cached, strict=True))


def _same_table(given: Mapping[str, object], cached: Mapping[str, object], *, subset: bool) -> bool:
    if not subset and given.keys() != cached.keys():
        return False
    return all(
        name in cached and _same(item, cached[name], subset=subset) for name, item in given.items()
    )


def save(path: Path, key: str, values: Mapping[str, object]) -> None:
    """Cache ``values`` for ``key`` first, keeping the other keys' entries up to :data:`ENTRIES`.

    A folder that cannot be written is left alone.
    """
    entry = {
        "key": key,
        "modules": _validating_modules(),
        "values": values,
        "sha256": _digest(values),
    }
    others = [other for other in _entries(path) if other.get("key") != key]
    payload = {"format": _FORMAT, "entries": [entry, *others][:ENTRIES]}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, json.dumps(payload, indent=1).encode("utf-8"))
    except OSError:
        return  # only a cache: the store reports an unwritable artifacts folder itself


def _entries(path: Path) -> list[dict[str, object]]:
    """The entries of the cache file; none if it is missing or of another format.

    A file that is not JSON, or of this format but not a list of entries, is set aside.
    """
    data = _read_json(path)
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return []  # another format: replaced by the next save, as a miss
    entries = data.get("entries")
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        set_aside(path, "its entries are not a list of tables")
        return []
    return entries


def _read_json(path: Path) -> object:
    """The cache file's JSON; None for no file, or one set aside as not JSON."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    try:
        data: object = json.loads(raw)
    except (ValueError, RecursionError):
        set_aside(path, "it is not valid JSON")
        return None
    return data


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
