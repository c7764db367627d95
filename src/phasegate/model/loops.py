"""The design and plan loops of a workflow phase, kept inside the workflow instance.

A phase with ``[phase.X.loop] kind = "design"`` holds a :class:`DesignLoop`: the architecture
is drafted and audited first, then each module it names, one after another; each draft gets a
verdict ``ACCEPT``, ``REVISE`` or ``REJECT`` from a critic who did not write it. A phase with
``kind = "plan"`` holds a :class:`PlanLoop`: the spec agent says ``PC`` (plan created), ``PR``
(plan revised) or ``DG`` (disagrees with the critique); the critic answers ``NR`` (needs
revision), ``PA`` (plan accepted), ``EN`` (escalation needed) or ``DA`` (dialogue active).
Every statement is a :class:`LoopTurn`, the dialogue's ``R{round}|{agent}|{status}|{content}``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from phasegate.model.base import Model

__all__ = [
    "CRITIC_CODES",
    "DESIGN_VERDICTS",
    "SPEC_CODES",
    "DesignItem",
    "DesignLoop",
    "Draft",
    "LoopTurn",
    "PlanLoop",
]

DesignVerdict = Literal["ACCEPT", "REVISE", "REJECT"]
#: The critic's verdicts on a design draft.
DESIGN_VERDICTS: tuple[DesignVerdict, ...] = ("ACCEPT", "REVISE", "REJECT")
#: The spec agent's codes: plan created, plan revised, disagree with the critique.
SPEC_CODES = ("PC", "PR", "DG")
#: The spec critic's codes: needs revision, plan accepted, escalation needed, dialogue active.
CRITIC_CODES = ("NR", "PA", "EN", "DA")


class Draft(Model):
    """A document as it was when someone put it forward: its path and content hash."""

    path: str = Field(description="relative to the project root")
    sha256: str
    by: str
    at: datetime


class LoopTurn(Model):
    """One statement of a loop's dialogue."""

    round: int = Field(ge=0)
    agent: str = Field(description="who said it")
    role: Literal["designer", "critic", "spec", "system"]
    status: str = Field(description="submitted, ACCEPT, REVISE, REJECT, or a plan code")
    item: str | None = Field(default=None, description="the design item it is about")
    content: str = ""
    sha256: str | None = Field(default=None, description="the document it was about")
    at: datetime

    def line(self) -> str:
        """``R{round}|{agent}|{status}|{content}``, as the design documents store it."""
        return f"R{self.round}|{self.agent}|{self.status}|{self.content}"


class DesignItem(Model):
    """The architecture, or one module: its drafts and where it stands."""

    name: str
    status: Literal["open", "submitted", "accepted"] = "open"
    rounds: int = Field(default=0, description="drafts submitted so far")
    revisions: int = Field(default=0, description="REVISE verdicts so far")
    rejections: int = Field(default=0, description="REJECT verdicts so far")
    draft: Draft | None = Field(default=None, description="the draft awaiting or given a verdict")
    accepted: Draft | None = Field(default=None, description="the draft that was accepted")
    discarded: list[str] = Field(
        default_factory=list, description="SHA-256 of drafts a REJECT discarded"
    )


class DesignLoop(Model):
    """The design loop of one pass through a phase."""

    session: str = Field(description="DESIGN_<instance>_<phase>_<cycle>")
    phase: str
    cycle: int = Field(ge=1)
    architecture: DesignItem = Field(default_factory=lambda: DesignItem(name="architecture"))
    modules: list[DesignItem] = Field(
        default_factory=list, description="the modules the architecture names, in its order"
    )
    rejections: int = Field(default=0, description="REJECT verdicts in this loop")
    turns: list[LoopTurn] = Field(default_factory=list)
    done_at: datetime | None = Field(default=None, description="when the last module was accepted")

    def items(self) -> list[DesignItem]:
        """The architecture, then the modules."""
        return [self.architecture, *self.modules]

    def item(self, name: str) -> DesignItem | None:
        """The item called ``name``."""
        return next((item for item in self.items() if item.name == name), None)


class PlanLoop(Model):
    """The plan loop (spec agent and critic) of one pass through a phase."""

    session: str = Field(description="PLAN_<instance>_<phase>_<cycle>")
    phase: str
    cycle: int = Field(ge=1)
    round: int = Field(default=0, ge=0)
    turn: Literal["spec", "critic", "done"] = "spec"
    dialogue: int = Field(default=0, description="DA answers in this round")
    plan: Draft | None = Field(default=None, description="the plan as the spec agent last put it")
    accepted: Draft | None = Field(default=None, description="the plan the critic accepted")
    turns: list[LoopTurn] = Field(default_factory=list)

    def last(self, role: str) -> LoopTurn | None:
        """The latest statement by ``role``."""
        return next((t for t in reversed(self.turns) if t.role == role), None)
