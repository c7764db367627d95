"""The breaking check: the public API of real git histories, compared with griffe."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError

from phasegate.gates.checks.breaking import BreakingCheck
from phasegate.gates.protocol import CheckContext, CheckError, NoOptions

from .samples import git

MakeContext = Callable[..., CheckContext]
WriteFiles = Callable[..., Path]

API_V1 = '''\
"""Version 1."""


def greet(name, punctuation="!"):
    """Greet."""
    return f"hello {name}{punctuation}"


def farewell():
    """Leave."""


class Greeter:
    """Greets."""

    def greet(self, name):
        """Greet one."""
'''


@pytest.fixture
def repo(tmp_path: Path, write_files: WriteFiles) -> Path:
    write_files({"src/hello/__init__.py": API_V1, "pyproject.toml": "[project]\nname='hello'\n"})
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "feat: v1")
    git(tmp_path, "checkout", "-qb", "feature")
    return tmp_path


def test_compatible_change_passes(repo: Path, make_context: MakeContext) -> None:
    source = repo / "src/hello/__init__.py"
    source.write_text(API_V1 + '\n\ndef added(x=1):\n    """New, optional."""\n')
    measurement = BreakingCheck().measure(make_context(repo, base="main"), NoOptions())
    assert measurement.skipped is None
    assert measurement.metrics == {"breaking_changes": 0}
    assert "public API of hello is compatible with main" in measurement.summary
    # The project's repository is only read: no griffe worktree or branch is left behind.
    assert git(repo, "branch", "--list").split() == ["*", "feature", "main"]
    assert len(git(repo, "worktree", "list").splitlines()) == 1


def test_each_breaking_change_is_a_finding(repo: Path, make_context: MakeContext) -> None:
    source = repo / "src/hello/__init__.py"
    changed = (
        API_V1.replace('def greet(name, punctuation="!"):', "def greet(name, title, punctuation):")
        .replace('def farewell():\n    """Leave."""\n', "")
        .replace("def greet(self, name):", "def greet(self):")
    )
    source.write_text(changed)
    measurement = BreakingCheck().measure(make_context(repo, base="main"), NoOptions())
    rules = sorted(finding.rule for finding in measurement.findings)
    assert rules == [
        "object-removed",
        "parameter-added-required",
        "parameter-changed-required",
        "parameter-moved",
        "parameter-removed",
    ]
    assert measurement.metrics == {"breaking_changes": 5}
    assert measurement.new_code_metrics == {"breaking_changes": 5}
    by_rule = {finding.rule: finding for finding in measurement.findings}
    removed = by_rule["object-removed"]
    assert (removed.path, removed.line) == ("src/hello/__init__.py", None)
    assert "`farewell`" in removed.message
    assert "it was at line 9 at the base" in removed.message
    added = by_rule["parameter-added-required"]
    assert (added.path, added.line) == ("src/hello/__init__.py", 4)
    assert "`greet(title)`" in added.message
    method = by_rule["parameter-removed"]
    assert "`Greeter.greet(name)`" in method.message
    assert all(finding.new and finding.severity.value == "high" for finding in measurement.findings)
    assert "since main" in measurement.summary


@pytest.mark.parametrize("cwd", ["root", "elsewhere"])
def test_a_flat_layout_compares_the_base_not_the_work_tree_twice(
    tmp_path: Path,
    write_files: WriteFiles,
    make_context: MakeContext,
    monkeypatch: pytest.MonkeyPatch,
    cwd: str,
) -> None:
    # The package beside pyproject.toml, and the gate run from the project root: a folder
    # of the package's name in the current directory must not stand in for the base.
    project = tmp_path / "project"
    project.mkdir()
    write_files({"project/hello/__init__.py": API_V1, "project/pyproject.toml": "[project]\n"})
    git(project, "init", "-q", "-b", "main")
    git(project, "add", ".")
    git(project, "commit", "-qm", "feat: v1")
    source = project / "hello/__init__.py"
    source.write_text(API_V1.replace("def greet(name, punctuation", "def greet(who, punctuation"))
    git(project, "commit", "-qam", "refactor: rename a parameter")
    monkeypatch.chdir(project if cwd == "root" else tmp_path)
    measurement = BreakingCheck().measure(make_context(project, base="HEAD~1"), NoOptions())
    rules = sorted(finding.rule for finding in measurement.findings)
    assert rules == ["parameter-added-required", "parameter-removed"]
    assert measurement.metrics == {"breaking_changes": 2}
    assert "compatible" not in measurement.summary


def test_latest_tag_is_the_base_without_a_run_base(repo: Path, make_context: MakeContext) -> None:
    git(repo, "tag", "v1.0", "main")
    source = repo / "src/hello/__init__.py"
    source.write_text(API_V1.replace('def farewell():\n    """Leave."""\n', ""))
    git(repo, "commit", "-qam", "feat!: drop farewell")
    measurement = BreakingCheck().measure(make_context(repo), NoOptions())
    assert measurement.metrics == {"breaking_changes": 1}
    assert "v1.0 (the latest tag" in measurement.summary


def test_without_base_or_tag_it_is_skipped_with_the_reason(
    repo: Path, make_context: MakeContext
) -> None:
    measurement = BreakingCheck().measure(make_context(repo), NoOptions())
    assert measurement.skipped == "no base ref or tag to compare the public API with"
    assert measurement.metrics == {"breaking_changes": None}


def test_outside_git_it_is_skipped(write_files: WriteFiles, make_context: MakeContext) -> None:
    write_files({"src/hello/__init__.py": API_V1})
    measurement = BreakingCheck().measure(make_context(), NoOptions())
    assert measurement.skipped is not None
    assert "not a git work tree" in measurement.skipped


def test_each_package_is_compared_and_new_ones_cannot_break(
    repo: Path, write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files({"src/other/__init__.py": '"""Brand new."""\n'}, repo)
    source = repo / "src/hello/__init__.py"
    source.write_text(API_V1.replace("class Greeter:", "class Welcomer:"))
    measurement = BreakingCheck().measure(make_context(repo, base="main"), NoOptions())
    (finding,) = measurement.findings
    assert finding.rule == "object-removed"
    assert "`Greeter`" in finding.message


def test_project_in_a_subfolder_of_the_repository(
    tmp_path: Path, write_files: WriteFiles, make_context: MakeContext
) -> None:
    project = tmp_path / "libs" / "hello"
    write_files({"hello/__init__.py": API_V1}, project)
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "feat: v1")
    (project / "hello/__init__.py").write_text(API_V1.replace("def farewell():", "def bye():"))
    measurement = BreakingCheck().measure(make_context(project, base="main"), NoOptions())
    (finding,) = measurement.findings
    assert finding.path == "hello/__init__.py"
    assert "`farewell`" in finding.message


def test_work_tree_that_does_not_parse_is_an_error(repo: Path, make_context: MakeContext) -> None:
    (repo / "src/hello/__init__.py").write_text("def greet(:\n")
    with pytest.raises(CheckError, match="cannot be read or parsed"):
        BreakingCheck().measure(make_context(repo, base="main"), NoOptions())


def test_takes_no_options() -> None:
    with pytest.raises(ValidationError, match="extra"):
        BreakingCheck.options_model.model_validate({"base": "v1"})


def test_without_griffe_is_an_error_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "griffe" else real(name, *a)
    )
    with pytest.raises(CheckError) as caught:
        BreakingCheck().tool_info()
    assert "griffe is not installed" in caught.value.reason
    assert caught.value.fix is not None
    assert "pip install 'pytest-phasegate[gate]'" in caught.value.fix
