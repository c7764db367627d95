"""The copy of a project the build check works on."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.gates.project import GateProject
from phasegate.gates.snapshot import copy_project
from phasegate.store import Store

from .samples import git, git_commands_run


def test_git_copy_holds_what_a_commit_would_and_the_history(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / ".gitignore").write_text("*.log\n")
    (project / "pkg/__init__.py").write_text("VERSION = 1\n")
    (project / "gone.txt").write_text("deleted after the commit\n")
    git(project, "init", "-q", "-b", "main")
    git(project, "add", ".")
    git(project, "commit", "-qm", "feat: first")
    git(project, "tag", "v1.0")
    (project / "pkg/__init__.py").write_text("VERSION = 2\n")  # uncommitted change
    (project / "pkg/new.py").write_text("")  # untracked, not ignored
    (project / "debug.log").write_text("")  # ignored
    (project / "gone.txt").unlink()
    store = Store(project / ".phasegate")
    store.ensure_writable()

    copy = copy_project(GateProject(project), store, tmp_path / "copy", timeout_s=60)

    assert (copy / "pkg/__init__.py").read_text() == "VERSION = 2\n"
    assert (copy / "pkg/new.py").is_file()
    assert not (copy / "debug.log").exists()
    assert not (copy / "gone.txt").exists()
    assert not (copy / ".phasegate").exists()
    assert git(copy, "describe", "--tags") == "v1.0"
    # The original repository is untouched.
    status = {line.strip() for line in git(project, "status", "--porcelain").splitlines()}
    assert status == {"M pkg/__init__.py", "D gone.txt", "?? pkg/new.py"}


def committed_with_an_untracked_file(tmp_path: Path) -> Path:
    """A project whose one commit holds ``pkg/__init__.py``, with ``pkg/new.py`` untracked."""
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg/__init__.py").write_text("")
    git(project, "init", "-q", "-b", "main")
    git(project, "add", ".")
    git(project, "commit", "-qm", "feat: first")
    (project / "pkg/new.py").write_text("")  # untracked, not ignored
    return project


def test_the_copy_takes_nothing_from_gits_template_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = committed_with_an_untracked_file(tmp_path)
    template = tmp_path / "template"
    (template / "hooks").mkdir(parents=True)
    (template / "hooks/post-checkout").write_text("#!/bin/sh\nexit 1\n")
    (template / "info").mkdir()
    (template / "info/exclude").write_text("*.py\n")
    monkeypatch.setenv("GIT_TEMPLATE_DIR", str(template))

    copy = copy_project(GateProject(project), Store(project / ".pg"), tmp_path / "copy", 60)

    assert not (copy / ".git/hooks").exists()
    # the backends' git sees the untracked file as the project's git does
    assert git(copy, "status", "--porcelain") == "?? pkg/new.py"


def test_project_in_a_subfolder_of_the_repository(tmp_path: Path) -> None:
    project = tmp_path / "libs" / "one"
    project.mkdir(parents=True)
    (project / "setup.py").write_text("")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "feat: first")
    copy = copy_project(GateProject(project), Store(project / ".pg"), tmp_path / "copy", 60)
    assert copy == tmp_path / "copy" / "libs" / "one"
    assert (copy / "setup.py").is_file()


def test_folder_outside_git_is_copied_without_environments(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".venv/lib").mkdir(parents=True)
    (project / "pkg").mkdir()
    (project / "pkg/__init__.py").write_text("")
    (project / ".phasegate").mkdir()
    copy = copy_project(GateProject(project), Store(project / ".phasegate"), tmp_path / "copy", 60)
    assert (copy / "pkg/__init__.py").is_file()
    assert not (copy / ".venv").exists()
    assert not (copy / ".phasegate").exists()


def test_a_project_at_the_top_folder_is_listed_once_for_its_files_and_its_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = committed_with_an_untracked_file(tmp_path)
    asked = git_commands_run(monkeypatch)
    gate_project = GateProject(project)
    assert [path.name for path in gate_project.all_files] == ["__init__.py", "new.py"]
    copy = copy_project(gate_project, Store(project / ".pg"), tmp_path / "copy", 60)
    assert (copy / "pkg/new.py").is_file()
    assert [args[0] for args in asked].count("ls-files") == 1


def test_the_copy_leaves_out_the_artifacts_git_lists_and_keeps_links_as_links(
    tmp_path: Path,
) -> None:
    project = committed_with_an_untracked_file(tmp_path)
    (project / "artifacts" / "gates").mkdir(parents=True)  # not ignored: git lists it
    (project / "artifacts" / "gates" / "result.json").write_text("{}")
    (project / "artifacts-notes.txt").write_text("a file whose name only starts alike\n")
    (project / "link.py").symlink_to("pkg/__init__.py")
    (project / "pkg" / "sub").mkdir()
    (project / "pkg" / "sub" / "deep.py").write_text("DEEP = 1\n")
    (project / "pkg" / "sub" / "deep.py").chmod(0o755)
    store = Store(project / "artifacts")

    copy = copy_project(GateProject(project), store, tmp_path / "copy", 60)

    assert not (copy / "artifacts").exists()
    assert (copy / "artifacts-notes.txt").is_file()
    assert (copy / "link.py").is_symlink()
    assert str((copy / "link.py").readlink()) == "pkg/__init__.py"
    assert (copy / "pkg" / "sub" / "deep.py").read_text() == "DEEP = 1\n"
    assert (copy / "pkg" / "sub" / "deep.py").stat().st_mode & 0o777 == 0o755
