"""The operations on cycles that the pytest plugin and the ``phasegate tdd`` command share.

:class:`TddProject` ties a project's root, its ``[tool.phasegate.tdd]`` settings and its
artifacts store to the ledger, the snapshots and the session log. Everything that writes the
ledger holds the store's ``tdd`` lock from reading the state to saving it, so two processes
never judge against the same past.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TypedDict

from pydantic import TypeAdapter

from phasegate import clock
from phasegate.documents import RunDocument, TestRecordDocument
from phasegate.errors import UsageError
from phasegate.model.tdd import (
    FINISHED_STATUSES,
    AcceptEntry,
    FailureClass,
    FileHashes,
    LedgerGit,
    LedgerTest,
    Observation,
    RequestedPhase,
    ReviewEntry,
    ReviewStatus,
    RollbackEntry,
    RunEntry,
    TddState,
    Violation,
)
from phasegate.store import Store
from phasegate.tdd.classify import Classifier
from phasegate.tdd.config import TddConfig
from phasegate.tdd.ledger import Ledger
from phasegate.tdd.rollback import RollbackPlan, apply_rollback, plan_rollback
from phasegate.tdd.rules import RunFacts, Workspace, expected_failures, judge
from phasegate.tdd.session_log import SessionLog, confirm
from phasegate.tdd.snapshot import FileChangedError, ObjectStore, snapshot_files
from phasegate.tdd.state import apply, load_state, save_state
from phasegate.tdd.tree import TreeLayout, hash_tree
from phasegate.tdd.worktree import NOT_IN_GIT, record_work_tree

__all__ = ["CYCLE_NAME", "RunResult", "TddProject", "check_cycle_name", "utc_now"]

#: What a cycle may be called: it appears in commands, file names and log lines.
CYCLE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_LOCK = "tdd"
_TESTS = TypeAdapter(list[LedgerTest])


def utc_now() -> datetime:
    """The current time, in UTC."""
    return clock.utc_now()


def check_cycle_name(name: str, *, flag: str = "--tdd-cycle") -> str:
    """``name`` if it is a valid cycle name, else a usage error saying what is allowed."""
    if not CYCLE_NAME.match(name):
        raise UsageError(
            f"{flag} {name!r} is not a valid cycle name: use 1 to 64 letters, digits, '.', "
            "'_' or '-', starting with a letter or digit"
        )
    return name


@dataclass
class RunResult:
    """A judged run: the ledger entry, the state after it, and the failures it expected."""

    entry: RunEntry
    state: TddState
    expected_failures: set[str] = field(default_factory=set)
    snapshot_files: int = 0


@dataclass
class TddProject:
    """One project's TDD ledger, snapshots, session log and settings."""

    root: Path
    config: TddConfig
    store: Store
    ledger: Ledger = field(init=False)
    objects: ObjectStore = field(init=False)
    log: SessionLog = field(init=False)
    layout: TreeLayout = field(init=False)

    def __post_init__(self) -> None:
        self.ledger = Ledger(self.store)
        self.objects = ObjectStore(self.store)
        self.log = SessionLog(self.store)
        self.layout = TreeLayout.from_config(self.root, self.config, excluded=[self.store.root])

    # -- reading -----------------------------------------------------------------------------

    def hash_tree(self) -> FileHashes:
        """The hash of every test and source file now."""
        return hash_tree(self.layout)

    def state(self, *, rebuild: bool = False) -> TddState:
        """The state of the ledger (rebuilt from it, and the cache rewritten, if asked)."""
        with self.store.lock(_LOCK):
            state = load_state(self.ledger, rebuild=rebuild)
            if rebuild or self._cache_is_stale(state):
                save_state(self.ledger, state)
        return state

    def classifier(
        self, nodeid_path: Callable[[str], str], files: FileHashes | None = None
    ) -> Classifier:
        """A classifier of this project's failures (``files``: the source, when known)."""

        def source_paths() -> list[str]:
            return sorted((files or self.hash_tree()).source)

        return Classifier(self.root, self.config, source_paths, nodeid_path)

    # -- a judged run ------------------------------------------------------------------------

    def record_run(self, facts: RunFacts) -> RunResult:
        """Judge a run, append it to the ledger, and keep a snapshot at a green state."""
        with self.store.lock(_LOCK):
            state = load_state(self.ledger)
            entry = judge(facts, state, self.config, Workspace(self.root, self.objects))
            tree = record_work_tree(self.root, facts.run_id)
            entry.tree = tree.tree
            if tree.problem and tree.problem != NOT_IN_GIT:
                entry.notes.append(f"the work tree was not kept for tdd verify: {tree.problem}")
            written = 0
            if entry.verdict == "passed" and entry.phase != "red":
                written = self._snapshot(facts.files, state, entry)
            self._append(state, entry)
        return RunResult(entry, state, expected_failures(entry, state), written)

    def _snapshot(self, files: FileHashes, state: TddState, entry: RunEntry) -> int:
        """Keep the files of a green state that are not kept yet; how many were written.

        A file that changed while the run read it fails the run (``changed-during-run``).
        """
        kept = _kept_hashes(state)
        new = {
            path: sha for path, sha in {**files.source, **files.tests}.items() if sha not in kept
        }
        try:
            return snapshot_files(self.root, self.objects, new)
        except FileChangedError as exc:
            entry.verdict = "failed"
            entry.status = []
            entry.violations.append(
                Violation(rule="changed-during-run", message=str(exc), paths=[exc.file])
            )
            return 0

    # -- what people record ------------------------------------------------------------------

    def review(
        self, cycle: str, status: ReviewStatus, reviewer: str, note: str = ""
    ) -> tuple[ReviewEntry, TddState]:
        """Record a cross-review of a green cycle."""
        if not reviewer.strip():
            raise UsageError("--reviewer must name who reviewed (it may not be empty)")
        with self.store.lock(_LOCK):
            state = load_state(self.ledger)
            known = state.cycles.get(cycle)
            if known is None:
                names = ", ".join(state.cycles) or "none yet"
                raise UsageError(f"no cycle named {cycle!r} in the ledger (cycles: {names})")
            if known.status not in FINISHED_STATUSES:
                raise UsageError(
                    f"cycle {cycle} is {known.status}: a cycle is reviewed once it is green "
                    "(and before it closes)"
                )
            entry = ReviewEntry(
                time=utc_now(),
                cycle=cycle,
                status=status,
                reviewer=reviewer.strip(),
                note=note,
                round=known.round,
            )
            self._append(state, entry)
        return entry, state

    def accept(self, tests: Iterable[str], reason: str, by: str) -> tuple[AcceptEntry, TddState]:
        """Accept tests without a red (a renamed or characterization test), with the reason."""
        listed = _acceptable(tests, reason, by)
        with self.store.lock(_LOCK):
            state = load_state(self.ledger)
            entry = AcceptEntry(time=utc_now(), tests=listed, reason=reason.strip(), by=by.strip())
            self._append(state, entry)
        return entry, state

    def plan_rollback(self) -> RollbackPlan:
        """What a rollback would do now (nothing is written)."""
        with self.store.lock(_LOCK):
            state = load_state(self.ledger)
            return plan_rollback(state, self.hash_tree(), self.objects, self.root)

    def rollback(self) -> tuple[RollbackEntry, TddState]:
        """Restore the last green state after a failed refactor, and record it."""
        with self.store.lock(_LOCK):
            state = load_state(self.ledger)
            plan = plan_rollback(state, self.hash_tree(), self.objects, self.root)
            entry = apply_rollback(self.root, self.objects, plan, utc_now())
            self._append(state, entry)
        return entry, state

    def session_log(self, session: str | None = None) -> list[Observation]:
        """The session log (of one cycle): the ledger's runs and reviews, and actors' notes."""
        with self.store.lock(_LOCK):
            entries, _read = self.ledger.read_all()
        return self.log.read(entries, session)

    def note(
        self, session: str, actor: str, status: str, content: str, round_: int | None = None
    ) -> Observation:
        """Add an actor's observation to the session log."""
        if not actor.strip():
            raise UsageError("--actor must name who observed (it may not be empty)")
        if session != "-":
            check_cycle_name(session, flag="CYCLE")
        with self.store.lock(_LOCK):
            entries, _read = self.ledger.read_all()
            state = load_state(self.ledger)
        confirmed = confirm(status, session, entries)
        cycle = state.cycles.get(session)
        observation = Observation(
            time=utc_now(),
            session=session,
            round=round_ if round_ is not None else (cycle.round if cycle else 0),
            actor=actor.strip(),
            status=status,
            content=content,
            confirmed=confirmed,
        )
        self.log.add(observation)
        return observation

    # -- internals ---------------------------------------------------------------------------

    def _append(
        self, state: TddState, entry: RunEntry | ReviewEntry | AcceptEntry | RollbackEntry
    ) -> None:
        self.ledger.append(entry)
        apply(state, entry)
        covered = state.ledger.entries + 1 if state.ledger is not None else 1
        state.ledger = self.ledger.mark(covered)
        save_state(self.ledger, state)

    def _cache_is_stale(self, state: TddState) -> bool:
        cached = self.store.path("tdd/state.json")
        if not cached.is_file():
            return True
        return state.ledger is None or state.ledger != self.ledger.mark(state.ledger.entries)


