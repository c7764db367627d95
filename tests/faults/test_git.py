"""git failing every way: a corrupt index, a git that crashes, hangs, lies or is missing.

git answers the checks' questions (which files, which commit, which tag, the base's tree); an
answer that is not git's own recognizable one must be an error, never "no files" or "no
commits", which would let syntax, lint and security pass over nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from phasegate.gates import git as git_module
from tests.faults.conftest import Tried
from tests.faults.kit import HANG, all_dead, fake_executable, judge, refused, small_project

#: Checks that ask git something before they measure anything.
GIT_CHECKS = ("syntax", "lint", "security", "commit", "breaking", "review", "build")

FAKE_GITS = {
    "crashes": 'import sys\nsys.stderr.write("fatal: something went very wrong\\n")\nsys.exit(128)',
    "exits 1 saying nothing": "import sys\nsys.exit(1)",
    "prints nothing": "",
    "prints garbage": 'print("}{ \\u26a0 not what git says")',
    "is killed by a signal": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
}


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("small")
    small_project(root)
    return root


def _copy(source: Path, into: Path) -> Path:
    shutil.copytree(source, into, symlinks=True)
    return into


def test_a_corrupt_index_is_an_error_not_no_files(tmp_path: Path, tried: Tried) -> None:
    root = small_project(tmp_path)
    (root / "src/small/broken.py").write_text(
        "import subprocess\nsubprocess.call('ls', shell=True)\ndef oops(:\n", encoding="utf-8"
    )
    (root / ".git/index").write_bytes(b"garbage, not an index")
    for check_id in ("syntax", "lint", "security"):
        with tried("git", f"a corrupt .git/index ({check_id})"):
            verdict, result = judge(root, check_id)
            refused(verdict, result, "index")


@pytest.mark.parametrize("check_id", GIT_CHECKS)
@pytest.mark.parametrize("fault", sorted(FAKE_GITS))
def test_a_misbehaving_git_is_an_error_never_a_pass(
    check_id: str, fault: str, committed: Path, fake_bin: Path, tmp_path: Path, tried: Tried
) -> None:
    root = _copy(committed, tmp_path / "project")
    fake_executable(fake_bin, "git", FAKE_GITS[fault])
    with tried("git", f"git {fault} ({check_id})"):
        verdict, result = judge(root, check_id)
        refused(verdict, result)


@pytest.mark.parametrize("check_id", ["syntax", "commit", "build"])
def test_a_hung_git_is_stopped_with_its_children(
    check_id: str,
    committed: Path,
    fake_bin: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tried: Tried,
) -> None:
    root = _copy(committed, tmp_path / "project")
    fake_executable(fake_bin, "git", HANG)
    pids = tmp_path / "pids.txt"
    monkeypatch.setenv("FAKE_PIDS", str(pids))
    monkeypatch.setattr(git_module, "GIT_TIMEOUT_S", 1.5)
    with tried("git", f"git hangs, with a child holding its output ({check_id})"):
        verdict, result = judge(root, check_id, timeout_s=20.0)
        refused(verdict, result, "did not answer within")
        started = [int(pid) for line in pids.read_text().splitlines() for pid in line.split()]
        assert started, "the fake git never ran"
        assert all_dead(started), f"left running: {started}"


@pytest.mark.parametrize("check_id", ["syntax", "commit", "review"])
def test_git_missing_in_a_repository_is_an_error(
    check_id: str,
    committed: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tried: Tried,
) -> None:
    root = _copy(committed, tmp_path / "project")
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with tried("git", f"git is not installed, in a repository ({check_id})"):
        verdict, result = judge(root, check_id)
        refused(verdict, result, "git")
