"""Where the wall time of one cold ``pytest --gate=twelve-check`` goes: a timeline per project.

For each project of ``benchmarks/gate.py`` (the same copies, test subsets and environment) it
runs the tools by hand once, each timed alone (the longest of them is the machine's limit's
first term), then ``--runs`` cold gates, each with three probes that change nothing the gate
judges:

* a ``sitecustomize`` on ``PYTHONPATH`` that logs every Python process's start (its kernel
  start time, so the interpreter's own start counts) and exit (its own CPU seconds, at
  ``atexit`` or ``os._exit``: what comes after, the interpreter's teardown, shows as the gap
  to the moment this script reaps the pytest process);
* a pytest plugin (``-p``) that logs when the configuration starts, the collection ends, the
  tests end, and the session's end starts and ends, and wraps, once the session ends, the
  coverage data's saving and analysis (``CoverageRun.report``) and the wait for the static
  checks' process;
* ``PHASEGATE_PROGRESS_FILE``, whose check events (the static process's checks: bandit, the
  build, ruff, ...) are timestamped as they arrive by a thread of this script (every 5 ms).

It prints each run's timeline from the pytest process's start, then the stretches in which the
pytest process ran with nothing of the static side beside it (the second core idle unless the
tests themselves use it): before the static checks' process started and after it ended; then
the static side's critical path stretch by stretch (the static process's start, the build
check's preparation, ``python -m build``, reading what it built, the exit and the parent's
noticing it, the session's end after the wait), with each variant's medians at the end. Since
the parent reads the judgements without waiting for the static process's exit (which then
removes the checks' temporary folders), the stretch from the build check's end to the parent's
having the judgements is the one on the path. The
build's backend hooks are timed too, from the check's start to the first, from the first to the
wheel's, and from there to the check's end: a build check whose front end runs in the static
process (no ``python -m build``) has only those. The
wall times and ratios are each run's own (the pytest command's, as ``benchmarks/gate.py``
times it). "this checkout" runs the phasegate of this checkout's ``src``, put on the path
before the caller's; ``--against`` another's; the timeline names the one that ran. No figure
here is asserted anywhere; it is a tool for finding the serial stretches.

    python benchmarks/gate_timeline.py [--runs 2] [--only NAME ...] [--lines N] [--against SRC]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gate import (
    CORES,
    Subject,
    by_hand,
    clear_cache,
    gate_command,
    make_subject,
    run_steps,
    timed,
)

#: This checkout's phasegate, run as "this checkout" whatever the caller's path imports.
THIS_CHECKOUT_SRC = Path(__file__).resolve().parents[1] / "src"

#: Logged by every Python process: its start (kernel start time) and its exit.
SITECUSTOMIZE = """\
import atexit, json, os, resource, time
_LOG = os.environ.get("PHASEGATE_TIMELINE_LOG")
def _write(record):
    with open(_LOG, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\\n")
def _started():
    ticks = int(open("/proc/self/stat").read().rsplit(")", 1)[1].split()[19])
    since_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
    return time.time() - since_boot + ticks / os.sysconf("SC_CLK_TCK")
def _argv():
    return open("/proc/self/cmdline", "rb").read().decode(errors="replace").split("\\0")[:-1]
def _exit():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    _write({"t": time.time(), "pid": os.getpid(), "what": "exit",
            "cpu": usage.ru_utime + usage.ru_stime})
def _exit_now(code, _original=os._exit):
    _exit()
    _original(code)
if _LOG:
    _write({"t": _started(), "pid": os.getpid(), "ppid": os.getppid(), "what": "start",
            "argv": _argv()})
    atexit.register(_exit)
    os._exit = _exit_now  # a process that ends without the interpreter's teardown
"""

#: The pytest process's hooks, coverage.py's analysis and the wait for the static checks.
PLUGIN = """\
import functools, json, os, time
import pytest
_LOG = os.environ["PHASEGATE_TIMELINE_LOG"]
def mark(what):
    with open(_LOG, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"t": time.time(), "pid": os.getpid(), "what": what}) + "\\n")
