"""Rollback restores the last green state byte for byte, and refuses what it cannot account for."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from phasegate.tdd.rollback import RollbackRefused
from tests.tdd.flow import PEEK, POP, POP_CODE, POP_TEST, PUSH, STACK, TESTS, Flow, failed, passed

# Not UTF-8, a CRLF line ending and no final newline: restored byte for byte all the same.
ODD_BYTES = b"# caf\xe9\r\nclass Helper:\r\n    pass"


@pytest.fixture
def regressed(tmp_path: Path) -> Flow:
    """A green cycle, then a refactor that broke test_pop and added a file."""
    flow = Flow(tmp_path)
    (tmp_path / "src/helper.py").write_bytes(ODD_BYTES)
    os.chmod(tmp_path / "src/helper.py", 0o640)
    flow.full_cycle("pop")
    flow.write("src/stack.py", STACK + POP_CODE.replace("pop()", "pop(0)"))
    (tmp_path / "src/helper.py").write_bytes(b"class Helper:\n    size = 1\n")
    flow.write("src/extra.py", "X = 1\n")
    entry = flow.run("refactor", passed(PUSH), passed(PEEK), failed(POP))
    assert entry.verdict == "failed"
    return flow


def test_rollback_restores_the_green_state_byte_for_byte(regressed: Flow) -> None:
    green_stack = (STACK + POP_CODE).encode()
    replaced = (regressed.root / "src/stack.py").read_bytes()

    plan = regressed.project.plan_rollback()
    assert (plan.restore.keys(), plan.remove) == (
        {"src/helper.py", "src/stack.py"},
        ["src/extra.py"],
    )
    entry, state = regressed.project.rollback()

    assert (regressed.root / "src/stack.py").read_bytes() == green_stack
    assert (regressed.root / "src/helper.py").read_bytes() == ODD_BYTES
    assert (regressed.root / "src/helper.py").stat().st_mode & 0o777 == 0o640
    assert not (regressed.root / "src/extra.py").exists()
    assert entry.restored == ["src/helper.py", "src/stack.py"]
    assert entry.removed == ["src/extra.py"]
    # What was replaced is kept, so the rollback itself can be undone.
    assert regressed.project.objects.get(entry.backup["src/stack.py"]) == replaced
    assert regressed.project.objects.get(entry.backup["src/extra.py"]) == b"X = 1\n"
    assert state.pending_rollback is None
    last = json.loads(regressed.project.ledger.path.read_text().splitlines()[-1])
    assert (last["kind"], last["failed_run"]) == ("tdd-rollback", "run04")


def test_after_a_rollback_the_refactor_passes_again(regressed: Flow) -> None:
    regressed.project.rollback()
    entry = regressed.run("refactor", passed(PUSH), passed(PEEK), passed(POP))
    assert entry.verdict == "passed"
    assert "nothing changed since the last green state" in entry.notes


def test_rollback_refuses_to_overwrite_changes_no_run_has_seen(regressed: Flow) -> None:
    regressed.write("src/stack.py", STACK + POP_CODE + "\n# a later edit\n")
    with pytest.raises(RollbackRefused) as caught:
        regressed.project.rollback()
    message = str(caught.value)
    assert "src/stack.py (changed)" in message
    assert "run pytest --tdd=refactor again" in message
    assert "a later edit" in (regressed.root / "src/stack.py").read_text()


def test_rollback_refuses_a_new_file_written_after_the_failed_run(regressed: Flow) -> None:
    regressed.write("tests/test_more.py", "def test_more():\n    pass\n")
    with pytest.raises(RollbackRefused, match=r"tests/test_more.py \(added\)"):
        regressed.project.rollback()
    assert (regressed.root / "src/extra.py").exists()


def test_rollback_refuses_when_a_snapshot_is_missing(regressed: Flow) -> None:
    green = regressed.project.state().green
    assert green is not None
    sha = green.files.source["src/stack.py"]
    regressed.project.store.path(f"tdd/objects/{sha[:2]}/{sha[2:]}").unlink()
    with pytest.raises(RollbackRefused, match=r"src/stack\.py: the snapshot .* is missing"):
        regressed.project.rollback()
    assert (regressed.root / "src/extra.py").exists()


def test_rollback_refuses_a_damaged_snapshot(regressed: Flow) -> None:
    green = regressed.project.state().green
    assert green is not None
    sha = green.files.source["src/stack.py"]
    regressed.project.store.path(f"tdd/objects/{sha[:2]}/{sha[2:]}").write_bytes(b"tampered")
    with pytest.raises(RollbackRefused, match="is damaged"):
        regressed.project.rollback()


def test_nothing_to_roll_back_without_a_failed_refactor(tmp_path: Path) -> None:
    flow = Flow(tmp_path)
    flow.full_cycle()
    with pytest.raises(RollbackRefused, match=r"nothing to roll back.*run03, green\) passed"):
        flow.project.rollback()


def test_rollback_refuses_paths_outside_the_project(regressed: Flow) -> None:
    state = regressed.project.state()
    assert state.pending_rollback is not None
    state.pending_rollback.files.source["../outside.py"] = "0" * 64
    from phasegate.tdd.rollback import plan_rollback

    current = regressed.project.hash_tree()
    current.source["../outside.py"] = "0" * 64
    with pytest.raises(RollbackRefused, match="outside the project"):
        plan_rollback(state, current, regressed.project.objects, regressed.root)


def test_tests_changed_by_a_refactor_are_restored_too(tmp_path: Path) -> None:
    flow = Flow(tmp_path)
    flow.full_cycle()
    flow.write("tests/test_stack.py", TESTS + POP_TEST.replace("== 1", "== 2"))
    flow.run("refactor", passed(PUSH), passed(PEEK), failed(POP))
    flow.project.rollback()
    assert (tmp_path / "tests/test_stack.py").read_text() == TESTS + POP_TEST
