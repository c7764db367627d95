"""Run a gate: plan its checks, start the static ones at once, finish with the session's.

:meth:`GateRunner.start` submits every static check to a thread pool as soon as a run starts
(each one mostly waits on its tool's subprocess, so they run beside the tests);
:meth:`GateRunner.finish` runs the session checks on the finished run, waits for the rest
within their timeouts, and returns the :class:`~phasegate.model.gate.GateVerdict`.

Planning happens in the constructor and is where a bad gate shows: an unknown check, an option
the check does not take, a condition on a metric the check does not report. Each is a usage
error naming the gate file and the key.
"""

from __future__ import annotations

import dataclasses
import difflib
import threading
from collections.abc import Callable, Mapping
from concurrent import futures
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import ValidationError

from phasegate import clock
from phasegate.errors import UsageError
from phasegate.gates.baseline import BASELINE_CHECKS, DEFAULT_BASELINE, AcceptedFindings
from phasegate.gates.cache import CheckCache, ContentDigests, cache_key
from phasegate.gates.definition import CheckSpec, GateDefinition, GateSource
from phasegate.gates.evaluation import Judgement, error_result, judge, requirement_of, verdict_of
from phasegate.gates.newcode import changed_package_files
from phasegate.gates.project import GateProject
from phasegate.gates.protocol import AnyCheck, CheckContext, CheckError, Measurement, SessionData
from phasegate.gates.registry import CheckRegistry
from phasegate.gates.score import DEFAULT_PASS_THRESHOLD
from phasegate.jsonvalues import is_number
from phasegate.model.baseline import Baseline
from phasegate.model.gate import GateVerdict, Requirement, ToolInfo
from phasegate.model.run import RunReport
from phasegate.processes import kill_running_groups
from phasegate.settings import Section, describe_errors

if TYPE_CHECKING:
    from phasegate.gates.static_process import StaticChecksProcess

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "GateRunner",
    "PlannedCheck",
    "ProgressEvent",
    "explain",
    "plan_gate",
]

#: Seconds a check may take unless the gate or the project says otherwise.
DEFAULT_TIMEOUT_S = 900.0


@dataclass(frozen=True)
class ProgressEvent:
    """A check started or finished (for live progress displays)."""

    check: str
    state: Literal["started", "finished"]
    status: str | None = None
    duration_s: float | None = None
    cached: bool = False


@dataclass(frozen=True)
class PlannedCheck:
    """A check of the gate, ready to run."""

    check: AnyCheck
    origin: str
    spec: CheckSpec
    options: Section  # validated by the check's options_model
    requirement: Requirement
    timeout_s: float


