"""The files a build's cache key takes git's state from: read from the repository's folder
where git's own layout says where it is, asked of git in every other case."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.gates import git as git_module
from phasegate.gates.git import git_state_files, git_toplevel
from phasegate.gates.protocol import CheckError
from phasegate.processes import Finished

from .samples import git


def _repository(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "setup.py").write_text("")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "feat: first")
    git(root, "tag", "v1.0")
    return root


def _asked(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Every git command run from now on, recorded (and run)."""
    asked: list[list[str]] = []
    real = git_module._run_git

    def recording(root: Path, args: list[str], *rest: object) -> object:
        asked.append(args)
        return real(root, args, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(git_module, "_run_git", recording)
    return asked


def _names(files: list[Path], git_dir: Path) -> set[str]:
    return {path.relative_to(git_dir).as_posix() for path in files}


def test_a_git_folder_at_the_top_is_read_without_asking_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repository(tmp_path / "project")
    for name in ("GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE"):
        monkeypatch.delenv(name, raising=False)
    asked = _asked(monkeypatch)
    files = git_state_files(root)
    assert asked == []
    assert _names(files, root / ".git") == {"HEAD", "refs/heads/main", "refs/tags/v1.0"}
    git(root, "pack-refs", "--all")  # the tag and the branch move into packed-refs
    assert _names(git_state_files(root), root / ".git") == {"HEAD", "packed-refs"}


def test_a_linked_work_tree_asks_git_for_its_folder(tmp_path: Path) -> None:
    main = _repository(tmp_path / "main")
    linked = tmp_path / "linked"
    git(main, "worktree", "add", "-q", "-b", "other", str(linked))
    assert (linked / ".git").is_file()  # it names the folder; only git reads it
    top = git_toplevel(linked)
    assert top is not None
    git_dir = Path(git(linked, "rev-parse", "--absolute-git-dir"))
    assert git_dir != linked / ".git"
    assert "HEAD" in _names(git_state_files(top), git_dir)


def test_git_dir_in_the_environment_asks_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repository(tmp_path / "project")
    monkeypatch.setenv("GIT_DIR", str(root / ".git"))
    asked = _asked(monkeypatch)
    git_state_files(root)
    assert asked == [["rev-parse", "--absolute-git-dir"]]


def test_outside_a_repository_there_are_none() -> None:
    assert git_state_files(None) == []


@pytest.mark.parametrize("answer", [b"relative/.git\n", b"", b"/no/such/folder/.git\n"])
def test_an_answer_that_is_not_a_folder_is_an_error(
    answer: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repository(tmp_path / "project")
    (root / ".git" / "HEAD").unlink()  # not git's own layout: git is asked

    def lying(_root: Path, _args: list[str], *_rest: object) -> object:
        return Finished(returncode=0, stdout=answer, stderr=b"")

    monkeypatch.setattr(git_module, "_run_git", lying)
    with pytest.raises(CheckError, match="absolute-git-dir answered"):
        git_state_files(root)
