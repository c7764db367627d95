"""Ctrl-C and stopped processes: exit 2 with one line, every file restored, no process left over.

* Ctrl-C while auto-debug tries a candidate ends ``pytest --autodebug`` with exit status 2 and
  one line saying so, not a traceback, and the file it was trying is put back;
* Ctrl-C during ``phasegate gate run`` stops the pytest it started and exits 2 with one line;
* stopping the static checks' process stops the tools and git commands it started.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from phasegate.gates.static_process import StaticChecksProcess
from tests.faults.conftest import Tried
from tests.faults.kit import HANG, all_dead, fake_module, small_project

SOURCE = "def mean(values):\n    length = len(values)\n    return sum(values) / lenght\n"
TEST = """\
import os
import time
from pathlib import Path

from stats import mean


def test_mean():
    if os.environ.get("PHASEGATE_AUTODEBUG_CHILD"):
        Path(os.environ["MARKER"]).write_text("a candidate is being tried")
        time.sleep(120)
    assert mean([1, 2, 3]) == 2
"""


def _wait_for(path: Path, process: subprocess.Popen[bytes], within_s: float = 120.0) -> None:
    deadline = time.monotonic() + within_s
    while not path.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            output = process.communicate()[0].decode(errors="replace")
            raise AssertionError(f"never got there (exit {process.returncode}): {output[-2000:]}")
        time.sleep(0.1)


def _ctrl_c_as_a_terminal_sends_it() -> None:
    """In the child, before it starts: Ctrl-C's default disposition. A process started in the
    background by a shell without job control ignores SIGINT, and its children inherit that
    (Python then installs no handler), so a test run started so would wait in vain."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_ctrl_c_during_autodebug_exits_2_with_one_line_and_restores(
    tmp_path: Path, tried: Tried
) -> None:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    source = root / "src" / "stats.py"
    source.write_text(SOURCE)
    (root / "tests" / "test_stats.py").write_text(TEST)
    marker = tmp_path / "trying"
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "--autodebug", "-p", "no:cacheprovider"],
        cwd=root,
        env={**os.environ, "MARKER": str(marker)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        preexec_fn=_ctrl_c_as_a_terminal_sends_it,
    )
    with tried("processes", "Ctrl-C while auto-debug tries a candidate"):
        _wait_for(marker, process)
        assert source.read_text() != SOURCE, "no candidate was being tried"
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=120)[0].decode(errors="replace")
        assert process.returncode == 2, output
        assert "Traceback" not in output, output
        assert output.count("auto-debug was interrupted") == 1, output
        assert source.read_text() == SOURCE
        assert not (root / ".phasegate" / "autodebug" / "journal.json").exists()


@pytest.mark.slow
def test_ctrl_c_during_gate_run_stops_pytest_and_exits_2(tmp_path: Path, tried: Tried) -> None:
    root = small_project(tmp_path / "project")
    marker = tmp_path / "running"
    (root / "tests").mkdir()
    (root / "tests" / "test_slow.py").write_text(
        textwrap.dedent(
            f"""\
            import os, time
            from pathlib import Path

            def test_slow():
                Path({str(marker)!r}).write_text(str(os.getpid()))
                time.sleep(120)
            """
        )
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "phasegate", "gate", "run", "--", "-p", "no:cacheprovider"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        preexec_fn=_ctrl_c_as_a_terminal_sends_it,
    )
    with tried("processes", "Ctrl-C during `phasegate gate run`"):
        _wait_for(marker, process)
        pytest_pid = int(marker.read_text())
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=120)[0].decode(errors="replace")
        assert process.returncode == 2, output
        assert "Traceback" not in output, output
        assert output.strip().splitlines()[-1] == "phasegate: interrupted"
        assert all_dead([pytest_pid]), "the pytest run was left running"


def test_stopping_the_static_checks_stops_their_tools(
    tmp_path: Path, fake_modules: Path, monkeypatch: pytest.MonkeyPatch, tried: Tried
) -> None:
    root = small_project(tmp_path / "project")
    (root / "ci").mkdir()
    (root / "ci" / "lint-only.toml").write_text('name = "lint-only"\n[checks.lint]\n')
    fake_module(fake_modules, "ruff", HANG)
    pids = tmp_path / "pids.txt"
    monkeypatch.setenv("FAKE_PIDS", str(pids))
    process = StaticChecksProcess(
        root=root,
        gate="ci/lint-only.toml",
        artifacts_dir=root / ".phasegate",
        base=None,
        timeout_s=600,
    )
    process.start()
    with tried("processes", "the static checks' process stopped while a tool hangs"):
        deadline = time.monotonic() + 120
        while not pids.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        started = [int(pid) for pid in pids.read_text().split()]
        process.terminate()
        assert all_dead(started), f"left running: {started}"
