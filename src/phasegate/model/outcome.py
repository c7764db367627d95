"""The outcome of one test: its own module, so that using it does not build the run models.

The TDD engine names outcomes in every ledger entry but reads the run report as plain data;
importing :mod:`phasegate.model.run` only for this enum would build fourteen pydantic models
on every ``pytest --tdd`` run.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["Outcome"]


class Outcome(str, Enum):
    """The outcome of one test, as pytest's summary line names it."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    SKIPPED = "skipped"
    XFAILED = "xfailed"
    XPASSED = "xpassed"