def _kept_hashes(state: TddState) -> set[str]:
    """Content a snapshot holds already: every file of the last green state."""
    green = state.green
    if green is None:
        return set()
    return {*green.files.source.values(), *green.files.tests.values()}


def _acceptable(tests: Iterable[str], reason: str, by: str) -> list[str]:
    """The node ids of an acceptance, once it names them, why and by whom."""
    listed = [test for test in tests if test.strip()]
    if not listed:
        raise UsageError("name at least one test node id to accept")
    if not reason.strip():
        raise UsageError("--reason must say why these tests need no red (it may not be empty)")
    if not by.strip():
        raise UsageError("--by must name who accepts them (it may not be empty)")
    for nodeid in listed:
        if "::" not in nodeid:
            raise UsageError(f"{nodeid!r} is not a test node id (path/to/test_file.py::test_name)")
    return listed


class _PassedRow(TypedDict):
    """A test of the run as the plain dict ``_TESTS`` validates into a ``LedgerTest``."""

    nodeid: str
    outcome: str


class _TestRow(_PassedRow, total=False):
    """A test that did not pass, with its classification."""

    failure_class: FailureClass | None
    right_reason: bool | None
    detail: str | None


def facts_from_report(
    report: RunDocument,
    *,
    requested: RequestedPhase,
    files: FileHashes,
    classifier: Classifier,
    nodeid_path: Callable[[str], str],
    cycle: str | None = None,
    actor: str | None = None,
    interrupted: bool = False,
) -> RunFacts:
    """The facts of a run from its run report document.

    This runs once per test of the run, so the tests are validated in one call of a pydantic
    ``TypeAdapter`` (its loop runs in pydantic-core), and a passing test, the common case, is
    not classified at all.
    """
    rows = [_test_row(record, classifier) for record in report.get("tests", [])]
    tests = {test.nodeid: test for test in _TESTS.validate_python(rows)}
    git = report.get("git")
    started = report.get("started_at")
    time = datetime.fromisoformat(started.replace("Z", "+00:00")) if started else utc_now()
    return RunFacts(
        run_id=str(report["run_id"]),
        time=time,
        requested=requested,
        command=["pytest", *report.get("invocation", {}).get("args", [])],
        files=files,
        tests=tests,
        collection_errors=[
            classifier.collection_error(e) for e in report.get("collection_errors", [])
        ],
        cycle=cycle,
        actor=actor,
        git=LedgerGit.model_validate(git) if git else None,
        interrupted=interrupted,
        nodeid_path=nodeid_path,
    )


def _test_row(record: TestRecordDocument, classifier: Classifier) -> _TestRow:
    """One test of the run as a ledger row; a passing test is not classified."""
    if record["outcome"] == "passed":
        return {"nodeid": record["nodeid"], "outcome": "passed"}
    judged = classifier.test(record)
    return {
        "nodeid": record["nodeid"],
        "outcome": record["outcome"],
        "failure_class": judged.failure_class,
        "right_reason": judged.right_reason,
        "detail": judged.detail,
    }
