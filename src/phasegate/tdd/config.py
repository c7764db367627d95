"""``[tool.phasegate.tdd]``: which files are tests, what counts as a right-reason red, reviews.

Every key is documented in ``docs/configuration.md`` (a test keeps the two in step).
"""

from __future__ import annotations

import difflib
import re
from typing import Literal

from pydantic import Field, field_validator

from phasegate.settings import Section

__all__ = [
    "DEFAULT_TEST_GLOBS",
    "FAILURE_CLASSES_ALLOWED_AS_RIGHT",
    "TddConfig",
]

#: Where tests live unless ``test_globs`` says otherwise (``*`` also matches ``/``).
DEFAULT_TEST_GLOBS = (
    "tests/*",
    "test/*",
    "*/tests/*",
    "*/test/*",
    "test_*.py",
    "*/test_*.py",
    "*_test.py",
    "conftest.py",
    "*/conftest.py",
)

#: Failure classes a project may count as right-reason reds. Fixture, collection and syntax
#: errors, skips and xfails are never right reasons: the test did not get to fail.
FAILURE_CLASSES_ALLOWED_AS_RIGHT = ("assertion", "not-implemented", "missing-symbol", "exception")

_CLASS_NAME = re.compile(r"^[a-z][a-z-]*$")
_EXCEPTION_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")

ComplexityMetric = Literal["max", "mean", "total"]
_DEFAULT_COMPLEXITY: tuple[ComplexityMetric, ...] = ("max", "mean")


class TddConfig(Section):
    """Every key of ``[tool.phasegate.tdd]``."""

    test_globs: list[str] = Field(
        default_factory=lambda: list(DEFAULT_TEST_GLOBS),
        min_length=1,
        description="Python files matching one of these (fnmatch on the path relative to the "
        "project root, '*' also matches '/') are tests; the rest of the project's code is source",
    )
    source_globs: list[str] = Field(
        default_factory=list,
        description="Python files that are source (fnmatch, like test_globs); empty: the "
        "project's packages (a src/ layout, else top-level packages), or every other Python "
        "file of a flat project",
    )
    right_reasons: list[str] = Field(
        default_factory=lambda: ["assertion", "not-implemented", "missing-symbol"],
        description="what makes a failing test a right-reason red: failure classes "
        f"({', '.join(FAILURE_CLASSES_ALLOWED_AS_RIGHT)}) or exception type names",
    )
    missing_symbol_errors: list[str] = Field(
        default_factory=lambda: [
            "ImportError",
            "ModuleNotFoundError",
            "AttributeError",
            "NameError",
        ],
        description="exception types that are a right-reason red when they name a symbol the "
        "test uses and the project's source does not define yet",
    )
    require_review: bool = Field(
        default=True,
        description="a green cycle must be approved (phasegate tdd review) before the next "
        "cycle's red",
    )
    batch_size: int = Field(
        default=3,
        ge=1,
        le=3,
        description="how many cycles may be red side by side",
    )
    complexity_must_not_rise: list[ComplexityMetric] = Field(
        default_factory=lambda: list(_DEFAULT_COMPLEXITY),
        description="radon cyclomatic complexity figures of the source that a refactor may "
        "not raise above the last green state",
    )
    assertion_calls: list[str] = Field(
        default_factory=lambda: ["raises", "warns", "deprecated_call", "assert*"],
        description="calls that count as assertions besides the assert statement (fnmatch on "
        "the called name, e.g. pytest.raises -> 'raises', self.assertEqual -> 'assertEqual')",
    )

    @field_validator("test_globs", "source_globs", "assertion_calls")
    @classmethod
    def _no_empty_patterns(cls, value: list[str]) -> list[str]:
        for pattern in value:
            if not pattern.strip():
                raise ValueError("patterns must not be empty")
        return value

    @field_validator("right_reasons")
    @classmethod
    def _known_reasons(cls, value: list[str]) -> list[str]:
        for entry in value:
            if _CLASS_NAME.match(entry):
                if entry not in FAILURE_CLASSES_ALLOWED_AS_RIGHT:
                    hint = difflib.get_close_matches(entry, FAILURE_CLASSES_ALLOWED_AS_RIGHT, n=1)
                    guess = f" (did you mean {hint[0]!r}?)" if hint else ""
                    raise ValueError(
                        f"{entry!r} is not a failure class that may count as a right reason"
                        f"{guess}; allowed: {', '.join(FAILURE_CLASSES_ALLOWED_AS_RIGHT)}, "
                        "or an exception type name such as 'myapp.Pending'"
                    )
            elif not _EXCEPTION_NAME.match(entry):
                raise ValueError(f"{entry!r} is neither a failure class nor an exception type name")
        return value

    @field_validator("missing_symbol_errors")
    @classmethod
    def _exception_names(cls, value: list[str]) -> list[str]:
        for entry in value:
            if not _EXCEPTION_NAME.match(entry):
                raise ValueError(f"{entry!r} is not an exception type name")
        return value
