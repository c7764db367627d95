"""Task dependencies: a task is claimed only when every task it depends on is completed.

Pure functions of where each task is (its folder is its status). ``completed/`` is final, so a
dependency found done before a claim stays done: checking before the claiming rename is
enough, with no lock held across the two.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from phasegate.model.workflow import TaskRecord, TaskStatus

__all__ = ["claim_refusal", "tasks_waiting", "unknown_dependencies", "unmet_dependencies"]


def unmet_dependencies(
    task: TaskRecord, where: Mapping[str, TaskStatus | None]
) -> list[tuple[str, TaskStatus | None]]:
    """The dependencies of ``task`` not in ``completed/``, with where they are (None: nowhere)."""
    return [
        (dependency, where.get(dependency))
        for dependency in task.depends_on
        if where.get(dependency) is not TaskStatus.COMPLETED
    ]


def claim_refusal(task: TaskRecord, unmet: Sequence[tuple[str, TaskStatus | None]]) -> str:
    """Why ``task`` cannot be claimed yet, naming each dependency and where it is."""
    listed = ", ".join(
        f"{dependency} ({status.value}/)" if status else f"{dependency} (no such task)"
        for dependency, status in unmet
    )
    return (
        f"task {task.id} cannot be claimed: it depends on {listed}, which must be in "
        "completed/ first"
    )


def unknown_dependencies(depends_on: Sequence[str], known: Sequence[str], task_id: str) -> str:
    """A usage error's text when a new task names itself or a task that does not exist."""
    if task_id in depends_on:
        return f"task {task_id} cannot depend on itself"
    unknown = [dependency for dependency in depends_on if dependency not in known]
    if unknown:
        return (
            f"task {task_id} depends on {', '.join(unknown)}, which "
            f"{'is' if len(unknown) == 1 else 'are'} no task of the queue; add "
            f"{'it' if len(unknown) == 1 else 'them'} first"
        )
    return ""


def tasks_waiting(instance_id: str, where: Mapping[str, TaskStatus | None]) -> list[str]:
    """What a phase that requires its tasks waits for: each task not completed yet."""
    if not where:
        return [
            f"no task of {instance_id} exists: generate them from the plan (phasegate plan "
            f"tasks {instance_id})"
        ]
    waiting: list[str] = []
    for task_id, status in where.items():
        if status is TaskStatus.COMPLETED:
            continue
        if status is None:
            waiting.append(f"task {task_id} is missing from the queue")
        elif status is TaskStatus.FAILED:
            waiting.append(
                f"task {task_id} failed (out of retries): a person takes it from failed/"
            )
        else:
            waiting.append(f"task {task_id} is in {status.value}/, not completed/")
    return waiting
