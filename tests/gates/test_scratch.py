"""The checks' temporary folders: removed at once, or kept until the judgements are written
and removed on every way the static checks' process ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from phasegate.gates import scratch, static_process
from phasegate.model.gate import CheckStatus
from tests.faults.kit import all_dead


@pytest.fixture(autouse=True)
def not_deferring() -> Iterator[None]:
    yield
    scratch.remove_all()
    scratch.remove_deferred()  # and removal at once again, for the next test


def test_a_folder_is_removed_as_soon_as_its_check_is_done_with_it() -> None:
    with scratch.scratch_folder("phasegate-test-") as folder:
        (folder / "copy").mkdir()
        (folder / "copy" / "file.py").write_text("x = 1\n")
    assert not folder.exists()


def test_deferred_folders_stay_until_removed_and_later_ones_go_at_once() -> None:
    scratch.defer_removal()
    with scratch.scratch_folder("phasegate-test-") as kept:
        (kept / "file").write_text("x")
    assert (kept / "file").exists()
    scratch.remove_deferred()
    assert not kept.exists()
    with scratch.scratch_folder("phasegate-test-") as later:  # e.g. a check past its timeout
        pass
    assert not later.exists()


def test_a_check_that_crashes_has_its_folder_kept_and_removed_with_the_others() -> None:
    scratch.defer_removal()
    with pytest.raises(RuntimeError), scratch.scratch_folder("phasegate-test-") as crashed:
        raise RuntimeError("the check's bug")
    assert crashed.exists()
    scratch.remove_deferred()
    assert not crashed.exists()


def test_removing_all_takes_the_folders_still_in_use_too() -> None:
    scratch.defer_removal()
    with scratch.scratch_folder("phasegate-test-") as done:
        pass
    with scratch.scratch_folder("phasegate-test-") as in_use:
        scratch.remove_all()
        assert not done.exists()
        assert not in_use.exists()


#: A static checks' process stand-in: deferring, in its own temporary root, one folder done with
#: and one in use (a check still running, with a tool), and a library's own temporary folder in
#: use; it says where they are and where a tool it starts makes its temporary files, then waits
#: for SIGTERM or the end of its input, on which it ends at once as the static checks' process
#: does.
CHILD = """\
import signal, subprocess, sys, tempfile
from pathlib import Path
from phasegate.gates import scratch
from phasegate.gates.static_process import _stop_tools_and_exit, exit_child
from phasegate.processes import start_in_group
signal.signal(signal.SIGTERM, _stop_tools_and_exit)
scratch.defer_removal()
rooted = scratch.temporary_root("phasegate-test-root-")  # held: it ends when collected
root = rooted.__enter__()
with scratch.scratch_folder("phasegate-test-") as done:
    (done / "sdist").mkdir()
holding = scratch.scratch_folder("phasegate-test-")
in_use = holding.__enter__()
library = tempfile.TemporaryDirectory(prefix="library-")  # e.g. pyproject_hooks' input.json
tool = start_in_group([sys.executable, "-c", "import time; time.sleep(60)"], cwd=in_use)
tools_temp = subprocess.run(
    [sys.executable, "-c", "import tempfile; print(tempfile.gettempdir())"],
    capture_output=True, text=True, check=True,
).stdout.strip()
print(done, in_use, tool.pid, root, library.name, tools_temp, flush=True)
sys.stdin.readline()  # the parent saw them; at the end of its input
exit_child(False)  # a check past its timeout still runs
"""


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGTERM", "exit"])
def test_a_static_process_that_is_stopped_or_ends_at_once_leaves_no_folder(
    tmp_path: Path, how: str
) -> None:
    with subprocess.Popen(
        [sys.executable, "-c", CHILD],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as child:
        assert child.stdout is not None
        done, in_use, tool, root, library, tools_temp = child.stdout.readline().split()
        assert Path(done).is_dir()
        assert Path(in_use).is_dir()
        assert Path(library).parent == Path(root)
        assert tools_temp == root
        if how == "SIGTERM":
            child.send_signal(signal.SIGTERM)
        else:
            child.communicate(timeout=30)
        child.wait(timeout=30)
    assert child.returncode == (128 + signal.SIGTERM if how == "SIGTERM" else 0)
    assert not Path(done).exists()
    assert not Path(in_use).exists()
    assert not Path(root).exists(), "the library's temporary folder was left"
    assert all_dead([int(tool)]), "the tool in the folder was left running"


#: A static checks' process stand-in whose main thread is inside both locks the SIGTERM handler
#: takes (as in :func:`~phasegate.processes.start_in_group` or
#: :func:`~phasegate.gates.scratch.defer_removal`) when the signal comes: the handler runs there,
#: on that thread, at the next bytecode.
CHILD_HOLDING_THE_LOCKS = """\
import os, signal, sys
from phasegate import processes
from phasegate.gates import scratch
from phasegate.gates.static_process import _stop_tools_and_exit
signal.signal(signal.SIGTERM, _stop_tools_and_exit)
holding = scratch.scratch_folder("phasegate-test-")
in_use = holding.__enter__()
tool = processes.start_in_group([sys.executable, "-c", "import time; time.sleep(60)"], cwd=in_use)
print(in_use, tool.pid, flush=True)
with processes._running_lock, scratch._lock:
    os.kill(os.getpid(), signal.SIGTERM)
    print("the handler returned", flush=True)
