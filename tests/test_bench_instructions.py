"""benchmarks/instructions.py: callgrind's counts read per process, named, and added up."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import load_benchmark


@pytest.fixture(scope="module")
def instructions() -> ModuleType:
    return load_benchmark("instructions")


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("/venv/bin/python -m pytest -q --gate=twelve-check", "pytest"),
        ("/venv/bin/python3.11 -m coverage run --branch -m pytest", "coverage run"),
        (
            "/venv/bin/python -m phasegate.gates.static_process --root .",
            "phasegate.gates.static_process",
        ),
        ("/venv/bin/python /x/_in_process.py build_wheel /tmp/out", "_in_process.py build_wheel"),
        ("/venv/bin/python -c import os", "python -c"),
        (
            "/venv/bin/python -c import gc, runpy\\ngc.disable()\\nrunpy.run_path(sys.argv[0])\\n"
            " /x/_in_process.py get_requires_for_build_sdist /tmp/control",
            "_in_process.py get_requires_for_build_sdist",
        ),
        ("/usr/bin/git -C /repo -c core.x=1 log -1", "git log"),
        ("/venv/bin/ruff check --output-format json", "ruff"),
    ],
)
def test_a_process_is_named_by_its_module_script_or_program(
    instructions: ModuleType, command: str, name: str
) -> None:
    assert instructions.process_name(command) == name


def test_a_process_is_named_by_what_it_ended_as_under_its_ancestors(
    instructions: ModuleType,
) -> None:
    count = instructions.ProcessCount
    processes = [
        count(10, 1, "/venv/bin/python -m pytest -q", 500, last=True),
        # the static process: forked from pytest (a part with pytest's command), then exec'd
        count(11, 10, "/venv/bin/python -m pytest -q", 3),
        count(11, 10, "/venv/bin/python -m phasegate.gates.static_process", 200, last=True),
        # `python -m ruff` (a part), which exec'd the ruff binary
        count(12, 11, "/venv/bin/python -m ruff check .", 70),
        count(12, 11, "/venv/bin/ruff check .", 20, last=True),
    ]
    named = {
        process.instructions: instructions.process_path(process, processes) for process in processes
    }
    assert named == {
        500: "pytest",
        3: "pytest/phasegate.gates.static_process",
        200: "pytest/phasegate.gates.static_process",
        70: "pytest/phasegate.gates.static_process/ruff",
        20: "pytest/phasegate.gates.static_process/ruff",
    }


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_a_forked_child_and_an_execd_program_are_each_counted_once(
    instructions: ModuleType, tmp_path: Path
) -> None:
    # The child is forked from a parent that has already run Python's start: counted with its
    # parent's counts it would come out as large as its parent. It then execs a second Python,
    # whose own start must be counted too.
    child = "import os, sys; os.execv(sys.executable, [sys.executable, '-c', 'pass'])"
    parent = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {child!r}])"
    processes, _printed = instructions.count_processes(
        [sys.executable, "-c", parent], tmp_path, {"PATH": "/usr/bin:/bin"}
    )
    by_path: dict[str, int] = {}
    for process in processes:
        path = instructions.process_path(process, processes)
        by_path[path] = by_path.get(path, 0) + process.instructions
    assert set(by_path) == {"python -c", "python -c/python -c"}
    # The child ran two Python starts (its own and the exec'd one's); the parent one start
    # plus subprocess's import.
    alone, _ = instructions.count_processes([sys.executable, "-c", "pass"], tmp_path, {})
    one_start = sum(process.instructions for process in alone)
    assert 1.7 * one_start < by_path["python -c/python -c"] < 2.3 * one_start
    assert by_path["python -c"] > one_start