def wrap(owner, name, what):
    original = getattr(owner, name)
    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        mark(what + " starts")
        try:
            return original(*args, **kwargs)
        finally:
            mark(what + " ends")
    setattr(owner, name, wrapper)
@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    import phasegate
    mark(f"pytest configures (phasegate from {os.path.dirname(phasegate.__file__)})")
def pytest_collection_finish(session):
    mark("collection ends")
@pytest.hookimpl(hookwrapper=True)
def pytest_runtestloop(session):
    yield
    mark("tests end")
@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_sessionfinish(session):
    from phasegate.gates import coverage_run, static_process
    wrap(coverage_run.CoverageRun, "report", "coverage analysis (pytest process)")
    wrap(static_process.StaticChecksProcess, "judgements", "waiting for the static process")
    mark("session end starts")
    yield
    mark("session end ends (verdict written)")
"""


class Tail(threading.Thread):
    """Timestamps each line appended to the progress file as it arrives."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.lines: list[tuple[float, str]] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        offset = 0
        while True:
            stop = self.stopping.is_set()
            if self.path.exists():
                with open(self.path, encoding="utf-8") as handle:
                    handle.seek(offset)
                    text = handle.read()
                complete = text[: text.rfind("\n") + 1]
                offset += len(complete.encode("utf-8"))
                now = time.time()
                self.lines += [(now, line) for line in complete.splitlines()]
            if stop:
                return
            time.sleep(0.005)


def process_name(argv: list[str]) -> str:
    """A short name for a Python process by its command line; a PEP 517 hook (which
    ``pyproject_hooks`` runs as ``python .../_in_process.py HOOK FOLDER``, and the build check
    as ``python -c CODE .../_in_process.py HOOK FOLDER`` with the collector off) is "build hook
    HOOK"."""
    arguments = argv[1:]
    if arguments[:1] == ["-c"]:
        arguments = arguments[2:]  # the code: what it runs follows
    words = [word for word in arguments if not word.startswith("-") or word == "-m"]
    if "-m" in words and words.index("-m") + 1 < len(words):
        return words[words.index("-m") + 1]
    if len(words) > 1 and Path(words[0]).name == "_in_process.py":
        return f"build hook {words[1]}"
    return Path(words[0]).name if words else "python"


def one_run(
    subject: Subject, probes: Path, index: int, phasegate_src: str
) -> tuple[list[tuple[float, str]], float]:
    """One cold gate with the probes and phasegate from ``phasegate_src``; its events as
    (seconds from the pytest start, what), and its wall seconds."""
    log = probes / f"timeline-{index}.jsonl"
    progress = probes / f"progress-{index}.jsonl"
    for path in (log, progress):
        path.unlink(missing_ok=True)  # the other variant's run of the same index
    env = dict(subject.env)
    env["PYTHONPATH"] = os.pathsep.join(
        [
            str(probes),
            *([subject.env["PYTHONPATH"]] if "PYTHONPATH" in subject.env else []),
            phasegate_src,
        ]
    )
    # gate.environment() keeps the caller's PYTHONPATH after the subject's.
    env["PHASEGATE_TIMELINE_LOG"] = str(log)
    env["PHASEGATE_PROGRESS_FILE"] = str(progress)
    clear_cache(subject.root)
    tail = Tail(progress)
    tail.start()
    started = time.time()
    timing = timed([*gate_command(subject), "-p", "phasegate_timeline_plugin"], subject.root,
                   env=env)  # fmt: skip
    ended = time.time()
    tail.stopping.set()
    tail.join()
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    names = {r["pid"]: process_name(r["argv"]) for r in records if r["what"] == "start"}
    events = []
    for record in records:
        name = names.get(record["pid"], str(record["pid"]))
        if record["what"] == "start":
            events.append((record["t"], f"{name} starts (pid {record['pid']})"))
        elif record["what"] == "exit":
            events.append((record["t"], f"{name} exits, {record['cpu']:.2f} s CPU of its own"))
        else:
            events.append((record["t"], record["what"]))
    for moment, line in tail.lines:
        event = json.loads(line)
        if "check" in event:
            events.append((moment, f"check {event['check']} {event['state']}"))
    origin = started
    events.append((started, "this script starts pytest"))
    events.append((ended, f"pytest reaped: {timing.wall:.2f} s wall, {timing.cpu:.2f} s CPU "
                   "with children"))  # fmt: skip
    return sorted((t - origin, what) for t, what in events), timing.wall


