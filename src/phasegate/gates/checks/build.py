"""build: the project builds as an sdist and a wheel, and their metadata is valid and agrees.

The PyPA front end, ``build``, builds the sdist from the source tree and then the wheel from
the sdist, as a release would, so a file missing from the sdist shows up here. When the sdist
fails, the wheel is tried from the source tree alone, so that both metrics say what works. The
metadata of each (the sdist's ``PKG-INFO``, the wheel's ``METADATA``) must pass ``packaging``'s
validation, and the name and version must agree between both and with the file names.

A build without isolation runs ``build``'s front end in this process (its ``ProjectBuilder``,
:mod:`phasegate.gates.checks.build_frontend`): the backend's hooks are the only processes, and
the cost of starting ``python -m build`` is gone from the static checks' longest path, and the
sdist's metadata is read (in a thread of its own) while the wheel is built from it. An isolated
build runs ``python -m build``, whose isolated environment installs the requirements in
processes of its own, stopped with it.

Nothing is written into the project: the build runs on a copy in a temporary folder (for a
git project, a ``git clone --shared`` of the repository with the work tree's files copied
over, so that versions taken from git tags still work) and writes its output there too. The
folder is a :func:`~phasegate.gates.scratch.scratch_folder`: the static checks' process removes
it once its judgements are written, off the gate's critical path. The
build requirements are looked up while the copy is made: the build, which ends last among the
static checks on small suites, waits for both.

A build that ends well must have written exactly one sdist and one wheel: a front end or
backend that reports success without them (or with several) is an error, not a pass. A hung
backend is stopped at the check's timeout with every process it started
(:mod:`phasegate.processes`).

Isolation (option ``isolation``): ``never`` builds in this environment (``--no-isolation``);
``always`` lets ``build`` install ``[build-system].requires`` into a fresh environment (this
needs the package index); ``auto``, the default, builds without isolation when every build
requirement is already installed here, and with isolation otherwise (also when the backend
asks for more than ``[build-system].requires`` names and that is missing here).

What needs ``packaging`` (the build requirements met here, the built files' metadata) is in
:mod:`phasegate.gates.checks.build_measure`, imported where the check measures: planning a gate
imports every check's module, in the pytest process too, which has no use for it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from phasegate.gates.definition import ConditionSpec
from phasegate.gates.git import git_state_files
from phasegate.gates.installed import metadata_files
from phasegate.gates.protocol import CheckContext, CheckError, Measurement, MetricSpec
from phasegate.gates.scratch import scratch_folder
from phasegate.gates.snapshot import copy_project
from phasegate.gates.tools import ToolRun, require_tool, run_tool
from phasegate.model.gate import Finding, Severity, ToolInfo
from phasegate.settings import Section
from phasegate.tomlfile import table_in

if TYPE_CHECKING:
    from packaging.metadata import Metadata

    from phasegate.gates.checks.build_measure import SdistReading

__all__ = ["BuildCheck", "BuildOptions"]

#: What build uses when a project has no [build-system] table (PEP 517's fallback).
_FALLBACK_REQUIRES = ("setuptools>=40.8.0",)
#: How build says a build requirement is not installed (older releases, then newer ones).
_MISSING_DEPENDENCIES = ("Missing dependencies", "Unmet dependencies")
_OUTPUT_LINES = 12


class BuildOptions(Section):
    """Options of the build check."""

    isolation: Literal["auto", "always", "never"] = Field(
        default="auto",
        description="'auto': isolated only when a build requirement is not installed here; "
        "'always': isolated (needs the package index); 'never': this environment",
    )


@dataclass
class _Outcome:
    """What one check run found; ``problems`` become findings."""

    isolation: str
    problems: list[tuple[str, str]] = field(default_factory=list)
    sdist: Metadata | None = None
    wheel: Metadata | None = None
    sdist_built: bool = False
    wheel_built: bool = False


class BuildCheck:
    """A PEP 517 build of sdist and wheel; by default any problem fails the check."""

    id: ClassVar[str] = "build"
    title: ClassVar[str] = "sdist and wheel build"
    kind: ClassVar[Literal["static", "session"]] = "static"
    options_model: ClassVar[type[BuildOptions]] = BuildOptions
    metrics: ClassVar[Sequence[MetricSpec]] = (
        MetricSpec("problems", "build failures and metadata problems"),
        MetricSpec("sdist_built", "whether the sdist was built", "bool"),
        MetricSpec("wheel_built", "whether the wheel was built", "bool"),
    )
    default_conditions: ClassVar[Sequence[ConditionSpec]] = (
        ConditionSpec(metric="problems", scope="overall", op=">", value=0),
    )

    def tool_info(self) -> ToolInfo | None:
        """build and its version; a CheckError with the install command when it is missing."""
        return require_tool("build", "build")

    def cache_inputs(self, ctx: CheckContext, options: BuildOptions) -> Sequence[Path] | None:
        """Every file of the project, the installed distributions (the backend among them)
        and the git state a version may come from.

        An isolated build installs its backend from the package index at build time; a new
        release there is picked up when an input changes, or with ``cache = false``.
        """
        return [
            *ctx.project.all_files,
            *metadata_files(),
            *git_state_files(ctx.project.git_toplevel),
        ]

    def measure(self, ctx: CheckContext, options: BuildOptions) -> Measurement:
        """Build sdist and wheel from a copy of the project, then read their metadata."""
        root = ctx.project.root
        config = next(
            (path for name in ("pyproject.toml", "setup.py") if (path := root / name).is_file()),
            None,
        )
        if config is None:
            outcome = _Outcome(isolation="none")
            outcome.problems.append(
                ("no-build-config", f"nothing to build: {root} has no pyproject.toml or setup.py")
            )
        else:
            outcome = self._build_and_inspect(ctx, options)
        findings = [
            Finding(
                rule=rule,
                severity=Severity.HIGH,
                message=message,
                path=ctx.project.relative(config) if config else None,
                new=True,
            )
            for rule, message in outcome.problems
        ]
        metrics: dict[str, int | bool] = {
            "problems": len(findings),
            "sdist_built": outcome.sdist_built,
            "wheel_built": outcome.wheel_built,
        }
        return Measurement(
            summary=_summary(outcome),
            score=1.0 if not findings else 0.0,
            metrics=dict(metrics),
            # A build is of the whole project: new code has the same result.
            new_code_metrics=dict(metrics),
            findings=findings,
        )

    def _build_and_inspect(self, ctx: CheckContext, options: BuildOptions) -> _Outcome:
        with (
            scratch_folder("phasegate-build-") as folder,
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="phasegate-build-sdist") as pool,
        ):
            isolated, why, source = _decided_and_copied(ctx, options, folder / "source")
            # Imported by the requirements' lookup beside the copy (``auto``), else here.
            from phasegate.gates.checks.build_measure import SdistReading

            out = folder / "dist"
            reading = SdistReading(pool)
            run = _build(ctx, source, out, isolated=isolated, on_sdist=reading.start)
            if options.isolation == "auto" and not isolated and _lacks_dependencies(run):
                shutil.rmtree(out, ignore_errors=True)
                isolated, why = True, "isolated: the backend needs packages not installed here"
                reading = SdistReading(pool)
                run = _build(ctx, source, out, isolated=True)
            outcome = _Outcome(isolation=why)
            self._judge(ctx, source, out, run, outcome, isolated=isolated, reading=reading)
        return outcome

    @staticmethod
    def _judge(
        ctx: CheckContext,
        source: Path,
        out: Path,
        run: ToolRun,
        outcome: _Outcome,
        *,
        isolated: bool,
        reading: SdistReading,
    ) -> None:
        from phasegate.gates.checks import build_measure as measuring

        if run.returncode != 0:
            _diagnose(ctx, source, out, run, outcome, isolated=isolated)
        sdists, wheels = sorted(out.glob("*.tar.gz")), sorted(out.glob("*.whl"))
        if run.returncode == 0 and (len(sdists) != 1 or len(wheels) != 1):
            raise CheckError(
                f"the build reported success but wrote {len(sdists)} sdist(s) and "
                f"{len(wheels)} wheel(s), not one of each: {_tail(run)}",
                fix="run `python -m build` in the project to see what the backend does",
            )
        outcome.sdist_built, outcome.wheel_built = bool(sdists), bool(wheels)
        problems = outcome.problems
        if sdists:
            outcome.sdist = reading.validated(sdists[0], problems)
        if wheels:
            outcome.wheel = measuring.validated_metadata(
                wheels[0], measuring.read_wheel_metadata, problems
            )
        measuring.compare_metadata(outcome.sdist, outcome.wheel, problems)


def _decided_and_copied(
    ctx: CheckContext, options: BuildOptions, into: Path
) -> tuple[bool, str, Path]:
    """Whether to build isolated and why, and the project copied to ``into`` (its root there).

    The two are independent and the build waits for both: the requirements are
    looked up (in Python) in a thread of their own while the copy (git and file copies, which
    mostly wait) runs in the check's thread, where the git commands it starts are the check's
    own, stopped with it at its timeout.
    """
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="phasegate-build-requires") as pool:
        deciding = pool.submit(_isolation, options, _build_requires(ctx.project.pyproject))
        source = copy_project(ctx.project, ctx.store, into, ctx.timeout_s)
        isolated, why = deciding.result()
    return isolated, why, source


def _isolation(options: BuildOptions, requires: list[str]) -> tuple[bool, str]:
    """Whether to build in an isolated environment, and why (said in the summary)."""
    if options.isolation != "auto":
        isolated = options.isolation == "always"
        return isolated, (
            "isolated (isolation = 'always')" if isolated else "not isolated (isolation = 'never')"
        )
    from phasegate.gates.checks.build_measure import unmet_requirements

    unmet = unmet_requirements(requires)
    if unmet:
        return True, f"isolated: {', '.join(unmet)} not installed here"
    return False, "not isolated: every build requirement is installed here"


def _lacks_dependencies(run: ToolRun) -> bool:
    """Whether a build failed because the backend asked for more than
    ``[build-system].requires``, and it is not installed here."""
    return run.returncode != 0 and any(
        text in run.stdout + run.stderr for text in _MISSING_DEPENDENCIES
    )


def _diagnose(
    ctx: CheckContext, source: Path, out: Path, run: ToolRun, outcome: _Outcome, *, isolated: bool
) -> None:
    """Say which stage failed; without a wheel, try the wheel alone from the source tree."""
    sdist_built = any(out.glob("*.tar.gz"))
    stage = "the wheel from the sdist" if sdist_built else "the sdist"
    outcome.problems.append(("build-failed", f"the build failed building {stage}: {_tail(run)}"))
    if any(out.glob("*.whl")):
        return
    alone = _build(ctx, source, out, isolated=isolated, only="--wheel")
    if alone.returncode == 0 and sdist_built:
        outcome.problems.append(
            (
                "sdist-incomplete",
                "the wheel builds from the source tree but not from the sdist: "
                "the sdist is missing files the build needs",
            )
        )
    elif alone.returncode != 0 and not sdist_built:
        outcome.problems.append(
            ("build-failed", f"building the wheel alone failed too: {_tail(alone)}")
        )


def _build_requires(pyproject: Mapping[str, object]) -> list[str]:
    system = table_in(pyproject, "build-system")
    if "requires" not in system:
        return list(_FALLBACK_REQUIRES)
    requires = system["requires"]
    return [str(item) for item in requires] if isinstance(requires, list) else []


def _build(
    ctx: CheckContext,
    source: Path,
    out: Path,
    *,
    isolated: bool,
    only: str | None = None,
    on_sdist: Callable[[Path], None] | None = None,
) -> ToolRun:
    """Build into ``out``; ``on_sdist`` is told of the sdist as soon as the front end in this
    process has built it (``python -m build`` tells nothing)."""
    from phasegate.gates.checks import build_frontend as frontend

    if not isolated and frontend.IN_PROCESS:
        return frontend.build_in_process(
            source, out, timeout_s=ctx.timeout_s, wheel_only=bool(only), on_sdist=on_sdist
        )
    args = ["--outdir", str(out)]
    if only:
        args.append(only)
    if not isolated:
        args.append("--no-isolation")
    return run_tool(
        "build",
        [*args, str(source)],
        cwd=source,
        timeout_s=ctx.timeout_s,
        ok_codes=(0, 1),  # 1: the build failed, which is what this check measures
    )


def _tail(run: ToolRun) -> str:
    text = "\n".join(part.strip() for part in (run.stdout, run.stderr) if part.strip())
    lines = text.splitlines()[-_OUTPUT_LINES:]
    return " | ".join(line.strip() for line in lines if line.strip()) or "(no output)"


def _summary(outcome: _Outcome) -> str:
    if outcome.problems:
        first = outcome.problems[0][1]
        return f"{len(outcome.problems)} build problem(s) ({outcome.isolation}); first: {first}"
    built = outcome.wheel or outcome.sdist
    what = f" of {built.name} {built.version}" if built else ""
    return f"sdist and wheel{what} built and their metadata is valid ({outcome.isolation})"
