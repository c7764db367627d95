"""``[tool.phasegate.autodebug]``: what auto-debug may touch and how long it may try."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from phasegate.settings import Section

__all__ = ["DEFAULT_TEST_FILES", "MAX_ITERATIONS", "AutodebugSettings"]

#: The cap on candidates validated per failure; configuration may only lower it.
MAX_ITERATIONS = 5

#: Files auto-debug never edits, besides every file pytest collected tests from.
DEFAULT_TEST_FILES = (
    "tests/*",
    "test/*",
    "testing/*",
    "test_*.py",
    "*_test.py",
    "conftest.py",
)


class AutodebugSettings(Section):
    """Every key of ``[tool.phasegate.autodebug]``."""

    test_files: list[str] = Field(
        default_factory=lambda: list(DEFAULT_TEST_FILES),
        description="globs of files never edited (matched against the path relative to the "
        "project root; a glob without '/' matches the file name)",
    )
    max_iterations: int = Field(
        default=MAX_ITERATIONS,
        ge=1,
        le=MAX_ITERATIONS,
        description="candidate repairs validated per failure before it is escalated",
    )
    max_failures: int = Field(
        default=20,
        ge=1,
        le=1000,
        description="failures (distinct root causes) worked on per run; the rest are listed",
    )
    timeout_s: float | None = Field(
        default=None,
        gt=0,
        le=86_400,
        description="seconds one re-run of the tests may take before it is stopped; unset, "
        "10 times the own time of the tests of the run being debugged, at least 120 s, "
        "at most 600 s",
    )
    localize: bool = Field(
        default=True,
        description="rank suspicious functions (Ochiai) for failures without a repair",
    )
    localize_top: int = Field(
        default=5, ge=1, le=100, description="suspicious functions listed per failure"
    )
    index: Literal["auto", "tfidf", "keyword"] = Field(
        default="auto",
        description="the project index for missing imports: 'tfidf' needs scikit-learn, "
        "'keyword' never does, 'auto' picks tfidf when scikit-learn is installed",
    )

    @field_validator("test_files")
    @classmethod
    def _globs_are_relative(cls, globs: list[str]) -> list[str]:
        for glob in globs:
            if not glob.strip() or glob.startswith("/") or ".." in glob.split("/"):
                raise ValueError(
                    f"{glob!r} is not a glob relative to the project root (no leading '/', "
                    "no '..', not empty)"
                )
        return globs
