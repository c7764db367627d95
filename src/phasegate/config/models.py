"""The settings models: ``[tool.phasegate]`` as pydantic models that forbid unknown keys.

A bad key or value is a :class:`~phasegate.errors.ConfigError` naming the file, the key, the
value and what is allowed. Command-line flags override the file and are checked the same way.
:mod:`phasegate.config.loading` reads the file and imports this module only when it validates;
this module imports nothing of the loading, so the two are not tied in a cycle. The full
reference is ``docs/configuration.md``; a test keeps it in step with this model.
"""

from __future__ import annotations

from pydantic import Field

from phasegate.autodebug.settings import AutodebugSettings
from phasegate.gates.definition import CheckOverride
from phasegate.gates.score import DEFAULT_PASS_THRESHOLD
from phasegate.settings import Section
from phasegate.tdd.config import TddConfig
from phasegate.workflow.settings import WorkflowSettings

__all__ = ["PhasegateConfig", "RefineConfig", "ReportConfig"]


class RefineConfig(Section):
    """``[tool.phasegate.refine]``: the refinement loop across gate runs."""

    enabled: bool = Field(
        default=True, description="record each gate run as a round in .phasegate/refinement.json"
    )
    threshold: float = Field(
        default=DEFAULT_PASS_THRESHOLD,
        gt=0,
        le=1,
        description="a sufficient verdict with a score at least this ends the loop as passed; "
        "an insufficient verdict always scores below it",
    )
    alpha: float = Field(
        default=0.3, gt=0, le=1, description="weight of the newest score in the moving average"
    )
    early_stop: float = Field(
        default=0.95,
        ge=0,
        le=1,
        description="a sufficient verdict with a moving average at least this stops the loop",
    )
    max_rounds: int = Field(
        default=20, ge=1, le=1000, description="rounds before the loop escalates to a person"
    )
    task: str | None = Field(
        default=None,
        min_length=1,
        description="what the loop refines (default: '<gate>@<branch>')",
    )


class ReportConfig(Section):
    """``[tool.phasegate.report]``: what the Markdown report and the annotations show."""

    max_failures: int = Field(
        default=50, ge=1, le=10_000, description="failing tests listed in the Markdown report"
    )
    max_findings: int = Field(
        default=100, ge=0, le=10_000, description="findings listed in the Markdown report"
    )
    traceback_lines: int = Field(
        default=25, ge=0, le=1000, description="lines of each failure's traceback shown"
    )


class PhasegateConfig(Section):
    """Every key of ``[tool.phasegate]``."""

    artifacts_dir: str = Field(
        default=".phasegate",
        min_length=1,
        description="folder for phasegate's artifacts, relative to the project root",
    )
    gate: str = Field(
        default="default",
        min_length=1,
        description="the gate `pytest --gate` evaluates when no name is given",
    )
    plugins: list[str] = Field(
        default_factory=list,
        description="modules to load as phasegate plugins, besides the entry points",
    )
    max_traceback_chars: int = Field(
        default=4000,
        ge=200,
        le=100_000,
        description="characters of failure text kept per failing test (the end is kept)",
    )
    base: str | None = Field(
        default=None,
        min_length=1,
        description="git ref new code is measured against (else a pull request's base)",
    )
    baseline: str = Field(
        default="phasegate-baseline.json",
        min_length=1,
        description="the file of accepted findings, relative to the project root, that "
        "`phasegate baseline record` writes: what it holds is not new code",
    )
    gate_paths: list[str] = Field(
        default_factory=list,
        description="folders of the project's own gate files, searched before the built-in gates",
    )
    exclude: list[str] = Field(
        default_factory=list,
        description="glob patterns of files the checks leave out, relative to the project root "
        "(fnmatch: * also matches /)",
    )
    packages: list[str] = Field(
        default_factory=list,
        description="folders of the project's importable code (found automatically when empty)",
    )
    check_timeout_s: float = Field(
        default=900.0,
        gt=0,
        description="seconds a check may run before it is stopped and reported as error",
    )
    cache: bool = Field(
        default=True,
        description="reuse a check's result when its inputs, tool and options are unchanged",
    )
    checks: dict[str, CheckOverride] = Field(
        default_factory=dict,
        description="per check id: keys that replace the gate's (required, skip_allowed, "
        "timeout_s, options, fail_when)",
    )
    workflow: WorkflowSettings = Field(
        default_factory=WorkflowSettings,
        description="phase workflows, roles, retries and the handoff queue",
    )
    refine: RefineConfig = Field(
        default_factory=RefineConfig, description="the refinement loop across gate runs"
    )
    report: ReportConfig = Field(
        default_factory=ReportConfig, description="the Markdown report and the annotations"
    )
    autodebug: AutodebugSettings = Field(
        default_factory=AutodebugSettings,
        description="the [tool.phasegate.autodebug] table (pytest --autodebug)",
    )
    tdd: TddConfig = Field(
        default_factory=TddConfig,
        description="[tool.phasegate.tdd]: the red/green/refactor rules (docs/tdd.md)",
    )
