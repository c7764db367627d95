"""The project's files: git's view, the packages, and the exclude patterns."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from phasegate.gates.project import GateProject
from tests.conftest import git
from tests.gates.samples import git_commands_run

WriteFiles = Callable[..., Path]

FILES = {
    "pyproject.toml": "",
    "src/app/__init__.py": "",
    "src/app/core.py": "",
    "tests/test_core.py": "",
    "fixtures/broken/bad.py": "def f(:\n",
    "build/lib/app/core.py": "",
}


def test_files_come_from_git_and_skip_ignored_ones(write_files: WriteFiles) -> None:
    root = write_files({**FILES, ".gitignore": "build/\n"})
    git(root, "init", "-q")
    project = GateProject(root)
    names = [project.relative(p) for p in project.python_files]
    assert names == [
        "fixtures/broken/bad.py",
        "src/app/__init__.py",
        "src/app/core.py",
        "tests/test_core.py",
    ]
    assert [project.relative(p) for p in project.package_dirs] == ["src/app"]
    assert [project.relative(p) for p in project.source_files] == [
        "src/app/__init__.py",
        "src/app/core.py",
    ]


def test_outside_git_the_folder_is_walked_without_build_output(write_files: WriteFiles) -> None:
    root = write_files(FILES)
    names = [GateProject(root).relative(p) for p in GateProject(root).python_files]
    assert "build/lib/app/core.py" not in names
    assert "src/app/core.py" in names


def test_exclude_patterns_leave_files_out(write_files: WriteFiles) -> None:
    root = write_files(FILES)
    project = GateProject(root, exclude_patterns=["fixtures/*", "*/core.py"])
    names = [project.relative(p) for p in project.python_files]
    assert names == ["src/app/__init__.py", "tests/test_core.py"]


def test_packages_setting_wins_over_detection(write_files: WriteFiles) -> None:
    root = write_files({**FILES, "lib/tool.py": ""})
    project = GateProject(root, packages_setting=["lib/tool.py"])
    assert [project.relative(p) for p in project.package_dirs] == ["lib/tool.py"]


def test_all_files_lists_every_kind_of_file(write_files: WriteFiles) -> None:
    root = write_files({**FILES, "README.md": "# app\n", "data/table.csv": "a,b\n"})
    git(root, "init", "-q")
    names = [
        GateProject(root).relative(p)
        for p in GateProject(root, exclude_patterns=["fixtures/*"]).all_files
    ]
    assert "README.md" in names
    assert "data/table.csv" in names
    assert "src/app/core.py" in names
    assert "fixtures/broken/bad.py" not in names


def test_whether_in_a_work_tree_and_its_top_folder_are_one_git_question(
    write_files: WriteFiles, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_files({"libs/one/setup.py": ""})
    git(root, "init", "-q")
    asked = git_commands_run(monkeypatch)
    project = GateProject(root / "libs" / "one")
    assert project.in_git
    assert project.git_toplevel is not None
    assert project.git_toplevel.resolve() == root.resolve()
    assert asked == [["rev-parse", "--is-inside-work-tree", "--show-toplevel"]]
    inside_git_folder = GateProject(root / ".git")
    assert not inside_git_folder.in_git
    assert inside_git_folder.git_toplevel is None


@pytest.mark.parametrize(
    "answer", [b"true\n", b"false\n/x\n", b"true\nrelative\n", b"true\n/\n/\n", b""]
)
def test_an_answer_about_the_work_tree_that_is_not_git_s_is_an_error(
    answer: bytes, write_files: WriteFiles, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phasegate.gates import git as git_module
    from phasegate.gates.protocol import CheckError
    from phasegate.processes import Finished

    root = write_files({"setup.py": ""})
    git(root, "init", "-q")

    def lying(_cwd: Path, _args: list[str], *_rest: object) -> object:
        return Finished(returncode=0, stdout=answer, stderr=b"")

    monkeypatch.setattr(git_module, "_run_git", lying)
    with pytest.raises(CheckError, match="answered"):
        assert GateProject(root).in_git
