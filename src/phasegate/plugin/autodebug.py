"""``pytest --autodebug[=suggest|apply]``: the pytest side of auto-debug, and nothing more.

* Where tests run (a serial run, or each pytest-xdist worker), :class:`Classifier` turns the
  live exception of each failure into a diagnosis, from a ``pytest_runtest_makereport``
  wrapper (tests) and ``pytest_exception_interact`` (collectors), and attaches it to the
  report as plain data under :data:`DIAGNOSIS_ATTRIBUTE`; pytest-xdist carries it to the
  controller.
* Where artifacts are written, :class:`AutodebugController` gathers the diagnoses, and at the
  end of the session, once the recorder has assembled the run report, runs the
  :class:`~phasegate.autodebug.engine.Engine`, writes ``autodebug.json`` and the diffs through
  the store, and shows a terminal section. It never raises from a hook: a problem is shown,
  and sets the exit status only if the run had passed.

Re-runs started by auto-debug carry :data:`~phasegate.autodebug.runner.CHILD_ENV`; auto-debug
stays off in them.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from phasegate.plugin.display import display_path
from phasegate.store import AUTODEBUG_JOURNAL_FILE, AUTODEBUG_REPORT_FILE

if TYPE_CHECKING:
    from phasegate.autodebug.diagnosis import DiagnosisDocument
    from phasegate.autodebug.engine import Engine, FailedTest
    from phasegate.autodebug.patterns.base import Pattern
    from phasegate.autodebug.project import Project
    from phasegate.autodebug.runner import RerunLimit, TestRunner
    from phasegate.autodebug.settings import AutodebugSettings
    from phasegate.autodebug.validate import Baseline
    from phasegate.config import LoadedConfig
    from phasegate.documents import RunDocument
    from phasegate.model.autodebug import AutodebugReport
    from phasegate.plugin.recorder import Recorder

__all__ = [
    "DIAGNOSIS_ATTRIBUTE",
    "MODES",
    "configure",
    "failed_message",
    "interrupted_message",
]

#: The attribute auto-debug adds to failed pytest reports (a dict of plain values).
DIAGNOSIS_ATTRIBUTE = "phasegate_autodebug"
MODES = ("suggest", "apply")

CONTROLLER_KEY = pytest.StashKey["AutodebugController"]()


def configure(config: pytest.Config, recorder: Recorder | None) -> None:
    """Register auto-debug's hooks if ``--autodebug`` was given (and this is not a re-run)."""
    mode = config.getoption("autodebug", default=None)
    if mode is None:
        return  # not asked for: nothing of the auto-debug engine is imported
    from phasegate.autodebug.runner import CHILD_ENV

    if os.environ.get(CHILD_ENV):
        return
    if mode not in MODES:
        raise pytest.UsageError(
            f"phasegate: --autodebug={mode!r} is not a mode; allowed: {', '.join(MODES)}. "
            "Write --autodebug=MODE when test paths follow"
        )
    loaded, patterns = _settings_and_patterns(config, recorder)
    config.pluginmanager.register(
        Classifier(loaded.project_root, patterns), "phasegate-autodebug-classifier"
    )
    if recorder is not None:
        controller = AutodebugController(config, recorder, loaded.config.autodebug, patterns, mode)
        controller.recover()
        config.stash[CONTROLLER_KEY] = controller
        config.pluginmanager.register(controller, "phasegate-autodebug")


def _settings_and_patterns(
    config: pytest.Config, recorder: Recorder | None
) -> tuple[LoadedConfig, list[Pattern]]:
    """The settings (a pytest-xdist worker reads its own) and the repair patterns; where the
    run repairs, the TF-IDF index it is set to use must be installed. A problem is a usage
    error."""
    from phasegate.autodebug.patterns import load_patterns
    from phasegate.errors import PhasegateError
    from phasegate.extensions import make_plugin_manager

    try:
        if recorder is not None:
            loaded = recorder.loaded_config
        else:
            from phasegate.plugin import _load

            loaded = _load(config)
        patterns = load_patterns(make_plugin_manager(loaded.config.plugins))
        if loaded.config.autodebug.index == "tfidf" and recorder is not None:
            from phasegate import optional

            optional.require(
                "sklearn",
                what="index = 'tfidf' in [tool.phasegate.autodebug]",
                package="scikit-learn",
                extra="autodebug",
            )
    except PhasegateError as exc:
        raise pytest.UsageError(f"phasegate: {exc}") from exc
    return loaded, patterns


