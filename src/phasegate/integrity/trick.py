"""One trick a change plays on the evidence: where it is and the sentence that names it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Family", "Trick"]

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
