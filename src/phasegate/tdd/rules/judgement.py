"""The judgement of one run: what the rules share (the facts, the state, the violations).

Each phase's rules are functions of a :class:`Judgement` in their own module
(:mod:`.red`, :mod:`.green`, :mod:`.refactor`, :mod:`.phase0`, and :mod:`.auto` for the
inference); the checks several phases make are methods here.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from phasegate.model.outcome import Outcome
from phasegate.model.tdd import (
    ComplexityFigures,
    CycleState,
    FailureClass,
    FileHashes,
    LedgerCollectionError,
    LedgerGit,
    LedgerTest,
    RequestedPhase,
    StatusCode,
    TddState,
    Violation,
)
from phasegate.tdd.complexity import ComplexityMeter
from phasegate.tdd.config import TddConfig
from phasegate.tdd.snapshot import ObjectStore
from phasegate.tdd.tree import changes, hash_bytes

__all__ = [
    "FAILING",
    "INTEGRITY_RULES",
    "PHASE_NAMES",
    "TEST_ISSUE_CLASSES",
    "TEST_ISSUE_RULES",
    "Judgement",
    "RunFacts",
    "Workspace",
    "class_name",
    "count",
    "details",
    "listed",
]

#: Rules whose breach is an attempt on the proof itself, not a step not yet done.
INTEGRITY_RULES = frozenset(
    {
        "red-changed-source",
        "green-changed-tests",
        "never-red",
        "refactor-fewer-assertions",
        "phase0-changed-tests",
        "phase0-not-interface",
    }
)
#: Rules whose breach lies in the tests: the verdict carries the status code TI.
TEST_ISSUE_RULES = frozenset(
    {"red-wrong-reason", "collection-error", "green-changed-tests", "green-test-error"}
)
#: A test that did not pass: what "fails" means in the rules.
FAILING = (Outcome.FAILED, Outcome.ERROR)
#: Failure classes of a cycle test at green that lie in the test itself (status TI).
TEST_ISSUE_CLASSES = frozenset(
    {
        FailureClass.FIXTURE_ERROR,
        FailureClass.TEARDOWN_ERROR,
        FailureClass.SYNTAX_ERROR,
        FailureClass.SKIPPED,
        FailureClass.XFAILED,
        FailureClass.XPASSED,
    }
)
#: How many tests or files a message names before "and N more".
SHOWN = 5


@dataclass
class RunFacts:
    """What one pytest run showed, in the engine's terms."""

    run_id: str
    time: datetime
    requested: RequestedPhase
    command: list[str]
    files: FileHashes
    tests: dict[str, LedgerTest]
    collection_errors: list[LedgerCollectionError] = field(default_factory=list)
    cycle: str | None = None
    actor: str | None = None
    git: LedgerGit | None = None
    interrupted: bool = False
    #: the file of a node id, relative to the project root
    nodeid_path: Callable[[str], str] = lambda nodeid: nodeid.split("::", 1)[0]


@dataclass
class Workspace:
    """File content now (in the project) and at earlier states (in the object store)."""

    root: Path
    objects: ObjectStore
    meter: ComplexityMeter = field(default_factory=ComplexityMeter)

    def now(self, path: str) -> bytes | None:
        """The file's content now, or ``None`` if it does not exist."""
        try:
            return (self.root / path).read_bytes()
        except FileNotFoundError:
            return None

    def read(self, path: str, sha: str) -> bytes:
        """The content with hash ``sha``: the file if it still has it, else the snapshot."""
        data = self.now(path)
        if data is not None and hash_bytes(data) == sha:
            return data
        return self.objects.get(sha)