class Classifier:
    """Diagnoses each failure from its live exception, where the test ran."""

    def __init__(self, root: Path, patterns: list[Pattern]) -> None:
        self._root = root
        self._patterns = patterns

    def _diagnose(self, exc: BaseException) -> DiagnosisDocument | None:
        from phasegate.autodebug.diagnosis import Diagnosis
        from phasegate.autodebug.patterns import classify_exception

        try:
            return classify_exception(exc, self._root, self._patterns).to_dict()
        except Exception as error:  # noqa: BLE001 - classification must never fail a test run
            return Diagnosis(
                "other",
                "other",
                "unclassified",
                type(exc).__name__,
                str(exc)[:500],
                facts={"pattern_errors": [f"{type(error).__name__}: {error}"]},
            ).to_dict()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if report.failed and call.excinfo is not None:
            diagnosis = self._diagnose(call.excinfo.value)
            if diagnosis is not None:
                report.__dict__[DIAGNOSIS_ATTRIBUTE] = diagnosis
        return report

    def pytest_exception_interact(
        self,
        node: pytest.Item | pytest.Collector,
        call: pytest.CallInfo[object],
        report: pytest.CollectReport | pytest.TestReport,
    ) -> None:
        if not isinstance(report, pytest.CollectReport) or call.excinfo is None:
            return
        exc = call.excinfo.value
        if isinstance(exc, pytest.Collector.CollectError) and exc.__cause__ is not None:
            exc = exc.__cause__  # pytest wraps the import's own error
        diagnosis = self._diagnose(exc)
        if diagnosis is not None:
            report.__dict__[DIAGNOSIS_ATTRIBUTE] = diagnosis


def interrupted_message(applied: list[tuple[str, list[str]]], folder: str) -> str:
    """What an interrupted run says it left: the repair it was trying is undone, but the
    repairs it had kept in apply mode (``applied``: each failure's id and files) stay in the
    tree, each with its diff written in ``folder``."""
    if not applied:
        return "auto-debug was interrupted; every file it tried a repair on was restored"
    return (
        "auto-debug was interrupted; the repair it was trying was undone, but the repairs it "
        f"had kept stay applied: {_listed(applied)}; their diffs are in {folder}"
    )


def failed_message(error: str, applied: list[tuple[str, list[str]]], folder: str) -> str:
    """What a run that failed with ``error`` says it left: the repairs it had kept in apply
    mode (``applied``) stay in the tree, each with its diff written in ``folder``."""
    if not applied:
        return f"auto-debug failed: {error}"
    return (
        f"auto-debug failed: {error}; the repairs it had kept stay applied: "
        f"{_listed(applied)}; their diffs are in {folder}"
    )


def _listed(applied: list[tuple[str, list[str]]]) -> str:
    """Each failure's id with the files its repair changed."""
    return "; ".join(f"{entry_id} ({', '.join(files)})" for entry_id, files in applied)


