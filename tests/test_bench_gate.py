"""benchmarks/gate.py: every tool by hand and every cold gate start from the same cold project."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import load_benchmark


@pytest.fixture(scope="module")
def gate_bench() -> ModuleType:
    return load_benchmark("gate")


def leftovers(root: Path) -> list[str]:
    """What a project holds after the tools and a gate ran in it, beside its own files."""
    written = [
        ".ruff_cache/0.17.6/123",
        ".pytest_cache/v/cache/nodeids",
        ".hypothesis/examples/ab/cd",
        ".phasegate/cache/lint.json",
        ".phasegate/gates/twelve-check.json",
        ".coverage",
        ".coverage.host.1234.XaBc",
    ]
    for name in written:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("left by a run\n")
    return written


def test_a_cold_start_removes_every_tools_cache_and_keeps_the_projects_files_and_bytecode(
    gate_bench: ModuleType, tmp_path: Path
) -> None:
    own = ["pyproject.toml", "src/pkg/__init__.py", "src/pkg/_version.py", ".coveragerc"]
    own.append("src/pkg/__pycache__/__init__.cpython-312.pyc")
    for name in own:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("the project's\n")
    written = leftovers(tmp_path)

    gate_bench.clear_cache(tmp_path)

    assert all((tmp_path / name).is_file() for name in own)
    assert not [name for name in written if (tmp_path / name).exists()]
    assert not (tmp_path / ".ruff_cache").exists()
    assert not (tmp_path / ".phasegate").exists()


def test_each_tool_by_hand_starts_without_the_caches_an_earlier_run_left(
    gate_bench: ModuleType, tmp_path: Path
) -> None:
    leftovers(tmp_path)
    finds_a_cache = "import os, sys; sys.exit(int(any(map(os.path.exists, sys.argv[1:]))))"
    caches = [".ruff_cache", ".hypothesis", ".coverage", ".phasegate"]
    step = gate_bench.Step([sys.executable, "-c", finds_a_cache, *caches], ok=(0,))

    gate_bench.run_steps([step], tmp_path)  # exits (SystemExit) if the step saw a cache

    assert not (tmp_path / ".ruff_cache").exists()
