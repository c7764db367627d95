"""Numbers in plain data read from JSON, TOML or a literal: ``True`` is not one.

``bool`` is a subclass of ``int`` in Python, so ``isinstance(True, int)`` holds, yet JSON's
``true`` is no count, line or threshold. Every reader that narrows a value to a number asks
here, so the rule is written once.
"""

from __future__ import annotations

from typing import TypeGuard

__all__ = ["is_int", "is_number"]


def is_int(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a whole number (an ``int`` that is not a ``bool``)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> TypeGuard[int | float]:
    """Whether ``value`` is a number (an ``int`` or a ``float``, not a ``bool``)."""
    return isinstance(value, int | float) and not isinstance(value, bool)
