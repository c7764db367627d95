"""New code: diff parsing, base resolution against a real git repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from phasegate.errors import UsageError
from phasegate.gates import newcode
from phasegate.gates.newcode import parse_unified_diff, resolve_new_code, split_numstat_and_patch

DIFF = """\
diff --git a/src/a.py b/src/a.py
--- a/src/a.py
+++ b/src/a.py
@@ -3 +3,2 @@ def f():
-    return 1
+    x = 2
+    return x
@@ -10,0 +12 @@ def g():
+    pass
diff --git a/old.py b/old.py
--- a/old.py
+++ /dev/null
@@ -1 +0,0 @@
-gone
diff --git a/src/b.py b/src/b.py
--- a/src/b.py
+++ b/src/b.py
@@ -5,2 +4,0 @@
-removed
-removed
"""


def test_hunks_become_changed_lines() -> None:
    assert parse_unified_diff(DIFF) == {
        "src/a.py": frozenset({3, 4, 12}),
        "src/b.py": frozenset(),
    }


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "mod.py").write_text("a = 1\nb = 2\nc = 3\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    git(tmp_path, "checkout", "-qb", "feature")
    (tmp_path / "mod.py").write_text("a = 1\nb = 20\nc = 3\nd = 4\n")
    git(tmp_path, "commit", "-qam", "change")
    (tmp_path / "fresh.py").write_text("x = 1\n")
    return tmp_path


def test_lines_changed_against_the_base_and_untracked_files(repo: Path) -> None:
    new = resolve_new_code(repo, "main", {})
    assert new.base.available
    assert new.base.ref == "main"
    assert new.contains("mod.py", 2)
    assert new.contains("mod.py", 4)
    assert not new.contains("mod.py", 1)
    assert new.contains("fresh.py", 1)
    assert new.base.changed_files == 2


@pytest.mark.parametrize("attribute", ["binary", "-diff"])
def test_a_changed_file_git_diffs_as_binary_is_new_code_whole(repo: Path, attribute: str) -> None:
    # Notebook projects often mark notebooks so; git then prints no hunk for them, and a
    # notebook's findings (no line) would never be new.
    (repo / ".gitattributes").write_text(f"*.ipynb {attribute}\n")
    (repo / "n.ipynb").write_text('{"cells": []}\n')
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "notebook")
    git(repo, "branch", "-f", "main")
    (repo / "n.ipynb").write_text('{"cells": [{"source": ["import os"]}]}\n')
    new = resolve_new_code(repo, "main", {})
    assert new.contains("n.ipynb", None)
    assert new.contains("n.ipynb", 1)
    assert new.whole_files == {"n.ipynb"}  # nothing else changed since main
    assert new.base.changed_files == 1


def test_one_git_diff_gives_the_binary_files_and_the_changed_lines(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / ".gitattributes").write_text("*.ipynb binary\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-qm", "attributes")
    git(repo, "branch", "-f", "main")
    started: list[list[str]] = []
    real = newcode.run_in_group

    def recording(command: list[str], **options: object) -> object:
        started.append(command)
        return real(command, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(newcode, "run_in_group", recording)
    (repo / "n.ipynb").write_text("{}\n")
    git(repo, "add", "n.ipynb")
    new = resolve_new_code(repo, "main", {})
    assert new.whole_files == {"n.ipynb", "fresh.py"}
    assert [command[1] for command in started].count("diff") == 1


def test_a_renamed_file_and_a_name_with_a_space(repo: Path) -> None:
    (repo / "old name.py").write_text("k = 1\n")
    (repo / "data.bin").write_bytes(b"\0binary\0")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "more")
    git(repo, "branch", "-f", "main")
    git(repo, "mv", "old name.py", "new name.py")
    git(repo, "mv", "data.bin", "moved data.bin")
    (repo / "new name.py").write_text("k = 1\nm = 2\n")
    new = resolve_new_code(repo, "main", {})
    assert new.lines_of("new name.py") == {2}
    assert new.lines_of("old name.py") == frozenset()
    assert new.lines_of("moved data.bin") is None  # binary: new code as a whole
    assert new.base.available


@pytest.mark.parametrize(
    "output",
    [
        "garbage",
        "diff --git a/mod.py b/mod.py\n+++ b/mod.py\n@@ -1 +1 @@",  # a patch, no numstat
        "1\t0\tmod.py",  # numstat, no patch after it
        "x\t0\tmod.py\0\0diff --git a/mod.py b/mod.py",
        "-\t-\t\0only-old.bin\0\0diff --git",  # a rename record cut short
    ],
)
def test_diff_output_of_another_shape_is_not_parsed(output: str) -> None:
    assert split_numstat_and_patch(output) is None


def test_a_git_diff_printing_garbage_makes_all_code_new(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = newcode._git

    def garbling(root: Path, args: list[str]) -> str | None:
        return "\x00garbage" if args[0] == "diff" else real(root, args)

    monkeypatch.setattr(newcode, "_git", garbling)
    new = resolve_new_code(repo, "main", {})
    assert new.all_new
    assert "git diff against main failed" in new.base.note


def test_pull_request_base_from_the_environment(repo: Path) -> None:
    new = resolve_new_code(repo, None, {"GITHUB_BASE_REF": "main"})
    assert new.base.ref == "main"
    assert "pull request" in new.base.note


def test_no_base_means_all_code_is_new(repo: Path) -> None:
    new = resolve_new_code(repo, None, {})
    assert new.all_new
    assert new.contains("mod.py", 1)
    assert "all code is treated as new code" in new.base.note


def test_unknown_base_is_a_usage_error(repo: Path) -> None:
    with pytest.raises(UsageError, match="'nope' is not a commit"):
        resolve_new_code(repo, "nope", {})


def test_a_base_outside_git_is_a_usage_error_and_no_base_is_not(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--base 'main' needs a git work tree"):
        resolve_new_code(tmp_path, "main", {})
    assert resolve_new_code(tmp_path, None, {}).all_new
    # A pull request's base is the environment's, not the user's: it only notes.
    assert resolve_new_code(tmp_path, None, {"GITHUB_BASE_REF": "main"}).all_new


def test_unfetched_pull_request_base_says_how_to_fetch(repo: Path) -> None:
    new = resolve_new_code(repo, None, {"GITHUB_BASE_REF": "release"})
    assert new.all_new
    assert "fetch-depth: 0" in new.base.note


def _inside_asked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Who asks git whether the folder is in a work tree from now on: "new code" or "project"."""
    from phasegate.gates import git as git_module

    asked: list[str] = []
    real_new, real_project = newcode._git, git_module._run_git

    def by_new_code(root: Path, args: list[str]) -> str | None:
        if "--is-inside-work-tree" in args:
            asked.append("new code")
        return real_new(root, args)

    def by_project(root: Path, args: list[str], *rest: object) -> object:
        if "--is-inside-work-tree" in args:
            asked.append("project")
        return real_project(root, args, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(newcode, "_git", by_new_code)
    monkeypatch.setattr(git_module, "_run_git", by_project)
    return asked


def test_the_project_answers_whether_it_is_in_a_work_tree_once_for_new_code_and_checks(
    repo: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phasegate.gates.project import GateProject

    asked = _inside_asked(monkeypatch)
    project = GateProject(repo)
    new = resolve_new_code(repo, "main", {}, project=project)
    assert project.in_git  # what the checks read: the answer new code took
    assert asked == ["project"]
    assert new.base.ref == "main"
    outside = tmp_path_factory.mktemp("outside")
    new = resolve_new_code(outside, None, {}, project=GateProject(outside))
    assert new.all_new
    assert "not a git work tree" in new.base.note


def test_a_project_whose_git_fails_leaves_new_code_to_ask_git(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phasegate.gates.project import GateProject
    from phasegate.gates.protocol import CheckError

    class Failing(GateProject):
        @property
        def in_git(self) -> bool:  # type: ignore[override]
            raise CheckError("git rev-parse --is-inside-work-tree failed")

    asked = _inside_asked(monkeypatch)
    new = resolve_new_code(repo, "main", {}, project=Failing(repo))
    assert asked == ["new code"]
    assert new.base.ref == "main"  # git answered new code's own question


def test_in_a_pull_request_a_base_that_hides_its_commits_gives_way_to_the_pull_requests(
    repo: Path,
) -> None:
    git(repo, "commit", "-qm", "the change again", "--allow-empty")
    pull_request = {"GITHUB_BASE_REF": "main"}
    # The change's own `base = "HEAD"` (or HEAD~1) would judge it against itself.
    for hiding in ("HEAD", "HEAD~1"):
        new = resolve_new_code(repo, hiding, pull_request)
        assert new.base.ref == "main", hiding
        assert f"the base given, {hiding!r}, would leave commits" in new.base.note
        assert new.contains("mod.py", 2)
    # The pull request's own base, or an older one, judges the whole pull request: kept.
    git(repo, "tag", "start", "main")
    for whole in ("main", "start"):
        new = resolve_new_code(repo, whole, pull_request)
        assert (new.base.ref, new.base.note) == (
            whole,
            f"new code: lines changed since the merge base of HEAD and {whole} (the base given)",
        )
    # Outside a pull request the base given is the user's choice.
    assert resolve_new_code(repo, "HEAD", {}).base.ref == "HEAD"


def test_where_git_cannot_say_whether_a_base_hides_commits_the_pull_requests_is_taken(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phasegate.gates import newcode

    real = newcode._git

    def failing_rev_list(root: Path, args: list[str]) -> str | None:
        return None if args[0] == "rev-list" else real(root, args)

    monkeypatch.setattr(newcode, "_git", failing_rev_list)
    assert resolve_new_code(repo, "main", {"GITHUB_BASE_REF": "main"}).base.ref == "main"
    new = resolve_new_code(repo, "HEAD", {"GITHUB_BASE_REF": "main"})
    assert "would leave commits of the pull request unjudged" in new.base.note