class GateRunner:
    """Runs one gate over one project."""

    def __init__(
        self,
        gate: GateDefinition,
        source: GateSource,
        registry: CheckRegistry,
        context: CheckContext,
        *,
        cache: CheckCache | None = None,
        on_event: Callable[[ProgressEvent], None] | None = None,
        default_timeout_s: float = DEFAULT_TIMEOUT_S,
        baseline: Baseline | None = None,
        baseline_name: str = DEFAULT_BASELINE,
        pass_threshold: float = DEFAULT_PASS_THRESHOLD,
    ) -> None:
        self.gate = gate
        self._pass_threshold = pass_threshold
        self._baseline = baseline
        self._baseline_name = baseline_name
        self.source = source
        self._context = context
        self._cache = cache
        self._on_event = on_event or (lambda _event: None)
        self._events_lock = threading.Lock()
        self.plan = plan_gate(
            gate,
            source,
            registry,
            in_pull_request=context.in_pull_request,
            default_timeout_s=default_timeout_s,
        )
        self._futures: dict[str, Future[Judgement]] = {}
        self._submitted: dict[str, float] = {}
        #: The thread running each check, so that a check past its timeout has what it
        #: started (tools, git) killed.
        self._threads: dict[str, int] = {}
        self._pool: ThreadPoolExecutor | None = None
        self._static_process: StaticChecksProcess | None = None
        self._started_at = clock.utc_now()
        self._wants_contexts: bool | None = None
        #: The input files' digests for the cache keys, read once a run.
        self._digests = ContentDigests()

    @property
    def project(self) -> GateProject:
        """The project the gate runs over."""
        return self._context.project

    @property
    def needs_coverage(self) -> bool:
        """Whether a check of this gate reads coverage of the test run."""
        return "coverage" in self.plan or self.wants_test_contexts

    @property
    def wants_test_contexts(self) -> bool:
        """Whether coverage should record which test ran each line: the mutation check reads
        it, when there is a base and a line of the package changed (else it mutates nothing
        and is skipped). When git cannot list the package's files, they are recorded: the
        mutation check itself then says why it cannot run."""
        new_code = self._context.new_code
        if "mutation" not in self.plan or new_code.all_new:
            return False
        if self._wants_contexts is None:
            try:
                changed = changed_package_files(self._context.project, new_code)
            except CheckError:
                changed = {"": None}
            self._wants_contexts = bool(changed)
        return self._wants_contexts

    def changed_files(self) -> list[str]:
        """The files with new lines against the base (empty without a base)."""
        new_code = self._context.new_code
        if new_code.changed is None:
            return []
        return sorted({*new_code.changed, *new_code.whole_files})

    @property
    def static_process(self) -> StaticChecksProcess | None:
        """The process running the static checks, once started (it may take part of the
        coverage analysis, :mod:`phasegate.gates.coverage_share`)."""
        return self._static_process

    @property
    def static_checks(self) -> list[str]:
        """The ids of the gate's static checks."""
        return [c for c, p in self.plan.items() if p.check.kind == "static"]

    @property
    def longest_timeout_s(self) -> float:
        """The largest timeout of the gate's checks."""
        return max((p.timeout_s for p in self.plan.values()), default=DEFAULT_TIMEOUT_S)

    def start(self, static_process: StaticChecksProcess | None = None) -> None:
        """Start every static check in the background: in threads, or in ``static_process``."""
        self._started_at = clock.utc_now()
        self._digests = ContentDigests()
        pool = self._pool = ThreadPoolExecutor(
            max_workers=max(1, len(self.plan)), thread_name_prefix="phasegate-check"
        )
        if static_process is not None and self.static_checks:
            self._static_process = static_process
            static_process.limit(self.longest_timeout_s)
            static_process.start()
            return
        for check_id in self.static_checks:
            self._submit(pool, check_id, self._context)

    def run_static(self) -> dict[str, Judgement]:
        """Run only the static checks, here, and return their judgements."""
        self._digests = ContentDigests()
        pool = self._pool = ThreadPoolExecutor(
            max_workers=max(1, len(self.plan)), thread_name_prefix="phasegate-check"
        )
        for check_id in self.static_checks:
            self._submit(pool, check_id, self._context)
        judgements = {c: self._collect(c, self.plan[c]) for c in self.static_checks}
        pool.shutdown(wait=False, cancel_futures=True)
        return judgements

    def every_check_ended(self, within_s: float = 0.0) -> bool:
        """Whether every check's thread has returned, waiting for them up to ``within_s``
        seconds: one judged past its timeout may still run (its tools were killed, but it may
        clean up or try again)."""
        _, running = futures.wait(self._futures.values(), timeout=within_s)
        return not running

    def close(self) -> None:
        """End the static checks' process (stopped at once in an interrupted run) and stop
        what still runs in the background."""
        if self._static_process is not None:
            self._static_process.end()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def finish(self, session: SessionData | None) -> GateVerdict:
        """Run the session checks, wait for all, and judge."""
        if self._pool is None:
            self.start()
        pool = self._pool
        if pool is None:  # pragma: no cover - start() always sets it
            raise RuntimeError("the gate runner has no thread pool")
        session_context = dataclasses.replace(self._context, session=session)
        for check_id, planned in self.plan.items():
            if planned.check.kind == "session":
                self._submit(pool, check_id, session_context)
        judgements = self._judgements()
        pool.shutdown(wait=False, cancel_futures=True)
        return self._verdict(judgements, session.run if session is not None else None)

    def _judgements(self) -> list[Judgement]:
        """Every check's judgement in the plan's order, from the static process when it ran."""
        from_process = self._from_static_process()
        return [
            from_process[check_id] if check_id in from_process else self._collect(check_id, planned)
            for check_id, planned in self.plan.items()
        ]

    def _verdict(self, judgements: list[Judgement], run: RunReport | None) -> GateVerdict:
        results = [judgement.result for judgement in judgements]
        verdict, score, reasons = verdict_of(
            results,
            {c: p.spec for c, p in self.plan.items()},
            pass_threshold=self._pass_threshold,
        )
        finished = clock.utc_now()
        return GateVerdict(
            gate=self.gate.name,
            source=str(self.source.path),
            verdict=verdict,
            score=score,
            reasons=reasons,
            checks=results,
            conditions=[
                condition for judgement in judgements for condition in judgement.conditions
            ],
            base=self._context.new_code.base,
            run_id=run.run_id if run else None,
            commit=run.git.sha if run and run.git else None,
            started_at=self._started_at,
            finished_at=finished,
            duration_s=(finished - self._started_at).total_seconds(),
        )

    # -- running ---------------------------------------------------------------------------

    def _from_static_process(self) -> dict[str, Judgement]:
        process = self._static_process
        if process is None:
            return {}
        started = clock.perf_counter()
        try:
            found = process.judgements()
        except CheckError as exc:
            found = {}
            error = exc
        else:
            error = CheckError(
                "the process running the static checks returned no result for this check"
            )
        for check_id in self.static_checks:
            if check_id not in found:
                found[check_id] = self._failed(check_id, error, started)
        return found

    def _submit(self, pool: ThreadPoolExecutor, check_id: str, context: CheckContext) -> None:
        self._submitted[check_id] = clock.monotonic()
        self._futures[check_id] = pool.submit(self._execute, check_id, context)

    def _execute(self, check_id: str, context: CheckContext) -> Judgement:
        self._threads[check_id] = threading.get_ident()
        planned = self.plan[check_id]
        started = clock.perf_counter()
        self._emit(ProgressEvent(check_id, "started"))
        context = dataclasses.replace(context, timeout_s=planned.timeout_s)
        accepted = self._accepted(check_id, context)
        if accepted is not None:
            new_code = dataclasses.replace(context.new_code, accepted=accepted)
            context = dataclasses.replace(context, new_code=new_code)
        cached = False
        try:
            measurement, cached = self._measurement(check_id, context, accepted)
            judgement = judge(
                planned.check,
                planned.spec,
                measurement,
                requirement=planned.requirement,
                duration_s=clock.perf_counter() - started,
                cached=cached,
            )
        except CheckError as exc:
            judgement = self._failed(check_id, exc, started)
        except Exception as exc:  # noqa: BLE001 - any crash of a check fails the gate closed
            error = CheckError(
                f"the check crashed: {type(exc).__name__}: {exc}",
                fix="this is a bug in the check; please report it with this message",
            )
            judgement = self._failed(check_id, error, started)
        self._emit(
            ProgressEvent(
                check_id,
                "finished",
                status=judgement.result.status.value,
                duration_s=judgement.result.duration_s,
                cached=cached,
            )
        )
        return judgement

    def _measurement(
        self, check_id: str, context: CheckContext, accepted: AcceptedFindings | None
    ) -> tuple[Measurement, bool]:
        """The check's measurement, and whether it came from the cache (then it is as kept)."""
        planned = self.plan[check_id]
        tool = planned.check.tool_info()
        key = self._key(planned, context, tool)
        kept = self._cache.get(check_id, key) if self._cache and key else None
        if kept is not None:
            return kept, True
        measurement = self._measured_now(planned, context, tool, accepted)
        if self._cache and key:
            self._cache.put(check_id, key, measurement)
            measurement = _with_refusal(measurement, self._cache.refused.get(check_id))
        return measurement, False

    def _measured_now(
        self,
        planned: PlannedCheck,
        context: CheckContext,
        tool: ToolInfo | None,
        accepted: AcceptedFindings | None,
    ) -> Measurement:
        """The check measured now, with its tool, and the findings the baseline accepted."""
        measurement = planned.check.measure(context, planned.options)
        if measurement.tool is None:
            measurement = measurement.model_copy(update={"tool": tool})
        if accepted is not None and accepted.accepted:
            measurement = self._with_accepted(measurement, accepted.accepted)
        return measurement

    def _accepted(self, check_id: str, context: CheckContext) -> AcceptedFindings | None:
        """The baseline's entries for a code check, fresh for one measurement; else None."""
        if self._baseline is None or check_id not in BASELINE_CHECKS:
            return None
        entries = [entry for entry in self._baseline.entries if entry.check == check_id]
        return AcceptedFindings(context.project.root, check_id, entries) if entries else None

    def _with_accepted(self, measurement: Measurement, count: int) -> Measurement:
        # First, so that a sentence cut to the terminal's width still says it.
        summary = (
            f"{count} finding(s) accepted by the baseline {self._baseline_name}, not counted "
            f"as new; {measurement.summary}"
        )
        return measurement.model_copy(update={"summary": summary, "baseline_accepted": count})

    def _key(
        self, planned: PlannedCheck, context: CheckContext, tool: ToolInfo | None
    ) -> str | None:
        if self._cache is None:
            return None
        inputs = planned.check.cache_inputs(context, planned.options)
        if inputs is None:
            return None
        return cache_key(
            planned.check.id,
            tool=tool,
            options=planned.options.model_dump(mode="json"),
            new_code=context.new_code.digest(),
            root=context.project.root,
            inputs=inputs,
            digest=self._digests,
        )

    def _collect(self, check_id: str, planned: PlannedCheck) -> Judgement:
        future = self._futures[check_id]
        started = clock.perf_counter()
        deadline = self._submitted[check_id] + planned.timeout_s
        try:
            return future.result(timeout=max(0.0, deadline - clock.monotonic()))
        except FutureTimeout:
            thread = self._threads.get(check_id)
            if thread is not None:
                kill_running_groups(thread)  # the tools it started, with their children
            error = CheckError(
                f"did not finish within {planned.timeout_s:g}s",
                fix="raise timeout_s for this check in the gate or in [tool.phasegate.checks]",
            )
            return self._failed(check_id, error, started)

    def _failed(self, check_id: str, error: CheckError, started: float) -> Judgement:
        planned = self.plan[check_id]
        result = error_result(
            check_id,
            planned.check.title,
            error,
            requirement=planned.requirement,
            duration_s=clock.perf_counter() - started,
        )
        return Judgement(result, [])

    def _emit(self, event: ProgressEvent) -> None:
        with self._events_lock:
            self._on_event(event)


