"""The static checks of a pytest run, in a process of their own.

Inside pytest, checks that run Python in-process (compiling every file, griffe, the import scan)
would share the test run's interpreter lock, and coverage.py would trace them as if they were
tests. So ``pytest --gate`` hands the static checks to a child process
(``python -m phasegate.gates.static_process``) as soon as the run starts: it loads the same
configuration and gate, runs them (threads inside it wait on the tools' subprocesses), and
writes their judgements as JSON. The run's session checks then join them. The child leaves
the built-in session checks out of its plan (:data:`~phasegate.gates.registry.SESSION_CHECKS`),
importing none of their modules (the mutation runner, the integrity readers): the parent plans
them. The child may be started before the parent has planned the gate (``pytest --gate`` starts
it as soon as pytest has read its options, see :mod:`phasegate.plugin.gate`); its time limit is
set once the parent knows the gate's longest timeout (:meth:`StaticChecksProcess.limit`). The
command line and the start itself are in :mod:`phasegate.gates.static_start`, which imports
none of what reading the judgements needs, so that the child can start first.

A child that crashes, exits without its results, or does not write them within the longest
check's timeout gives every static check an ``error``: the gate still fails closed. That limit
counts only until the judgements are written: the child then waits for the end of the tests
(below), however long they run, and once let go has a fixed grace to end, or, when it was asked
to analyse part of the coverage, the checks' limit again from that request.

The parent reads the judgements as soon as they are written
(:meth:`StaticChecksProcess.judgements`; the child says so on its standard output, which
nothing else writes to), not once the child has ended: the child then removes
the checks' temporary folders (:mod:`phasegate.gates.scratch`, the build's copy of the project
among them) while the parent judges, and the parent waits for its end only when the pytest run
ends (:meth:`StaticChecksProcess.end`).

Once its checks have ended, the child takes part of coverage.py's per-file analysis at the end
of the tests (:mod:`phasegate.gates.coverage_share`), on the core its checks no longer use: it
waits for one request on its standard input (the name of a file holding it), and ends once it
has served it or the parent has closed that input (the parent does when it asks for the
judgements, or stops the child). While its checks still run, the pytest process analyses
alone.

The collector: the child turns Python's garbage collector off before it imports anything
else, and never back on. It lives for one gate and ends without the interpreter's teardown
(:func:`exit_at_once`); its collections walked every object its imports and checks made, again
and again, to free almost nothing (what the checks make is freed by reference counts as it is
dropped; the reference cycles they leave stay until the child ends: 1 to 4 MB more at its
largest on more-itertools and python-dateutil, 16 MB on a generated package of 20,000 lines,
see docs/performance.md). Imported by the parent, this module leaves the collector alone.

Stopping the child stops everything it started: it is asked first (SIGTERM, on which it kills
the process groups of the tools and git commands still running, see
:mod:`phasegate.processes`), then its own process group is killed.
"""

from __future__ import annotations

import gc

if __name__ == "__main__":  # the child, before its imports (see "The collector" above)
    gc.disable()

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import NoReturn

from pydantic import TypeAdapter

from phasegate import clock
from phasegate.gates.child_wait import ended_by, said_descriptor
from phasegate.gates.evaluation import Judgement
from phasegate.gates.protocol import CheckError
from phasegate.gates.scratch import defer_removal, remove_all, remove_deferred, temporary_root
from phasegate.gates.static_start import JUDGEMENTS_FILE, STDERR_FILE, StartedChild, start_child
from phasegate.model.base import Model
from phasegate.model.gate import CheckResult, ConditionResult
from phasegate.processes import kill_group, kill_running_groups

__all__ = ["StaticChecksProcess", "StaticJudgement", "exit_at_once", "exit_child", "main"]

#: Seconds allowed beyond the longest check timeout, for the child to start and write.
_MARGIN_S = 60.0
#: Seconds the child has to stop its tools when asked, before its group is killed.
_STOP_GRACE_S = 5.0
#: Seconds the child has to end once let go, its judgements written (beyond a coverage share).
_EXIT_GRACE_S = 10.0
#: How often the child looks whether the process that started it still runs.
_PARENT_POLL_S = 0.5
#: Seconds the child waits for a check's thread still running past its timeout, before it exits.
_CLEANUP_S = 3.0
#: Seconds between two looks for the judgements while the child runs.
_POLL_S = 0.1


class StaticJudgement(Model):
    """One static check's judgement, as the child writes it."""

    result: CheckResult
    conditions: list[ConditionResult]


_JUDGEMENTS = TypeAdapter(list[StaticJudgement])