class MissingMoment(Exception):
    """A run's timeline lacks a moment the serial stretches are measured from."""


def first(events: list[tuple[float, str]], prefix: str, missing: str) -> float:
    """The time of the first event starting with ``prefix``; :class:`MissingMoment` saying
    ``missing`` when there is none."""
    for moment, what in events:
        if what.startswith(prefix):
            return moment
    raise MissingMoment(missing)


def serial_stretches(events: list[tuple[float, str]]) -> dict[str, float]:
    """Wall seconds of the pytest process alone: before the static process, after it."""
    static_start = first(
        events,
        "phasegate.gates.static_process starts",
        "the static checks' process never started (every static check cached, or none planned)",
    )
    static_end = first(
        events, "phasegate.gates.static_process exits", "the static checks' process never exited"
    )
    pytest_end = first(events, "pytest reaped", "pytest was not reaped")
    figures = {
        "before the static checks' process starts": static_start,
        "after the static checks' process exits": max(0.0, pytest_end - static_end),
    }
    analysis = [t for t, what in events if what.startswith("coverage analysis (pytest")]
    if len(analysis) >= 2:
        figures["coverage analysis in the pytest process"] = analysis[-1] - analysis[0]
        figures["of it after the static process exits"] = max(
            0.0, analysis[-1] - max(analysis[0], static_end)
        )
    tests_end = first(events, "tests end", "the tests never ended")
    figures["tests end to pytest reaped"] = pytest_end - tests_end
    at_exit = first(events, "pytest exits", "pytest's atexit never ran")
    figures["pytest's atexit to pytest reaped"] = pytest_end - at_exit
    return figures


#: The static side's critical path, stretch by stretch: (what, from the first event starting
#: with (the latest of several), to the first event starting with). A stretch whose moments a
#: run lacks is left out.
STATIC_SIDE = (
    ("the static process's start, to its first check", "phasegate.gates.static_process starts",
     "check "),
    ("the build check's preparation, to `python -m build`", "check build started",
     "build starts"),
    ("`python -m build`", "build starts", "build exits"),
    ("the build check's reading of its sdist and wheel", "build exits", "check build finished"),
    ("the build check's preparation, to its first hook", "check build started", "build hook "),
    ("the build's hooks, the first's start to the wheel's exit",
     "build hook get_requires_for_build_sdist starts", "build hook build_wheel exits"),
    ("the build check's end after the wheel's hook", "build hook build_wheel exits",
     "check build finished"),
    ("the build check's end, to the static process's exit", "check build finished",
     "phasegate.gates.static_process exits"),
    ("the build check's end, to the parent's having the judgements", "check build finished",
     "waiting for the static process ends"),
    ("the parent's noticing the static process's exit, once waiting",
     ("phasegate.gates.static_process exits", "waiting for the static process starts"),
     "waiting for the static process ends"),
    ("the session's end after the wait (verdict, round, summary)",
     "waiting for the static process ends", "session end ends"),
)  # fmt: skip


def static_side(events: list[tuple[float, str]]) -> dict[str, float]:
    """Wall seconds of each stretch of :data:`STATIC_SIDE` the run has the moments of, the end
    looked for from the start on."""
    figures: dict[str, float] = {}
    for what, start, end in STATIC_SIDE:
        starts = (start,) if isinstance(start, str) else start
        moments = [next((t for t, event in events if event.startswith(s)), None) for s in starts]
        if None in moments:
            continue
        begun = max(t for t in moments if t is not None)
        ended = next((t for t, event in events if t >= begun and event.startswith(end)), None)
        if ended is not None:
            figures[what] = ended - begun
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--suite", choices=("subset", "full"), default="subset")
    names = ["generated", "more-itertools", "python-dateutil", "attrs"]
    parser.add_argument("--only", nargs="+", choices=names, default=names)
    parser.add_argument(
        "--against",
        type=Path,
        help="the src folder of another phasegate (a git archive's): its cold gates alternate "
        "with this checkout's, and the paired wall ratios are printed",
    )
    args = parser.parse_args()
    for name in args.only:
        with tempfile.TemporaryDirectory(prefix="phasegate-timeline-") as folder:
            measure_project(name, Path(folder), args)
    return 0


