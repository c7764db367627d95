"""Canonical JSON text of settings for cache keys, with every value named by its type.

``json.dumps(value, sort_keys=True, default=str)`` writes the TOML date ``2026-01-02`` and the
string ``"2026-01-02"`` alike (and ``1`` and ``True`` nearly so), so two different settings
would share a cache key and the second would reuse a result the first produced. No library
writes a type-tagged canonical form of plain values; this is a dozen lines over :mod:`json`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

__all__ = ["canonical_json", "typed"]


def typed(value: object) -> object:
    """``value`` with every leaf as ``[type name, value]``; values JSON has no type for as text."""
    if isinstance(value, Mapping):
        return {str(key): typed(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [typed(item) for item in value]
    if value is None or isinstance(value, bool | int | float | str):
        return [type(value).__name__, value]
    return [type(value).__name__, str(value)]  # TOML dates and times, paths


def canonical_json(value: object) -> str:
    """One text per distinct ``value``: keys sorted, every leaf tagged with its type."""
    return json.dumps(typed(value), sort_keys=True)
