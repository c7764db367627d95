"""The files a build's cache key takes git's state from: read from the repository's folder
where git's own layout says where it is, asked of git in every other case."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from phasegate.gates import git as git_module
from phasegate.gates.git import git_state_files, git_toplevel
from phasegate.gates.protocol import CheckError
from phasegate.processes import Finished

from .samples import git, git_commands_run


def _repository(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "setup.py").write_text("")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "feat: first")
    git(root, "tag", "v1.0")
    return root


def _names(files: list[Path], git_dir: Path) -> set[str]:
    return {path.relative_to(git_dir).as_posix() for path in files}


def _digest(top: Path) -> str:
    """What the cache key takes from git's state files: their names and contents."""
    hasher = hashlib.sha256()
    for path in sorted(git_state_files(top)):
        hasher.update(f"{path}\0".encode() + path.read_bytes())
    return hasher.hexdigest()


#: What git is asked when the folder is not read from the file system.
ASKED = ["rev-parse", "--absolute-git-dir", "--git-common-dir"]


def test_a_git_folder_at_the_top_is_read_without_asking_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repository(tmp_path / "project")
    for name in ("GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE"):
        monkeypatch.delenv(name, raising=False)
    asked = git_commands_run(monkeypatch)
    files = git_state_files(root)
    assert asked == []
    assert _names(files, root / ".git") == {"HEAD", "refs/heads/main", "refs/tags/v1.0"}
    git(root, "pack-refs", "--all")  # the tag and the branch move into packed-refs
    assert _names(git_state_files(root), root / ".git") == {"HEAD", "packed-refs"}


def test_a_linked_work_tree_takes_branches_and_tags_from_the_common_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    main = _repository(tmp_path / "main")
    linked = tmp_path / "linked"
    git(main, "worktree", "add", "-q", "-b", "other", str(linked))
    assert (linked / ".git").is_file()  # it names the folder; only git reads it
    top = git_toplevel(linked)  # as the build check is given it
    assert top is not None
    asked = git_commands_run(monkeypatch)
    files = git_state_files(top)
    assert asked == [ASKED]  # one process, as for the folder alone
    assert _names(files, main / ".git") == {
        "worktrees/linked/HEAD",
        "refs/heads/other",
        "refs/tags/v1.0",
    }


@pytest.mark.parametrize("where", ["linked", "main"])
def test_a_commit_a_tag_and_a_branch_move_change_the_state(where: str, tmp_path: Path) -> None:
    main = _repository(tmp_path / "main")
    git(main, "worktree", "add", "-q", "-b", "other", str(tmp_path / "linked"))
    top = tmp_path / where
    seen = {_digest(top)}
    git(top, "commit", "-q", "--allow-empty", "-m", "feat: second")
    seen.add(_digest(top))
    git(top, "tag", "v9.9")
    seen.add(_digest(top))
    git(top, "reset", "-q", "--hard", "HEAD~1")  # the branch moves back, the tag stays
    seen.add(_digest(top))
    git(top, "pack-refs", "--all")
    seen.add(_digest(top))
    git(top, "tag", "-d", "v9.9")  # a packed tag removed: only packed-refs changes
    seen.add(_digest(top))
    assert len(seen) == 6


def test_git_dir_in_the_environment_asks_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repository(tmp_path / "project")
    monkeypatch.setenv("GIT_DIR", str(root / ".git"))
    asked = git_commands_run(monkeypatch)
    assert _names(git_state_files(root), root / ".git") == {
        "HEAD",
        "refs/heads/main",
        "refs/tags/v1.0",
    }
    assert asked == [ASKED]


def test_outside_a_repository_there_are_none() -> None:
    assert git_state_files(None) == []


#: A layout git's files backend does not positively have, and what git's answer leads to:
#: reftable's tables read, or an error (git 2.39 knows no ``extensions.refStorage``).
NOT_THE_FILES_BACKEND = {
    "a reftable folder": None,
    "extensions.refstorage in the config": "neither git's files backend nor reftable",
    "no refs folder": "not a git repository",
    "no config": "neither git's files backend nor reftable",
}


