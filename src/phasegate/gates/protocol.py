"""The check protocol: what a check is, what it is given, and what it returns.

A check *measures*: it returns a :class:`Measurement` (metrics on all code and on new code,
findings, a score, a one-line summary). The gate *judges*: the runner evaluates the gate's
conditions on those metrics and turns the measurement into a
:class:`~phasegate.model.gate.CheckResult`. A check that cannot run raises
:class:`CheckError` with the reason and the fix; anything else it raises is caught and
reported the same way, so a broken check fails the gate closed.

Checks are ``static`` (they read the source tree and start in the background as soon as a
run starts) or ``session`` (they read the finished run: tests, coverage, perf).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Literal,
    Protocol,
    TypeAlias,
    TypeVar,
    runtime_checkable,
)

from pydantic import Field

from phasegate.gates.definition import ConditionSpec
from phasegate.model.base import Model
from phasegate.model.gate import Finding, MetricValue, ToolInfo
from phasegate.settings import Section

if TYPE_CHECKING:
    from phasegate.gates.coverage_run import CoverageFigures
    from phasegate.gates.newcode import NewCode
    from phasegate.gates.project import GateProject
    from phasegate.model.run import RunReport
    from phasegate.store import Store

__all__ = [
    "AnyCheck",
    "Check",
    "CheckContext",
    "CheckError",
    "Measurement",
    "MetricSpec",
    "NoOptions",
    "OptionsT",
    "SessionData",
]

#: A check's options model: the type its ``options_model`` validates a gate's
#: ``[checks.<id>.options]`` into, and the type ``cache_inputs`` and ``measure`` are given.
OptionsT = TypeVar("OptionsT", bound=Section)


class CheckError(Exception):
    """The check could not run: ``reason`` says why, ``fix`` says what makes it runnable."""

    def __init__(self, reason: str, fix: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.fix = fix


class NoOptions(Section):
    """For checks without options: any key given is an error."""


@dataclass(frozen=True)
class MetricSpec:
    """A metric a check reports; conditions may only name declared metrics."""

    name: str
    description: str
    kind: Literal["rate", "count", "number", "bool"] = "count"


class Measurement(Model):
    """What a check measured. ``skipped`` (a reason) means the check did not apply.

    ``summary`` is one sentence on what was measured; ``score`` (0..1, 1 is perfect) feeds
    the gate's score. Every declared metric should appear in both ``metrics`` (all code) and
    ``new_code_metrics`` (lines changed against the base), ``None`` where nothing applies.
    """

    summary: str
    score: float = Field(default=1.0, ge=0, le=1)
    metrics: dict[str, MetricValue] = Field(default_factory=dict)
    new_code_metrics: dict[str, MetricValue] = Field(default_factory=dict)
    findings: list[Finding] = Field(default_factory=list)
    tool: ToolInfo | None = None
    skipped: str | None = None
    #: Findings the project's baseline accepted, so not counted as new (set by the runner).
    baseline_accepted: int = Field(default=0, ge=0)


@dataclass
class SessionData:
    """What a finished test run offers the session checks."""

    run: RunReport
    #: The coverage figures of the run, in the shape of coverage.py's JSON report (``files``
    #: and ``totals``; see :mod:`phasegate.gates.coverage_run`), when measured.
    coverage_json: CoverageFigures | None = None
    #: Why coverage was not measured, when it was asked for and is missing.
    coverage_problem: str | None = None
    #: Per-test coverage contexts of the changed files, ``{path: {line: node ids}}``, when
    #: the gate asked for them (:attr:`GateRunner.wants_test_contexts`).
    line_contexts: dict[str, dict[int, frozenset[str]]] | None = None
    #: The reviews file's bytes as the run began, before any conftest.py was imported (``b""``:
    #: there was none); ``None`` when not kept.
    reviews_at_start: bytes | None = None
    #: Whether the tests ran in the process that judges (``pytest --gate``), where their code
    #: could write any file: then only ``reviews_at_start`` is believed, and none when it was
    #: not kept. ``phasegate merge`` judges in a job of its own and reads the file as it is.
    tests_ran_here: bool = False


@dataclass
class CheckContext:
    """Everything a check may read."""

    project: GateProject
    new_code: NewCode
    store: Store
    timeout_s: float
    in_pull_request: bool = False
    session: SessionData | None = None
    #: The workflow instance the gate runs for (``phase advance``), else ``None``.
    instance: str | None = None
    #: Whether a check may keep its tool's results per file in the store and reuse them for
    #: files whose content is unchanged (:class:`phasegate.gates.cache.FileResults`); off
    #: when the settings turn the cache off.
    reuse_file_results: bool = False


@runtime_checkable
class Check(Protocol[OptionsT]):
    """A check. Implementations are plain classes with these attributes and methods.

    ``Check[LintOptions]`` is a check whose options model is ``LintOptions``: mypy then holds
    ``options_model`` and the ``options`` that ``cache_inputs`` and ``measure`` take to the same
    model (``options_model`` is a class attribute in a check; read-only here).
    """

    id: ClassVar[str]
    title: ClassVar[str]
    kind: ClassVar[Literal["static", "session"]]
    metrics: ClassVar[Sequence[MetricSpec]]
    default_conditions: ClassVar[Sequence[ConditionSpec]]

    @property
    def options_model(self) -> type[OptionsT]:
        """The pydantic model of the check's options (:class:`NoOptions` for none)."""

    def tool_info(self) -> ToolInfo | None:
        """The tool behind the check and its version (part of the cache key), or ``None``.

        Raises :class:`CheckError` with the install command when the tool is missing.
        """

    def cache_inputs(self, ctx: CheckContext, options: OptionsT) -> Sequence[Path] | None:
        """The files whose content decides the result, or ``None`` if it cannot be cached."""

    def measure(self, ctx: CheckContext, options: OptionsT) -> Measurement:
        """Measure; raise :class:`CheckError` when the check cannot run."""


#: A check whichever its options model, as the registry and the runner hold checks side by
#: side. ``Any`` because Python's types cannot say "some options model": each check is only
#: ever given options its own ``options_model`` validated (``gates/runner.py::_plan_check``).
AnyCheck: TypeAlias = Check[Any]