def plan_gate(
    gate: GateDefinition,
    source: GateSource,
    registry: CheckRegistry,
    *,
    in_pull_request: bool,
    default_timeout_s: float = DEFAULT_TIMEOUT_S,
) -> dict[str, PlannedCheck]:
    """Resolve every check of the gate; a bad gate is a usage error naming file and key.

    ``[tool.phasegate.checks]`` may only name checks that exist, even ones this gate leaves
    out: a misspelt id would otherwise be ignored in silence.
    """
    known = registry.ids()
    for check_id in gate.overridden_checks:
        if check_id not in known:
            where, key = gate.blame(check_id, "", source.path)
            hint = difflib.get_close_matches(check_id, known, n=1)
            guess = f"; did you mean {hint[0]!r}?" if hint else ""
            raise UsageError(
                f"{where}: unknown key {key}: there is no check {check_id!r}; known checks: "
                f"{', '.join(known)}{guess}"
            )
    return {
        check_id: _plan_check(
            check_id, spec, gate, source, registry, in_pull_request, default_timeout_s
        )
        for check_id, spec in gate.checks.items()
    }


def _plan_check(
    check_id: str,
    spec: CheckSpec,
    gate: GateDefinition,
    source: GateSource,
    registry: CheckRegistry,
    in_pull_request: bool,
    default_timeout_s: float,
) -> PlannedCheck:
    try:
        registered = registry.get(check_id)
    except UsageError as exc:
        raise UsageError(f"{source.path}: key checks.{check_id}: {exc}") from exc
    check = registered.check
    try:
        options = check.options_model.model_validate(spec.options)
    except ValidationError as exc:
        first = ".".join(str(part) for part in exc.errors()[0]["loc"])
        head = "options" + (f".{first}" if first else "")
        where, key = gate.blame(check_id, head, source.path)
        table = key[: len(key) - len(head)] + "options"
        raise UsageError(
            describe_errors(exc, model=check.options_model, where=where, table=table)
        ) from exc
    _refuse_bad_conditions(check, spec, gate, source)
    return PlannedCheck(
        check=check,
        origin=registered.origin,
        spec=spec,
        options=options,
        requirement=requirement_of(spec, in_pull_request=in_pull_request),
        timeout_s=spec.timeout_s or default_timeout_s,
    )


