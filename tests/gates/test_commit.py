"""The commit check: Conventional Commits over real git histories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError

from phasegate.gates.checks.commit import CommitCheck, CommitOptions, problems_of
from phasegate.gates.protocol import CheckContext, CheckError

from .samples import git

MakeContext = Callable[..., CheckContext]


def commit(root: Path, message: str) -> str:
    (root / "log.txt").write_text((root / "log.txt").read_text() + message + "\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "--short=7", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "log.txt").write_text("")
    commit(tmp_path, "Initial import, before the convention")
    git(tmp_path, "checkout", "-qb", "feature")
    return tmp_path


def test_conforming_history_passes(repo: Path, make_context: MakeContext) -> None:
    commit(repo, "feat(gates): a check")
    commit(repo, "fix: an off-by-one\n\nLonger explanation.\n\nRefs: #3")
    measurement = CommitCheck().measure(make_context(repo, base="main"), CommitOptions())
    # The base commit does not conform, but it is not in base..HEAD.
    assert measurement.metrics == {"nonconforming": 0, "commits": 2, "breaking": 0}
    assert measurement.new_code_metrics == measurement.metrics
    assert "since main" in measurement.summary


def test_each_nonconforming_commit_is_a_finding(repo: Path, make_context: MakeContext) -> None:
    commit(repo, "feat: fine")
    bad = commit(repo, "Updated stuff")
    wrong_type = commit(repo, "feature: not a known type")
    measurement = CommitCheck().measure(make_context(repo, base="main"), CommitOptions())
    assert measurement.metrics["nonconforming"] == 2
    by_sha = {finding.message[:7]: finding.message for finding in measurement.findings}
    assert by_sha[bad].startswith(f"{bad} 'Updated stuff': the first line is not")
    assert by_sha[wrong_type].startswith(f"{wrong_type} 'feature: not a known type': type")
    assert all(finding.rule == "conventional-commit" for finding in measurement.findings)
    assert all(finding.path is None and finding.new for finding in measurement.findings)


def test_without_a_base_only_the_last_commit_is_checked(
    repo: Path, make_context: MakeContext
) -> None:
    commit(repo, "wip")
    commit(repo, "docs: explain the gate")
    measurement = CommitCheck().measure(make_context(repo), CommitOptions())
    assert measurement.metrics == {"nonconforming": 0, "commits": 1, "breaking": 0}
    assert "last commit only" in measurement.summary


def test_merge_commits_are_skipped(repo: Path, make_context: MakeContext) -> None:
    commit(repo, "feat: on the feature branch")
    git(repo, "checkout", "-q", "main")
    (repo / "other.txt").write_text("x\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "chore: on main")
    git(repo, "checkout", "-q", "feature")
    git(repo, "merge", "-q", "--no-edit", "main")
    measurement = CommitCheck().measure(make_context(repo, base="main"), CommitOptions())
    assert measurement.metrics["commits"] == 1
    assert measurement.metrics["nonconforming"] == 0
    assert "1 merge commit(s) skipped" in measurement.summary


def test_breaking_changes_are_counted(repo: Path, make_context: MakeContext) -> None:
    commit(repo, "feat(api)!: drop the old entry point")
    commit(repo, "refactor: rename\n\nBREAKING CHANGE: the option is now called x")
    measurement = CommitCheck().measure(make_context(repo, base="main"), CommitOptions())
    assert measurement.metrics["breaking"] == 2
    assert measurement.metrics["nonconforming"] == 0


@pytest.mark.parametrize(
    ("message", "problem"),
    [
        ("feat: " + "x" * 100, "the first line has 106 characters, more than 100"),
        ("feat: subject\nbody right away", "separated from the first line by a blank line"),
        ("fixup! feat: subject", "squash it before merging"),
        ("feat(): empty scope", "is not 'type(scope)!: description'"),
        ("feat:missing space", "is not 'type(scope)!: description'"),
        ("fix: x\n\nbreaking change: lower case", "must read 'BREAKING CHANGE: <description>'"),
    ],
)
def test_rules_of_the_convention(message: str, problem: str) -> None:
    problems, _ = problems_of(message, CommitOptions())
    assert any(problem in text for text in problems), problems


@pytest.mark.parametrize(
    "message",
    [
        "Feat: types compare without case",
        'Revert "feat: something"\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.',
        "revert: feat: x",
    ],
)
def test_accepted_forms(message: str) -> None:
    assert problems_of(message, CommitOptions()) == ([], False)


def test_a_revert_is_one_only_when_git_revert_wrote_it() -> None:
    # git's revert names the commit it reverts; the first line alone is any message quoted.
    problems, _ = problems_of('Revert "wip"', CommitOptions())
    assert problems == ["the first line is not 'type(scope)!: description'"]


def test_types_and_length_are_options(repo: Path, make_context: MakeContext) -> None:
    commit(repo, "wip: trying things out")
    options = CommitOptions(types=["feat", "wip"], max_subject_length=20)
    measurement = CommitCheck().measure(make_context(repo, base="main"), options)
    (finding,) = measurement.findings
    assert "22 characters, more than 20" in finding.message
    assert "type" not in finding.message.split(":", 1)[1]


def test_options_are_validated() -> None:
    with pytest.raises(ValidationError, match="is not a commit type"):
        CommitOptions.model_validate({"types": ["feat", "no spaces allowed"]})
    with pytest.raises(ValidationError, match="max_subject_length"):
        CommitOptions.model_validate({"max_subject_length": 0})
    with pytest.raises(ValidationError, match="extra"):
        CommitOptions.model_validate({"scopes": ["api"]})


def test_outside_git_is_an_error(tmp_path: Path, make_context: MakeContext) -> None:
    with pytest.raises(CheckError, match="not in a git work tree"):
        CommitCheck().measure(make_context(tmp_path), CommitOptions())


def test_repository_without_commits_is_skipped(tmp_path: Path, make_context: MakeContext) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    measurement = CommitCheck().measure(make_context(tmp_path), CommitOptions())
    assert measurement.skipped is not None
    assert "no commits yet" in measurement.skipped
