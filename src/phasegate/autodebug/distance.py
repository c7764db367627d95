"""How far apart two identifiers are, counting an adjacent-letter swap as one edit.

CPython's "did you mean" weighs a swap of two adjacent letters (``lenght`` for ``length``) as
two substitutions, and its cut-off for short names is below that, so it misses most such
typos. This module uses the optimal string alignment distance (OSA, the restricted
Damerau-Levenshtein distance): insertions, deletions, substitutions and transpositions of
adjacent characters each cost 1, and a substitution that changes only the case costs 0.5.

Hand-written on purpose: the libraries that offer OSA (rapidfuzz, jellyfish) are compiled
packages of several megabytes, and phasegate compares a few hundred short identifiers per
failure, which this dynamic programme does in well under a millisecond.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Match", "closest", "max_distance", "osa_distance"]

_CASE_COST = 0.5


def osa_distance(a: str, b: str) -> float:
    """The optimal string alignment distance between ``a`` and ``b`` (see the module doc)."""
    if a == b:
        return 0.0
    if not a or not b:
        return float(len(a) or len(b))
    previous2: list[float] = []
    previous = [float(j) for j in range(len(b) + 1)]
    for i in range(1, len(a) + 1):
        previous2, previous = previous, _next_row(a, b, i, previous, previous2)
    return previous[len(b)]


def _next_row(a: str, b: str, i: int, previous: list[float], previous2: list[float]) -> list[float]:
    """Row ``i`` of the distance table (the distances from ``a[:i]`` to each start of ``b``),
    from the two rows before it."""
    current = [float(i)] + [0.0] * len(b)
    for j in range(1, len(b) + 1):
        x, y = a[i - 1], b[j - 1]
        if x == y:
            cost = 0.0
        elif x.lower() == y.lower():
            cost = _CASE_COST
        else:
            cost = 1.0
        best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y and x != y:
            best = min(best, previous2[j - 2] + 1)
        current[j] = best
    return current


def max_distance(name: str) -> float:
    """The largest distance at which another name still counts as a likely typo of ``name``.

    One edit for names of up to four characters, two up to eight, three beyond.
    """
    return float(max(1, (len(name) + 3) // 4))


@dataclass(frozen=True, order=True)
class Match:
    """A name close to the one asked about, and how close."""

    distance: float
    name: str


def closest(name: str, names: Iterable[str], *, limit: float | None = None) -> list[Match]:
    """The names within ``limit`` (default :func:`max_distance`) of ``name``, nearest first.

    ``name`` itself is never returned; ties keep alphabetical order so results are stable.
    """
    bound = max_distance(name) if limit is None else limit
    found = {
        other: osa_distance(name, other)
        for other in set(names)
        if other != name and abs(len(other) - len(name)) <= bound
    }
    return sorted(Match(d, other) for other, d in found.items() if d <= bound)
