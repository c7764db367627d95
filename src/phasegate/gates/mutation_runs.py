"""Running tests in the copy for the mutation check, and recognizing what they did.

Each run is pytest in a child process (an argument list; the tests to run are handed over in an
arguments file, ``pytest @file``, so that thousands of node ids fit), recording into a private
folder (``--gate=record``). What the tests did is read from that run's
:class:`~phasegate.model.run.RunReport`, never from printed text, and is believed only when it
adds up (fail closed):

``passed``
    the report parses, pytest exited 0, and every test asked for was reported, none failed;
``failed``
    the report parses, pytest exited 1 (tests failed) or 2 (stopped at the first failure), and
    a test or a collection failed; the failing ids are kept;
``timeout``
    the run did not finish in time; its whole process group was killed;
``error``
    anything else: the command could not start, it crashed, wrote no report, wrote one that is
    not a run report, or one that disagrees with its exit status or misses tests asked for.

The baseline run of the check (no mutant yet) also records per-test coverage contexts with the
``phasegate.plugin.contexts`` plugin (coverage.py's ``ctrace`` core, measuring only the files
the check mutates): :func:`read_contexts` turns them into "which tests run each line".
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import ValidationError

from phasegate import clock
from phasegate.autodebug.localize import (
    CONTEXTS_DATA_ENV,
    CONTEXTS_INCLUDE_ENV,
    CONTEXTS_SOURCE_ENV,
)
from phasegate.autodebug.runner import CHILD_ENV
from phasegate.failures import relative_path
from phasegate.jsonvalues import value_at
from phasegate.model.outcome import Outcome
from phasegate.processes import GroupTimeout, run_in_group
from phasegate.store import RUN_REPORT_FILE

if TYPE_CHECKING:
    from phasegate.model.run import RunReport

__all__ = [
    "TestRun",
    "covering_tests",
    "default_command",
    "import_origins",
    "read_contexts",
    "run_environment",
    "run_tests",
]

_FAILING = (Outcome.FAILED, Outcome.ERROR)
_TAIL_LINES = 5


@dataclass
class TestRun:
    """What one run of a selection of tests did."""

    __test__ = False  # not a pytest test class, despite the name

    verdict: Literal["passed", "failed", "timeout", "error"]
    reason: str = ""
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    durations: dict[str, float] = field(default_factory=dict)
    failing: list[str] = field(default_factory=list)
    complete: bool = False
    duration_s: float = 0.0


def default_command() -> list[str]:
    """pytest of this interpreter; run serially when pytest-xdist is installed (``-n 0``
    overrides an ``addopts`` that asks for workers: mutants run in parallel already)."""
    command = [sys.executable, "-m", "pytest"]
    if importlib.util.find_spec("xdist") is not None:
        command += ["-n", "0"]
    return command


def run_environment(import_roots: Sequence[Path]) -> dict[str, str]:
    """The environment of every run: the copy's code first on the import path, no bytecode
    written (a mutant's ``.pyc`` must not outlive it), auto-debug off."""
    paths = [str(path) for path in import_roots]
    existing = os.environ.get("PYTHONPATH")
    if existing:
        paths.append(existing)
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(paths),
        "PYTHONDONTWRITEBYTECODE": "1",
        CHILD_ENV: "1",
    }


