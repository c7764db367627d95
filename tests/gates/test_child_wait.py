"""Waiting for a child's end or its word: woken by the system, within the deadline."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from phasegate import clock
from phasegate.gates import child_wait


@pytest.mark.parametrize("pidfd", ["available", "refused"])
def test_the_wait_for_the_child_sees_its_end_and_keeps_its_deadline(
    pidfd: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if pidfd == "refused":

        def refused(_pid: int) -> int:
            raise OSError("no pidfd here")

        monkeypatch.setattr(os, "pidfd_open", refused, raising=False)
    elif not hasattr(os, "pidfd_open"):
        pytest.skip("this system has no pidfd")
    ends = subprocess.Popen([sys.executable, "-c", "import sys; sys.exit(3)"])
    assert child_wait.ended_by(ends, clock.monotonic() + 60)
    assert ends.returncode == 3  # reaped
    assert child_wait.ended_by(ends, clock.monotonic())  # once ended, always
    runs = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        open_before = len(os.listdir("/proc/self/fd")) if sys.platform == "linux" else 0
        assert not child_wait.ended_by(runs, clock.monotonic() + 0.2)
        assert runs.returncode is None
        if sys.platform == "linux":  # the descriptor waited on is closed again
            assert len(os.listdir("/proc/self/fd")) == open_before
    finally:
        runs.kill()
        runs.wait()


def test_the_wait_for_the_child_takes_a_descriptor_past_select_s_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A large suite may hold a thousand files open: the pidfd is then numbered past 1023.
    import resource

    pidfd_open = getattr(os, "pidfd_open", None)
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if pidfd_open is None or soft <= 1100:
        pytest.skip("no pidfd, or too few descriptors allowed here")
    import fcntl  # POSIX only, as pidfds are

    def numbered_past_1023(pid: int) -> int:
        first = pidfd_open(pid)
        try:
            return fcntl.fcntl(first, fcntl.F_DUPFD, 1100)  # the lowest free from 1100 on
        finally:
            os.close(first)

    monkeypatch.setattr(os, "pidfd_open", numbered_past_1023)
    ends = subprocess.Popen([sys.executable, "-c", ""])
    assert child_wait.ended_by(ends, clock.monotonic() + 60)
    assert ends.returncode == 0


def test_the_childs_word_is_read_as_it_comes_and_its_end_closes_the_pipe() -> None:
    says = "import sys; sys.stdout.write('judged\\n'); sys.stdout.flush(); sys.stdin.readline()"
    with subprocess.Popen(
        [sys.executable, "-c", says], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as child:
        assert child.stdin is not None
        descriptor = child_wait.said_descriptor(child)
        while descriptor is not None:  # nothing said yet: wait on the pipe, not for the end
            assert not child_wait.ended_by(child, clock.monotonic() + 60, descriptor)
            descriptor = child_wait.said_descriptor(child)
        assert child.returncode is None  # it said so and runs on
        child.stdin.close()
        child.wait(timeout=60)
    silent = subprocess.Popen([sys.executable, "-c", ""], stdout=subprocess.PIPE)
    silent.wait(timeout=60)
    assert child_wait.said_descriptor(silent) is None  # its end, without a word
    assert silent.stdout is not None
    assert silent.stdout.closed
