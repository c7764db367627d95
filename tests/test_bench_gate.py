"""benchmarks/gate.py: every tool by hand and every cold gate start from the same cold project."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

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


# -- the kernel's account of a run (benchmarks/usage.py) -----------------------------------------


@pytest.fixture(scope="module")
def usage() -> ModuleType:
    return load_benchmark("usage")


def rusage(utime: float, stime: float, minflt: int, majflt: int, nvcsw: int, nivcsw: int) -> object:
    """A stand-in for ``resource.struct_rusage`` with the fields the benchmark reads."""
    return SimpleNamespace(
        ru_utime=utime, ru_stime=stime, ru_minflt=minflt, ru_majflt=majflt,
        ru_nvcsw=nvcsw, ru_nivcsw=nivcsw, ru_maxrss=99_999,
    )  # fmt: skip


def test_a_runs_usage_is_the_difference_of_two_readings_field_by_field(usage: ModuleType) -> None:
    before = rusage(1.0, 0.25, 1_000, 3, 40, 7)
    after = rusage(3.5, 1.0, 26_000, 5, 140, 17)

    used = usage.usage_between(before, after)

    assert used == usage.Usage(
        user=2.5, system=0.75, minor_faults=25_000, major_faults=2,
        voluntary_switches=100, involuntary_switches=10,
    )  # fmt: skip


def test_runs_one_after_another_add_up_and_rounds_take_each_figures_median(
    gate_bench: ModuleType,
) -> None:
    usage = gate_bench.Usage
    first = gate_bench.Timing(2.0, 1.5, usage(1.0, 0.5, 100, 0, 10, 1))
    second = gate_bench.Timing(1.0, 0.5, usage(0.25, 0.25, 50, 2, 30, 5))
    third = gate_bench.Timing(4.0, 3.0, usage(2.0, 1.0, 10, 1, 20, 3))

    assert gate_bench.added([first, second]) == gate_bench.Timing(
        3.0, 2.0, usage(1.25, 0.75, 150, 2, 40, 6)
    )
    # each figure's own median: no round's figures are taken together
    assert gate_bench.median_timing([first, second, third]) == gate_bench.Timing(
        2.0, 1.5, usage(1.0, 0.5, 50, 1, 20, 3)
    )


PERF_CSV = """\
# started on Sat Nov 28 05:30:00 2026

3,,sched:sched_process_exec,28391214,100.00,,
12,,task:task_newtask,28391214,100.00,,
"""


def test_perf_counts_are_read_as_programs_and_tasks_and_a_missing_one_reads_as_none(
    usage: ModuleType,
) -> None:
    assert usage.parse_perf(PERF_CSV) == usage.Starts(programs=3, tasks=12)
    unsupported = PERF_CSV.replace("12,,task", "<not supported>,,task")
    assert usage.parse_perf(unsupported) is None
    assert usage.parse_perf("") is None


def test_without_perf_the_starts_are_not_counted(
    usage: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(usage.shutil, "which", lambda name: None)

    assert usage.count_starts([sys.executable, "-c", "pass"], tmp_path, {}) is None


def test_a_row_shows_the_systems_share_and_a_dash_where_starts_were_not_counted(
    gate_bench: ModuleType,
) -> None:
    timing = gate_bench.Timing(1.0, 4.0, gate_bench.Usage(3.0, 1.0, 12_345, 0, 500, 60))

    assert gate_bench.usage_row(timing, None) == [
        "3.00", "1.00", "25.0%", "12,345", "0", "500", "60", "-", "-",
    ]  # fmt: skip
    assert gate_bench.usage_row(timing, gate_bench.Starts(9, 31))[-2:] == ["9", "31"]


def test_perf_counts_a_program_and_the_one_it_starts(usage: ModuleType, tmp_path: Path) -> None:
    starts_one = (
        "import subprocess, sys; subprocess.run([sys.executable, '-c', 'pass'], check=True)"
    )

    starts = usage.count_starts([sys.executable, "-c", starts_one], tmp_path, dict(os.environ))

    if starts is None:
        pytest.skip("perf or its tracepoints are not available here")
    assert starts.programs == 2
    assert starts.tasks >= 1


def test_the_static_checks_cache_is_kept_out_of_git_so_a_warm_run_reads_it(
    gate_bench: ModuleType,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tests.gates.samples import git

    (tmp_path / "gates").mkdir()
    (tmp_path / "gates" / "small.toml").write_text('name = "small"\n[checks.syntax]\n')
    (tmp_path / "pyproject.toml").write_text('[tool.phasegate]\ngate_paths = ["gates"]\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("VALUE = 1\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "feat: the package")
    monkeypatch.setattr(gate_bench, "GATE", "small")
    subject = gate_bench.Subject("small", tmp_path, [tmp_path / "pkg"], [])

    gate_bench.static_checks(subject, cold=True)
    assert (tmp_path / ".phasegate" / "cache" / "syntax.json").is_file()
    # The cache refuses an entry git lists; the cold run left none for git to list.
    assert git(tmp_path, "ls-files", "--others", "--exclude-standard") == ""
    capsys.readouterr()
    gate_bench.static_checks(subject, cold=False)
    assert "in git" not in capsys.readouterr().err  # the cached result was read, not refused
