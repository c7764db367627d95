"""New code: diff parsing, base resolution against a real git repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from phasegate.errors import UsageError
from phasegate.gates.newcode import parse_unified_diff, resolve_new_code

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
