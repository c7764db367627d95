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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from phasegate import clock
from phasegate.config import LoadedConfig, find_project_root, load_config
from phasegate.errors import UsageError
from phasegate.gates import RECORD_ONLY
from phasegate.store import RUN_REPORT_FILE, Store

__all__ = ["register"]

_POLL_S = 0.2
#: In a log (not a terminal), how often ``gate run`` prints how far the tests are.
_TESTS_LINE_S = 5.0
#: How long a pytest run stopped for a bad gate may take to end before it is killed.
_STOP_WAIT_S = 10.0


def register(subparsers: Any) -> None:
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
    from phasegate.gates.definition import load_gate
    from phasegate.gates.registry import CheckRegistry
    from phasegate.gates.runner import explain, plan_gate

    loaded = _loaded()
    if args.name == RECORD_ONLY:
        print(f"{RECORD_ONLY}: records the run into report.json and evaluates no gate")
        return 0
    gate, source = load_gate(
        args.name,
        loaded.project_root,
        gate_paths=loaded.config.gate_paths,
        overrides=loaded.config.checks,
        overrides_file=loaded.source,
    )
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
    """Start pytest first, then check the settings and the gate while it starts up.

    Only what the command line needs is read before pytest starts: the settings as the pytest
    plugin caches them (no pydantic on a hit). The gate and the full settings are loaded and
    checked while pytest runs; when either is wrong, pytest is stopped and the error is the
    command's (exit code 4), as if nothing had started.
    """
    if args.gate == RECORD_ONLY:
        raise UsageError(_RECORD_ONLY_REFUSED)
    root = find_project_root(Path.cwd())
    # With --gate, the same overrides as the plugin's, so both read one entry of the settings
    # cache; without, this command's entry and pytest's are two of the entries it keeps.
    overrides = {"gate": ("--gate", args.gate)} if args.gate else {}
    quick = load_config(root, overrides, cache=True)
    name = str(quick.values["gate"])
    if name == RECORD_ONLY:
        raise UsageError(_RECORD_ONLY_REFUSED)
    store = Store(quick.artifacts_path)
    store.ensure_writable()
    extra = [arg for arg in args.pytest_args if arg != "--"]
    command = [sys.executable, "-m", "pytest", f"--gate={name}", *extra]
    if args.base:
        command.append(f"--base={args.base}")
    gates = store.path("gates")
    gates.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="phasegate-progress-") as folder:
        progress = Path(folder) / "events.jsonl"
        progress.touch()
        environment = {**os.environ, "PHASEGATE_PROGRESS_FILE": str(progress)}
        # Named for the gate once it is loaded (a gate file names its gate).
        running_log = gates / f".running-{os.getpid()}.pytest.log"
        with open(running_log, "w", encoding="utf-8") as log:
            process = subprocess.Popen(
                command,
                cwd=root,
                env=environment,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            try:
                gate_name = _check_settings_and_gate(root, name, args.base)
            except BaseException:  # a bad gate or setting, Ctrl-C, or a crash: no run is wanted
                _stop(process)
                log.close()
                running_log.unlink(missing_ok=True)
                raise
            # Renamed while pytest writes to it (the open file follows): a run killed from
            # outside still leaves its log under the gate's name.
            log_path = store.path(Store.gate_log_file(gate_name))
            os.replace(running_log, log_path)
            print(f"phasegate: gate {gate_name}: running {' '.join(['pytest', *command[3:]])}")
            try:
                returncode = _follow(process, progress, sys.stdout)
            except BaseException:  # Ctrl-C: stop pytest too, and let main() say it in a line
                _stop(process)
                raise
    return _finish(store, gate_name, returncode, log_path)


_RECORD_ONLY_REFUSED = (
    "`phasegate gate run` needs a gate; to only record a run, use pytest --gate=record"
)


def _check_settings_and_gate(root: Path, name: str, base: str | None) -> str:
    """Validate the settings, the base and the gate ``name``; return the gate's own name.

    Also imports what :func:`_finish` needs, while pytest runs rather than after it.
    """
    from phasegate.extensions import make_plugin_manager
    from phasegate.gates.definition import load_gate
    from phasegate.gates.newcode import require_base
    from phasegate.gates.registry import CheckRegistry
    from phasegate.gates.runner import plan_gate
    from phasegate.model.gate import GateVerdict  # noqa: F401 - imported for _finish, now
    from phasegate.model.run import RunReport  # noqa: F401 - imported for _finish, now

    loaded = load_config(root)
    if base:
        require_base(root, base)
    gate, source = load_gate(
        name,
        loaded.project_root,
        gate_paths=loaded.config.gate_paths,
        overrides=loaded.config.checks,
        overrides_file=loaded.source,
    )
    # Planning finds what only the checks know: unknown check ids, thresholds of the wrong type.
    registry = CheckRegistry(make_plugin_manager(loaded.config.plugins))
    plan_gate(gate, source, registry, in_pull_request=False)
    return gate.name


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
    the tests' counts at most every :data:`_TESTS_LINE_S` seconds and when they are done.
    """

    out: TextIO
    interactive: bool
    started: float
    running: set[str] = field(default_factory=set)
    tests: dict[str, int] | None = None
    tests_shown_at: float | None = None
    tests_final_shown: bool = False

    def event(self, line: str) -> None:
        try:
            event = json.loads(line)
        except ValueError:
            return
        if not isinstance(event, dict):
            return
        if isinstance(event.get("tests"), dict):
            self._tests(event["tests"])
        elif "check" in event:
            self._check(event)

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

    def _tests(self, counts: dict[str, Any]) -> None:
        self.tests = {key: int(counts.get(key) or 0) for key in ("collected", "done", "failed")}
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

    def _check(self, event: dict[str, Any]) -> None:
        check = str(event.get("check"))
        if event.get("state") == "started":
            self.running.add(check)
            if not self.interactive:
                self._write(f"  {check}: started\n")
            return
        self.running.discard(check)
        cached = " (cached)" if event.get("cached") else ""
        duration = event.get("duration_s") or 0.0
        prefix = "\r\x1b[K" if self.interactive else ""
        self._write(f"{prefix}  {check}: {event.get('status')} in {duration:.1f}s{cached}\n")

    def _write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()


def _follow(process: subprocess.Popen[bytes], progress: Path, out: TextIO) -> int:
    """Show check and test events as they arrive until pytest exits; return its exit code."""
    display = _Display(out, out.isatty(), clock.monotonic())
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


def _finish(store: Store, gate: str, returncode: int, log_path: Path) -> int:
    from phasegate.model.gate import GateVerdict
    from phasegate.model.run import Outcome, RunReport
    from phasegate.report.terminal import gate_lines

    verdict = store.read_model(Store.verdict_file(gate), GateVerdict)
    report = store.read_model(RUN_REPORT_FILE, RunReport)
    print()
    if report is not None:
        failing = [t for t in report.tests if t.outcome in (Outcome.FAILED, Outcome.ERROR)]
        for test in failing[:20]:
            detail = f"{test.failure.exc_type}: {test.failure.message}" if test.failure else ""
            first_line = detail.splitlines()[0] if detail else ""
            print(f"  {test.outcome.value.upper()} {test.nodeid} - {first_line}")
        if len(failing) > 20:
            print(f"  ... and {len(failing) - 20} more (see the report)")
    if verdict is None or (report is not None and verdict.run_id != report.run_id):
        print(
            f"phasegate: the gate was not judged (pytest exit status {returncode}); see {log_path}"
        )
        return returncode or 1
    for text, _markup in gate_lines(
        verdict, str(store.path(Store.verdict_file(gate))), verbosity=0
    ):
        print(text)
    print(f"pytest output: {log_path}")
    return 1 if verdict.verdict == "insufficient" and returncode == 0 else returncode
