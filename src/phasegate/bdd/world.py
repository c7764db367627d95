"""The world a scenario acts on: a project folder, a clock, the engine and what it observed.

Every step of :mod:`phasegate.bdd.steps` works through a :class:`WorkflowWorld`, one per
scenario (the ``workflow_world`` fixture). The project is a real folder with a
``pyproject.toml``; the engine is phasegate's own, with a clock the scenario moves forward
(``When 30 seconds pass``) so retry backoff is tested without sleeping, and an observer
plugin that records every event and memory sync the engine reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from phasegate import tomlfile
from phasegate.config import load_config
from phasegate.errors import PhasegateError
from phasegate.extensions import make_plugin_manager
from phasegate.hookspecs import hookimpl
from phasegate.model.workflow import MemoryUpdate, WorkflowEvent
from phasegate.workflow.engine import AdvanceResult, WorkflowEngine

if TYPE_CHECKING:
    from phasegate.workflow.loops import LoopCommands

__all__ = ["Observer", "WorkflowWorld", "split_names"]

#: What a step's action returns.
ResultT = TypeVar("ResultT")


def split_names(text: str) -> list[str]:
    """``"a", "b" and "c"`` -> ``["a", "b", "c"]``."""
    return [part.strip().strip('"') for part in text.replace(" and ", ", ").split(",") if part]


class Observer:
    """A phasegate plugin that keeps what the engine tells observers."""

    def __init__(self) -> None:
        self.events: list[WorkflowEvent] = []
        self.syncs: list[tuple[str, str, list[MemoryUpdate] | None]] = []

    @hookimpl
    def phasegate_on_event(self, event: WorkflowEvent) -> None:
        self.events.append(event)

    @hookimpl
    def phasegate_on_memory_sync(
        self, instance_id: str, phase: str, items: list[MemoryUpdate] | None
    ) -> None:
        self.syncs.append((instance_id, phase, items))


@dataclass
class WorkflowWorld:
    """One scenario's project, clock, engine and observations."""

    root: Path
    now: datetime = field(default_factory=lambda: datetime(2030, 1, 1, 9, 0, tzinfo=timezone.utc))
    #: ``[tool.phasegate.workflow]`` as the steps fill it in: free-form TOML values, its nested
    #: tables reached through :meth:`table`.
    settings: dict[str, object] = field(default_factory=dict)
    observer: Observer = field(default_factory=Observer)
    result: AdvanceResult | None = None
    error: PhasegateError | None = None
    #: What the scenario's last action returned (``None`` when it raised a phasegate error).
    last: object = None

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.settings.setdefault("paths", ["workflows"])
        self.settings.setdefault("retry", {"retry_delay_s": 0.0})
        self.write_config()

    # -- the project -----------------------------------------------------------------------

    def write_config(self) -> None:
        """Write ``pyproject.toml`` with the scenario's ``[tool.phasegate.workflow]``."""
        lines = [
            "[project]",
            'name = "scenario"',
            "",
            "[tool.phasegate]",
            'gate_paths = ["gates"]',
            "cache = false",
            "",
            "[tool.phasegate.workflow]",
        ]
        tables: list[str] = []
        for key, value in self.settings.items():
            if isinstance(value, dict):
                tables.append(f"[tool.phasegate.workflow.{key}]")
                tables += [f"{k} = {_toml(v)}" for k, v in value.items()]
            else:
                lines.append(f"{key} = {_toml(value)}")
        text = "\n".join([*lines, "", *tables]) + "\n"
        tomlfile.loads(text)  # a broken scenario shows here, not as a confusing engine error
        (self.root / "pyproject.toml").write_text(text, encoding="utf-8")

    def table(self, name: str) -> dict[str, object]:
        """The nested table ``[tool.phasegate.workflow.<name>]`` of the settings, made empty if
        the scenario has none yet, for a step to fill in."""
        table = self.settings.setdefault(name, {})
        assert isinstance(table, dict), f"the setting {name} is {table!r}, not a table"
        return table

    def write(self, relpath: str, text: str) -> Path:
        """Write a file of the project."""
        path = self.root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    # -- the engine ------------------------------------------------------------------------

    def engine(self) -> WorkflowEngine:
        """The engine over the project as it is now, with the scenario's clock and observer."""
        loaded = load_config(self.root)
        extensions = make_plugin_manager(loaded.config.plugins)
        extensions.register(self.observer, name="scenario-observer")
        return WorkflowEngine(loaded, extensions=extensions, clock=lambda: self.now)

    def attempt(self, action: Callable[[WorkflowEngine], ResultT]) -> ResultT | None:
        """Run ``action(engine)``, keeping a phasegate error instead of raising it."""
        self.error = None
        result: ResultT | None = None
        try:
            result = action(self.engine())
        except PhasegateError as exc:
            self.error = exc
        self.last = result
        return result

    def last_as(self, kind: type[ResultT]) -> ResultT:
        """What the last action returned, which the step expects to be a ``kind``."""
        assert isinstance(self.last, kind), (self.last, self.error)
        return self.last

    def loops(self) -> LoopCommands:
        """The design and plan loops' commands over the engine as it is now."""
        from phasegate.workflow.loops import LoopCommands

        return LoopCommands(self.engine())

    def pass_time(self, seconds: float) -> None:
        """Move the scenario's clock forward."""
        self.now += timedelta(seconds=seconds)


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {value!r} as TOML")
