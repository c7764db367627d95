"""phasegate's clock: time that a test's frozen or mocked ``datetime`` or ``time`` cannot touch.

A project's tests freeze the clock (freezegun, time-machine, ``unittest.mock``) while
phasegate runs beside them: its background checks time themselves and wait with deadlines,
and the run report is stamped at both ends. Read through ``time`` and ``datetime``, that
clock could stand still, jump back years, or stay frozen when a test leaks its freeze, and the
report would say the run took minus nine years.

So this module keeps the interpreter's own clock functions, taken when it is first imported
(the pytest plugin imports it as pytest starts, before any test runs), where a clock-patching
library does not look: freezegun replaces the module attributes that hold the real
functions, so they are kept inside a tuple, not as attributes. Wall-clock time is the wall
clock read once at that moment plus the monotonic time since, because time-machine patches
the wall clock's C functions themselves (it leaves the monotonic and performance counters
alone). Nothing here is written by hand that the standard library offers: there is no library
for "the clock before someone froze it".
"""

from __future__ import annotations

import datetime as _datetime
import time as _time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import NamedTuple

__all__ = ["monotonic", "perf_counter", "real_datetime_classes", "utc_now"]


class _Real(NamedTuple):
    monotonic_ns: Callable[[], int]
    perf_counter_ns: Callable[[], int]
    datetime: type[_datetime.datetime]
    date: type[_datetime.date]
    utc: _datetime.tzinfo
    wall_anchor_ns: int
    monotonic_anchor_ns: int


_REAL = _Real(
    _time.monotonic_ns,
    _time.perf_counter_ns,
    _datetime.datetime,
    _datetime.date,
    _datetime.timezone.utc,
    _time.time_ns(),
    _time.monotonic_ns(),
)


def monotonic() -> float:
    """Seconds of a clock that never goes back, as :func:`time.monotonic`."""
    return _REAL.monotonic_ns() / 1e9


def perf_counter() -> float:
    """Seconds of the most precise clock, for durations, as :func:`time.perf_counter`."""
    return _REAL.perf_counter_ns() / 1e9


def utc_now() -> _datetime.datetime:
    """The current time, timezone-aware in UTC, as ``datetime.now(timezone.utc)``."""
    elapsed_ns = _REAL.monotonic_ns() - _REAL.monotonic_anchor_ns
    seconds = (_REAL.wall_anchor_ns + elapsed_ns) / 1e9
    return _REAL.datetime.fromtimestamp(seconds, _REAL.utc)


@contextmanager
def real_datetime_classes() -> Iterator[None]:
    """Put the real ``datetime.datetime`` and ``datetime.date`` back for the time of the block.

    For phasegate's work at the end of a session: a test that started a freeze and never
    stopped it leaves freezegun's fake classes in the ``datetime`` module, and a pydantic model
    built or a module imported then would take them for its own (pydantic cannot describe
    them). The project's fakes are put back afterwards, as they were.
    """
    faked = (_datetime.datetime, _datetime.date)
    if faked == (_REAL.datetime, _REAL.date):
        yield
        return
    _datetime.datetime, _datetime.date = _REAL.datetime, _REAL.date  # type: ignore[misc]
    try:
        yield
    finally:
        _datetime.datetime, _datetime.date = faked  # type: ignore[misc]
