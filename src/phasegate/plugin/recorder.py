"""The controller's side of ``pytest --gate``: collect every report, then write the run report.

Registered only when ``--gate`` is given, and only in the process that writes artifacts (a
serial run, or the pytest-xdist controller). During the run it keeps references to the
reports pytest hands it and nothing more, so the cost per test is one list append; the work
happens once, at the end of the session, and builds plain JSON-ready data (see
:mod:`phasegate.recording` for why).

The end of the session is a hook wrapper: the report is assembled *before* the other
``pytest_sessionfinish`` implementations run, so phasegate's features (the gate, TDD,
auto-debug) read it from :attr:`Recorder.outcome`, and it is written *after* them, with the
exit status they settled on.
"""

from __future__ import annotations

import secrets
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

import pluggy
import pytest

from phasegate import clock
from phasegate.collector_pause import collections_paused
from phasegate.config import LoadedConfig
from phasegate.documents import CollectionErrorDocument, CollectionSkipDocument, RunDocument
from phasegate.environment import GitQuery, describe_environment
from phasegate.errors import PhasegateError
from phasegate.plugin.annotator import WORKER_OUTPUT_KEY
from phasegate.plugin.convert import PHASES, collection_error, collection_skip, rows_from_reports
from phasegate.plugin.display import display_path
from phasegate.recording import RecordedTests, check_completeness, count, encode_report
from phasegate.store import RUN_REPORT_FILE, Store
from phasegate.versioning import SCHEMA_VERSION

__all__ = ["REPORT_MODEL", "Recorder", "RunOutcome"]

#: The model the run report must validate as before it is replaced, imported only if needed.
REPORT_MODEL = "phasegate.model.run:RunReport"


@dataclass
class RunOutcome:
    """What the end of the session produced, for phasegate's features and the terminal.

    :attr:`document` is the one way to read the run: the run report as it will be written.
    Its ``tests`` build their records when one is first read
    (:class:`~phasegate.recording.RecordedTests`), so a run nobody reads the records of never
    builds them; a feature that needs the pydantic model validates the document itself
    (``RunReport.model_validate``) and pays for it.
    """

    report_path: str | None = None
    errors: list[str] = field(default_factory=list)
    #: The run report; ``None`` until the session ends, or when it could not be assembled.
    document: RunDocument | None = None


class Recorder:
    """Collects the run's reports and writes ``report.json`` at the end of the session."""

    def __init__(
        self,
        config: pytest.Config,
        loaded: LoadedConfig,
        store: Store,
        extensions: pluggy.PluginManager,
    ) -> None:
        self._config = config
        self._loaded = loaded
        self._store = store
        self._extensions = extensions
        self._started = clock.utc_now()
        self._started_monotonic = clock.monotonic()
        self._run_id = f"{self._started:%Y%m%dT%H%M%SZ}-{secrets.token_hex(4)}"
        # git answers while the tests run; its answer is read at the end.
        self._git = GitQuery(config.rootpath)
        config.add_cleanup(self._git.close)  # a run that ended early never read it
        self._reports: list[pytest.TestReport] = []
        self._items: list[pytest.Item] = []
        self._collection_errors: dict[str, CollectionErrorDocument] = {}
        self._collection_skips: dict[str, CollectionSkipDocument] = {}
        self._collected_ids: list[str] | None = None
        self._deselected = 0
        self._worker_nodes: set[str] = set()
        #: Why the run cannot be complete though every test has a record (a worker died).
        self._lost: list[str] = []
        self.outcome = RunOutcome()

    @property
    def store(self) -> Store:
        """The artifacts store of this run."""
        return self._store

    @property
    def extensions(self) -> pluggy.PluginManager:
        """phasegate's plugin manager for this run (third-party checks, observers)."""
        return self._extensions

    @property
    def loaded_config(self) -> LoadedConfig:
        """The configuration in force for this run."""
        return self._loaded

    # -- during the run --------------------------------------------------------------------

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._git.reap()  # git has usually ended by now: no zombie while the tests run
        self._items = list(session.items)
        self._collected_ids = [item.nodeid for item in self._items]

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self._deselected += len(items)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and report.nodeid not in self._collection_errors:
            limit = self._loaded.value_of("max_traceback_chars", int)
            error = collection_error(report, self._config.rootpath, limit)
            self._collection_errors[report.nodeid] = error
        elif report.skipped and report.nodeid not in self._collection_skips:
            skip = collection_skip(report, self._config.rootpath)
            self._collection_skips[report.nodeid] = skip

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._reports.append(report)
        if report.when not in PHASES:  # pytest-xdist: the worker running it died
            self._lost.append(
                f"a pytest-xdist worker crashed while running {report.nodeid}; its result is "
                "the crash, not the test's own"
            )

    @pytest.hookimpl(optionalhook=True)
    # ``node`` is pytest-xdist's WorkerController, which xdist does not export as a type.
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self._git.reap()  # the controller collects nothing itself: reap git here instead
        self._worker_nodes.add(str(node.gateway.id))
        if self._collected_ids is None:
            self._collected_ids = list(ids)

    @pytest.hookimpl(optionalhook=True)
    # ``node`` is pytest-xdist's WorkerController, which xdist does not export as a type.
    def pytest_testnodedown(self, node: Any, error: object | None) -> None:
        output = getattr(node, "workeroutput", None) or {}
        data = output.get(WORKER_OUTPUT_KEY) or {}
        # Every worker collects (and deselects) the whole suite: the count is the same on each.
        self._deselected = max(self._deselected, int(data.get("deselected", 0)))
        if error is not None:
            self._lost.append(f"pytest-xdist worker {node.gateway.id} went down: {error}")

    # -- at the end ------------------------------------------------------------------------

    # trylast: the innermost wrapper, so the report is written before the terminal reporter's
    # own wrapper prints the summary, and after every plain implementation (the features).
    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> Generator[None, None, None]:
        with clock.real_datetime_classes():  # a freeze a test leaked must not reach here
            try:
                with collections_paused():
                    self.outcome.document = self._build_report(session)
            except PhasegateError as exc:
                self.outcome.errors.append(str(exc))
            try:
                return (yield)
            finally:
                self._write(session)

    def _write(self, session: pytest.Session) -> None:
        data = self.outcome.document
        if data is None:
            return
        data["exit_status"] = int(session.exitstatus)
        data["finished_at"] = _timestamp(clock.utc_now())
        try:
            if self._extensions.hook.phasegate_report_ready.get_hookimpls():
                from phasegate.model.run import RunReport  # only a run with such a plugin pays

                report = RunReport.model_validate(data)
                self._extensions.hook.phasegate_report_ready(report=report)
            data["warnings"] = list(self._store.notices)
            self._store.vet(RUN_REPORT_FILE, REPORT_MODEL)
            with collections_paused():
                text = encode_report(data)
            path = self._store.write_text(RUN_REPORT_FILE, text, keep_digest=True)
            self.outcome.report_path = display_path(path, self._config)
        except PhasegateError as exc:
            self.outcome.errors.append(str(exc))
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.INTERNAL_ERROR

    def _build_report(self, session: pytest.Session) -> RunDocument:
        limit = self._loaded.value_of("max_traceback_chars", int)
        root = self._config.rootpath
        markers = _marker_names(self._items) if self._items and not self._worker_nodes else None
        records = rows_from_reports(self._reports, root, limit, markers)
        errors = list(self._collection_errors.values())
        collected = len(self._collected_ids) if self._collected_ids is not None else 0
        reasons = check_completeness(
            self._collected_ids,
            records,
            collection_errors=errors,
            interrupted=_interruption(session),
            pytest_failures=int(session.testsfailed),
        ) + list(dict.fromkeys(self._lost))
        finished = clock.utc_now()
        params = self._config.invocation_params
        git = self._git.result()
        environment = describe_environment(pytest.__version__, _plugin_versions(self._config))
        return {
            "schema_version": SCHEMA_VERSION,
            "kind": "run-report",
            "run_id": self._run_id,
            "started_at": _timestamp(self._started),
            "finished_at": _timestamp(finished),
            "duration_s": clock.monotonic() - self._started_monotonic,
            "environment": environment,
            "git": git,
            "invocation": {
                "args": list(params.args),
                "invocation_dir": str(params.dir),
                "rootdir": str(root),
                "workers": len(self._worker_nodes),
            },
            "exit_status": int(session.exitstatus),
            "counts": count(
                records,
                collected=collected,
                deselected=self._deselected,
                collection_errors=len(errors),
                skipped_at_collection=len(self._collection_skips),
            ),
            "incomplete": bool(reasons),
            "incomplete_reasons": reasons,
            "tests": RecordedTests(records),
            "collection_errors": errors,
            "collection_skips": list(self._collection_skips.values()),
            "warnings": [],
            "shard": None,  # set by the shard feature (phasegate.plugin.shard)
            "merged": None,
        }


