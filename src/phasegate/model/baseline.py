"""The baseline: findings a project accepted once, so that only new ones count.

``phasegate-baseline.json`` in the project root (``baseline`` in ``[tool.phasegate]``) is
committed with the project, unlike ``.phasegate/``. ``phasegate baseline record`` writes it.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Literal

from pydantic import Field

from phasegate.model.base import ArtifactModel, Model

__all__ = ["Baseline", "BaselineEntry"]


class BaselineEntry(Model):
    """One accepted finding (or several alike on lines of the same text in the same file)."""

    check: str = Field(description="the check that found it, e.g. lint")
    rule: str = Field(description="the tool's rule, e.g. E501 or B307")
    path: str = Field(description="the file, relative to the project root, with / separators")
    fingerprint: str = Field(
        description="sha256 of check, rule, path and the line's text with its whitespace "
        "collapsed: it survives lines moving up or down, not a change of the line itself"
    )
    count: int = Field(default=1, ge=1, description="how many such findings are accepted")
    line: int | None = Field(default=None, description="where it was when recorded (for a reader)")
    message: str = Field(default="", description="the finding's message when recorded")


class Baseline(ArtifactModel):
    """The findings a project accepted, by check."""

    KIND: ClassVar[str] = "baseline"

    kind: Literal["baseline"] = "baseline"
    recorded_at: datetime
    gate: str = Field(description="the gate whose checks were measured")
    checks: list[str] = Field(description="the checks whose findings were recorded")
    entries: list[BaselineEntry] = Field(default_factory=list)
