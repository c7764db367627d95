"""One trick a change plays on the evidence: where it is and the sentence that names it.

:func:`listed` names the items of a sentence (the first five, then how many more);
:func:`line_of` finds the line of a file a trick is on; :func:`beyond` finds what the change
added to what the base had (a second ``# noqa`` where there was one).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Literal, TypeVar

__all__ = ["Family", "Trick", "beyond", "line_of", "listed"]

_T = TypeVar("_T")

#: How many items a sentence names before it says how many more there are.
_SHOWN = 5

#: The three families of tricks, one engine module each.
Family = Literal["evidence", "suppressions", "configuration"]


@dataclass(frozen=True)
class Trick:
    """A way the change weakens the evidence.

    ``rule`` is a stable id (``newly-skipped``, ``noqa-without-reason``...); ``message`` is one
    plain sentence naming the trick, without the place (``path`` and ``line`` carry it).
    """

    family: Family
    rule: str
    path: str
    line: int | None
    message: str
    #: A change to the gate itself (gate files, ``[tool.phasegate]``, the baseline): allowed
    #: when an approved review is recorded for it, as the project's policy says.
    gate_change: bool = False

    @property
    def sentence(self) -> str:
        """The place and the message: ``tests/test_calc.py:12 test_mean newly skipped: ...``."""
        place = f"{self.path}:{self.line}" if self.line else self.path
        return f"{place} {self.message}"


def listed(items: list[str]) -> str:
    """``a, b, c, d, e and 2 more``: the first items, then how many are left out."""
    shown = ", ".join(items[:_SHOWN])
    return shown + (f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else "")


def line_of(text: str, pattern: str) -> int | None:
    """The number of the first line of ``text`` that starts (after indentation) with the
    regular expression ``pattern``; None when no line does."""
    match = re.search(rf"^[ \t]*{pattern}", text, re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else None


def beyond(before: Iterable[_T], items: Iterable[_T], key: Callable[[_T], Hashable]) -> list[_T]:
    """The ``items`` beyond those the base had (``before``), in order, matched by ``key``: each
    item of the base accounts for one of the same key, so a second where it had one is added."""
    budget = Counter(key(item) for item in before)
    added: list[_T] = []
    for item in items:
        if budget[key(item)] > 0:
            budget[key(item)] -= 1
        else:
            added.append(item)
    return added
