"""The checks' temporary folders: removed at once, or kept until the judgements are written
and removed on every way the static checks' process ends."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from phasegate.gates import scratch
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


#: A static checks' process stand-in: deferring, one folder done with and one in use (a
#: check still running, with a tool); it says where they are, then waits for SIGTERM or the end
#: of its input, on which it ends at once as the static checks' process does.
CHILD = """\
import signal, sys
from pathlib import Path
from phasegate.gates import scratch
from phasegate.gates.static_process import _stop_tools_and_exit, exit_child
from phasegate.processes import start_in_group
signal.signal(signal.SIGTERM, _stop_tools_and_exit)
scratch.defer_removal()
with scratch.scratch_folder("phasegate-test-") as done:
    (done / "sdist").mkdir()
holding = scratch.scratch_folder("phasegate-test-")
in_use = holding.__enter__()
tool = start_in_group([sys.executable, "-c", "import time; time.sleep(60)"], cwd=in_use)
print(done, in_use, tool.pid, flush=True)
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
        done, in_use, tool = child.stdout.readline().split()
        assert Path(done).is_dir()
        assert Path(in_use).is_dir()
        if how == "SIGTERM":
            child.send_signal(signal.SIGTERM)
        else:
            child.communicate(timeout=30)
        child.wait(timeout=30)
    assert child.returncode == (128 + signal.SIGTERM if how == "SIGTERM" else 0)
    assert not Path(done).exists()
    assert not Path(in_use).exists()
    assert all_dead([int(tool)]), "the tool in the folder was left running"