def measure_project(name: str, work: Path, args: argparse.Namespace) -> None:
    """The tools by hand once, then the cold gates, each with its timeline."""
    subject = make_subject(name, work, args.lines, args.suite)
    probes = work / "probes"
    probes.mkdir()
    (probes / "sitecustomize.py").write_text(SITECUSTOMIZE)
    (probes / "phasegate_timeline_plugin.py").write_text(PLUGIN)
    out = work / "by-hand"
    out.mkdir()
    tools = {tool: run_steps(steps, subject.root) for tool, steps in
             by_hand(subject, out).items()}  # fmt: skip
    longest = max(tools, key=lambda tool: tools[tool].wall)
    cpu = sum(t.cpu for t in tools.values())
    limit = max(tools[longest].wall, cpu / CORES)
    print(f"\n== {name}: tools by hand, each alone (wall s / CPU s) ==")
    for tool, timing in tools.items():
        print(f"  {tool:<18} {timing.wall:7.2f} {timing.cpu:7.2f}")
    print(f"  longest: {longest} {tools[longest].wall:.2f} s; CPU / {CORES} cores "
          f"{cpu / CORES:.2f} s; limit {limit:.2f} s")  # fmt: skip
    variants = {"this checkout": str(THIS_CHECKOUT_SRC)}
    if args.against is not None:
        variants[str(args.against)] = str(args.against.resolve())
    walls: dict[str, list[float]] = {variant: [] for variant in variants}
    sides: dict[str, list[dict[str, float]]] = {variant: [] for variant in variants}
    for index in range(args.runs):
        order = list(variants) if index % 2 == 0 else list(reversed(variants))
        for variant in order:
            events, wall = one_run(subject, probes, index, variants[variant])
            walls[variant].append(wall)
            sides[variant].append(static_side(events))
            print(f"\n-- {name}, {variant}, cold gate {index + 1}: seconds from its start --")
            for moment, what in events:
                print(f"  {moment:7.3f}  {what}")
            print_stretches(events)
            print_static_side(sides[variant][-1])
            load = os.getloadavg()[0]
            print(f"  wall / limit: {wall / limit:.2f} (load average {load:.1f})")
    print(f"\n== {name}: cold gate wall, median of {args.runs} (limit {limit:.2f} s) ==")
    for variant, values in walls.items():
        print(f"  {variant}: {statistics.median(values):.2f} s, wall / limit "
              f"{statistics.median(values) / limit:.2f}")  # fmt: skip
    if args.against is not None:
        ours, theirs = walls.values()
        paired = statistics.median(a / b for a, b in zip(ours, theirs, strict=True))
        print(f"  this checkout / {args.against}, paired median: {paired:.3f}")
    for variant, runs in sides.items():
        print(f"  {variant}, the static side's stretches, median of the runs that have each:")
        print_static_side(median_stretches(runs))


def median_stretches(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each stretch's median over the runs that have it, in :data:`STATIC_SIDE`'s order."""
    return {
        what: statistics.median(run[what] for run in runs if what in run)
        for what, _start, _end in STATIC_SIDE
        if any(what in run for run in runs)
    }


def print_static_side(stretches: dict[str, float]) -> None:
    """The static side's stretches (wall s)."""
    print("  the static side (wall s):")
    for what, seconds in stretches.items():
        print(f"    {what:<60} {seconds:6.3f}")


def print_stretches(events: list[tuple[float, str]]) -> None:
    """The run's serial stretches, or why it has none."""
    try:
        stretches = serial_stretches(events)
    except MissingMoment as exc:
        print(f"  no serial stretches: {exc}")
        return
    print("  serial stretches (wall s):")
    for what, seconds in stretches.items():
        print(f"    {what:<45} {seconds:6.3f}")


if __name__ == "__main__":
    raise SystemExit(main())
