"""The gate's part of a pytest session: judge at the end, write the verdict, show it.

At the end of the session the session checks read the finished run report and the coverage
data, the verdict is written to ``.phasegate/gates/<gate>.json``, the run is recorded as a
round of the refinement loop (``.phasegate/refinement.json``, with the router's next action), a
table closes the terminal output, and an insufficient verdict turns a passing exit status into
1 (as ``--cov-fail-under`` does). Registered by :func:`phasegate.plugin.gate.configure`.

As the session ends, the objects the run made are frozen (:func:`gc.freeze`, as the
interpreter exits), so the interpreter's last collections do not walk them again: the heap
the tests, coverage's data and the reports left is the largest of the gate's processes, and
walking it cost about 0.1 to 0.2 s of CPU after the verdict was written (more-itertools, a
cold gate; see docs/performance.md). They are still freed as the modules are cleared; what is
lost is only the collection of reference cycles that were garbage already, which the
interpreter never promised at exit (the static checks' process ends with ``os._exit``).
While the session checks judge (coverage's analysis, the verdict), the garbage collector is
paused (:mod:`phasegate.collector_pause`): what they make is freed as it is dropped,
and the full collection their allocations set off walked the whole heap for nothing (0.05 s
on more-itertools). The tests have ended; pytest's own collections at the end still run.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from phasegate.collector_pause import collections_paused
from phasegate.errors import PhasegateError, SchemaVersionError
from phasegate.gates.coverage_run import (
    COVERAGE_DATA,
    CoverageFigures,
    MeasurementError,
    read_data_file,
)
from phasegate.gates.progress import PROGRESS_ENV, append_event
from phasegate.gates.protocol import SessionData
from phasegate.model.gate import GateVerdict
from phasegate.model.run import RunReport
from phasegate.plugin import coverage as run_coverage
from phasegate.plugin.display import display_path
from phasegate.plugin.gate import REVIEWS_KEY
from phasegate.report.terminal import gate_lines, round_lines
from phasegate.store import Store

if TYPE_CHECKING:
    from phasegate.gates.coverage_run import CoverageRun
    from phasegate.gates.runner import GateRunner
    from phasegate.plugin.recorder import Recorder
    from phasegate.refine.state import RoundOutcome
    from phasegate.shards.spec import ShardSpec

__all__ = ["GateSession", "ShardGateSession"]


class GateSession:
    """The gate's part of one pytest session (registered only in the controller)."""

    def __init__(self, config: pytest.Config, recorder: Recorder, runner: GateRunner) -> None:
        self._config = config
        self._recorder = recorder
        self._runner = runner
        self._worker_coverage: list[bytes] = []
        self._line_contexts: dict[str, dict[int, frozenset[str]]] | None = None
        self.verdict: GateVerdict | None = None
        self.verdict_path: str | None = None
        self.round: RoundOutcome | None = None
        self.errors: list[str] = []

    @pytest.hookimpl(optionalhook=True)
    # ``node`` is pytest-xdist's WorkerController, which xdist does not export as a type.
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput["phasegate_gate"] = self._runner.gate.name
        node.workerinput[run_coverage.WORKER_CONTEXTS_KEY] = self._runner.wants_test_contexts

    def pytest_unconfigure(self) -> None:
        self._runner.close()  # the static checks' process ends; in an interrupted run, stopped
        atexit.register(gc.freeze)  # the interpreter's last collections skip the run's heap

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: object, error: object | None) -> None:
        data = run_coverage.decode_worker_data(getattr(node, "workeroutput", None) or {})
        if data is not None:
            self._worker_coverage.append(data)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        with collections_paused():
            self._judge(session)

    def _judge(self, session: pytest.Session) -> None:
        document = self._recorder.outcome.document
        if document is None:
            self.errors.append("the run report could not be assembled; the gate was not judged")
            self._fail(session)
            return
        report = RunReport.model_validate(document)
        coverage_json, problem = self._coverage()
        self._load_round_recording()
        self.verdict = self._runner.finish(
            SessionData(
                run=report,
                coverage_json=coverage_json,
                coverage_problem=problem,
                line_contexts=self._line_contexts,
                reviews_at_start=self._config.stash.get(REVIEWS_KEY, None),
                tests_ran_here=True,
            )
        )
        try:
            path = self._recorder.store.write_model(
                Store.verdict_file(self.verdict.gate), self.verdict
            )
            self.verdict_path = display_path(path, self._config)
        except PhasegateError as exc:
            # The verdict was not written: whatever is on file is not this run's verdict, so
            # the run must not end as if it were judged (exit 4, as pytest's usage errors).
            self.errors.append(f"the verdict was not written: {exc}")
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            return
        self._record_round(session, report)
        if self.verdict.verdict == "insufficient":
            self._fail(session)
        progress = os.environ.get(PROGRESS_ENV)
        if progress:  # `gate run` prints this rather than loading the verdict and the report
            from phasegate.plugin.progress import verdict_event

            with contextlib.suppress(OSError):  # unseen, `gate run` says it was not judged
                append_event(Path(progress), verdict_event(self.verdict, str(path), report))

    def _load_round_recording(self) -> None:
        """Import what recording the refinement round needs (its models: 0.06 to 0.10 s of
        import time at a load of 10 on two cores) before waiting for the static checks: after
        them, on the gate's critical path when they end last, it would add to the wall time."""
        if self._recorder.loaded_config.config.refine.enabled:
            import phasegate.refine.state  # noqa: F401

    def _record_round(self, session: pytest.Session, report: RunReport) -> None:
        refine = self._recorder.loaded_config.config.refine
        if not refine.enabled or self.verdict is None:
            return
        from phasegate.refine.state import record_round  # loaded before the wait

        try:
            self.round = record_round(
                self._recorder.store, self.verdict, report, refine, os.environ
            )
        except SchemaVersionError as exc:
            self.errors.append(f"the refinement round was not recorded: {exc}")
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
        except PhasegateError as exc:
            self.errors.append(f"the refinement round was not recorded: {exc}")

    @pytest.hookimpl(trylast=True)  # the verdict closes the output
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        verbosity = self._config.get_verbosity()
        width = self._config.get_terminal_writer().fullwidth
        if verbosity >= 0:
            terminalreporter.write_sep("=", f"phasegate gate {self._runner.gate.name}")
        for message in self.errors:
            terminalreporter.write_line(f"error: {message}", red=True, bold=True)
        if self.verdict is None:
            return
        for text, markup in gate_lines(
            self.verdict, self.verdict_path, verbosity=verbosity, width=width
        ):
            terminalreporter.write_line(text, **markup)
        self._write_round(terminalreporter, verbosity)

    def _write_round(self, terminalreporter: pytest.TerminalReporter, verbosity: int) -> None:
        """The refinement round and the router's next action, shown to a project that set up
        the loop, or with ``-v``."""
        if self.round is None or not (verbosity > 0 or self._loop_configured()):
            return
        for text, markup in round_lines(self.round.state, verbosity=verbosity):
            terminalreporter.write_line(text, **markup)

    def _loop_configured(self) -> bool:
        from phasegate.refine.state import loop_configured  # loaded for the round already

        return loop_configured(self._runner.project.pyproject)

    def _coverage(self) -> tuple[CoverageFigures | None, str | None]:
        if not self._runner.needs_coverage:
            return None, None
        root = self._recorder.loaded_config.project_root
        try:
            if run_coverage.pytest_cov_active(self._config):
                return read_data_file(root, None), None
            run = self._config.stash.get(run_coverage.COVERAGE_KEY, None)
            if run is None and not self._worker_coverage:
                return None, self._why_not_measured()
            if run is not None:
                return self._figures(run), None
            with contextlib.closing(_empty_run(root, self._runner)) as workers_only:
                return self._figures(workers_only), None
        except (MeasurementError, PhasegateError) as exc:
            return None, str(exc)

    def _why_not_measured(self) -> str:
        """Why this process measured nothing, and no worker sent a measurement."""
        from phasegate.optional import is_available

        if not is_available("coverage"):
            return "coverage is not installed"
        if self._config.stash.get(run_coverage.COVERAGE_BUSY_KEY, False):
            return (
                "coverage.py was already measuring this process (coverage run, or an "
                "outer pytest run), so phasegate did not start a second measurement; "
                "run pytest directly, or with --cov (pytest-cov), whose data it reads"
            )
        return "coverage was not started for this run"

    def _figures(self, run: CoverageRun) -> CoverageFigures:
        """The figures of this process's measurement and the workers', their data kept in the
        artifacts folder (and each changed line's tests, when the gate wants them)."""
        for payload in self._worker_coverage:
            run.merge(payload)
        figures = run.report(
            data_path=self._recorder.store.path(COVERAGE_DATA),
            helper=self._runner.static_process,
        )
        if self._runner.wants_test_contexts:
            self._line_contexts = run.contexts(self._runner.changed_files())
        return figures

    @staticmethod
    def _fail(session: pytest.Session) -> None:
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