def run_tests(
    command: Sequence[str],
    *,
    cwd: Path,
    selection: Sequence[str],
    scratch: Path,
    timeout_s: float,
    env: Mapping[str, str],
    stop_at_first: bool = False,
    contexts_of: Sequence[Path] = (),
) -> TestRun:
    """Run ``selection`` (node ids or test files) in ``cwd`` and recognize what it did.

    ``contexts_of`` (files in the copy) turns on per-test coverage contexts for them, written
    to ``scratch / "contexts.coverage"``.
    """
    scratch.mkdir(parents=True, exist_ok=True)
    report_dir = scratch / "record"
    selection_file = scratch / "selection.txt"  # a long selection does not fit a command line
    selection_file.write_text("".join(f"{item}\n" for item in selection), encoding="utf-8")
    argv = _recording_argv(command, selection_file, report_dir, stop_at_first=stop_at_first)
    child_env = dict(env)
    if contexts_of:
        argv += ["-p", "phasegate.plugin.contexts"]
        child_env.update(_contexts_environment(scratch, cwd, contexts_of))
    started = clock.perf_counter()
    try:
        finished = run_in_group(argv, cwd=cwd, timeout_s=timeout_s, env=child_env)
    except GroupTimeout:
        return TestRun(
            "timeout",
            f"the tests did not finish within {timeout_s:g}s",
            duration_s=clock.perf_counter() - started,
        )
    except OSError as exc:
        return TestRun("error", f"the test command {command[0]!r} could not start: {exc}")
    run = _recognize(report_dir / RUN_REPORT_FILE, finished.returncode, finished.stdout, selection)
    run.duration_s = clock.perf_counter() - started
    return run


def _recording_argv(
    command: Sequence[str], selection_file: Path, report_dir: Path, *, stop_at_first: bool
) -> list[str]:
    """The pytest command that runs the tests listed in ``selection_file``, one a line, and
    records the run into ``report_dir``."""
    return [
        *command,
        f"@{selection_file}",
        "-p",
        "no:cacheprovider",
        "--gate=record",
        f"--phasegate-dir={report_dir}",
        "-q",
        "--tb=no",
        "-o",
        "console_output_style=classic",
        *(["-x"] if stop_at_first else []),
    ]


def _contexts_environment(scratch: Path, cwd: Path, contexts_of: Sequence[Path]) -> dict[str, str]:
    """The variables that tell the contexts plugin to record per-test coverage contexts of
    ``contexts_of`` (files under ``cwd``) into ``scratch / "contexts.coverage"``."""
    return {
        CONTEXTS_DATA_ENV: str(scratch / "contexts.coverage"),
        CONTEXTS_SOURCE_ENV: str(cwd),
        CONTEXTS_INCLUDE_ENV: os.pathsep.join(str(path) for path in contexts_of),
    }


def _recognize(
    report_path: Path, returncode: int, output: bytes, selection: Sequence[str]
) -> TestRun:
    from phasegate.model.run import RunReport

    tail = " | ".join(output.decode("utf-8", errors="replace").strip().splitlines()[-_TAIL_LINES:])
    try:
        text = report_path.read_text(encoding="utf-8")
    except OSError:
        return TestRun("error", f"the test run wrote no report (exit status {returncode}): {tail}")
    try:
        report = RunReport.model_validate_json(text)
    except ValidationError as exc:
        problem = str(exc).splitlines()[0]
        return TestRun(
            "error", f"the test run wrote a report phasegate does not recognize: {problem}"
        )
    if report.exit_status != returncode:
        return TestRun(
            "error",
            f"the test run's report says exit status {report.exit_status}, but it exited "
            f"{returncode}",
        )
    return _judged(report, returncode, selection, tail)


def _judged(report: RunReport, returncode: int, selection: Sequence[str], tail: str) -> TestRun:
    """A recognized report's run: failed, passed, or an error when its parts disagree."""
    outcomes = {test.nodeid: test.outcome for test in report.tests}
    durations = {test.nodeid: test.duration_s for test in report.tests}
    failing = _failing(outcomes, report)
    if failing:
        if returncode not in (1, 2):
            return TestRun("error", f"tests failed, yet the test run exited {returncode}: {tail}")
        complete = not report.incomplete and bool(report.tests)
        return TestRun(
            "failed", outcomes=outcomes, durations=durations, failing=failing, complete=complete
        )
    if returncode != 0:
        return TestRun("error", f"the test run exited {returncode} with no failed test: {tail}")
    unrun = _unrun(report, selection, outcomes)
    if unrun:
        return TestRun("error", f"the test run did not run every test: {unrun}")
    return TestRun("passed", outcomes=outcomes, durations=durations, complete=True)


