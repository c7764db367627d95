"""github-actions/run_module.py: the action runs the installed phasegate, never the change's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT

RUN_MODULE = REPO_ROOT / "github-actions" / "run_module.py"

#: A top-level package of the change named like the judge, as review s17d, 7 probed it.
HIJACK = 'print("HIJACKED")\n'


def run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(RUN_MODULE), *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )


def test_python_dash_m_runs_the_changes_package_and_run_module_refuses_it(tmp_path: Path) -> None:
    """Review s17d, 7: ``python -m phasegate`` in the checked-out change ran its own
    ``phasegate/__main__.py``; the action's steps run ``run_module.py`` instead."""
    (tmp_path / "phasegate").mkdir()
    (tmp_path / "phasegate" / "__init__.py").write_text(HIJACK)
    (tmp_path / "phasegate" / "__main__.py").write_text(HIJACK)
    dash_m = subprocess.run(
        [sys.executable, "-m", "phasegate", "review", "list"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "HIJACKED" in dash_m.stdout  # what the action ran before
    refused = run(tmp_path, "phasegate", "review", "list")
    assert refused.returncode == 4
    assert "HIJACKED" not in refused.stdout + refused.stderr
    assert f"holds {tmp_path / 'phasegate' / '__init__.py'}" in refused.stdout


def test_a_module_named_like_pytest_is_refused_too(tmp_path: Path) -> None:
    (tmp_path / "pytest.py").write_text(HIJACK)
    refused = run(tmp_path, "phasegate", "review", "list")
    assert refused.returncode == 4
    assert "pytest.py" in refused.stdout


def test_an_honest_project_runs_the_installed_phasegate(tmp_path: Path) -> None:
    """A src layout, and a folder named phasegate without ``__init__.py`` (a namespace part,
    which an installed package comes before), shadow nothing."""
    (tmp_path / "pyproject.toml").write_text("[tool.phasegate]\n")
    (tmp_path / "src" / "phasegate").mkdir(parents=True)
    (tmp_path / "src" / "phasegate" / "__init__.py").write_text(HIJACK)
    (tmp_path / "phasegate").mkdir()
    (tmp_path / "phasegate" / "notes.txt").write_text("not a module\n")
    done = run(tmp_path, "phasegate", "review", "list")
    assert (done.returncode, done.stdout) == (0, "no reviews recorded\n"), done.stderr
