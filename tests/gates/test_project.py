"""The project's files: git's view, the packages, and the exclude patterns."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from phasegate.gates.project import GateProject
from tests.conftest import git

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
