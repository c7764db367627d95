"""Plain data read from JSON, TOML or a literal, narrowed where it is read.

``bool`` is a subclass of ``int`` in Python, so ``isinstance(True, int)`` holds, yet JSON's
``true`` is no count, line or threshold: every reader that narrows a value to a number asks
:func:`is_int` or :func:`is_number`, so the rule is written once. :func:`value_at` reads one
member of what should be a JSON object, whatever the document turned out to be.
"""

from __future__ import annotations

from typing import TypeGuard

__all__ = ["is_int", "is_number", "value_at"]


def is_int(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a whole number (an ``int`` that is not a ``bool``)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> TypeGuard[int | float]:
    """Whether ``value`` is a number (an ``int`` or a ``float``, not a ``bool``)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def value_at(document: object, key: str) -> object:
    """``document[key]`` when ``document`` is a JSON object (a ``dict``); else ``None``."""
    return document.get(key) if isinstance(document, dict) else None
