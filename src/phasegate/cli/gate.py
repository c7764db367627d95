"""``phasegate gate``: run a gate from a shell or CI, list the gates, explain one.

``gate run`` runs ``pytest --gate=NAME`` in a subprocess (the same engine as in pytest), keeps
pytest's own output in ``.phasegate/gates/<gate>.pytest.log``, shows which checks are running
and which are done while it runs, and ends with the gate's table. Its exit status is 1 when
the verdict is insufficient, else pytest's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from phasegate import clock
from phasegate.cli import Subcommands
from phasegate.config import LoadedConfig, find_project_root, load_config
from phasegate.errors import USAGE_ERROR_EXIT_CODE, StoreError, UsageError
from phasegate.gates import RECORD_ONLY
from phasegate.store import Store

__all__ = ["register"]

_POLL_S = 0.2
#: In a log (not a terminal), how often ``gate run`` prints how far the tests are.
_TESTS_LINE_S = 5.0
#: How long a pytest run stopped for a bad gate may take to end before it is killed.
_STOP_WAIT_S = 10.0


def register(subparsers: Subcommands) -> None:
    """Add ``gate run``, ``gate list`` and ``gate explain``."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "gate", help="run, list and explain gates", description="Quality gates."
    )
    commands = parser.add_subparsers(title="gate commands", metavar="COMMAND")

    run = commands.add_parser(
        "run",
        help="run the tests and the gate's checks; exit 1 when insufficient",
        description="Run `pytest --gate=NAME` with live progress and print the verdict.",
    )
    run.add_argument("--gate", metavar="NAME", help="the gate (default: [tool.phasegate] gate)")
    run.add_argument("--base", metavar="REF", help="git ref that new code is measured against")
    run.add_argument(
        "pytest_args",
        nargs=argparse.REMAINDER,
        metavar="-- PYTEST ARGS",
        help="arguments passed on to pytest, after --",
    )
    run.set_defaults(handler=_run)

    listing = commands.add_parser("list", help="the gates and checks known, and where from")
    listing.set_defaults(handler=_list)

    explaining = commands.add_parser("explain", help="a gate's conditions in words")
    explaining.add_argument("name", help="a gate name or a gate file (.toml)")
    explaining.add_argument(
        "--pull-request",
        action="store_true",
        help="explain it as in a pull request (checks required only there become required)",
    )
    explaining.set_defaults(handler=_explain)


def _loaded() -> LoadedConfig:
    return load_config(find_project_root(Path.cwd()))


def _list(args: argparse.Namespace) -> int:
    from phasegate.extensions import make_plugin_manager
    from phasegate.gates.definition import find_gates, load_gate
    from phasegate.gates.registry import CheckRegistry

    loaded = _loaded()
    print("gates:")
    for name, source in sorted(find_gates(loaded.project_root, loaded.config.gate_paths).items()):
        gate, _ = load_gate(name, loaded.project_root, gate_paths=loaded.config.gate_paths)
        print(f"  {name:<14} {source.origin:<9} {source.path}")
        if gate.description:
            print(f"  {'':<14} {gate.description}")
    print(f"  {RECORD_ONLY:<14} {'built-in':<9} (records the run; evaluates no gate)")
    registry = CheckRegistry(make_plugin_manager(loaded.config.plugins))
    print("checks:")
    for check_id in registry.ids():
        registered = registry.get(check_id)
        print(f"  {check_id:<14} {registered.origin:<9} {registered.check.title}")
    return 0


