"""Steps of TDD cycles in batches and of the task metrics (loaded by the step library).

The TDD steps run ``pytest --tdd=PHASE`` for real, in a subprocess at the scenario's project
(so each costs a test run), and read the verdict from the ledger; approvals go through the TDD
engine as ``phasegate tdd review`` does; ``the gate "dptr-tdd" is run`` runs ``pytest
--gate=dptr-tdd``. The metrics steps write a gate verdict and an auto-debug report as a run
with ``--gate --autodebug`` writes them, and record the refinement round as the gate plugin
does.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING

from pytest_bdd import given, parsers, step, then, when

from phasegate.bdd.world import WorkflowWorld, split_names

if TYPE_CHECKING:
    from phasegate.model.tdd import RunEntry

__all__: list[str] = []

_STACK = '''"""A stack."""


class Stack:
    def __init__(self) -> None:
        self.items: list[int] = []

    def push(self, item: int) -> None:
        self.items.append(item)
'''

_TESTS = """from stack import Stack


def test_push_adds_an_item() -> None:
    stack = Stack()
    stack.push(1)
    assert stack.items == [1]
"""


def _pytest(world: WorkflowWorld, *arguments: str) -> subprocess.CompletedProcess[str]:
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith("PHASEGATE_")
    }
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", *arguments],
        cwd=world.root,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _printed(world: WorkflowWorld, chars: int) -> str:
    """The end of what the last pytest run printed, for an assertion's message."""
    completed: subprocess.CompletedProcess[str] = world.last_as(subprocess.CompletedProcess)
    return completed.stdout[-chars:]


def _last_run(world: WorkflowWorld) -> RunEntry:
    from phasegate.model.tdd import RunEntry
    from phasegate.tdd.ledger import Ledger

    entries, _ = Ledger(world.engine().store).read_all()
    runs = [entry for entry in entries if isinstance(entry, RunEntry)]
    assert runs, "the ledger holds no run"
    return runs[-1]


@given("a TDD project of a stack whose tests pass")
def _project(workflow_world: WorkflowWorld) -> None:
    workflow_world.write("src/stack.py", _STACK)
    workflow_world.write("tests/test_stack.py", _TESTS)
    workflow_world.write(
        "conftest.py",
        "import pathlib, sys\n\nsys.path.insert(0, str(pathlib.Path(__file__).parent / 'src'))\n",
    )


@step(parsers.parse('the test "{name}" is added to tests/test_stack.py, asserting {expression}'))
def _add_test(workflow_world: WorkflowWorld, name: str, expression: str) -> None:
    path = workflow_world.root / "tests" / "test_stack.py"
    text = path.read_text(encoding="utf-8")
    text += f"\n\ndef {name}() -> None:\n    stack = Stack()\n    assert {expression}\n"
    path.write_text(text, encoding="utf-8")


@step(parsers.parse('pytest --tdd={phase:w} runs for the cycle "{cycle}" on "{test}"'))
@step(parsers.parse("pytest --tdd={phase:w} runs"))
def _tdd(workflow_world: WorkflowWorld, phase: str, cycle: str = "", test: str = "") -> None:
    arguments = [f"--tdd={phase}"]
    if cycle:
        arguments += ["--tdd-cycle", cycle, f"tests/test_stack.py::{test}"]
    completed = _pytest(workflow_world, *arguments)
    workflow_world.last = completed


@then(parsers.parse("the TDD verdict passed with the status {codes}"))
def _passed(workflow_world: WorkflowWorld, codes: str) -> None:
    entry = _last_run(workflow_world)
    assert entry.verdict == "passed", (
        entry.violations,
        _printed(workflow_world, 2000),
    )
    assert entry.status == split_names(codes), entry.status


@then(parsers.parse("the TDD verdict failed on the rule {rule}"))
def _failed(workflow_world: WorkflowWorld, rule: str) -> None:
    entry = _last_run(workflow_world)
    assert entry.verdict == "failed"
    assert [violation.rule for violation in entry.violations] == [rule], entry.violations


@step(parsers.parse('"{who}" approves the TDD cycle "{cycle}"'))
def _approve(workflow_world: WorkflowWorld, who: str, cycle: str) -> None:
    from phasegate.config import load_config
    from phasegate.store import Store
    from phasegate.tdd.cycles import TddProject

    loaded = load_config(workflow_world.root)
    project = TddProject(loaded.project_root, loaded.config.tdd, Store(loaded.artifacts_path))
    workflow_world.attempt(lambda engine: project.review(cycle, "approved", who))


