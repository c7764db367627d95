"""How well a value fits a parameter: the scores :mod:`.missing_args` ranks candidates by.

A value fits a parameter by its name (the same name, the same words, a shared beginning or
end, a letter or two apart), by what the code around the call says of it (the loop it is the
variable of, a local set and never read, what the ``if`` around it reads), by what other
calls pass there, by the type the parameter's default or annotation names, and by how well
the call's other arguments still line up with the parameters they reach once it is inserted.
Hand-written: these are signals of auto-debug's own, which no library ranks.
"""

from __future__ import annotations

import ast
from collections import Counter
from typing import TYPE_CHECKING

from phasegate.autodebug.context_index import split_identifier
from phasegate.autodebug.distance import max_distance, osa_distance

if TYPE_CHECKING:
    from collections.abc import Mapping

    from phasegate.autodebug.patterns.call_facts import ParameterFacts

__all__ = ["alignment", "fit"]


def _last_word(value: str) -> str:
    return value.rpartition(".")[2].strip("_")


def _similarity(word: str, wanted: str) -> float:
    """How alike two names are, 0 to 1: equal, sharing words, or a letter or two apart."""
    if word == wanted:
        return 1.0
    if not word or not wanted:
        return 0.0
    score = 0.6 * _shared(word, wanted)
    distance = osa_distance(word, wanted)
    if distance <= max_distance(wanted):
        score += 0.4 * (1 - distance / (len(wanted) + 1))
    return min(score, 0.9)


def fit(
    value: str,
    kind: str | None,
    param: ParameterFacts,
    sites: Counter[str],
    near: Mapping[str, float],
    passed: list[str],
) -> float:
    """How well ``value`` fits the parameter ``param`` (about -1.1 to 3.9); ``near`` gives
    what the code around the call says of a value its weight (the variable of a loop around
    it, a local set and never read, what the ``if`` around it reads)."""
    word = _last_word(value)
    score = _similarity(word, str(param["name"]).strip("_"))
    score += near.get(value, 0.0)
    if sites:
        score += 0.8 * sites[value] / sum(sites.values())
    score += _type_fit(kind, param)
    if value in passed:
        score -= 0.8  # one value passed twice in a call is rare: the last resort
    if value in ("self", "cls"):
        score -= 0.3
    # Arguments are often named alike (`leftkey, leftseq`): what it shares with the others.
    if value not in passed:
        score += 0.1 * max((_shared(word, _last_word(text)) for text in passed), default=0.0)
    return score


def _shared(word: str, other: str) -> float:
    """How much two names share, 0 to 1: their words (``cache_key``, ``key``), or else a
    common beginning or end of three letters or more (``leftkey``, ``leftseq``)."""
    ours, theirs = set(split_identifier(word)), set(split_identifier(other))
    if not ours or not theirs:
        return 0.0
    words = len(ours & theirs) / len(ours | theirs)
    a, b = word.lower(), other.lower()
    affix = max(_common_start(a, b), _common_start(a[::-1], b[::-1]))
    if affix >= 3:
        return max(words, 0.5 * affix / max(len(a), len(b)) + 0.25)
    return words


def _type_fit(kind: str | None, param: ParameterFacts) -> float:
    if kind is None:
        return 0.0
    default = param.get("default_type")
    if default not in (None, "NoneType"):
        return 0.15 if default == kind else -0.2
    annotation = str(param.get("annotation") or "").lower()
    return 0.15 if annotation and kind.lower() in annotation else 0.0


def alignment(args: list[ast.expr], positional: list[ParameterFacts], position: int) -> float:
    """How well the call's arguments name the parameters they reach once one is inserted."""
    names = [str(p["name"]).strip("_") for p in positional]
    score = 0.0
    for index, arg in enumerate(args):
        if not isinstance(arg, (ast.Name, ast.Attribute)):
            continue
        word = _last_word(ast.unparse(arg))
        reached = index + (index >= position)
        here = _similarity(word, names[reached]) if reached < len(names) else 0.0
        elsewhere = max((_similarity(word, n) for n in names), default=0.0)
        score += 0.25 * (here if here >= elsewhere else here - elsewhere)
    return score


def _common_start(a: str, b: str) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count
