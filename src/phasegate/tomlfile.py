"""Reading TOML files: the standard library's ``tomllib``, or ``tomli`` on Python 3.10."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["TOMLDecodeError", "loads", "read_table", "table_in"]

TOMLDecodeError = tomllib.TOMLDecodeError


def loads(text: str) -> dict[str, object]:
    """Parse TOML text; raises :data:`TOMLDecodeError` when it is not valid TOML.

    Free-form: each reader narrows what it reads (or validates it with a model).
    """
    document: dict[str, object] = tomllib.loads(text)
    return document


def read_table(path: Path, *keys: str) -> dict[str, object]:
    """The table at ``keys`` of a TOML file, or ``{}`` when the file or table is missing or
    unreadable (for lenient, early reads; strict readers use :func:`loads`)."""
    try:
        document = loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, TOMLDecodeError):
        return {}
    return table_in(document, *keys)


def table_in(document: Mapping[str, object], *keys: str) -> dict[str, object]:
    """The table at ``keys`` of a parsed TOML document, or ``{}`` where a key is missing or its
    value is not a table (``table_in(pyproject, "tool", "radon")`` is ``[tool.radon]``)."""
    table: object = document
    for key in keys:
        table = table.get(key) if isinstance(table, dict) else None
    return table if isinstance(table, dict) else {}