class StaticChecksProcess:
    """Starts the child and collects its judgements."""

    def __init__(
        self,
        *,
        root: Path,
        gate: str,
        artifacts_dir: Path | None,
        base: str | None,
        timeout_s: float,
        environment: Mapping[str, str] | None = None,
    ) -> None:
        """``environment`` is the child's (without coverage's hook); default: this process's
        when the child starts."""
        self._root = root
        self._environment = environment
        self._gate = gate
        self._artifacts_dir = artifacts_dir
        self._base = base
        self._timeout_s = timeout_s + _MARGIN_S
        self._process: subprocess.Popen[bytes] | None = None
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._started = 0.0
        self._asked: float | None = None

    @property
    def _folder_path(self) -> Path:
        """The child's own temporary folder; :class:`CheckError` once it was removed (no
        other folder stands in for it: a ``judgements.json`` found elsewhere is not ours)."""
        if self._folder is None:
            raise CheckError(
                "the static checks' results were discarded (their process was stopped)",
                fix="run `phasegate gate run` to see the whole output",
            )
        return Path(self._folder.name)

    @property
    def _out(self) -> Path:
        return self._folder_path / JUDGEMENTS_FILE

    @property
    def _log(self) -> Path:
        return self._folder_path / STDERR_FILE

    @property
    def started(self) -> bool:
        """Whether the child was started (it may have ended since)."""
        return self._process is not None

    def limit(self, timeout_s: float) -> None:
        """Allow the child ``timeout_s`` (the gate's longest check timeout) from its start."""
        self._timeout_s = timeout_s + _MARGIN_S

    def start(self) -> None:
        """Start the child, unless it runs already; it runs while the tests run."""
        if self._process is None:
            self.adopt(
                start_child(
                    root=self._root,
                    gate=self._gate,
                    artifacts_dir=self._artifacts_dir,
                    base=self._base,
                    environment=self._environment,
                )
            )

    def adopt(self, child: StartedChild) -> None:
        """Take over a child :func:`~phasegate.gates.static_start.start_child` started for
        this root and gate (``pytest --gate`` starts it before importing this module)."""
        if self._process is not None:
            raise RuntimeError("the static checks' process was started already")
        self._process, self._folder, self._started = child.process, child.folder, child.started

    def ask(self, request: str) -> bool:
        """Hand the child a request to analyse part of the measured files (JSON,
        :mod:`phasegate.gates.coverage_share`), which it serves once its checks have ended;
        False when it no longer runs to take it."""
        process = self._process
        if process is None or process.stdin is None or process.poll() is not None:
            return False
        try:
            path = self._folder_path / "coverage-request.json"
            path.write_text(request, encoding="utf-8")  # the pipe takes only its name
            process.stdin.write(str(path).encode("utf-8") + b"\n")
            process.stdin.close()
        except (OSError, CheckError):  # it ended meanwhile, or was stopped
            return False
        self._asked = clock.monotonic()
        return True

    def wait_until_ended(self) -> None:
        """Let the child go (no request, if none was made) and wait for it; raise
        :class:`CheckError` when it does not end within its time (it is then stopped).

        Its time is the checks' limit from its start while no judgements are written; once
        they are, the grace to end after being let go, or the checks' limit from the coverage
        request when one was made (serving it may take longer than the grace).
        """
        process = self._process
        if process is None:
            raise CheckError("the static checks were never started")
        self._let_go()
        if self._wait_for_end_or_judgements(process):
            return
        if not ended_by(process, self._end_deadline()):
            self._stop()  # its judgements stay, to be read
            raise CheckError(
                "the process running the static checks wrote its judgements but did not end "
                "after its coverage share or within its grace",
                fix="run `phasegate gate run` to see the whole output",
            )

    def _wait_for_end_or_judgements(self, process: subprocess.Popen[bytes]) -> bool:
        """Wait until the child ends (True) or its judgements are written (False); stop it
        and raise :class:`CheckError` when neither happens by the checks' limit."""
        deadline = self._started + self._timeout_s
        while not self._out.exists():
            if ended_by(
                process, min(deadline, clock.monotonic() + _POLL_S), said_descriptor(process)
            ):
                return True
            if clock.monotonic() >= deadline:
                self.terminate()
                raise CheckError(
                    f"the static checks did not finish within {self._timeout_s:g}s",
                    fix="raise check_timeout_s, or timeout_s of the slow check",
                )
        return process.poll() is not None

    def _end_deadline(self) -> float:
        """When a child that wrote its judgements must have ended (a monotonic time)."""
        share_until = self._asked + self._timeout_s if self._asked is not None else 0.0
        return max(clock.monotonic(), share_until) + _EXIT_GRACE_S

    def judgements(self) -> dict[str, Judgement]:
        """Wait for the child's judgements; raise :class:`CheckError` when it gave no usable
        results.

        They are read as soon as they are written, without waiting for the child's end: they
        are written atomically, so the file is complete once it exists, and the child then
        removes the checks' temporary folders (:mod:`phasegate.gates.scratch`) while the
        parent judges; :meth:`end` lets it end. Judgements written by a child that had to be
        stopped are read too: they say which check did not finish."""
        process = self._process
        if process is None:
            raise CheckError("the static checks were never started")
        self._let_go()
        try:
            self._wait_for_end_or_judgements(process)
        except CheckError:
            if not self._written():
                self._cleanup()
                raise
        try:
            entries = _JUDGEMENTS.validate_json(self._out.read_bytes())
        except (OSError, ValueError) as exc:
            tail = self._stderr_tail()  # of a child that ended, unless its file is garbage
            self.end()
            raise CheckError(
                f"the process running the static checks exited with status "
                f"{process.returncode} without its results: {tail or exc}",
                fix="run `phasegate gate run` to see the whole output",
            ) from exc
        if process.poll() is not None:
            self._cleanup()  # it has ended already (after a coverage share): nothing to wait for
        return {
            entry.result.id: Judgement(entry.result, list(entry.conditions)) for entry in entries
        }

    def end(self) -> None:
        """Let the child end, then remove its folder: one whose judgements are written has
        its grace to end (it removes the checks' temporary folders first), and is stopped
        past it; any other (an interrupted run) is stopped at once."""
        process = self._process
        self._let_go()
        if process is not None and self._written():
            ended_by(process, self._end_deadline())
        self.terminate()  # stops it if it still runs

    def _written(self) -> bool:
        """Whether the child's judgements file exists (in its own folder, still there)."""
        return self._folder is not None and self._out.exists()

    def terminate(self) -> None:
        """Stop the child and everything it started, if it still runs (an interrupted run)."""
        self._stop()
        self._cleanup()

    def _stop(self) -> None:
        process = self._process
        self._let_go()
        if process is not None and process.poll() is None:
            process.terminate()  # the child kills its tools' process groups, then exits
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=_STOP_GRACE_S)
            kill_group(process)

    def _let_go(self) -> None:
        """Close the child's input: it asks nothing more and may end once its checks did."""
        process = self._process
        if process is not None and process.stdin is not None and not process.stdin.closed:
            with contextlib.suppress(OSError):
                process.stdin.close()

    def _cleanup(self) -> None:
        process = self._process
        if process is not None and process.stdout is not None:
            process.stdout.close()  # what the child says after this is not needed
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None

    def _stderr_tail(self) -> str:
        try:
            text = self._log.read_text(encoding="utf-8", errors="replace").strip()
        except (OSError, CheckError):
            return ""
        return text[-1500:]


