"""Racing workers on one handoff queue: no task is ever held twice, and none is ever lost.

Twelve processes share a queue of 200 tasks. Each claims a task, then, as its seeded random
generator says, completes it, fails it (back to ``queue/`` with a retry spent), or submits it
for review and then rejects it (to ``rejected/``, claimable again) or completes it. A task is
claimed again only after a retry, so each claim of a task must see a retry count no claim of
it saw before: two claims with the same count are a double claim. At the end every task is
in exactly one folder, none is left in transit, and every transition a worker attempted on a
task it held succeeded.
"""

from __future__ import annotations

import json
import multiprocessing
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from phasegate.errors import UsageError
from phasegate.model.workflow import Priority, TaskStatus
from phasegate.workflow.queue import TRANSIT, HandoffQueue
from tests.faults.conftest import Tried

WORKERS = 12
TASKS = 200


def _work(root: str, worker: str, seed: int, out: str) -> None:
    """Claim until nothing is left to claim; log each claim and each failed transition."""
    queue = HandoffQueue(Path(root), max_retries=3)
    rng = random.Random(seed)  # noqa: S311 - seeded choices of what to do, not secrets
    claims: list[tuple[str, int]] = []
    refused: list[str] = []
    idle = 0
    while idle < 3:
        task = queue.claim(worker)
        if task is None:
            idle += 1
            continue
        idle = 0
        claims.append((task.id, task.retries))
        action = rng.choice(["complete", "fail", "review-reject", "review-complete"])
        try:
            if action == "complete":
                queue.complete(task.id, by=worker)
            elif action == "fail":
                queue.fail(task.id, by=worker, error="it broke")
            else:
                queue.submit(task.id, by=worker)
                if action == "review-reject":
                    queue.reject(task.id, by="reviewer", feedback="not yet")
                else:
                    queue.complete(task.id, by="reviewer")
        except UsageError as exc:  # someone else moved a task this worker held
            refused.append(f"{task.id}: {exc}")
    Path(out).write_text(json.dumps({"claims": claims, "refused": refused}))


def _census(queue: HandoffQueue) -> Counter[str]:
    return Counter(found.task_id for status in TaskStatus for found in queue._files(status))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_twelve_racing_workers_never_hold_a_task_twice_nor_lose_one(
    seed: int, tmp_path: Path, tried: Tried
) -> None:
    queue = HandoffQueue(tmp_path / "tasks", max_retries=3)
    priorities = list(Priority)
    for n in range(TASKS):
        queue.add(f"task {n}", task_id=f"t{n:03d}", priority=priorities[n % 4])
    context = multiprocessing.get_context("spawn")
    outs = [tmp_path / f"worker{w}.json" for w in range(WORKERS)]
    workers = [
        context.Process(target=_work, args=(str(queue.root), f"w{w}", seed * 100 + w, str(outs[w])))
        for w in range(WORKERS)
    ]
    for process in workers:
        process.start()
    with tried(
        "races", f"12 workers, 200 tasks, claims mixed with fail/reject/complete (seed {seed})"
    ):
        for process in workers:
            process.join(timeout=600)
            assert process.exitcode == 0
        logs = [json.loads(out.read_text()) for out in outs]
        claims = Counter((task, retries) for log in logs for task, retries in log["claims"])
        doubled = [claim for claim, times in claims.items() if times > 1]
        assert doubled == [], f"claimed twice: {doubled[:5]}"
        refused = [line for log in logs for line in log["refused"]]
        assert refused == [], refused[:5]
        assert sum(1 for log in logs if log["claims"]) >= 2, "the workers did not race"
        census = _census(queue)
        assert sorted(census) == [f"t{n:03d}" for n in range(TASKS)], "a task was lost"
        assert max(census.values()) == 1, "a task is in two folders"
        assert not any((queue.root / TRANSIT).iterdir())
        for status, task in queue.tasks():
            _record, _where, history = queue.show(task.id)
            assert history is not None
            assert history.status is status


def _cli(root: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "phasegate", "task", *args],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.mark.slow
def test_racing_commands_never_claim_a_task_twice(tmp_path: Path, tried: Tried) -> None:
    """Twelve `task claim` commands race six `task fail` commands sending tasks back."""
    (tmp_path / "pyproject.toml").write_text("[tool.phasegate]\n")
    queue = HandoffQueue(tmp_path / ".phasegate" / "tasks")
    for n in range(12):
        queue.add(f"task {n}", task_id=f"c{n:02d}")
    held = [queue.claim("first") for _ in range(6)]
    claims = [_cli(tmp_path, "claim", "--worker", f"w{w}", "--json") for w in range(WORKERS)]
    fails = [_cli(tmp_path, "fail", task.id, "--error", "broke") for task in held if task]
    with tried("races", "12 `phasegate task claim` racing 6 `phasegate task fail` commands"):
        for process in fails:
            _out, err = process.communicate(timeout=300)
            assert process.returncode == 0, err.decode()
        answers = [json.loads(process.communicate(timeout=300)[0]) for process in claims]
        claimed = [(a["task"]["id"], a["task"]["retries"]) for a in answers if a["task"]]
        # Six tasks were waiting from the start; six more come back as the fails land.
        assert 6 <= len(claimed) <= 12
        ids = [task for task, _retries in claimed]
        assert len(set(ids)) == len(ids), f"claimed twice: {claimed}"
        census = _census(queue)
        assert sorted(census) == [f"c{n:02d}" for n in range(12)]
        assert max(census.values()) == 1
        assert not list(queue.root.glob(f"{TRANSIT}/*"))