@when(parsers.parse('the gate "{gate}" is run'))
def _gate(workflow_world: WorkflowWorld, gate: str) -> None:
    workflow_world.last = _pytest(workflow_world, f"--gate={gate}")


@then(
    parsers.parse(
        'the gate "{gate}" is {verdict:w}, its tdd check counting {count:d} unapproved cycle(s)'
    )
)
def _verdict(workflow_world: WorkflowWorld, gate: str, verdict: str, count: int) -> None:
    from phasegate.model.gate import GateVerdict
    from phasegate.store import Store

    stored = workflow_world.engine().store.read_model(Store.verdict_file(gate), GateVerdict)
    assert stored is not None, _printed(workflow_world, 3000)
    tdd = next(check for check in stored.checks if check.id == "tdd")
    assert tdd.metrics.get("unapproved_cycles") == count, tdd.metrics
    assert stored.verdict == verdict, (
        stored.reasons,
        _printed(workflow_world, 3000),
    )


# -- task metrics --------------------------------------------------------------------------


@given(
    parsers.parse(
        'auto-debug worked on the run "{run}": {counts} candidates tried, {queries:d} context '
        "queries"
    )
)
def _autodebug(workflow_world: WorkflowWorld, run: str, counts: str, queries: int) -> None:
    from phasegate.model.autodebug import (
        AutodebugCounts,
        AutodebugFailure,
        AutodebugReport,
        CandidateAttempt,
        ContextFigures,
    )
    from phasegate.store import AUTODEBUG_REPORT_FILE

    now = workflow_world.now
    tried = [int(count) for count in split_names(counts)]
    failures = [
        AutodebugFailure(
            id=f"{index + 1:02d}-name", error_class="name", pattern="names", kind="undefined",
            tests=[f"tests/test_app.py::test_{index}"], exc_type="NameError",
            message="name 'totl' is not defined", explanation="a misspelt name",
            outcome="escalated",
            attempts=[
                CandidateAttempt(rank=rank + 1, kind="typo", description="rename", score=0.5,
                                 files=["src/app.py"], diff="", status="rejected",
                                 reason="the tests still fail")
                for rank in range(count)
            ],
        )
        for index, count in enumerate(tried)
    ]  # fmt: skip
    report = AutodebugReport(
        run_id=run, mode="suggest", started_at=now, finished_at=now, duration_s=0.0,
        counts=AutodebugCounts(failures=len(failures), escalated=len(failures)),
        failures=failures,
        context=ContextFigures(queries=queries, avg_latency_ms=2.0,
                               relevance_scores=[0.8] * queries),
    )  # fmt: skip
    workflow_world.engine().store.write_model(AUTODEBUG_REPORT_FILE, report)


@when(parsers.parse('the gate run "{run}" of the phase {phase} is recorded as a refinement round'))
def _round(workflow_world: WorkflowWorld, run: str, phase: str) -> None:
    from phasegate.config import RefineConfig
    from phasegate.environment import PHASE_ENV
    from phasegate.model.gate import GateVerdict
    from phasegate.refine.state import record_round

    now = workflow_world.now
    verdict = GateVerdict(
        gate="default", source="default.toml", verdict="insufficient", score=0.5,
        reasons=["tests: 2 failed"], run_id=run, started_at=now, finished_at=now, duration_s=1.0,
    )  # fmt: skip
    store = workflow_world.engine().store
    workflow_world.last = record_round(
        store, verdict, None, RefineConfig(), {PHASE_ENV: phase}, now=now
    )


@then(
    parsers.parse(
        "the task metrics record the phase {phase}, debug iterations {iterations} and "
        "{queries:d} context queries"
    )
)
def _metrics(workflow_world: WorkflowWorld, phase: str, iterations: str, queries: int) -> None:
    from phasegate.refine.state import RoundOutcome

    outcome = workflow_world.last_as(RoundOutcome)
    metrics = outcome.metrics
    expected = [] if iterations == "none" else [int(n) for n in split_names(iterations)]
    assert (metrics.phase, metrics.debug_iterations) == (phase, expected), metrics
    assert metrics.context_queries == queries
    if queries:
        assert metrics.avg_context_latency_ms is not None
        assert len(metrics.context_relevance_scores) == queries
    written = workflow_world.engine().store.path(outcome.metrics_path)
    assert f'"phase": "{phase}"' in written.read_text(encoding="utf-8")