"""


@pytest.mark.slow
def test_sigterm_while_the_main_thread_holds_the_locks_still_stops_the_tools_and_removes_all(
    tmp_path: Path,
) -> None:
    with subprocess.Popen(
        [sys.executable, "-c", CHILD_HOLDING_THE_LOCKS],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as child:
        assert child.stdout is not None
        in_use, tool = child.stdout.readline().split()
        try:
            rest = child.communicate(timeout=60)[0]
        except subprocess.TimeoutExpired:
            child.kill()
            os.kill(int(tool), signal.SIGKILL)
            pytest.fail("the SIGTERM handler waited for a lock its own thread held")
    assert child.returncode == 128 + signal.SIGTERM
    assert rest == ""
    assert not Path(in_use).exists()
    assert all_dead([int(tool)]), "the tool was left running"


def test_a_temporary_root_holds_the_temporary_files_of_its_block_and_goes_with_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    with scratch.temporary_root("phasegate-test-root-") as root:
        assert root.parent == tmp_path
        with tempfile.TemporaryDirectory() as library:
            assert Path(library).parent == root
        kept = Path(tempfile.mkdtemp())
        assert os.environ["TMPDIR"] == str(root)
    assert not kept.exists()
    assert not root.exists()
    assert os.environ["TMPDIR"] == str(tmp_path)
    assert tempfile.tempdir is None


GATE = 'name = "types"\n[checks.types]\n'


def _typed_project(root: Path) -> Path:
    (root / "gates").mkdir(parents=True)
    (root / "gates" / "types.toml").write_text(GATE)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "pkg"\nversion = "0.1"\n[tool.phasegate]\ngate_paths = ["gates"]\n'
    )
    package = root / "src" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for i in range(40):
        (package / f"m{i}.py").write_text(f"def f{i}(x: int) -> int:\n    return x + {i}\n")
    for command in (["init", "-q"], ["add", "-A"]):
        subprocess.run(["git", *command], cwd=root, check=True)
    subprocess.run(
        ["git", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "init"],
        cwd=root,
        check=True,
    )
    return root


def _wait_for_mypy_folder(temporary: Path, child: subprocess.Popen[bytes]) -> None:
    """Until the types check's folder is there, inside the process's temporary root."""
    while not list(temporary.glob("phasegate-static-tmp-*/phasegate-mypy-*")):
        assert child.poll() is None, "the child ended before mypy ran"
        time.sleep(0.02)


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGTERM", "end"])
def test_the_static_process_leaves_nothing_of_the_types_check_in_its_temporary_folder(
    tmp_path: Path, how: str
) -> None:
    root = _typed_project(tmp_path / "project")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    out = tmp_path / "out" / "judgements.json"
    command = [sys.executable, "-m", "phasegate.gates.static_process", "--root", str(root)]
    with subprocess.Popen(
        [*command, "--gate", "types", "--out", str(out)],
        env={**os.environ, "TMPDIR": str(temporary)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) as child:
        if how == "SIGTERM":
            _wait_for_mypy_folder(temporary, child)
            child.send_signal(signal.SIGTERM)
        child.wait(timeout=120)
    assert child.returncode == (128 + signal.SIGTERM if how == "SIGTERM" else 0)
    assert list(temporary.iterdir()) == []
    if how == "end":  # mypy ran with the new TMPDIR and judged
        [judged] = static_process._JUDGEMENTS.validate_json(out.read_bytes())
        assert judged.result.status == CheckStatus.PASSED
