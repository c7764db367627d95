"""``pytest --tdd=red|green|refactor|phase0|auto``: judge the run by the TDD rules.

Wiring only; the engine is :mod:`phasegate.tdd`. On the process that writes artifacts the
plugin starts hashing the project's test and source files in the background as the run
begins (the content the tests are about to see), judges the assembled run report at the end
of the session, appends the verdict to the ledger and shows it in a ``phasegate tdd``
section.

Exit status: a RED whose verdict passed exits 0, although its tests failed, because those
failures were the point; so does a GREEN whose only failing tests are right-reason reds of
other cycles still red in the batch. A failed verdict turns an exit status of 0 into 1 and
leaves any other non-zero status as pytest set it.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest

from phasegate.collector_pause import collections_paused
from phasegate.errors import PhasegateError
from phasegate.plugin.display import display_path

if TYPE_CHECKING:
    from phasegate.model.tdd import FileHashes, RequestedPhase
    from phasegate.plugin.recorder import Recorder
    from phasegate.tdd.cycles import RunResult, TddProject

__all__ = ["PHASES", "TDD_KEY", "TddPlugin", "configure"]

#: The values ``--tdd`` accepts.
PHASES = ("red", "green", "refactor", "phase0", "auto")


def configure(config: pytest.Config, recorder: Recorder | None) -> None:
    """Register the TDD plugin on the process that writes artifacts, if ``--tdd`` was given."""
    requested = config.getoption("tdd", default=None)
    if requested is None or recorder is None:
        return  # not asked for, or a pytest-xdist worker: the controller judges
    from phasegate.tdd.config import TddConfig
    from phasegate.tdd.cycles import TddProject, check_cycle_name

    cycle = config.getoption("tdd_cycle", default=None)
    try:
        if cycle is not None:
            check_cycle_name(cycle)
        if requested in ("refactor", "auto"):
            from phasegate.tdd.complexity import require_radon

            require_radon()
        loaded = recorder.loaded_config
        settings = loaded.section("tdd", TddConfig)
        project = TddProject(loaded.project_root, settings, recorder.store)
    except PhasegateError as exc:
        raise pytest.UsageError(f"phasegate: {exc}") from exc
    plugin = TddPlugin(config, recorder, project, cast("RequestedPhase", requested), cycle)
    config.stash[TDD_KEY] = plugin
    config.pluginmanager.register(plugin, "phasegate-tdd")


class TddPlugin:
    """Judges one run at the end of the session and reports the verdict."""

    def __init__(
        self,
        config: pytest.Config,
        recorder: Recorder,
        project: TddProject,
        requested: RequestedPhase,
        cycle: str | None,
    ) -> None:
        self._config = config
        self._recorder = recorder
        self._project = project
        self._requested = requested
        self._cycle = cycle
        self._actor: str | None = config.getoption("tdd_actor", default=None)
        self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="phasegate-tdd")
        self._files: Future[FileHashes] = self._background.submit(project.hash_tree)
        self.result: RunResult | None = None
        self.errors: list[str] = []

    # tryfirst: the exit status is settled here, from pytest's own, before the features that
    # run later (the gate) may raise it; a correct red lowering it after a failed gate set it
    # would hide that failure.
    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        try:
            with collections_paused():
                self._judge(session)
        except PhasegateError as exc:
            self._fail(session, str(exc))
        except Exception as exc:  # noqa: BLE001 - reported in the TDD section, and the run fails
            self._fail(session, f"the TDD rules could not run: {type(exc).__name__}: {exc}")
        finally:
            self._background.shutdown(wait=False)

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        from phasegate.report.tdd import run_lines

        verbosity = self._config.get_verbosity()
        entry = self.result.entry if self.result is not None else None
        ledger = display_path(self._project.ledger.path, self._config)
        lines = run_lines(entry, self.errors, verbosity=verbosity, ledger_path=ledger)
        if not lines:
            return
        if verbosity >= 0:
            terminalreporter.write_sep("=", "phasegate tdd")
        for text, markup in lines:
            terminalreporter.write_line(text, **markup)

    def pytest_unconfigure(self) -> None:
        self._background.shutdown(wait=False)

    def _judge(self, session: pytest.Session) -> None:
        from phasegate.tdd.cycles import facts_from_report
        from phasegate.tdd.tree import nodeid_path

        data = self._recorder.outcome.document
        if data is None:
            problems = "; ".join(self._recorder.outcome.errors) or "no run report was assembled"
            self._fail(session, f"the run cannot be judged: {problems}")
            return
        files = self._files.result()
        prefix = _rootdir_prefix(self._config.rootpath, self._project.root)

        def path_of(nodeid: str) -> str:
            return nodeid_path(nodeid, prefix)

        facts = facts_from_report(
            data,
            requested=self._requested,
            files=files,
            classifier=self._project.classifier(path_of, files),
            nodeid_path=path_of,
            cycle=self._cycle,
            actor=self._actor,
            interrupted=session.exitstatus == pytest.ExitCode.INTERRUPTED
            and not data["collection_errors"],
        )
        self.result = self._project.record_run(facts)
        _settle_exit_status(session, self.result)

    def _fail(self, session: pytest.Session, message: str) -> None:
        self.errors.append(message)
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR


def _settle_exit_status(session: pytest.Session, result: RunResult) -> None:
    """The run's exit status by the TDD verdict.

    A passed verdict clears a failure exit status when every failing test was expected to
    fail (a right-reason red of a cycle that is red now); a failed verdict fails a run that
    passed.
    """
    entry = result.entry
    if entry.verdict == "passed":
        failing = {test.nodeid for test in entry.tests if test.outcome in ("failed", "error")}
        if session.exitstatus == pytest.ExitCode.TESTS_FAILED and failing <= (
            result.expected_failures
        ):
            session.exitstatus = pytest.ExitCode.OK
    elif session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


#: Where the TDD plugin is kept for the length of the run.
TDD_KEY = pytest.StashKey[TddPlugin]()


def _rootdir_prefix(rootdir: Path, project_root: Path) -> str:
    """pytest's rootdir relative to the project root ('' when they are the same)."""
    try:
        relative = rootdir.resolve().relative_to(project_root.resolve())
    except ValueError:
        return ""
    return "" if str(relative) == "." else relative.as_posix()