class AutodebugController:
    """Gathers diagnoses in the writing process and runs the engine at the session's end."""

    def __init__(
        self,
        config: pytest.Config,
        recorder: Recorder,
        settings: AutodebugSettings,
        patterns: list[Pattern],
        mode: str,
    ) -> None:
        self._config = config
        self._recorder = recorder
        self._settings = settings
        self._patterns = patterns
        self._mode = mode
        self._failed: list[FailedTest] = []
        self._test_files: set[str] = set()
        self._rootpath = config.rootpath
        self.report: AutodebugReport | None = None
        self.report_path: str | None = None
        self.errors: list[str] = []
        self.notices: list[str] = []
        self.baseline_notes: list[str] = []
        self._engine_run: Engine | None = None

    def recover(self) -> None:
        """Put back files a crashed earlier run left with a candidate in them."""
        from phasegate.autodebug.workspace import recover
        from phasegate.errors import PhasegateError

        try:
            self.notices = recover(
                self._recorder.store.path(AUTODEBUG_JOURNAL_FILE),
                self._recorder.loaded_config.project_root,
            )
        except PhasegateError as exc:
            raise pytest.UsageError(f"phasegate: {exc}") from exc

    # -- during the run ---------------------------------------------------------------------

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._test_files.add(report.location[0])
        data = report.__dict__.get(DIAGNOSIS_ATTRIBUTE)
        if data is not None and report.failed:
            self._add(report.nodeid, data)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        data = report.__dict__.get(DIAGNOSIS_ATTRIBUTE)
        if data is not None and report.failed:
            self._add(report.nodeid or ".", data)

    def _add(self, nodeid: str, data: DiagnosisDocument) -> None:
        from phasegate.autodebug.diagnosis import Diagnosis
        from phasegate.autodebug.engine import FailedTest

        if all(test.nodeid != nodeid for test in self._failed):
            self._failed.append(FailedTest(nodeid, Diagnosis.from_dict(data)))

    # -- at the end -------------------------------------------------------------------------

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from phasegate.errors import PhasegateError

        try:
            self.report = self._run()
            path = self._recorder.store.write_model(AUTODEBUG_REPORT_FILE, self.report)
            self.report_path = display_path(path, self._config)
        except KeyboardInterrupt:
            # Ctrl-C (or SIGTERM) while a candidate was tried: the workspace has put the
            # files of that one back on its way out. One line and pytest's exit status 2.
            self.errors.append(interrupted_message(*self._left_applied()))
            session.exitstatus = pytest.ExitCode.INTERRUPTED
            return
        except PhasegateError as exc:
            self.errors.append(str(exc))
        except Exception as exc:  # noqa: BLE001 - a bug here must not lose the run report
            self.errors.append(
                failed_message(f"{type(exc).__name__}: {exc}", *self._left_applied())
            )
        if self.errors and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR

    def _run(self) -> AutodebugReport:
        project = self._project()
        document = self._recorder.outcome.document
        baseline = _baseline_of(document)
        reasons = "; ".join(document["incomplete_reasons"]) if document is not None else ""
        runner = self._runner(document)
        if self._failed and document is not None and document["incomplete"]:
            # Taken only when a re-run shows a failure: a clean re-run needs no "before".
            baseline.pending = functools.partial(self._fresh_baseline, runner, baseline, reasons)
            baseline.partial = True
        engine = self._engine(project, runner, baseline)
        self._engine_run = engine
        self._clear_old_diffs()
        if self._failed:
            self._progress(f"working on {len(self._failed)} failure(s)", always=True)
        report = engine.run(self._failed, run_id=document["run_id"] if document else None)
        if baseline.pending is not None and report.counts.candidates_tried:
            self.baseline_notes.append(
                f"the run was incomplete ({reasons}); every re-run was clean (all its tests "
                "passed), so no fresh baseline was needed"
            )
        report.warnings[:0] = self.baseline_notes
        return report

    def _engine(self, project: Project, runner: TestRunner, baseline: Baseline) -> Engine:
        from phasegate.autodebug.engine import Engine
        from phasegate.autodebug.workspace import Workspace

        store = self._recorder.store
        serial = ["-n", "0"] if self._config.pluginmanager.hasplugin("xdist") else []
        return Engine(
            project=project,
            patterns=self._patterns,
            runner=runner,
            workspace=Workspace(project, store.path(AUTODEBUG_JOURNAL_FILE)),
            settings=self._settings,
            mode="apply" if self._mode == "apply" else "suggest",
            baseline=baseline,
            write=store.write_text,
            remove=lambda relpath: store.path(relpath).unlink(missing_ok=True),
            progress=self._progress,
            localize_args=serial,
        )

    def _project(self) -> Project:
        """The project auto-debug repairs, knowing the test files this run ran as tests."""
        from phasegate.autodebug.project import Project, TestFiles

        tests = TestFiles(self._settings.test_files)
        root = self._recorder.loaded_config.project_root
        project = Project(root, tests, index_backend=self._settings.index)
        for location in self._test_files:
            relpath = project.relpath(self._rootpath / location)
            if relpath is not None:
                tests.add(relpath)
        return project

    def _runner(self, document: RunDocument | None) -> TestRunner:
        """What re-runs the tests: this run's arguments and the selection options it had, each
        re-run stopped within ``timeout_s`` or, unset, a bound of this run's own time (see
        ``rerun_limit``)."""
        from phasegate.autodebug.runner import TestRunner

        option = self._config.option
        # Collection errors must not hide the other tests' outcomes from a re-run.
        common = [f"--rootdir={self._rootpath}", "--continue-on-collection-errors"]
        if getattr(option, "keyword", ""):
            common += ["-k", option.keyword]
        if getattr(option, "markexpr", ""):
            common += ["-m", option.markexpr]
        for plugin in getattr(option, "plugins", None) or []:
            common += ["-p", plugin]
        limit = _rerun_limit(self._settings.timeout_s, document)
        return TestRunner(
            cwd=self._config.invocation_params.dir,
            base_args=list(self._config.args),
            scratch=self._recorder.store.path("autodebug/runs"),
            timeout_s=limit.seconds,
            common_args=common,
            timeout_source=limit.source,
        )

    def _fresh_baseline(self, runner: TestRunner, baseline: Baseline, reasons: str) -> None:
        """A complete "before" when the run being debugged stopped early (see
        ``fresh_baseline``)."""
        from phasegate.autodebug.validate import fresh_baseline

        self._progress("the run is incomplete: running the suite once for a baseline")
        note = fresh_baseline(runner, baseline, self._settings.timeout_s, reasons)
        self.baseline_notes.append(note)

    def _left_applied(self) -> tuple[list[tuple[str, list[str]]], str]:
        """The repairs a run that stopped early left in the tree, and the folder of their
        diffs (for :func:`interrupted_message` and :func:`failed_message`)."""
        applied = self._engine_run.applied() if self._engine_run is not None else []
        return applied, display_path(self._recorder.store.path("autodebug"), self._config)

    def _clear_old_diffs(self) -> None:
        folder = self._recorder.store.path("autodebug")
        for old in folder.glob("[0-9][0-9]*-*.diff") if folder.is_dir() else []:
            old.unlink()

    def _progress(self, message: str, *, always: bool = False) -> None:
        verbosity = self._config.get_verbosity()
        if verbosity < 0 or not (always or verbosity > 0):
            return
        writer = self._config.pluginmanager.get_plugin("terminalreporter")
        if writer is not None:
            writer.write_line(f"phasegate autodebug: {message}")

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        from phasegate.report.autodebug import autodebug_lines

        verbosity = self._config.get_verbosity()
        lines = autodebug_lines(
            self.report, self.report_path, self.errors, self.notices, verbosity=verbosity
        )
        if not lines:
            return
        if verbosity >= 0:
            terminalreporter.write_sep("=", "phasegate autodebug")
        for text, markup in lines:
            terminalreporter.write_line(text, **markup)


def _rerun_limit(configured_s: float | None, document: RunDocument | None) -> RerunLimit:
    """The limit of one re-run: ``timeout_s`` as set, or a bound of the own time of the
    tests of the run being debugged."""
    from phasegate.autodebug.runner import full_limit, rerun_limit

    if document is None:
        return full_limit(configured_s)
    tests = [(test["outcome"], test["duration_s"]) for test in document["tests"]]
    return rerun_limit(configured_s, tests, document["counts"]["collected"])


def _baseline_of(document: RunDocument | None) -> Baseline:
    """The outcome of each test of the run being debugged, and its failed collectors."""
    from phasegate.autodebug.validate import Baseline

    if document is None:
        return Baseline()
    return Baseline(
        {test["nodeid"]: test["outcome"] for test in document["tests"]},
        {error["nodeid"] for error in document["collection_errors"]},
    )
