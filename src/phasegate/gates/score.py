"""The gate's score: how it is computed from the checks, and how it is shown.

The verdict is binary; the score (0..1) says how far a run is from a perfect one and drives
the refinement loop, whose ``threshold`` is the score a run must reach to count as passed. A
score must never tell a reader more than the verdict does, so:

* each required check counts with its own score when it passed or failed, with 0 when it could
  not run or was skipped without the gate allowing it; an allowed skip does not count; the
  score is the mean (1.0 when nothing counts);
* the mean is cut (never rounded) to four decimals, so 0.99996 stays below 1;
* an **insufficient** verdict's score is at most the largest hundredth strictly below the pass
  threshold (0.84 for the default 0.85), so it can never reach the threshold, however many
  checks passed beside the one that failed;
* a score is shown cut to two decimals (:func:`shown_score`), so 0.849 shows "0.84", never a
  rounded-up "0.85" across the threshold.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

__all__ = ["DEFAULT_PASS_THRESHOLD", "gate_score", "insufficient_ceiling", "shown_score"]

#: The refinement loop's default ``threshold``: a sufficient run scoring at least this passes.
DEFAULT_PASS_THRESHOLD = 0.85

# Float products such as 0.85 * 100 land a hair off the integer; this absorbs it.
_EPSILON = 1e-9


def insufficient_ceiling(pass_threshold: float) -> float:
    """The highest score an insufficient verdict may have: a hundredth below the threshold."""
    if not 0 < pass_threshold <= 1:
        raise ValueError(f"the pass threshold must be above 0 and at most 1, not {pass_threshold}")
    hundredths = math.ceil(pass_threshold * 100 - _EPSILON) - 1
    return max(hundredths, 0) / 100


def gate_score(
    counted: Iterable[float], *, sufficient: bool, pass_threshold: float = DEFAULT_PASS_THRESHOLD
) -> float:
    """The gate's score from the scores the required checks count with (see the module)."""
    scores = list(counted)
    mean = sum(scores) / len(scores) if scores else 1.0
    score = _cut(mean, 4)
    if sufficient:
        return score
    return min(score, insufficient_ceiling(pass_threshold))


def shown_score(score: float) -> str:
    """The score as people read it: cut to two decimals, never rounded up."""
    return f"{_cut(score, 2):.2f}"


def _cut(value: float, decimals: int) -> float:
    scale = 10.0**decimals
    return math.floor(value * scale + _EPSILON) / scale