def _refuse_bad_conditions(
    check: AnyCheck, spec: CheckSpec, gate: GateDefinition, source: GateSource
) -> None:
    """A usage error for a condition on an unknown metric, or a threshold of the wrong type.

    A threshold must be of its metric's kind: ``true``/``false`` for a yes-or-no metric, a
    number for the others. A quoted one (``value = "false"``) would never compare equal to
    what the check reports, and the condition would never fire.
    """
    kinds = {metric.name: metric.kind for metric in check.metrics}
    for index, condition in enumerate(spec.fail_when or ()):
        where, key = gate.blame(check.id, f"fail_when.{index}", source.path)
        if condition.metric not in kinds:
            raise UsageError(
                f"{where}: key {key}.metric = {condition.metric!r}: {check.id} reports no such "
                f"metric; it reports {', '.join(sorted(kinds))}"
            )
        kind, value = kinds[condition.metric], condition.value
        fits, allowed = _threshold_fits(kind, value)
        if not fits:
            raise UsageError(
                f"{where}: key {key}.value = {value!r} is not allowed: {condition.metric} is a "
                f"{kind} metric, so the threshold must be {allowed}; a value of another type "
                "never compares equal, and the condition would never fire"
            )


def _threshold_fits(kind: str, value: object) -> tuple[bool, str]:
    """Whether a threshold is of its metric's kind, and what that kind allows."""
    if kind == "bool":
        return isinstance(value, bool), "true or false (unquoted)"
    return is_number(value), "a number (unquoted)"


