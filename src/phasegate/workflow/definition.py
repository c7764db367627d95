"""Workflow definitions: TOML files naming the phases, their exit gates and their loops.

A definition looks like this (the built-in ones are in ``definitions/``)::

    name = "golden-path"
    description = "design -> implement -> review"
    roles = ["architect", "engineer", "reviewer"]   # the first role leads
    max_rejections = 3                              # review rejections looped back, then FAILED
    max_rewinds = 5                                 # explicit rewinds allowed per instance
    phases = ["design", "implement", "review"]

    [phase.review]
    exit_gate = "default"        # a gate the gate engine knows (built-in or gate_paths)
    review = true                # a peer review must keep the outcome before advancing
    on_reject = "implement"      # where a rejected review loops back to (default: itself)
    inputs = { code = "string" } # the context the phase needs, checked on entering it
    outputs = { review = "object" }   # what it must add to the context before leaving

    [phase.design.loop]
    kind = "design"              # or "plan": the DPTR loops (see phasegate.workflow.design_loop)
    max_rounds = 5

A table ``[phase.X]`` for a phase not listed, or ``on_reject`` naming no phase, is a usage
error naming the file, the key, the value and the phases allowed. Projects add their own files
through ``[tool.phasegate.workflow] paths``; a project file with a built-in's name replaces it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError

from phasegate import tomlfile
from phasegate.errors import UsageError
from phasegate.settings import Section, describe_errors

__all__ = [
    "BUILT_IN_DIR",
    "FIELD_TYPES",
    "LoopSpec",
    "PhaseSpec",
    "WorkflowDefinition",
    "WorkflowSource",
    "find_workflows",
    "load_workflow",
    "read_workflow",
]

#: Where the built-in workflow files live, inside the package.
BUILT_IN_DIR = Path(__file__).resolve().parent / "definitions"

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")

FieldType = Literal["string", "integer", "number", "boolean", "array", "object", "any"]
#: The types a phase's inputs and outputs may declare (JSON's, and ``any``).
FIELD_TYPES: tuple[FieldType, ...] = (
    "string", "integer", "number", "boolean", "array", "object", "any",
)  # fmt: skip


class LoopSpec(Section):
    """``[phase.<name>.loop]``: the DPTR design or plan loop that holds the phase."""

    kind: Literal["design", "plan"] = Field(
        description="'design': architecture then each module, ACCEPT / REVISE / REJECT; "
        "'plan': spec agent and critic until PA"
    )
    max_rounds: int = Field(
        default=5,
        ge=1,
        le=100,
        description="drafts per design item, or plan rounds; past it the instance escalates",
    )
    max_rejections: int = Field(
        default=3, ge=0, le=100, description="design REJECT verdicts per loop; one more fails it"
    )
    max_dialogue: int = Field(
        default=3, ge=0, le=100, description="DA answers per plan round before a verdict is due"
    )
    documents: str = Field(
        default="docs/design/{instance}/{item}.md",
        min_length=1,
        description="where the design loop's drafts are ({item}: architecture or a module)",
    )
    plan: str = Field(
        default="docs/plans/{instance}_plan.toml",
        min_length=1,
        description="the plan the plan loop is about",
    )


class PhaseSpec(Section):
    """``[phase.<name>]``: what a phase needs before the instance may leave it."""

    description: str = ""
    exit_gate: str | None = Field(
        default=None, min_length=1, description="the gate that must be sufficient to leave it"
    )
    review: bool = Field(
        default=False, description="whether a peer review must keep the outcome first"
    )
    on_reject: str | None = Field(
        default=None, description="the phase a rejected review loops back to (default: itself)"
    )
    retrospective: bool = Field(
        default=False, description="flush every queued update on entering and leaving it"
    )
    spawns_children: bool = Field(
        default=False, description="subtasks above the complexity threshold get child instances"
    )
    integrates_children: bool = Field(
        default=False, description="children must be integrated (or fallen back) to leave it"
    )
    inputs: dict[str, FieldType] = Field(
        default_factory=dict,
        description="context keys the phase needs, with their type; a mismatch on entering "
        "it blocks the instance",
    )
    outputs: dict[str, FieldType] = Field(
        default_factory=dict,
        description="context keys the phase must produce, with their type, before it is left",
    )
    loop: LoopSpec | None = Field(default=None, description="a design or plan loop")
    generates_tasks: str | None = Field(
        default=None,
        min_length=1,
        description="a plan file ({instance} filled in): leaving the phase queues its tasks",
    )
    requires_tasks: bool = Field(
        default=False,
        description="the instance's generated tasks must all be completed to leave it",
    )


class WorkflowDefinition(Section):
    """A whole workflow file."""

    name: str = Field(min_length=1)
    description: str = ""
    roles: list[str] = Field(
        default_factory=lambda: ["primus", "worker", "supervisor", "designer", "evaluator"],
        min_length=1,
        description="the roles reassessed at every phase boundary; the first one leads",
    )
    max_rejections: int = Field(default=3, ge=0, le=100)
    max_rewinds: int = Field(default=5, ge=0, le=100)
    max_escalations: int = Field(
        default=3, ge=0, le=100, description="times an instance may be BLOCKED; one more fails it"
    )
    child_workflow: str | None = Field(
        default=None, description="the workflow of child instances (default: this one)"
    )
    phases: list[str] = Field(min_length=1, description="the phases, in order")
    phase: dict[str, PhaseSpec] = Field(default_factory=dict)

    def spec(self, phase: str) -> PhaseSpec:
        """The settings of ``phase`` (defaults when the file has no table for it)."""
        return self.phase.get(phase, PhaseSpec())

    def index(self, phase: str) -> int:
        """The position of ``phase`` in the order."""
        return self.phases.index(phase)

    def reject_target(self, phase: str) -> str:
        """Where a rejected review of ``phase`` loops back to."""
        return self.spec(phase).on_reject or phase


@dataclass(frozen=True)
class WorkflowSource:
    """Where a definition was found."""

    name: str
    path: Path
    origin: Literal["built-in", "project"]


def find_workflows(project_root: Path, paths: Iterable[str] = ()) -> dict[str, WorkflowSource]:
    """Every workflow known to the project: its own folders first, then the built-in ones."""
    found: dict[str, WorkflowSource] = {}
    for folder in paths:
        directory = (project_root / folder).resolve()
        for path in sorted(directory.glob("*.toml")):
            found.setdefault(path.stem, WorkflowSource(path.stem, path, "project"))
    for path in sorted(BUILT_IN_DIR.glob("*.toml")):
        found.setdefault(path.stem, WorkflowSource(path.stem, path, "built-in"))
    return found


def load_workflow(
    name: str, project_root: Path, paths: Iterable[str] = ()
) -> tuple[WorkflowDefinition, WorkflowSource]:
    """The named workflow, or a usage error listing the known ones."""
    known = find_workflows(project_root, paths)
    if name not in known:
        raise UsageError(f"unknown workflow {name!r}; known workflows: {', '.join(sorted(known))}")
    source = known[name]
    definition = read_workflow(source.path)
    if definition.name != source.name:
        raise UsageError(
            f"{source.path}: key name = {definition.name!r} must match the file name "
            f"({source.name!r}), which is how the workflow is asked for"
        )
    return definition, source


def read_workflow(path: Path) -> WorkflowDefinition:
    """Read and check one workflow file."""
    try:
        document = tomlfile.loads(path.read_text(encoding="utf-8"))
    except tomlfile.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot be read: {exc}") from exc
    document.setdefault("name", path.stem)
    try:
        definition = WorkflowDefinition.model_validate(document)
    except ValidationError as exc:
        raise UsageError(
            describe_errors(exc, model=WorkflowDefinition, where=str(path), table="")
        ) from exc
    _check_references(definition, path)
    return definition


def _check_references(definition: WorkflowDefinition, path: Path) -> None:
    """Every phase named anywhere exists; names are unique and usable on a command line."""
    _check_phase_names(definition.phases, path)
    for phase, spec in definition.phase.items():
        _check_phase_table(definition, phase, spec, path)
    if len(set(definition.roles)) != len(definition.roles):
        raise UsageError(f"{path}: key roles = {definition.roles!r} lists a role twice")


def _check_phase_names(phases: list[str], path: Path) -> None:
    seen: set[str] = set()
    for index, phase in enumerate(phases):
        if not _NAME.match(phase):
            raise UsageError(
                f"{path}: key phases.{index} = {phase!r} is not allowed: a phase name starts "
                "with a letter and holds letters, digits, '-' and '_'"
            )
        if phase in seen:
            raise UsageError(f"{path}: key phases.{index} = {phase!r} is listed twice")
        seen.add(phase)


def _check_phase_table(
    definition: WorkflowDefinition, phase: str, spec: PhaseSpec, path: Path
) -> None:
    """A ``[phase.<name>]`` table names a phase, and rejects back to it or one before it."""
    allowed = ", ".join(definition.phases)
    if phase not in definition.phases:
        raise UsageError(
            f"{path}: table [phase.{phase}] names an unknown phase {phase!r}; "
            f"the phases are: {allowed}"
        )
    if spec.on_reject is None:
        return
    if spec.on_reject not in definition.phases:
        raise UsageError(
            f"{path}: key phase.{phase}.on_reject = {spec.on_reject!r} is a transition to "
            f"nowhere; it must name one of the phases: {allowed}"
        )
    if definition.index(spec.on_reject) > definition.index(phase):
        raise UsageError(
            f"{path}: key phase.{phase}.on_reject = {spec.on_reject!r} loops forward; a "
            f"rejected review goes back to {phase!r} or a phase before it"
        )