def _failing(outcomes: Mapping[str, Outcome], report: RunReport) -> list[str]:
    """The tests that failed or errored, then the files that could not be collected."""
    failing = [nodeid for nodeid, outcome in outcomes.items() if outcome in _FAILING]
    return failing + [error.nodeid for error in report.collection_errors]


def _unrun(report: RunReport, selection: Sequence[str], outcomes: Mapping[str, Outcome]) -> str:
    """Why a run without failures did not run every test asked for ("" when it did)."""
    missing = _missing(selection, outcomes)
    if missing:
        return f"{missing[0]} was asked for but not reported"
    if report.incomplete or not report.tests:
        return "it was incomplete"
    return ""


def _missing(selection: Sequence[str], outcomes: Mapping[str, Outcome]) -> list[str]:
    """Node ids asked for but not reported (a file asked for is found by its tests)."""
    reported_files = {nodeid.split("::", 1)[0] for nodeid in outcomes}
    return [
        item
        for item in selection
        if item not in outcomes and not ("::" not in item and item in reported_files)
    ]


def covering_tests(by_line: Mapping[int, frozenset[str]], line: int) -> set[str]:
    """The tests that ran ``line`` of a file whose contexts are ``by_line``.

    A line run only while modules were imported (the empty context: a module constant, a
    ``def`` line) belongs to no test in particular: every test that ran any line of the file
    is taken, since each of them imported it.
    """
    contexts = by_line.get(line, frozenset())
    tests = set(contexts) - {""}
    if not tests and "" in contexts:
        tests = {name for names in by_line.values() for name in names} - {""}
    return tests


def read_contexts(data_file: Path, root: Path) -> dict[str, dict[int, frozenset[str]]]:
    """``{path relative to root: {line: node ids of the tests that ran it}}``.

    The empty context (code run while modules were imported, outside any test) is kept as
    ``""``.
    """
    from coverage import CoverageData

    found: dict[str, dict[int, frozenset[str]]] = {}
    with contextlib.closing(CoverageData(basename=str(data_file))) as data:
        data.read()
        for filename in data.measured_files():
            by_line = data.contexts_by_lineno(filename)
            found[relative_path(Path(filename), root)] = {
                line: frozenset(contexts) for line, contexts in by_line.items()
            }
    return found


_PROBE = (
    "import importlib.util, json, sys\n"
    "found = {}\n"
    "for name in sys.argv[1:]:\n"
    "    spec = importlib.util.find_spec(name)\n"
    "    places = [] if spec is None else list(spec.submodule_search_locations or [])\n"
    "    found[name] = None if spec is None else (spec.origin or places)\n"
    "print(json.dumps(found))\n"
)


def import_origins(names: Sequence[str], *, cwd: Path, env: Mapping[str, str]) -> dict[str, str]:
    """Where this interpreter, started as the tests are, imports each top-level name from
    (``""`` when it cannot tell): the mutants must be the code the tests import."""
    try:
        finished = run_in_group(
            [sys.executable, "-c", _PROBE, *names], cwd=cwd, timeout_s=60.0, env=env
        )
    except (OSError, GroupTimeout):
        return dict.fromkeys(names, "")
    try:
        found = json.loads(finished.stdout.decode("utf-8", errors="replace"))
    except ValueError:
        return dict.fromkeys(names, "")
    return {name: _origin(value_at(found, name)) for name in names}


def _origin(answer: object) -> str:
    """The probe's answer for one name: a module's file, or a package's first folder (a
    namespace package has several); ``""`` for anything else."""
    if isinstance(answer, list):
        answer = answer[0] if answer and isinstance(answer[0], str) else None
    return answer if isinstance(answer, str) else ""