def main(argv: Sequence[str] | None = None) -> bool:
    """The child: run the gate's static checks and write their judgements; whether every
    check's thread has ended since (see :func:`exit_child`)."""
    parser = argparse.ArgumentParser(prog="python -m phasegate.gates.static_process")
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--gate", required=True)
    parser.add_argument("--artifacts", type=Path, help="default: the settings' artifacts_dir")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--base")
    parser.add_argument("--parent", type=int, help="end when the process of this id has ended")
    parser.add_argument(
        "--share-coverage",
        action="store_true",
        help="read one request on stdin to analyse part of the coverage, then end",
    )
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _stop_tools_and_exit)
    if args.parent is not None:
        _end_with_parent(args.parent)
    defer_removal()  # the checks' temporary folders go once the judgements are written
    judged = _keep_output_for_the_parent()
    # every temporary file of the checks, their libraries and tools, removed on every way out
    with temporary_root("phasegate-static-tmp-"):
        try:
            return _run_and_serve(args, judged)
        finally:
            remove_deferred()


def _keep_output_for_the_parent() -> int:
    """This process's standard output, kept for :func:`_say_judged` on a descriptor of its
    own (not inherited by the tools), with ``/dev/null`` put in its place for whatever else
    would write there."""
    kept = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
    return kept


def _say_judged(kept: int) -> None:
    """Tell the parent that the judgements are written (it waits on the pipe), and close it."""
    with contextlib.suppress(OSError):  # a parent that stopped listening
        os.write(kept, b"judged\n")
    with contextlib.suppress(OSError):
        os.close(kept)


