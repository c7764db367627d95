"""The garbage collector paused around work that allocates much and keeps little.

A full collection walks every object the process holds. In the pytest process that is the
whole run (the tests, coverage.py's data, the reports), so one set off by the allocations of
recording the run, judging it (the gate, a TDD phase) or turning a large artifact into models
walks it all to free almost nothing: what that work makes forms no cycle and is freed by
reference counts as it is dropped (see docs/performance.md and ``benchmarks/report.py``).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["collections_paused"]


@contextlib.contextmanager
def collections_paused() -> Iterator[None]:
    """The garbage collector off inside, and as it was before afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