class Judgement:
    """One judgement in progress: the checks add violations and notes."""

    def __init__(
        self, facts: RunFacts, state: TddState, config: TddConfig, workspace: Workspace
    ) -> None:
        self.facts = facts
        self.state = state
        self.config = config
        self.workspace = workspace
        self.violations: list[Violation] = []
        self.notes: list[str] = []
        self.status: list[StatusCode] = []
        self.cycles: list[str] = []
        self.cycle_tests: list[str] = []
        self.closes: list[str] = []
        self.starting_point = False
        self.complexity: dict[str, ComplexityFigures] = {}
        green = state.green
        self.green_passed: set[str] = set(green.passed) if green else set()
        self.green_present = self.green_passed | (set(green.others) if green else set())
        # One pass over the run's tests; the checks then work on sets (a run may hold 10^4).
        self.passed_now: set[str] = set()
        #: the tests that did not pass, in the run's order
        self.not_passed: list[str] = []
        passed = Outcome.PASSED  # looked up once: enum members are descriptors
        for nodeid, test in facts.tests.items():
            if test.outcome is passed:
                self.passed_now.add(nodeid)
            else:
                self.not_passed.append(nodeid)

    def must_still_pass(self, expected: Collection[str], rule: str) -> None:
        tests = self.facts.tests
        broken = sorted(n for n in self.not_passed if n in expected)
        if broken:
            self.violate(
                rule,
                f"{count(broken, 'test')} that passed at the last green state "
                f"{'fails' if len(broken) == 1 else 'fail'} now: {details(broken, tests)}",
                tests=broken,
            )
        self.not_run(
            sorted(set(expected).difference(tests)),
            "tests that passed at the last green state",
        )

    def not_run(self, missing: list[str], what: str) -> None:
        if missing:
            self.violate(
                "not-run",
                f"{count(missing, 'test')} of the {what} did not run: {listed(missing)}. Run "
                "the whole suite for this phase (no -k, -m or paths that leave them out)",
                tests=missing,
            )

    def tests_unchanged(self, rule: str, why: str) -> None:
        accepted = self.state.accepted
        if accepted is None:
            return
        changed = changes(accepted.files.tests, self.facts.files.tests)
        if changed:
            self.violate(
                rule,
                f"test files changed since the last accepted state (run {accepted.run_id}): "
                f"{listed(changed)}. {why}: tests may not be weakened or rewritten to pass; "
                "undo the test changes (git checkout -- FILE, or git stash) and change the "
                "source instead",
                paths=[change.path for change in changed],
            )

    def never_red(self) -> None:
        if self.state.green is None:
            return
        unseen = self.passed_now - self.green_present
        unseen = unseen.difference(self.state.seen_red, self.state.accepted_tests)
        fresh = [nodeid for nodeid in self.facts.tests if nodeid in unseen] if unseen else []
        if fresh:
            self.violate(
                "never-red",
                f"{count(fresh, 'new test')} passed without ever having been seen red: "
                f"{listed(fresh)}. A new test is proved red (pytest --tdd=red NODEID) before "
                "the code that makes it pass is written; if the behaviour exists already (a "
                "renamed or characterization test), accept it with a reason (phasegate tdd "
                "accept NODEID --reason TEXT --by NAME) or remove it",
                tests=fresh,
            )

    def collection_errors(self, why: str) -> None:
        for error in self.facts.collection_errors:
            self.violate(
                "collection-error",
                f"{error.nodeid} could not be collected ({error.failure_class.value}: "
                f"{error.detail}); {why}",
                paths=[error.nodeid.split("::", 1)[0]],
            )

    def changed_paths(self, role: str, *, since_green: bool) -> set[str]:
        base = self.state.green if since_green else self.state.accepted
        now = self.facts.files.tests if role == "tests" else self.facts.files.source
        if base is None:
            return set(now)
        before = base.files.tests if role == "tests" else base.files.source
        return {change.path for change in changes(before, now)}

    def red_cycles(self) -> list[CycleState]:
        return [cycle for cycle in self.state.cycles.values() if cycle.status == "red"]

    def named_cycle_status(self, name: str) -> str:
        """Why a cycle named with ``--tdd-cycle`` cannot be taken: it is missing, or its status."""
        cycle = self.state.cycles.get(name)
        return "there is no such cycle" if cycle is None else f"it is {cycle.status}"

    @staticmethod
    def tests_of(cycles: Iterable[CycleState]) -> set[str]:
        return {nodeid for cycle in cycles for nodeid in cycle.tests}

    def right_reasons_phrase(self) -> str:
        phrases = [_REASON_PHRASES.get(reason, reason) for reason in self.config.right_reasons]
        listed = ", ".join(phrases[:-1]) + " or " + phrases[-1] if len(phrases) > 1 else phrases[0]
        return f"{listed} (right_reasons in [tool.phasegate.tdd])"

    def violate(
        self, rule: str, message: str, *, tests: Iterable[str] = (), paths: Iterable[str] = ()
    ) -> None:
        self.violations.append(
            Violation(rule=rule, message=message, tests=list(tests), paths=list(paths))
        )


_REASON_PHRASES = {
    "assertion": "an assertion",
    "not-implemented": "a NotImplementedError",
    "missing-symbol": "a missing name the test uses",
    "exception": "any exception",
}
PHASE_NAMES: dict[str, str] = {
    "red": "RED",
    "green": "GREEN",
    "refactor": "REFACTOR",
    "phase0": "phase 0",
}


def count(items: Collection[object] | int, noun: str) -> str:
    number = items if isinstance(items, int) else len(items)
    return f"{number} {noun}{'' if number == 1 else 's'}"


def listed(items: Iterable[object]) -> str:
    shown = [str(item) for item in items]
    if len(shown) <= SHOWN:
        return ", ".join(shown)
    return ", ".join(shown[:SHOWN]) + f" and {len(shown) - SHOWN} more"


def details(nodeids: list[str], tests: dict[str, LedgerTest]) -> str:
    parts = []
    for nodeid in nodeids[:SHOWN]:
        test = tests.get(nodeid)
        detail = test.detail if test is not None and test.detail else "no detail"
        parts.append(f"{nodeid} ({detail})")
    if len(nodeids) > SHOWN:
        parts.append(f"and {len(nodeids) - SHOWN} more")
    return "; ".join(parts)


def class_name(failure_class: FailureClass | None) -> str:
    return failure_class.value if failure_class is not None else "no failure class"
