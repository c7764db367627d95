"""Rollback: after a refactor regressed, put the files back as they were at the last green state.

Only what the ledger can account for is touched. The failed refactor run recorded the hash of
every test and source file; a rollback first checks that the files are still exactly that (so
nothing written after the failed run is overwritten), then writes each file that differs from
the green state back to its green content, byte for byte, from the snapshot kept at green
(:mod:`~phasegate.tdd.snapshot`), and removes files the green state did not have. The content
it replaces is kept in the snapshot store first, and named in the ledger entry, so a rollback
can itself be undone. Each file is replaced atomically, and every restored file is hashed
again before the rollback is recorded.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from phasegate.errors import PhasegateError, StoreError
from phasegate.model.tdd import FileHashes, RollbackEntry, TddState
from phasegate.store import write_atomically
from phasegate.tdd.snapshot import ObjectStore
from phasegate.tdd.tree import changes, hash_bytes

__all__ = ["RollbackPlan", "RollbackRefused", "apply_rollback", "plan_rollback"]


class RollbackRefused(PhasegateError):
    """The rollback would do something it cannot account for; ``reasons`` say what."""

    def __init__(self, reasons: list[str]) -> None:
        self.reasons = reasons
        super().__init__("rollback refused: " + "; ".join(reasons))


@dataclass
class RollbackPlan:
    """What a rollback will write back and remove."""

    failed_run: str
    green_run: str
    restore: dict[str, str] = field(default_factory=dict)
    remove: list[str] = field(default_factory=list)


def plan_rollback(
    state: TddState, current: FileHashes, objects: ObjectStore, root: Path
) -> RollbackPlan:
    """The rollback to the last green state, or :class:`RollbackRefused` saying why not."""
    pending, green = state.pending_rollback, state.green
    if pending is None or green is None:
        raise RollbackRefused([_nothing_to_roll_back(state)])
    at_failure, at_green = _merged(pending.files), _merged(green.files)
    _refuse_unseen_changes(pending.failed_run, at_failure, _merged(current))
    plan = RollbackPlan(failed_run=pending.failed_run, green_run=green.run_id)
    for path in sorted(set(at_green) | set(at_failure)):
        if at_green.get(path) == at_failure.get(path):
            continue
        _inside(root, path)
        if path in at_green:
            plan.restore[path] = at_green[path]
        else:
            plan.remove.append(path)
    problems = _unreadable_objects(plan, objects)
    if problems:
        raise RollbackRefused(problems)
    return plan


def _refuse_unseen_changes(
    failed_run: str, at_failure: dict[str, str], now: dict[str, str]
) -> None:
    """Refuse when a file changed after the failed run: no run has seen it, a rollback loses it."""
    unaccounted = changes(at_failure, now)
    if unaccounted:
        listed = ", ".join(str(change) for change in unaccounted[:10])
        raise RollbackRefused(
            [
                f"files changed after the failed refactor run {failed_run}: {listed}. "
                "No run has seen these changes, so a rollback would lose them; run "
                "pytest --tdd=refactor again so the ledger records them, or save them "
                "elsewhere first"
            ]
        )


def _nothing_to_roll_back(state: TddState) -> str:
    last = state.last_run
    seen = (
        f"the last run ({last.run_id}, {last.phase}) {last.verdict}"
        if last is not None
        else "the ledger has no run yet"
    )
    return f"nothing to roll back: no refactor has failed since the last green state ({seen})"


def _unreadable_objects(plan: RollbackPlan, objects: ObjectStore) -> list[str]:
    """The files to restore whose green content the object store cannot give back."""
    problems: list[str] = []
    for path, sha in plan.restore.items():
        try:
            objects.get(sha)
        except StoreError as exc:
            problems.append(f"{path}: {exc}")
    return problems


def apply_rollback(
    root: Path, objects: ObjectStore, plan: RollbackPlan, time: datetime
) -> RollbackEntry:
    """Carry out ``plan``; the entry names what was restored and where the old content is."""
    backup = _back_up(root, objects, [*plan.restore, *plan.remove])
    for path, sha in plan.restore.items():
        _write_keeping_mode(root / path, objects.get(sha))
    for path in plan.remove:
        with contextlib.suppress(FileNotFoundError):
            (root / path).unlink()
    _check_restored(root, plan.restore)
    return RollbackEntry(
        time=time,
        failed_run=plan.failed_run,
        green_run=plan.green_run,
        restored=sorted(plan.restore),
        removed=sorted(plan.remove),
        backup=backup,
    )


def _back_up(root: Path, objects: ObjectStore, paths: list[str]) -> dict[str, str]:
    """Keep the content a rollback replaces in the snapshot store: path -> its hash there."""
    return {
        path: objects.put((root / path).read_bytes()) for path in paths if (root / path).is_file()
    }


def _check_restored(root: Path, restore: dict[str, str]) -> None:
    """Hash every restored file again: each must hold its green content."""
    wrong = [path for path, sha in restore.items() if hash_bytes((root / path).read_bytes()) != sha]
    if wrong:
        raise StoreError(
            f"after the rollback, {', '.join(wrong)} do not have their green content; the "
            "replaced content is kept in the snapshot store (see the backup hashes)"
        )


def _merged(files: FileHashes) -> dict[str, str]:
    return {**files.source, **files.tests}


def _inside(root: Path, relpath: str) -> None:
    resolved = (root / relpath).resolve()
    base = root.resolve()
    if not resolved.is_relative_to(base):
        raise RollbackRefused(
            [f"the ledger names {relpath!r}, which is outside the project {root}"]
        )


def _write_keeping_mode(target: Path, data: bytes) -> None:
    """Replace ``target`` with ``data`` in one rename, keeping its permissions."""
    try:
        mode: int | None = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None  # a file the green state had and the failed run removed: a new file's mode
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(target, data, mode=mode)