def _explain(args: argparse.Namespace) -> int:
    from phasegate.extensions import make_plugin_manager
    from phasegate.gates.registry import CheckRegistry
    from phasegate.gates.runner import explain, plan_gate
    from phasegate.gates.runner_factory import configured_gate

    loaded = _loaded()
    if args.name == RECORD_ONLY:
        print(f"{RECORD_ONLY}: records the run into report.json and evaluates no gate")
        return 0
    gate, source = configured_gate(loaded, args.name)
    registry = CheckRegistry(make_plugin_manager(loaded.config.plugins))
    plan = plan_gate(gate, source, registry, in_pull_request=args.pull_request)
    print(f"gate {gate.name} ({source.origin}: {source.path})")
    if gate.description:
        print(gate.description)
    print("It is insufficient when a required check fails, cannot run, or is skipped without")
    print("the gate allowing it. Each check:")
    for line in explain(plan):
        print(f"  {line}")
    return 0


def _run(args: argparse.Namespace) -> int:
    """Start pytest at once and follow it; pytest loads and checks the settings and the gate.

    With ``--gate``, nothing of the settings is read here: pytest validates them, plans the
    gate and names both the gate and its artifacts folder in the progress feed; pytest's output
    goes to a temporary log until then and is kept in that folder at the end. Without it, the
    gate's name is read from the settings as the pytest plugin caches them (no pydantic on a
    hit). A problem ends the pytest run with a usage error, which becomes the command's own
    (exit code 4), its log removed. At the end the feed holds the failing tests and the gate's
    table, so this process loads neither the gate's checks nor the verdict's models.
    """
    name = args.gate or _configured_gate()
    if name == RECORD_ONLY:
        raise UsageError(_RECORD_ONLY_REFUSED)
    root = find_project_root(Path.cwd())
    command = _pytest_command(name, args.pytest_args, args.base)
    with tempfile.TemporaryDirectory(prefix="phasegate-progress-") as folder:
        progress = Path(folder) / "events.jsonl"
        progress.touch()
        environment = {**os.environ, "PHASEGATE_PROGRESS_FILE": str(progress)}
        # Kept in the artifacts folder, under the gate's name, once pytest has named both.
        handle, log_name = tempfile.mkstemp(prefix="phasegate-gate-run-", suffix=".pytest.log")
        running_log = Path(log_name)
        with open(handle, "w", encoding="utf-8") as log:
            process = subprocess.Popen(
                command,
                cwd=root,
                env=environment,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            display = _Display(sys.stdout, sys.stdout.isatty(), clock.monotonic())
            display.on_gate = lambda gate, artifacts: _say_running(
                _gate_log(artifacts, gate), gate, command
            )
            try:
                returncode = _follow(process, progress, display)
            except BaseException:  # Ctrl-C: stop pytest too, and let main() say it in a line
                _stop(process)
                _keep_log(running_log, display)
                raise
    if display.gate is None or display.artifacts is None:
        return _not_started(running_log, returncode)
    return _finish(display, returncode, _keep_log(running_log, display))


def _pytest_command(gate: str, pytest_args: Sequence[str], base: str | None) -> list[str]:
    """The pytest run of ``gate``: the arguments after ``--`` pass through to pytest."""
    extra = [arg for arg in pytest_args if arg != "--"]
    command = [sys.executable, "-m", "pytest", f"--gate={gate}", *extra]
    if base:
        command.append(f"--base={base}")
    return command


def _configured_gate() -> str:
    """The gate ``[tool.phasegate]`` names (``gate run`` without ``--gate``)."""
    root = find_project_root(Path.cwd())
    return str(load_config(root, cache=True).values["gate"])


def _gate_log(artifacts: Path, gate: str) -> Path:
    return Store(artifacts).path(Store.gate_log_file(gate))


def _keep_log(running_log: Path, display: _Display) -> Path:
    """Move pytest's output into the artifacts folder pytest named; where it is now.

    Before pytest has named the gate and its folder, the log stays where it is.
    """
    if display.gate is None or display.artifacts is None:
        return running_log
    store = Store(display.artifacts)
    try:
        kept = store.write_bytes(Store.gate_log_file(display.gate), running_log.read_bytes())
    except (OSError, StoreError) as exc:
        print(f"phasegate: pytest's output stays in {running_log}: {exc}", file=sys.stderr)
        return running_log
    running_log.unlink(missing_ok=True)
    return kept


_RECORD_ONLY_REFUSED = (
    "`phasegate gate run` needs a gate; to only record a run, use pytest --gate=record"
)


def _say_running(log_path: Path, gate: str, command: list[str]) -> None:
    """The gate is loaded: say which, with the pytest command, and where its output will be."""
    print(
        f"phasegate: gate {gate}: running {' '.join(['pytest', *command[3:]])} "
        f"(output kept in {log_path})",
        flush=True,
    )


def _error_lines(text: str) -> list[str]:
    """What pytest's output says after ``ERROR:`` (phasegate's own ``phasegate:`` taken off)."""
    return [
        line.removeprefix("ERROR: ").removeprefix("phasegate: ")
        for line in text.splitlines()
        if line.startswith("ERROR: ")
    ]


def _not_started(running_log: Path, returncode: int) -> int:
    """pytest ended before it had loaded the gate: a bad setting, base or gate, or a crash.

    pytest's usage error (exit code 4) becomes the command's, and its log is removed, as if
    nothing had started; anything else is said with the log's last lines.
    """
    try:
        text = running_log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    errors = _error_lines(text)
    if returncode == USAGE_ERROR_EXIT_CODE and errors:
        running_log.unlink(missing_ok=True)
        raise UsageError("\n".join(errors))
    tail = "\n".join(text.strip().splitlines()[-15:])
    print(
        f"phasegate: pytest exited with status {returncode} before the gate was loaded; "
        f"its output is in {running_log}:\n{tail}",
        file=sys.stderr,
    )
    return returncode or 1


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End a pytest run that was started for nothing (or interrupted), and reap it.

    pytest is asked as Ctrl-C asks it (SIGINT), so that it stops the static checks' process
    and the tools that started; then told (SIGTERM), then killed.
    """
    for stop in (_interrupt, subprocess.Popen.terminate, subprocess.Popen.kill):
        if process.poll() is not None:
            return
        stop(process)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=_STOP_WAIT_S)
    process.wait()


def _interrupt(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGINT if sys.platform != "win32" else signal.SIGTERM)


@dataclass
class _Display:
    """What ``gate run`` shows while pytest runs: checks in progress and how far the tests are.

    On a terminal one status line is redrawn; in a log (CI), each event is a line of its own,
    the tests' counts at most every :data:`_TESTS_LINE_S` seconds and when they are done. It
    also keeps the gate's name once pytest has loaded it (and calls ``on_gate`` with it), and
    what pytest left to print at the end (the failing tests and the gate's table).
    """

    out: TextIO
    interactive: bool
    started: float
    running: set[str] = field(default_factory=set)
    tests: dict[str, int] | None = None
    tests_shown_at: float | None = None
    tests_final_shown: bool = False
    gate: str | None = None
    artifacts: Path | None = None
    on_gate: Callable[[str, Path], None] | None = None
    verdict: _Verdict | None = None

    def event(self, line: str) -> None:
        try:
            event = json.loads(line)
        except ValueError:
            return
        if not isinstance(event, dict):
            return
        if isinstance(event.get("gate"), str) and self.gate is None:
            self._gate(event["gate"], event.get("artifacts"))
        elif isinstance(event.get("verdict"), dict):
            self.verdict = _Verdict.read(event["verdict"])
        elif isinstance(event.get("tests"), dict):
            self._tests(event["tests"])
        elif "check" in event:
            self._check(event)

    def _gate(self, gate: str, artifacts: object) -> None:
        """The gate pytest loaded, and its artifacts folder (an absolute path it wrote to)."""
        if not (isinstance(artifacts, str) and Path(artifacts).is_absolute()):
            return  # not the event pytest writes: the run stays "not started"
        self.gate, self.artifacts = gate, Path(artifacts)
        if self.on_gate is not None:
            self.on_gate(gate, self.artifacts)

    def status(self) -> None:
        if not self.interactive:
            return
        busy = ", ".join(sorted(self.running)) or "-"
        tests = f"pytest: {self._tests_phrase()}  " if self.tests else ""
        self.out.write(
            f"\r  {clock.monotonic() - self.started:6.1f}s  {tests}checks running: {busy}\x1b[K"
        )
        self.out.flush()

    def close(self) -> None:
        if self.interactive:
            self.out.write("\r\x1b[K")
        elif self.tests and not self.tests_final_shown:
            self._write(f"  pytest: {self._tests_phrase()}\n")

    def _tests(self, counts: Mapping[str, object]) -> None:
        self.tests = {key: _count(counts.get(key)) for key in ("collected", "done", "failed")}
        if self.interactive or self.tests_final_shown:
            return
        now = clock.monotonic()
        finished = 0 < self.tests["collected"] <= self.tests["done"]
        due = self.tests_shown_at is None or now - self.tests_shown_at >= _TESTS_LINE_S
        if due or finished:
            self._write(f"  pytest: {self._tests_phrase()}\n")
            self.tests_shown_at, self.tests_final_shown = now, finished

    def _tests_phrase(self) -> str:
        counts = self.tests or {}
        failed = f", {counts['failed']} failed" if counts.get("failed") else ""
        return f"{counts.get('done', 0)} of {counts.get('collected', 0)} tests run{failed}"

    def _check(self, event: Mapping[str, object]) -> None:
        check = str(event.get("check"))
        if event.get("state") == "started":
            self.running.add(check)
            if not self.interactive:
                self._write(f"  {check}: started\n")
            return
        self.running.discard(check)
        cached = " (cached)" if event.get("cached") else ""
        duration = event.get("duration_s")
        duration = duration if isinstance(duration, int | float) else 0.0
        prefix = "\r\x1b[K" if self.interactive else ""
        self._write(f"{prefix}  {check}: {event.get('status')} in {duration:.1f}s{cached}\n")

    def _write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()


def _count(value: object) -> int:
    """A count of the progress feed: a whole number, or 0 for anything else."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _follow(process: subprocess.Popen[bytes], progress: Path, display: _Display) -> int:
    """Show check and test events as they arrive until pytest exits; return its exit code."""
    seen = 0
    while True:
        returncode = process.poll()
        lines = progress.read_text(encoding="utf-8").splitlines()
        for line in lines[seen:]:
            display.event(line)
        seen = len(lines)
        if returncode is not None:
            break
        display.status()
        # Waiting on the process, not on a timer: its end is seen at once, not at the next tick.
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=_POLL_S)
    display.close()
    return returncode


@dataclass(frozen=True)
class _Verdict:
    """The end of the run as pytest left it in the feed: the gate, its verdict, what to print."""

    gate: str
    insufficient: bool
    lines: list[str]

    @classmethod
    def read(cls, event: Mapping[str, object]) -> _Verdict | None:
        """The verdict event, or ``None`` when it is not of the shape pytest writes."""
        gate, insufficient, lines = event.get("gate"), event.get("insufficient"), event.get("lines")
        if not (
            isinstance(gate, str)
            and isinstance(insufficient, bool)
            and isinstance(lines, list)
            and all(isinstance(line, str) for line in lines)
        ):
            return None
        return cls(gate, insufficient, lines)


def _finish(display: _Display, returncode: int, log_path: Path) -> int:
    """Print the failing tests and the table; exit 1 when insufficient, else pytest's status."""
    verdict = display.verdict
    print()
    if verdict is None or verdict.gate != display.gate:
        print(
            f"phasegate: the gate was not judged (pytest exit status {returncode}); see {log_path}"
        )
        return returncode or 1
    for line in verdict.lines:
        print(line)
    print(f"pytest output: {log_path}")
    return 1 if verdict.insufficient and returncode == 0 else returncode