class _MarkedNode(Protocol):
    """What :func:`_marker_names` reads of a pytest node, whose base class pytest does not
    export: its own markers and its parent."""

    @property
    def own_markers(self) -> list[pytest.Mark]: ...

    @property
    def parent(self) -> _MarkedNode | None: ...


def _marker_names(items: list[pytest.Item]) -> dict[str, Sequence[str]]:
    """The names of the markers on each item and its parents, as ``iter_markers`` sees them.

    A parent's markers are gathered once for all of its items, and an item with no marker of
    its own (most items) shares its parent's sorted names: several times cheaper than calling
    ``iter_markers`` per item on large suites.
    """
    inherited: dict[int, frozenset[str]] = {}
    shared: dict[int, tuple[str, ...]] = {}

    def chain(node: _MarkedNode | None) -> frozenset[str]:
        if node is None:
            return frozenset()
        known = inherited.get(id(node))
        if known is None:
            own = frozenset(mark.name for mark in node.own_markers)
            known = inherited[id(node)] = own | chain(node.parent)
        return known

    names: dict[str, Sequence[str]] = {}
    for item in items:
        parent = item.parent
        if item.own_markers:
            own = {mark.name for mark in item.own_markers}
            names[item.nodeid] = tuple(sorted(own.union(chain(parent))))
        else:
            sorted_names = shared.get(id(parent))
            if sorted_names is None:
                sorted_names = shared[id(parent)] = tuple(sorted(chain(parent)))
            names[item.nodeid] = sorted_names
    return names


def _timestamp(moment: datetime) -> str:
    """ISO 8601 in UTC with a ``Z``, as pydantic writes datetimes."""
    return moment.isoformat().replace("+00:00", "Z")


def _interruption(session: pytest.Session) -> str | None:
    if session.exitstatus == pytest.ExitCode.INTERRUPTED:
        return "the run was interrupted (exit status 2)"
    if session.shouldfail:
        return f"the run stopped early: {session.shouldfail}"
    if session.shouldstop:
        return f"the run stopped early: {session.shouldstop}"
    return None


def _plugin_versions(config: pytest.Config) -> dict[str, str]:
    versions: dict[str, str] = {}
    for _plugin, dist in config.pluginmanager.list_plugin_distinfo():
        # Parsed once: each read of ``metadata`` (and ``version``) parses the file again.
        metadata = dist.metadata
        versions[metadata["Name"]] = metadata["Version"]
    return versions