@pytest.mark.parametrize("layout", sorted(NOT_THE_FILES_BACKEND))
def test_refs_outside_the_files_backend_ask_git(
    layout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repository(tmp_path / "project")
    dot_git = root / ".git"
    if layout == "a reftable folder":
        (dot_git / "reftable").mkdir()
        (dot_git / "reftable" / "tables.list").write_text("0x01-0x02-a.ref\n")
    elif layout == "extensions.refstorage in the config":
        git(root, "config", "extensions.refStorage", "reftable")
    elif layout == "no refs folder":
        git(root, "pack-refs", "--all")
        for folder in ("tags", "heads"):
            (dot_git / "refs" / folder).rmdir()
        (dot_git / "refs").rename(dot_git / "refs-aside")
    else:
        (dot_git / "config").rename(dot_git / "config-aside")
    asked = git_commands_run(monkeypatch)
    error = NOT_THE_FILES_BACKEND[layout]
    if error is None:
        assert "reftable/tables.list" in _names(git_state_files(root), dot_git)
    else:
        with pytest.raises(CheckError, match=error):
            git_state_files(root)
    assert asked == [ASKED]


def test_reftable_s_tables_are_in_the_state(tmp_path: Path) -> None:
    root = _repository(tmp_path / "project")
    tables = root / ".git" / "reftable"
    tables.mkdir()
    (tables / "tables.list").write_text("0x01-0x01-a.ref\n")
    (tables / "0x01-0x01-a.ref").write_bytes(b"REFT")
    before = _digest(root)
    assert {"reftable/tables.list", "reftable/0x01-0x01-a.ref"} <= _names(
        git_state_files(root), root / ".git"
    )
    (tables / "tables.list").write_text("0x01-0x02-b.ref\n")  # what a commit does there
    assert _digest(root) != before


def test_an_unknown_ref_storage_is_an_error(tmp_path: Path) -> None:
    root = _repository(tmp_path / "project")
    git(root, "config", "extensions.refStorage", "some-future-backend")
    with pytest.raises(CheckError, match="neither git's files backend nor reftable") as raised:
        git_state_files(root)
    assert "cache = false" in (raised.value.fix or "")


@pytest.mark.parametrize(
    "answer",
    [
        b"relative/.git\nrelative/.git\n",
        b"",
        b"/no/such/folder/.git\n/no/such/folder/.git\n",
        b"}{ \xe2\x9a\xa0 not what git says\n",
        b"{top}\n",  # one folder of two
        b"{top}\n{top}\n{top}\n",  # an old git echoing an option it does not know
    ],
)
def test_an_answer_that_is_not_two_folders_is_an_error(
    answer: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repository(tmp_path / "project")
    (root / ".git" / "reftable").mkdir()  # not the files backend: git is asked
    said = answer.replace(b"{top}", str(root / ".git").encode())

    def lying(_root: Path, _args: list[str], *_rest: object) -> object:
        return Finished(returncode=0, stdout=said, stderr=b"")

    monkeypatch.setattr(git_module, "_run_git", lying)
    with pytest.raises(CheckError, match="git-common-dir answered"):
        git_state_files(root)


def test_a_common_folder_given_relative_to_the_top_folder_is_taken_from_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repository(tmp_path / "project")
    (root / ".git" / "reftable").mkdir()  # not the files backend: git is asked
    (root / ".git" / "reftable" / "tables.list").write_text("0x1.ref\n")
    said = f"{root / '.git'}\n.git\n".encode()  # as git answers in the main work tree

    def answering(_root: Path, _args: list[str], *_rest: object) -> object:
        return Finished(returncode=0, stdout=said, stderr=b"")

    monkeypatch.setattr(git_module, "_run_git", answering)
    assert "reftable/tables.list" in _names(git_state_files(root), (root / ".git").resolve())


def test_a_git_that_fails_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _repository(tmp_path / "project")
    git(root, "config", "extensions.refStorage", "reftable")

    def crashing(_root: Path, _args: list[str], *_rest: object) -> object:
        return Finished(returncode=128, stdout=b"", stderr=b"fatal: something went very wrong")

    monkeypatch.setattr(git_module, "_run_git", crashing)
    with pytest.raises(CheckError, match="something went very wrong"):
        git_state_files(root)
