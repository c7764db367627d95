"""Engine helpers: diffs that apply, and lines followed through kept repairs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from phasegate.autodebug.engine import remap_line, unified_diff

OLD = "import os\n\n\ndef f():\n    return lenght\n"
NEW = "import os\nimport sys\n\n\ndef f():\n    return length\n"


def test_a_line_moves_with_the_lines_inserted_above_it() -> None:
    assert remap_line(OLD, NEW, 1) == 1
    assert remap_line(OLD, NEW, 4) == 5
    assert remap_line(OLD, NEW, 5) is None  # the line itself changed


def test_the_diff_names_both_sides_and_marks_a_missing_final_newline() -> None:
    diff = unified_diff("pkg/mod.py", "x = 1\n", "x = 2")
    assert diff.startswith("--- a/pkg/mod.py\n+++ b/pkg/mod.py\n")
    assert diff.endswith("+x = 2\n\\ No newline at end of file\n")


@pytest.mark.slow
def test_the_diff_applies_with_git(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(OLD)
    (tmp_path / "fix.diff").write_text(unified_diff("pkg/mod.py", OLD, NEW))
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", "fix.diff"], cwd=tmp_path, check=True)
    assert (tmp_path / "pkg" / "mod.py").read_text() == NEW
