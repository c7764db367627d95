"""Candidates are written only where allowed, and every byte is put back."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from phasegate.autodebug.diagnosis import FileEdit
from phasegate.autodebug.project import Project, TestFiles
from phasegate.autodebug.settings import DEFAULT_TEST_FILES
from phasegate.autodebug.workspace import EditRefused, Workspace, recover
from tests.autodebug_support import write_project

ORIGINAL = b"def f():\r\n    return 1  # caf\xc3\xa9\r\n"
OLD_MTIME_NS = 1_600_000_000_123_456_789


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    write_project(tmp_path, {"tests/test_f.py": "def test_f():\n    pass\n", "test_top.py": ""})
    (tmp_path / "pkg").mkdir()
    module = tmp_path / "pkg" / "mod.py"
    module.write_bytes(ORIGINAL)
    os.chmod(module, 0o640)
    os.utime(module, ns=(OLD_MTIME_NS, OLD_MTIME_NS))
    project = Project(tmp_path, TestFiles(DEFAULT_TEST_FILES))
    return Workspace(project, tmp_path / ".phasegate" / "autodebug" / "journal.json")


def state(path: Path) -> tuple[bytes, int, int]:
    stat = path.stat()
    return path.read_bytes(), stat.st_mtime_ns, stat.st_mode


def test_a_trial_is_restored_byte_for_byte_with_mode_and_mtime(workspace: Workspace) -> None:
    module = workspace.project.root / "pkg" / "mod.py"
    before = state(module)
    with workspace.trial([FileEdit("pkg/mod.py", "def f():\n    return 2\n")]):
        assert module.read_text() == "def f():\n    return 2\n"
        assert workspace.journal.is_file()
    assert state(module) == before
    assert not workspace.journal.exists()


def test_a_kept_trial_stays(workspace: Workspace) -> None:
    module = workspace.project.root / "pkg" / "mod.py"
    with workspace.trial([FileEdit("pkg/mod.py", "X = 1\n")]) as trial:
        trial.keep()
    assert module.read_text() == "X = 1\n"
    assert module.stat().st_mode & 0o777 == 0o640
    assert not workspace.journal.exists()


def test_a_candidate_of_the_same_size_is_never_taken_for_the_cached_original(
    tmp_path: Path,
) -> None:
    # The original is written and compiled to a .pyc, and the candidate of the same size is
    # written within the same second: without care, Python would run the old bytecode.
    module = tmp_path / "same.py"
    module.write_text("DIVISOR = 0\n")
    stamp_ns = (module.stat().st_mtime_ns // 1_000_000_000) * 1_000_000_000 + 1
    os.utime(module, ns=(stamp_ns, stamp_ns))
    load = [sys.executable, "-c", "import same; print(same.DIVISOR)"]
    subprocess.run(
        load, cwd=tmp_path, check=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
    )
    assert list((tmp_path / "__pycache__").glob("same.*.pyc"))
    workspace = Workspace(Project(tmp_path, TestFiles(DEFAULT_TEST_FILES)), tmp_path / "j.json")
    with workspace.trial([FileEdit("same.py", "DIVISOR = 1\n")]):
        child_env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        seen = subprocess.run(load, cwd=tmp_path, env=child_env, capture_output=True, text=True)
        assert seen.stdout.strip() == "1"
    assert module.stat().st_mtime_ns == stamp_ns
    assert module.read_text() == "DIVISOR = 0\n"


@pytest.mark.parametrize("error", [RuntimeError("crash"), KeyboardInterrupt()])
def test_files_are_restored_on_an_error_or_ctrl_c(
    workspace: Workspace, error: BaseException
) -> None:
    module = workspace.project.root / "pkg" / "mod.py"
    before = state(module)
    with pytest.raises(type(error)), workspace.trial([FileEdit("pkg/mod.py", "broken(\n")]):
        raise error
    assert state(module) == before


def test_sigterm_during_a_trial_restores_and_interrupts(workspace: Workspace) -> None:
    module = workspace.project.root / "pkg" / "mod.py"
    before = state(module)
    handler = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), workspace.trial([FileEdit("pkg/mod.py", "Y = 2\n")]):
        os.kill(os.getpid(), signal.SIGTERM)
    assert state(module) == before
    assert signal.getsignal(signal.SIGTERM) == handler


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("tests/test_f.py", "test file"),
        ("test_top.py", "test file"),
        ("../outside.py", "may be edited"),
        ("pkg/missing.py", "may be edited"),
    ],
)
def test_test_files_and_files_outside_the_project_are_refused(
    workspace: Workspace, path: str, why: str
) -> None:
    snapshot = {p: p.read_bytes() for p in workspace.project.root.rglob("*") if p.is_file()}
    with pytest.raises(EditRefused, match=why), workspace.trial([FileEdit(path, "x = 1\n")]):
        pass
    after = {p: p.read_bytes() for p in workspace.project.root.rglob("*") if p.is_file()}
    assert after == snapshot
    assert not (workspace.project.root.parent / "outside.py").exists()


def test_a_crashed_run_is_recovered_from_the_journal(workspace: Workspace) -> None:
    module = workspace.project.root / "pkg" / "mod.py"
    before = state(module)
    saved = workspace.journal.with_name("saved.json")
    with workspace.trial([FileEdit("pkg/mod.py", "CANDIDATE = 1\n")]):
        shutil.copy(workspace.journal, saved)  # what a SIGKILL here would leave behind
        crashed = module.read_bytes()
    module.write_bytes(crashed)
    shutil.move(saved, workspace.journal)
    messages = recover(workspace.journal, workspace.project.root)
    assert messages == [f"restored {module}, which an interrupted auto-debug run left changed"]
    assert state(module)[:2] == before[:2]
    assert not workspace.journal.exists()


def test_recovery_never_overwrites_a_file_edited_since(workspace: Workspace) -> None:
    module = workspace.project.root / "pkg" / "mod.py"
    saved = workspace.journal.with_name("saved.json")
    with workspace.trial([FileEdit("pkg/mod.py", "CANDIDATE = 1\n")]):
        shutil.copy(workspace.journal, saved)
    module.write_text("EDITED_BY_HAND = 1\n")
    shutil.move(saved, workspace.journal)
    (message,) = recover(workspace.journal, workspace.project.root)
    assert "left as it is" in message
    assert module.read_text() == "EDITED_BY_HAND = 1\n"
    assert workspace.journal.with_name("mod.py.orig").read_bytes() == ORIGINAL
