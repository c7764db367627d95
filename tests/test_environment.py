"""Where a run happened: the git query the recorder starts early and reads at the end."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from phasegate.environment import GitQuery, parse_git_status


def make_repo(path: Path) -> None:
    (path / "a.txt").write_text("a\n")
    for command in (
        ["git", "init", "-q", "-b", "trunk"],
        ["git", "add", "."],
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "x"],
    ):
        subprocess.run(command, cwd=path, check=True)


def test_a_query_started_early_answers_when_read(tmp_path: Path) -> None:
    make_repo(tmp_path)
    query = GitQuery(tmp_path)
    query.reap()  # whether or not git has ended yet, its answer stays readable
    answer = query.result()
    assert answer is not None
    assert answer["branch"] == "trunk"
    assert len(answer["sha"]) == 40
    assert query.result() == answer  # read twice, asked once
    query.close()  # nothing left to reap


def test_outside_a_repository_the_answer_is_none(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("not a repository")  # stops git from looking further up
    assert GitQuery(tmp_path).result() is None


def test_a_query_nobody_read_is_reaped_on_close(tmp_path: Path) -> None:
    make_repo(tmp_path)
    query = GitQuery(tmp_path)
    query.close()
    assert query.result() is None  # closed unread: no answer, and no process left behind


def test_without_git_on_the_path_the_answer_is_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert GitQuery(tmp_path).result() is None


def test_the_status_lines_give_commit_branch_and_dirtiness() -> None:
    clean = "# branch.oid " + "a" * 40 + "\n# branch.head main\n"
    assert parse_git_status(clean) == {"sha": "a" * 40, "branch": "main", "dirty": False}
    assert parse_git_status(clean + "1 .M N... 100644 100644 100644 x y f.py\n")["dirty"]
    assert parse_git_status(clean + "? tests/test_new.py\n")["dirty"]
    for cache in ("? __pycache__/\n", "? tests/__pycache__/\n", "? calc.pyc\n"):
        assert not parse_git_status(clean + cache)["dirty"], cache
    fresh = "# branch.oid (initial)\n# branch.head (detached)\n"
    assert parse_git_status(fresh) == {"sha": None, "branch": None, "dirty": False}


def test_reaping_collects_an_ended_git_and_keeps_its_answer(tmp_path: Path) -> None:
    make_repo(tmp_path)
    query = GitQuery(tmp_path)
    process = query._process
    assert process is not None
    deadline = time.monotonic() + 30
    while process.returncode is None and time.monotonic() < deadline:
        query.reap()  # no zombie left once git has ended, long before the answer is read
        time.sleep(0.01)
    assert process.returncode == 0
    answer = query.result()
    assert answer is not None
    assert answer["branch"] == "trunk"
