"""Drive the TDD engine without pytest: write files, state test outcomes, judge runs."""

from __future__ import annotations

import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

from phasegate.model.run import Outcome
from phasegate.model.tdd import (
    FailureClass,
    LedgerCollectionError,
    LedgerGit,
    LedgerTest,
    RunEntry,
)
from phasegate.store import Store
from phasegate.tdd.config import TddConfig
from phasegate.tdd.cycles import RunResult, TddProject
from phasegate.tdd.rules import RunFacts

START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)

STACK = """\
class Stack:
    def __init__(self):
        self._items = []

    def push(self, item):
        self._items.append(item)

    def peek(self):
        return self._items[-1]
"""
TESTS = """\
from stack import Stack


def test_push():
    stack = Stack()
    stack.push(1)
    assert stack.peek() == 1


def test_peek():
    stack = Stack()
    stack.push(1)
    stack.push(2)
    assert stack.peek() == 2
    assert stack._items == [1, 2]
"""


def passed(nodeid: str) -> LedgerTest:
    return LedgerTest(nodeid=nodeid, outcome=Outcome.PASSED)


def failed(
    nodeid: str,
    failure_class: FailureClass = FailureClass.ASSERTION,
    *,
    right: bool = True,
    detail: str = "AssertionError: assert None == 2",
) -> LedgerTest:
    outcome = Outcome.ERROR if failure_class == FailureClass.FIXTURE_ERROR else Outcome.FAILED
    return LedgerTest(
        nodeid=nodeid,
        outcome=outcome,
        failure_class=failure_class,
        right_reason=right,
        detail=detail,
    )


class Flow:
    """A tiny project (src/stack.py, tests/test_stack.py) and a ledger to judge runs in."""

    def __init__(self, root: Path, config: TddConfig | None = None) -> None:
        self.root = root
        self.write("src/stack.py", STACK)
        self.write("tests/test_stack.py", TESTS)
        self.project = TddProject(root, config or TddConfig(), Store(root / ".phasegate"))
        self.runs = 0

    def write(self, relpath: str, text: str) -> None:
        path = self.root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")

    def judge(
        self,
        requested: str,
        *tests: LedgerTest,
        cycle: str | None = None,
        collection_errors: tuple[LedgerCollectionError, ...] = (),
        interrupted: bool = False,
        git: LedgerGit | None = None,
    ) -> RunResult:
        self.runs += 1
        facts = RunFacts(
            run_id=f"run{self.runs:02d}",
            time=START + timedelta(minutes=self.runs),
            requested=requested,  # type: ignore[arg-type]
            command=["pytest", f"--tdd={requested}"],
            files=self.project.hash_tree(),
            tests={test.nodeid: test for test in tests},
            collection_errors=list(collection_errors),
            cycle=cycle,
            interrupted=interrupted,
            git=git,
        )
        return self.project.record_run(facts)

    def run(self, requested: str, *tests: LedgerTest, **options: object) -> RunEntry:
        return self.judge(requested, *tests, **options).entry  # type: ignore[arg-type]

    def start(self) -> RunEntry:
        """Record the starting point: the two tests of TESTS pass."""
        entry = self.run("green", passed(PUSH), passed(PEEK))
        assert entry.verdict == "passed", entry.violations
        return entry

    def full_cycle(self, cycle: str = "pop") -> None:
        """Starting point, then a red, green cycle for test_pop."""
        self.start()
        self.write("tests/test_stack.py", TESTS + POP_TEST)
        red = self.run("red", passed(PUSH), passed(PEEK), failed(POP), cycle=cycle)
        assert red.verdict == "passed", red.violations
        self.write("src/stack.py", STACK + POP_CODE)
        green = self.run("green", passed(PUSH), passed(PEEK), passed(POP))
        assert green.verdict == "passed", green.violations


PUSH = "tests/test_stack.py::test_push"
PEEK = "tests/test_stack.py::test_peek"
POP = "tests/test_stack.py::test_pop"
POP_TEST = """

def test_pop():
    stack = Stack()
    stack.push(1)
    assert stack.pop() == 1
"""
POP_CODE = """
    def pop(self):
        return self._items.pop()
"""


def rules(entry: RunEntry) -> list[str]:
    return [violation.rule for violation in entry.violations]
