"""The handoff: dependencies at claim, plan tasks, inboxes, task gates, and crashed workers."""

from __future__ import annotations

import re
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from phasegate.errors import UsageError
from phasegate.extensions import make_plugin_manager
from phasegate.model.workflow import Priority, TaskRecord, TaskStatus
from phasegate.workflow.gating import GateOutcome
from phasegate.workflow.handoff import Handoff
from phasegate.workflow.plan_tasks import planned_tasks, read_plan

PLAN = """\
retry_budget = 2

[[tasks]]
id = "T2"
title = "send the code"
estimate_min = 40
depends_on = ["T1"]
retries = 1
priority = "HIGH"
files = ["src/mail.py"]

[[tasks]]
id = "T1"
title = "validate the code"
estimate_min = 30
"""


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2030, 1, 1, 9, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def handoff(tmp_path: Path, clock: Clock) -> Handoff:
    return Handoff(tmp_path / "tasks", max_retries=3, clock=clock)


def plan_file(tmp_path: Path, text: str = PLAN) -> Path:
    path = tmp_path / "login_plan.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_plan_tasks_come_in_dependency_order_with_their_budget_and_priority(
    tmp_path: Path,
) -> None:
    planned = planned_tasks(read_plan(plan_file(tmp_path), "plan.toml"), "login", "plan.toml")
    assert [(t.id, t.depends_on, t.max_retries, t.priority) for t in planned] == [
        ("EXEC_login_T1", [], 2, Priority.MEDIUM),
        ("EXEC_login_T2", ["EXEC_login_T1"], 1, Priority.HIGH),
    ]
    assert planned[1].files == ["src/mail.py"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[tasks]]\nid = 'A'\nestimate_min = 5\ndepends_on = ['A']\nretries = 1\n",
         "cannot be turned into tasks: the dependencies form a cycle: A -> A"),
        ("[[tasks]]\nid = 'A'\nestimate_min = 5\n", "task A has no retry budget"),
        ("[[tasks]]\nid = 'A'\nestimate_min = 5\nretries = 1\npriority = 'SOON'\n",
         "tasks.0.priority"),
        ("not toml [", "plan.toml: not valid TOML"),
    ],
)  # fmt: skip
def test_a_plan_the_plan_check_refuses_gives_no_task(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(UsageError, match=message.replace(".", r"\.").replace("[", r"\[")):
        planned_tasks(read_plan(plan_file(tmp_path, text), "plan.toml"), "login", "plan.toml")


def test_a_plan_task_id_that_makes_no_task_id_is_refused_by_name(tmp_path: Path) -> None:
    text = "[[tasks]]\nid = 'T 1'\nestimate_min = 5\nretries = 1\n"
    with pytest.raises(UsageError, match="the plan's task 'T 1' of login gives the task id"):
        planned_tasks(read_plan(plan_file(tmp_path, text), "p"), "login", "p")


def test_generating_twice_keeps_the_tasks_that_exist(tmp_path: Path, handoff: Handoff) -> None:
    planned = planned_tasks(read_plan(plan_file(tmp_path), "p"), "login", "p")
    first = handoff.generate("login", planned, by="sue")
    second = handoff.generate("login", planned, by="sue")
    assert (first.added, first.existing) == (["EXEC_login_T1", "EXEC_login_T2"], [])
    assert (second.added, second.existing) == ([], ["EXEC_login_T1", "EXEC_login_T2"])
    record, status, _ = handoff.queue.show("EXEC_login_T2")
    assert (status, record.instance, record.plan_task, record.body) == (
        TaskStatus.QUEUE, "login", "T2", "files: src/mail.py"
    )  # fmt: skip


def test_a_claim_skips_and_a_named_claim_refuses_a_task_whose_dependency_is_not_done(
    handoff: Handoff,
) -> None:
    handoff.queue.add("base", task_id="A", priority=Priority.LOW)
    handoff.queue.add("on top", task_id="B", priority=Priority.CRITICAL, depends_on=["A"])
    with pytest.raises(UsageError) as refused:
        handoff.claim("wes", "B")
    assert str(refused.value) == (
        "task B cannot be claimed: it depends on A (queue/), which must be in completed/ first"
    )
    assert handoff.queue.find("B").status is TaskStatus.QUEUE  # type: ignore[union-attr]
    claimed = handoff.claim("wes")
    assert claimed is not None
    assert claimed.id == "A"  # B is CRITICAL, but not ready
    assert handoff.claim("vic") is None
    assert [(t.id, unmet) for t, unmet in handoff.queue.blocked()] == [
        ("B", [("A", TaskStatus.RUNNING)])
    ]
    handoff.submit("A", by="wes")
    handoff.complete("A", by="sue")
    claimed_b = handoff.claim("vic", "B")
    assert claimed_b is not None
    assert claimed_b.id == "B"


def test_new_tasks_may_depend_only_on_tasks_that_exist(handoff: Handoff) -> None:
    with pytest.raises(UsageError, match="task B depends on A, which is no task of the queue"):
        handoff.queue.add("b", task_id="B", depends_on=["A"])
    with pytest.raises(UsageError, match="task B cannot depend on itself"):
        handoff.queue.add("b", task_id="B", depends_on=["B"])


def test_a_named_claim_of_a_task_not_waiting_says_where_it_is(handoff: Handoff) -> None:
    handoff.queue.add("a", task_id="A")
    handoff.claim("wes")
    with pytest.raises(UsageError, match="task A is in running/; a task is claimed from queue/"):
        handoff.claim("vic", "A")


def test_a_plan_budget_overrides_the_queue_budget(handoff: Handoff) -> None:
    handoff.queue.add("a", task_id="A", max_retries=1)
    for _ in range(2):
        handoff.claim("wes")
        handoff.submit("A", by="wes")
        handoff.reject("A", by="sue", feedback="no")
    assert handoff.queue.find("A").status is TaskStatus.FAILED  # type: ignore[union-attr]


def test_every_move_writes_its_message_to_the_right_inbox_in_order(handoff: Handoff) -> None:
    handoff.queue.add("a", task_id="A")
    handoff.claim("wes")
    handoff.ask("A", by="wes", question="which format?")
    handoff.submit("A", by="wes", note="done")
    handoff.reject("A", by="sue", feedback="no test")
    handoff.claim("wes")
    handoff.submit("A", by="wes")
    handoff.complete("A", by="sue")
    worker = handoff.inbox.messages("worker")
    supervisor = handoff.inbox.messages("supervisor")
    assert [m.type for m in worker] == [
        "TASK_ASSIGNED", "TASK_REJECTED", "TASK_ASSIGNED", "TASK_APPROVED"
    ]  # fmt: skip
    assert [m.type for m in supervisor] == [
        "CLARIFICATION_REQUEST", "TASK_SUBMITTED", "TASK_SUBMITTED"
    ]  # fmt: skip
    assert (worker[1].to, worker[1].sender, worker[1].body) == ("wes", "sue", "no test")
    taken = handoff.inbox.take("worker", worker[0].id)
    assert taken == worker[0]
    assert [m.id for m in handoff.inbox.messages("worker", read=True)] == [worker[0].id]
    with pytest.raises(UsageError, match="may have been taken already"):
        handoff.inbox.take("worker", worker[0].id)
    with pytest.raises(UsageError, match="needs the question"):
        handoff.ask("A", by="wes", question=" ")


def test_a_task_gate_keeps_each_verdict_and_decides_the_task(
    tmp_path: Path, handoff: Handoff
) -> None:
    verdicts = tmp_path / "gates"
    verdicts.mkdir()
    outcomes = iter([False, True])

    def run(for_id: str) -> GateOutcome:
        sufficient = next(outcomes)
        path = verdicts / f"{for_id}.json"
        path.write_text(f'{{"schema_version": "1.0", "sufficient": {str(sufficient).lower()}}}')
        reasons = [] if sufficient else ["syntax: src/app.py does not parse"]
        return GateOutcome("compiles", sufficient, reasons, str(path))

    handoff.queue.add("a", task_id="A", instance="login")
    with pytest.raises(UsageError, match="its gate is run when it is in review/"):
        handoff.gate("A", "compiles", run, by="sue")
    handoff.claim("wes")
    handoff.submit("A", by="wes")
    task, outcome = handoff.gate("A", "compiles", run, by="sue")
    assert (outcome.sufficient, task.feedback) == (
        False, "gate compiles: syntax: src/app.py does not parse"
    )  # fmt: skip
    assert handoff.queue.find("A").status is TaskStatus.REJECTED  # type: ignore[union-attr]
    handoff.claim("wes")
    handoff.submit("A", by="wes")
    handoff.gate("A", "compiles", run, by="sue")
    _, status, history = handoff.queue.show("A")
    assert status is TaskStatus.COMPLETED
    assert history is not None
    assert [(r.attempt, r.sufficient) for r in history.gate_results] == [(1, False), (2, True)]
    kept = [handoff.queue.store.path(r.verdict_path) for r in history.gate_results]
    assert [p.name for p in kept] == ["001-compiles.json", "002-compiles.json"]
    assert '"sufficient": false' in kept[0].read_text()


def test_a_worker_silent_past_the_timeout_loses_the_task_and_a_heartbeat_keeps_it(
    handoff: Handoff, clock: Clock
) -> None:
    handoff.queue.add("a", task_id="A")
    handoff.queue.add("b", task_id="B")
    handoff.claim("wes", "A")
    handoff.claim("vic", "B")
    clock.now += timedelta(minutes=40)
    handoff.heartbeat("B", worker="vic")
    with pytest.raises(UsageError, match="held by vic"):
        handoff.heartbeat("B", worker="wes")
    clock.now += timedelta(minutes=25)
    swept = handoff.sweep(timeout_min=60)
    assert [(s.task, s.worker, s.status) for s in swept] == [("A", "wes", TaskStatus.QUEUE)]
    record, status, _ = handoff.queue.show("A")
    assert (status, record.retries, record.claimed_by) == (TaskStatus.QUEUE, 1, None)
    assert "no sign of life from wes for 65 min" in record.feedback
    assert handoff.queue.find("B").status is TaskStatus.RUNNING  # type: ignore[union-attr]


def test_taking_a_message_by_a_path_is_refused_and_moves_nothing(handoff: Handoff) -> None:
    handoff.queue.add("a", task_id="A")
    handoff.claim("wes")
    running = sorted(p.name for p in (handoff.queue.root / "running").iterdir())
    task_file = running[0].removesuffix(".json")
    for message_id in (f"../../../running/{task_file}", "/etc/passwd", "a/b", ".."):
        with pytest.raises(UsageError, match=f"message id {re.escape(repr(message_id))}"):
            handoff.inbox.take("worker", message_id)
    assert sorted(p.name for p in (handoff.queue.root / "running").iterdir()) == running
    assert handoff.queue.find("A").status is TaskStatus.RUNNING  # type: ignore[union-attr]


def test_a_gate_run_that_wrote_no_verdict_keeps_no_older_verdict_as_its_own(
    tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phasegate.config import load_config
    from phasegate.model.gate import GateVerdict
    from phasegate.store import Store
    from phasegate.workflow import gating

    (tmp_path / "pyproject.toml").write_text('[tool.phasegate]\ngate_paths = ["gates"]\n')
    (tmp_path / "gates").mkdir()
    (tmp_path / "gates" / "tested.toml").write_text('name = "tested"\n[checks.tests]\n')
    loaded = load_config(tmp_path)
    store = Store(loaded.artifacts_path)
    earlier = datetime(2020, 1, 1, tzinfo=timezone.utc)
    store.write_model(  # a sufficient verdict of an earlier run
        "gates/tested.json",
        GateVerdict(gate="tested", source="tested.toml", verdict="sufficient", score=1.0,
                    started_at=earlier, finished_at=earlier, duration_s=1.0),
    )  # fmt: skip
    crashed = subprocess.CompletedProcess(args=[], returncode=3)
    monkeypatch.setattr(gating.subprocess, "run", lambda *a, **k: crashed)
    handoff = Handoff(loaded.artifacts_path / "tasks", clock=clock)
    handoff.queue.add("a", task_id="A")
    handoff.claim("wes")
    handoff.submit("A", by="wes")

    def run(for_id: str) -> GateOutcome:
        extensions = make_plugin_manager([])
        return gating.run_exit_gate("tested", loaded, store, extensions, instance_id=for_id)

    _, outcome = handoff.gate("A", "tested", run, by="sue")
    assert (outcome.sufficient, outcome.judged) == (False, False)
    _, status, history = handoff.queue.show("A")
    assert status is TaskStatus.REJECTED
    assert history is not None
    [record] = history.gate_results
    assert (record.sufficient, record.score, record.verdict_path) == (False, None, "")
    assert "was not judged: pytest exited with status 3" in record.reasons[0]
    assert not (handoff.queue.root / "gates").exists()


def test_a_task_submitted_while_the_sweep_runs_is_left_alone_and_the_rest_swept(
    handoff: Handoff, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    for task_id in ("A", "B"):
        handoff.queue.add(task_id.lower(), task_id=task_id)
        handoff.claim(f"w{task_id}", task_id)
    clock.now += timedelta(minutes=90)
    looked = handoff._last_sign_of_life

    def submitted_meanwhile(task: TaskRecord) -> datetime | None:
        seen = looked(task)
        if task.id == "A":  # the worker submits between the sweep's look and its move
            handoff.submit("A", by="wA")
        return seen

    monkeypatch.setattr(handoff, "_last_sign_of_life", submitted_meanwhile)
    swept = handoff.sweep(timeout_min=60)
    assert [(s.task, s.status) for s in swept] == [("B", TaskStatus.QUEUE)]
    assert handoff.queue.find("A").status is TaskStatus.REVIEW  # type: ignore[union-attr]


def test_two_gate_runs_of_one_task_at_once_keep_a_file_each(
    tmp_path: Path, handoff: Handoff
) -> None:
    handoff.queue.add("a", task_id="A")
    handoff.claim("wes")
    handoff.submit("A", by="wes")
    written = iter(range(1, 3))

    def verdict(sufficient: bool) -> GateOutcome:
        path = tmp_path / f"verdict-{next(written)}.json"
        path.write_text(f'{{"sufficient": {str(sufficient).lower()}}}')
        return GateOutcome("compiles", sufficient, [] if sufficient else ["no"], str(path))

    def slow_run(for_id: str) -> GateOutcome:
        # another supervisor's run starts and ends while this one runs
        handoff.gate("A", "compiles", lambda _: verdict(False), by="vic")
        return verdict(True)

    with pytest.raises(UsageError, match="task A is in rejected/"):
        handoff.gate("A", "compiles", slow_run, by="sue")
    _, _, history = handoff.queue.show("A")
    assert history is not None
    kept = [handoff.queue.store.path(r.verdict_path) for r in history.gate_results]
    assert [p.name for p in kept] == ["001-compiles.json", "002-compiles.json"]
    assert [p.read_text() for p in kept] == ['{"sufficient": false}', '{"sufficient": true}']