class ShardGateSession(GateSession):
    """A shard's part: measure what the merged gate needs, judge nothing."""

    def __init__(
        self, config: pytest.Config, recorder: Recorder, runner: GateRunner, shard: ShardSpec
    ) -> None:
        super().__init__(config, recorder, runner)
        self._shard = shard
        self.coverage_problem: str | None = None

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self._recorder.outcome.document is None:
            return
        _json, self.coverage_problem = self._coverage()

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        name = self._runner.gate.name
        if self._config.get_verbosity() >= 0:
            terminalreporter.write_sep("=", f"phasegate gate {name}: shard {self._shard}")
        for message in self.errors:
            terminalreporter.write_line(f"error: {message}", red=True, bold=True)
        terminalreporter.write_line(
            f"shard {self._shard} ran {self._tests_ran()}; the gate {name} "
            "is judged once on all shards by `phasegate merge`"
        )
        if self.coverage_problem:
            terminalreporter.write_line(
                f"warning: coverage was not kept for the merge: {self.coverage_problem}",
                yellow=True,
            )

    def _tests_ran(self) -> str:
        """How many of the suite's tests this shard ran, as the run report says."""
        data = self._recorder.outcome.document
        tests = data["counts"]["collected"] if data else 0
        shard = data["shard"] if data else None
        suite = shard["suite_size"] if shard else "?"
        return f"{tests} of the suite's {suite} tests"


def _empty_run(root: Path, runner: GateRunner) -> CoverageRun:
    """A measurement with nothing measured, for the workers' data to be merged into."""
    from phasegate.gates.coverage_run import CoverageRun

    return CoverageRun(root, runner.project.package_dirs)