def _run_and_serve(args: argparse.Namespace, judged: int) -> bool:
    """Run the checks, write their judgements, remove the folders the checks are done with
    (the parent judges meanwhile), then serve a coverage share; whether every check's thread
    has ended since."""

    from phasegate.config import load_config
    from phasegate.extensions import make_plugin_manager
    from phasegate.gates.progress import progress_writer_from_environment
    from phasegate.gates.registry import SESSION_CHECKS
    from phasegate.gates.runner_factory import make_runner
    from phasegate.store import Store

    overrides = {"gate": ("--gate", args.gate)}
    if args.artifacts is not None:
        overrides["artifacts_dir"] = ("--phasegate-dir", str(args.artifacts))
    loaded = load_config(args.root).with_overrides(overrides)
    store = Store(loaded.artifacts_path)
    runner = make_runner(
        loaded,
        store,
        make_plugin_manager(loaded.config.plugins),
        args.gate,
        base=args.base,
        environment=os.environ,
        on_event=progress_writer_from_environment(),
        leave_out=SESSION_CHECKS,
    )
    judgements = runner.run_static()
    payload = [
        StaticJudgement(result=j.result, conditions=j.conditions) for j in judgements.values()
    ]
    store_out = Store(args.out.parent)
    store_out.write_text(args.out.name, _JUDGEMENTS.dump_json(payload).decode("utf-8"))
    _say_judged(judged)
    remove_deferred()
    if args.share_coverage:
        _serve_coverage_share()
    return runner.every_check_ended(within_s=_CLEANUP_S)


def _serve_coverage_share() -> None:
    """Once the checks have ended (their core is free), wait for the parent's request to
    analyse part of the measured files (:mod:`phasegate.gates.coverage_share`) and serve it;
    end at once when the parent closes our input without one."""
    line = sys.stdin.readline().strip()
    if line:
        from phasegate.gates.coverage_share import serve

        serve(Path(line).read_text(encoding="utf-8"))


def _end_with_parent(parent: int) -> None:
    """Stop as SIGTERM would (:func:`_stop_tools_and_exit`) once the process ``parent`` has
    ended: a ``pytest --gate`` killed by SIGTERM or SIGKILL runs no cleanup, and its child
    would run every check to its end for nobody. An orphan is adopted by another process, so
    its parent's id changes; it is looked at every :data:`_PARENT_POLL_S` seconds, as POSIX has
    no portable notice of a parent's end (Linux's ``PR_SET_PDEATHSIG`` is Linux's only)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL_S)  # the child runs no test that could freeze it
        _stop_tools_and_exit(signal.SIGTERM, None)

    threading.Thread(target=watch, name="phasegate-parent-watch", daemon=True).start()


def _stop_tools_and_exit(signum: int, _frame: FrameType | None) -> None:
    """SIGTERM: kill the tools and git commands still running, remove the checks' temporary
    folders and this process's temporary folder (:func:`~phasegate.gates.scratch.temporary_root`),
    then exit at once."""
    kill_running_groups()
    remove_all()
    os._exit(128 + signum)


def exit_child(every_check_ended: bool) -> NoReturn:
    """End the child at once (:func:`exit_at_once`), in every case.

    :func:`main` has waited a few seconds (:data:`_CLEANUP_S`) for a check judged past its
    timeout, so that it could remove its temporary copies of the project. A thread still
    running then may be stuck for good: waiting for it (the interpreter's exit would) would
    keep the child from ending, so it is cut off, its tools killed, and said on stderr."""
    if not every_check_ended:
        with contextlib.suppress(OSError, ValueError):
            print(
                "phasegate: a check past its timeout still runs; its temporary files may stay",
                file=sys.stderr,
            )
    exit_at_once(0)


def exit_at_once(code: int) -> NoReturn:
    """End the child as soon as its judgements are written, without the interpreter's teardown.

    The parent waits for the child's exit, on the gate's critical path, and tearing down an
    interpreter that loaded griffe, pydantic and every check's module took about 0.3 s after
    the judgements were on disk (more-itertools, under load; 0.02 to 0.04 s without it); none
    of it is needed. The judgements were written atomically and closed before this; a tool or
    git command still running is killed, as when the child is stopped. A check's thread still
    running is cut off and may leave its temporary folders behind, which is why :func:`main`
    first waits a few seconds for such threads; its temporary folders (those made with
    :func:`~phasegate.gates.scratch.scratch_folder`, and whatever it made in the process's
    :func:`~phasegate.gates.scratch.temporary_root`) are removed here, its tools killed first.
    """
    kill_running_groups()
    remove_all()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    exit_child(main())