def explain(planned: Mapping[str, PlannedCheck]) -> list[str]:
    """The gate's conditions in words, one line each (``phasegate gate explain``)."""
    lines: list[str] = []
    for check_id, item in planned.items():
        needed = {"required": "required", "optional": "optional"}[item.requirement]
        if item.spec.required == "in-pull-request":
            needed = "required in a pull request, optional elsewhere"
        lines.append(f"{check_id} ({item.check.title}; {needed}; from {item.origin}):")
        lines.extend(_condition_lines(item))
        if item.spec.skip_allowed:
            lines.append("  may be skipped when it does not apply")
    return lines


def _condition_lines(item: PlannedCheck) -> list[str]:
    """What makes the check fail: the gate's conditions, else the check's own."""
    conditions = (
        item.spec.fail_when if item.spec.fail_when is not None else item.check.default_conditions
    )
    if not conditions:
        return ["  fails only when it cannot run"]
    return [
        f"  fails when {condition.metric} "
        f"{'on new code' if condition.scope == 'new' else 'overall'} {condition.op} "
        f"{condition.value}"
        for condition in conditions
    ]


def _with_refusal(measurement: Measurement, why: str | None) -> Measurement:
    """The measurement, saying first why its cache entry was not believed (when it was not)."""
    if why is None:
        return measurement
    summary = f"cache entry not used ({why}), measured again; {measurement.summary}"
    return measurement.model_copy(update={"summary": summary})
