"""The handoff queue: priority pickup, atomic claims under a race, retries, history, errors."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from phasegate.errors import UsageError
from phasegate.model.workflow import Priority, TaskStatus
from phasegate.workflow.queue import HandoffQueue, parse_priority


@pytest.fixture
def queue(tmp_path: Path) -> HandoffQueue:
    return HandoffQueue(tmp_path / "tasks", max_retries=3)


def test_pickup_is_by_priority_then_age(queue: HandoffQueue) -> None:
    queue.add("old low", task_id="low1", priority=Priority.LOW)
    queue.add("old medium", task_id="med1", priority=Priority.MEDIUM)
    queue.add("new medium", task_id="med2", priority=Priority.MEDIUM)
    queue.add("critical", task_id="crit", priority=Priority.CRITICAL)
    queue.add("high", task_id="high", priority=Priority.HIGH)
    order = []
    while (task := queue.claim("w")) is not None:
        order.append(task.id)
    assert order == ["crit", "high", "med1", "med2", "low1"]
    assert queue.claim("w") is None


def test_a_claim_moves_the_file_and_records_the_worker_and_history(queue: HandoffQueue) -> None:
    queue.add("parse", task_id="t1", priority=Priority.HIGH, parent="REQ-7", by="lead")
    claimed = queue.claim("worker-3")
    assert claimed is not None
    assert claimed.claimed_by == "worker-3"
    (running,) = (queue.root / "running").glob("*.json")
    assert running.name.startswith("HIGH_")
    assert running.name.endswith("_t1.json")
    assert not list((queue.root / "queue").glob("*.json"))
    history = json.loads((queue.root / "history" / "t1.json").read_text())
    assert history["parent"] == "REQ-7"
    assert [(m["from_status"], m["to_status"], m["by"]) for m in history["transitions"]] == [
        (None, "queue", "lead"),
        ("queue", "running", "worker-3"),
    ]


def test_the_whole_lifecycle_through_review_to_completed(queue: HandoffQueue) -> None:
    queue.add("x", task_id="t1")
    queue.claim("w")
    queue.submit("t1", by="w")
    queue.complete("t1", by="sup")
    _task, status, history = queue.show("t1")
    assert status is TaskStatus.COMPLETED
    assert history is not None
    assert [m.to_status for m in history.transitions] == [
        TaskStatus.QUEUE, TaskStatus.RUNNING, TaskStatus.REVIEW, TaskStatus.COMPLETED,
    ]  # fmt: skip


def test_rejected_tasks_are_claimed_again_and_fail_after_three_retries(
    queue: HandoffQueue,
) -> None:
    queue.add("flaky", task_id="t1")
    for attempt in range(1, 5):
        assert queue.claim("w") is not None
        queue.submit("t1", by="w")
        task = queue.reject("t1", by="sup", feedback=f"try {attempt}")
        assert task.retries == attempt
    task, status, _history = queue.show("t1")
    assert status is TaskStatus.FAILED
    assert "retry 4 > 3" in task.feedback
    assert queue.claim("w") is None


def test_a_worker_failure_requeues_until_the_retries_are_spent(queue: HandoffQueue) -> None:
    queue.add("crashy", task_id="t1")
    for _ in range(3):
        queue.claim("w")
        queue.fail("t1", by="w", error="segfault")
        assert queue.find("t1").status is TaskStatus.QUEUE  # type: ignore[union-attr]
    queue.claim("w")
    queue.fail("t1", by="w", error="segfault")
    assert queue.find("t1").status is TaskStatus.FAILED  # type: ignore[union-attr]


def test_moves_from_the_wrong_folder_are_refused_and_move_nothing(queue: HandoffQueue) -> None:
    queue.add("x", task_id="t1")
    with pytest.raises(UsageError, match=r"task t1 is in queue/; this move needs it in review/"):
        queue.reject("t1", by="sup", feedback="no")
    assert queue.find("t1").status is TaskStatus.QUEUE  # type: ignore[union-attr]
    with pytest.raises(UsageError, match=r"no task 'nope'"):
        queue.complete("nope", by="sup")


def test_bad_input_is_named(queue: HandoffQueue) -> None:
    with pytest.raises(UsageError, match=r"unknown priority 'URGENT'; allowed: CRITICAL, HIGH"):
        parse_priority("URGENT")
    with pytest.raises(UsageError, match=r"task id 'a b' is not allowed"):
        queue.add("x", task_id="a b")
    queue.add("x", task_id="t1")
    with pytest.raises(UsageError, match=r"a task 't1' exists already, in queue/"):
        queue.add("again", task_id="t1")


def _claim_all(root: str, worker: str, out: str) -> None:
    queue = HandoffQueue(Path(root))
    claimed = []
    while (task := queue.claim(worker)) is not None:
        claimed.append(task.id)
    Path(out).write_text(json.dumps(claimed))


def test_racing_workers_never_claim_the_same_task(tmp_path: Path) -> None:
    queue = HandoffQueue(tmp_path / "tasks")
    priorities = list(Priority)
    for n in range(200):
        queue.add(f"task {n}", task_id=f"t{n:03d}", priority=priorities[n % 4])
    context = multiprocessing.get_context("spawn")
    outs = [tmp_path / f"worker{w}.json" for w in range(4)]
    workers = [
        context.Process(target=_claim_all, args=(str(queue.root), f"w{w}", str(outs[w])))
        for w in range(4)
    ]
    for process in workers:
        process.start()
    for process in workers:
        process.join(timeout=120)
        assert process.exitcode == 0
    claims = [json.loads(out.read_text()) for out in outs]
    every = [task for worker in claims for task in worker]
    assert sorted(every) == [f"t{n:03d}" for n in range(200)]  # each exactly once
    assert sum(1 for worker in claims if worker) >= 2, "the workers did not race"
    for _status, task in queue.tasks(TaskStatus.RUNNING):
        owner = next(w for w, mine in enumerate(claims) if task.id in mine)
        assert task.claimed_by == f"w{owner}"
    assert queue.tasks(TaskStatus.QUEUE) == []
