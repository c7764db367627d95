"""The patterns auto-debug knows, and classification of a live exception with them.

:data:`BUILTIN_PATTERNS` are asked in order after any third-party patterns; the first that
recognises the failure makes the diagnosis. :class:`OtherPattern` recognises everything, so
every failure gets a class.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from phasegate.autodebug.diagnosis import Diagnosis
from phasegate.autodebug.held import held_exceptions
from phasegate.autodebug.live import LiveFailure, cpython_suggestion
from phasegate.autodebug.patterns.assertion import AssertionPattern, OtherPattern
from phasegate.autodebug.patterns.attributes import AttributePattern
from phasegate.autodebug.patterns.base import Pattern
from phasegate.autodebug.patterns.imports import ImportPattern
from phasegate.autodebug.patterns.names import NamePattern
from phasegate.autodebug.patterns.nones import NonePattern
from phasegate.autodebug.patterns.syntax import SyntaxPattern
from phasegate.autodebug.patterns.typeerrors import TypePattern
from phasegate.errors import UsageError

if TYPE_CHECKING:
    import pluggy

__all__ = [
    "BUILTIN_PATTERNS",
    "AssertionPattern",
    "AttributePattern",
    "ImportPattern",
    "NamePattern",
    "NonePattern",
    "OtherPattern",
    "Pattern",
    "SyntaxPattern",
    "TypePattern",
    "classify_exception",
    "load_patterns",
]

#: The built-in patterns, in the order they are asked (None before attribute and type).
BUILTIN_PATTERNS: tuple[Pattern, ...] = (
    SyntaxPattern(),
    ImportPattern(),
    NonePattern(),
    NamePattern(),
    AttributePattern(),
    TypePattern(),
    AssertionPattern(),
)

_FALLBACK = OtherPattern()
#: Classes a held exception is not diagnosed as: they say no more than the assertion.
_NOT_HELD = frozenset({"assertion", "other"})


def classify_exception(
    exc: BaseException, root: Path, patterns: Sequence[Pattern] = BUILTIN_PATTERNS
) -> Diagnosis:
    """The diagnosis of ``exc`` by the first pattern that recognises it.

    Never raises: a pattern that fails is passed over, and its error is kept in the
    diagnosis's facts (``pattern_errors``) so it can be reported.
    """
    failure = LiveFailure.capture(exc, root)
    diagnosis, errors = _held_diagnosis(failure, patterns)
    if diagnosis is None:
        diagnosis, errors = _first_diagnosis(failure, patterns)
    if diagnosis is None:
        diagnosis = _FALLBACK.classify(failure) or Diagnosis(
            "other", "other", "other", type(exc).__name__, str(exc)
        )
    if errors:
        diagnosis.facts["pattern_errors"] = errors
    if diagnosis.cpython_suggestion is None:
        diagnosis.cpython_suggestion = cpython_suggestion(exc)
    return diagnosis


def _held_diagnosis(
    failure: LiveFailure, patterns: Sequence[Pattern]
) -> tuple[Diagnosis | None, list[str]]:
    """For a failed assertion (or pytest's own failure, ``pytest.fail``'s "DID NOT WARN"), the
    diagnosis of the first exception the test holds (:mod:`~phasegate.autodebug.held`) that a
    pattern other than the assertion's recognises, with where the test kept it
    (``held_by_test``)."""
    if not _test_verdict(failure.exc):
        return None, []
    for where, exc in held_exceptions(failure):
        diagnosis, errors = _first_diagnosis(LiveFailure.capture(exc, failure.root), patterns)
        if diagnosis is not None and diagnosis.error_class not in _NOT_HELD:
            diagnosis.facts["held_by_test"] = where
            return diagnosis, errors
    return None, []


def _test_verdict(exc: BaseException) -> bool:
    """Whether ``exc`` is the test's verdict rather than the code's error: an assertion, or an
    exception that is not an ``Exception`` (``pytest.fail``'s, ``SystemExit``)."""
    return isinstance(exc, AssertionError) or not isinstance(exc, Exception)


def _first_diagnosis(
    failure: LiveFailure, patterns: Sequence[Pattern]
) -> tuple[Diagnosis | None, list[str]]:
    """The diagnosis of the first pattern that recognises ``failure``, and the errors of the
    patterns that failed before it."""
    errors: list[str] = []
    for pattern in patterns:
        try:
            diagnosis = pattern.classify(failure)
        except Exception as error:  # noqa: BLE001 - one faulty pattern must not hide the failure
            errors.append(f"{getattr(pattern, 'name', pattern)!s}: {type(error).__name__}: {error}")
            continue
        if diagnosis is not None:
            return diagnosis, errors
    return None, errors


def load_patterns(manager: pluggy.PluginManager | None) -> list[Pattern]:
    """The patterns of the ``phasegate_autodebug_patterns`` hook, then the built-in ones.

    Raises :class:`~phasegate.errors.UsageError` naming what a plugin returned when it is not
    a pattern, or when two patterns share a name.
    """
    hooked = manager.hook.phasegate_autodebug_patterns() if manager is not None else []
    extra = [_checked_pattern(pattern) for returned in hooked for pattern in returned or ()]
    patterns = [*extra, *BUILTIN_PATTERNS]
    seen: set[str] = set()
    for pattern in patterns:
        if pattern.name in seen:
            raise UsageError(
                f"two auto-debug patterns are named {pattern.name!r}; a third-party pattern "
                "must take a name of its own"
            )
        seen.add(pattern.name)
    return patterns


def _checked_pattern(returned: object) -> Pattern:
    """What a plugin returned, if it is a pattern."""
    if not isinstance(returned, Pattern):
        raise UsageError(
            f"a phasegate_autodebug_patterns hook returned {returned!r}, which is "
            "not an auto-debug pattern (it needs name, error_class, classify, "
            "propose and explain)"
        )
    return returned
