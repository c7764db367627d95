"""The gate against the same tools run by hand: CPU, wall against the machine's limit, findings.

Per project, in each round and in a rotating order, side by side:

* the tools of the twelve-check gate run by hand, one after another, as a person would:
  the tests under branch coverage as the gate measures them (the project's own coverage
  settings, its packages as the source when the settings name none, ``coverage combine``
  when they run in parallel) with coverage.py's JSON report, ruff, bandit, a PEP 517
  build (sdist and wheel), pip check, griffe (the public API), compileall (every Python file)
  and git log;
* ``pytest --gate=twelve-check`` cold and warm (run again, nothing changed);
* ``phasegate gate run --gate twelve-check`` cold and warm;
* plain pytest, for reference;
* the gate's static checks through the engine in this process, cold, warm, and warm after one
  package module changed (the checks that keep results per file read that module alone);
* two diagnostics of the CPU ratio: the cold gate pinned to one core (its tools not side by
  side, as by hand), and a fixed piece of pure-Python work alone and as two copies on two cores
  (what running on both cores at once costs in CPU time by itself).

Cold means cold for every tool, on both sides: each tool by hand and each cold gate starts
with no phasegate folder and none of the tools' caches in the project (ruff's, pytest's,
hypothesis's, coverage's data; see :func:`clear_cache`), with the bytecode compiled.

Every run's wall time and CPU time (user + system, children included) is taken; the figures
printed are medians over the rounds. ``gate run`` also reports its own process's CPU time (the
command itself, without the pytest run it starts), which is what it adds to ``pytest --gate``
and, unlike the difference of two whole runs, holds still on a loaded machine. The machine's
limit is max(the longest single tool's wall time, the tools' CPU time / cores): no way of running
the same tools side by side can end sooner. Printed ratios: the cold gate's CPU against the
tools' (target <= 0.9), what ``gate run`` adds to ``pytest --gate`` (target <= 5%; the difference
of the two runs, and the command's own process), the cold gate's wall time against the limit
(target <= 1.1, on a quiet machine), and warm static checks against cold (<= 0.1).

Then the findings: the last cold gate's findings against the by-hand tools' output on the
same project (same files, same rule ids), so that the speed is not bought by checking less.

Projects: a generated package (``--lines``, a test per module) and three real projects from
``tests/realprojects.py`` (cached sdists, offline): more-itertools, python-dateutil, attrs,
each with the fast test subset ``tests/real`` runs (``--suite full`` runs the whole suite).

With ``--instructions`` it times nothing: it counts, under callgrind, the instructions of each
tool by hand and of one cold ``pytest --gate`` once, per process (``benchmarks/instructions.py``),
prints them per tool and per process with the ratio, and compares the findings as above. A
count does not move with the machine's load; under callgrind a run takes about 50 times as long.

    python benchmarks/gate.py [--rounds 3] [--only NAME ...] [--suite subset|full] [--instructions]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
PY = sys.executable
CORES = os.cpu_count() or 1
GATE = "twelve-check"

from tests.real.test_real_projects import SUBSETS  # noqa: E402
from tests.realprojects import PROJECTS, unpack  # noqa: E402

sys.path.insert(0, str(REPO / "benchmarks"))
from instructions import (  # noqa: E402
    ProcessCount,
    available,
    count_processes,
    process_path,
)
from usage import Starts, Usage, count_starts, usage_between  # noqa: E402


@dataclass(frozen=True)
class Timing:
    """One run: wall seconds and CPU seconds (user + system, children included), and the
    kernel's account of it: user and system CPU apart, page faults, context switches."""

    wall: float
    cpu: float
    usage: Usage = field(default_factory=Usage)


def added(timings: list[Timing]) -> Timing:
    """Runs one after another: their wall, CPU and usage added up."""
    return Timing(
        sum(t.wall for t in timings),
        sum(t.cpu for t in timings),
        Usage.total(t.usage for t in timings),
    )


def median_timing(timings: list[Timing]) -> Timing:
    """Each figure's median over ``timings``."""
    return Timing(
        statistics.median(t.wall for t in timings),
        statistics.median(t.cpu for t in timings),
        Usage.median([t.usage for t in timings]),
    )


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PHASEGATE_", "GITHUB_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as on a user's machine
    outer = env.get("PYTHONPATH")
    env.update(extra or {})
    if extra and "PYTHONPATH" in extra and outer:
        # a project's src/ goes first; the caller's (a commit's phasegate under test) stays
        env["PYTHONPATH"] = os.pathsep.join([extra["PYTHONPATH"], outer])
    return env


def timed(
    command: list[str],
    cwd: Path,
    *,
    env: dict[str, str] | None = None,
    ok: tuple[int, ...] = (0, 1),
    out: Path | None = None,
    err: Path | None = None,
    one_core: bool = False,
) -> Timing:
    """Run ``command``; its wall and CPU time. ``out`` and ``err`` keep what it printed.

    ``one_core`` keeps it and every process it starts on the first core (Linux).
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    completed = subprocess.run(
        command,
        cwd=cwd,
        env=environment(env),
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=on_first_core if one_core else None,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if completed.returncode not in ok:
        tail = (completed.stdout + completed.stderr)[-3000:]
        raise SystemExit(f"{' '.join(command)} exited {completed.returncode}:\n{tail}")
    if out is not None:
        out.write_text(completed.stdout)
    if err is not None:
        err.write_text(completed.stderr)
    usage = usage_between(before, after)
    return Timing(wall, usage.user + usage.system, usage)


def on_first_core() -> None:
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


#: A fixed amount of pure-Python work: the same instructions every time it runs.
FIXED_WORK = "s = 0\nfor i in range(4_000_000):\n    s += i * i % 7\n"


def fixed_work() -> dict[str, Timing]:
    """The same work alone on one core, and two copies side by side on two cores.

    The CPU seconds a copy takes side by side against alone say how much running on both
    cores at once costs in CPU time by itself (shared caches and memory, or a host that puts
    the two virtual cores on one physical core): the gate runs its tools side by side, the
    tools by hand run one after another. Wall is 0; CPU is one copy's.
    """
    alone = timed([PY, "-c", FIXED_WORK], REPO, one_core=True)
    if CORES < 2:
        return {"fixed work alone": Timing(0.0, alone.cpu)}
    cores = sorted(os.sched_getaffinity(0))[:2]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    twins = [
        subprocess.Popen(
            [PY, "-c", FIXED_WORK],
            preexec_fn=lambda core=core: os.sched_setaffinity(0, {core}),
        )
        for core in cores
    ]
    if any(twin.wait() != 0 for twin in twins):
        raise SystemExit("the fixed work failed")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    both = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "fixed work alone": Timing(0.0, alone.cpu),
        "fixed work side by side, each": Timing(0.0, both / 2),
    }


@dataclass
class Subject:
    """A project to measure: its folder, import packages, pytest arguments and environment."""

    name: str
    root: Path
    packages: list[Path]
    pytest_args: list[str]
    env: dict[str, str] = field(default_factory=dict)


# -- the generated package ---------------------------------------------------------------------


MODULE = '''\
"""Ledger operations, part {index}."""

from __future__ import annotations

from collections.abc import Iterable


class Account{index}:
    """An account with a balance and a history of movements."""

    def __init__(self, owner: str, balance: int = 0) -> None:
        self.owner = owner
        self.balance = balance
        self.history: list[int] = []

    def deposit(self, amount: int) -> int:
        """Add ``amount`` and return the new balance."""
        if amount <= 0:
            raise ValueError("a deposit must be positive")
        self.balance += amount
        self.history.append(amount)
        return self.balance

    def withdraw(self, amount: int) -> int:
        """Take ``amount`` out and return the new balance."""
        if amount <= 0:
            raise ValueError("a withdrawal must be positive")
        if amount > self.balance:
            raise ValueError("not enough money")
        self.balance -= amount
        self.history.append(-amount)
        return self.balance
'''

FUNCTION = '''

def total_{index}_{n}(values: Iterable[int], limit: int = {limit}) -> int:
    """Sum the values below ``limit``, counting negatives as zero."""
    result = 0
    for value in values:
        if value < 0:
            continue
        if value >= limit:
            break
        result += value
    return result
'''

TEST = """\
from ledgerly.part{index} import Account{index}, total_{index}_0


def test_account_{index}() -> None:
    account = Account{index}("sam")
    assert account.deposit(5) == 5
    assert account.withdraw(2) == 3


def test_total_{index}() -> None:
    assert total_{index}_0([1, -2, 3, 1000]) == 4
"""


def generate_package(root: Path, lines: int) -> int:
    """Write a package of at least ``lines`` lines with tests; return the lines written."""
    (root / "pyproject.toml").write_text(
        textwrap.dedent(
            """\
            [build-system]
            requires = ["hatchling"]
            build-backend = "hatchling.build"

            [project]
            name = "ledgerly"
            version = "1.0.0"
            description = "A generated package for phasegate's gate benchmark."
            requires-python = ">=3.10"

            [tool.hatch.build.targets.wheel]
            packages = ["src/ledgerly"]

            [tool.pytest.ini_options]
            pythonpath = ["src"]
            testpaths = ["tests"]

            [tool.ruff.lint]
            select = ["E", "F"]
            """
        )
    )
    package = root / "src" / "ledgerly"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""A generated ledger package."""\n')
    tests = root / "tests"
    tests.mkdir()
    written = 0
    index = 0
    while written < lines:
        body = MODULE.format(index=index)
        body += "".join(FUNCTION.format(index=index, n=n, limit=100 + n) for n in range(20))
        (package / f"part{index}.py").write_text(body)
        (tests / f"test_part{index}.py").write_text(TEST.format(index=index))
        written += body.count("\n")
        index += 1
    for command in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "add", "."],
        ["git", "-c", "user.name=b", "-c", "user.email=b@example.invalid", "commit", "-qm",
         "feat: a generated ledger package"],
    ):  # fmt: skip
        subprocess.run(command, cwd=root, check=True, capture_output=True)
    return written


# -- the tools by hand -------------------------------------------------------------------------


def coverage_settings(root: Path) -> tuple[bool, bool]:
    """Whether the project's coverage configuration names a source, and runs in parallel.

    Read by coverage.py itself, from the project's folder, as ``coverage run`` reads it there.
    """
    import coverage

    here = Path.cwd()
    os.chdir(root)
    try:
        settings = coverage.Coverage()
        names_source = settings.get_option("run:source") or settings.get_option("run:source_pkgs")
        return bool(names_source), bool(settings.get_option("run:parallel"))
    finally:
        os.chdir(here)


@dataclass(frozen=True)
class Step:
    """One command of a tool run by hand: extra environment, accepted exit codes, and where
    its output goes (``out`` keeps what it printed; ``fresh`` is a folder removed first)."""

    command: list[str]
    env: dict[str, str] | None = None
    ok: tuple[int, ...] = (0, 1)
    out: Path | None = None
    fresh: Path | None = None


def run_steps(steps: list[Step], root: Path) -> Timing:
    """A tool's steps one after another, from a cold project; their wall and CPU time added up."""
    timings = []
    clear_cache(root)
    for step in steps:
        if step.fresh is not None:
            shutil.rmtree(step.fresh, ignore_errors=True)
        timings.append(timed(step.command, root, env=step.env, ok=step.ok, out=step.out))
    return added(timings)


def by_hand(subject: Subject, out: Path) -> dict[str, list[Step]]:
    """Each tool of the twelve-check gate as a person runs it; outputs are kept under ``out``."""
    root, env = subject.root, subject.env
    names = [package.name if package.is_dir() else package.stem for package in subject.packages]
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", "*.py"],
        cwd=root, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    bandit = [PY, "-m", "bandit", "-q", "-f", "json", "-r", *map(str, subject.packages)]
    if "[tool.bandit]" in (root / "pyproject.toml").read_text():
        bandit[4:4] = ["-c", "pyproject.toml"]
    search = sorted({str(package.parent) for package in subject.packages})

    names_source, parallel = coverage_settings(root)
    source = [] if names_source else [f"--source={','.join(map(str, subject.packages))}"]
    # As the gate measures: the project's coverage settings, its packages as the source when
    # they name none, and branches; data in parallel files is combined, as the docs say.
    tests = [
        Step(
            [
                PY,
                "-m",
                "coverage",
                "run",
                "--branch",
                *source,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                *subject.pytest_args,
            ],
            env=env,
        ),
        *([Step([PY, "-m", "coverage", "combine", "-q"])] if parallel else []),
        Step([PY, "-m", "coverage", "json", "-q", "-o", str(out / "coverage.json")]),
    ]
    return {
        "pytest+coverage": tests,
        "ruff": [
            Step(
                [PY, "-m", "ruff", "check", "--output-format", "json", "--exit-zero", "."],
                out=out / "ruff.json",
            )
        ],
        "bandit": [Step(bandit, out=out / "bandit.json")],
        "build": [
            Step(
                [
                    PY,
                    "-m",
                    "build",
                    "--sdist",
                    "--wheel",
                    "--no-isolation",
                    "--outdir",
                    str(out / "dist"),
                    ".",
                ],
                ok=(0,),
                fresh=out / "dist",
            )
        ],
        "pip check": [Step([PY, "-m", "pip", "check"], out=out / "pip.txt")],
        "griffe": [
            Step(
                [
                    PY,
                    "-m",
                    "griffe",
                    "dump",
                    *(f"-s{path}" for path in search),
                    "-o",
                    str(out / "api.json"),
                    *names,
                ],
            )
        ],
        # The bytecode goes to a folder of its own, so the test runs start from the same state.
        "compileall": [
            Step(
                [PY, "-m", "compileall", "-q", "-f", *listed],
                env={"PYTHONPYCACHEPREFIX": str(out / "pycache")},
                out=out / "compileall.txt",
                fresh=out / "pycache",
            )
        ],
        "git log": [Step(["git", "log", "-1", "--format=%H %s"])],
    }


# -- the gate ----------------------------------------------------------------------------------


#: What the tools keep in a project between runs: ruff's cache, pytest's, hypothesis's examples,
#: mypy's cache. (Coverage's data files are matched apart, by name.)
TOOL_CACHES = (".ruff_cache", ".pytest_cache", ".hypothesis", ".mypy_cache")
COVERAGE_DATA = (".coverage", ".coverage.*")


def clear_cache(root: Path) -> None:
    """Make the next run in ``root`` cold, for the gate and for every tool by hand alike.

    phasegate's folder goes (its cache, perf baselines, ledgers and verdicts: the run after
    this writes the verdict the findings are compared with), and so do the tools' own caches
    and data. ruff's matters most: the gate's ruff (given the list of files) and ruff by hand
    (given ``.``) keep apart caches, so a warm-up gate would warm only the gate's (a tenth of
    the instructions of a cold run, measured on more-itertools, which has no finding).
    Bytecode stays: every measured run has had it compiled beforehand. What a tool writes into
    the project's own files (hatch-vcs's version file, which came with the sdist) stays too.
    """
    shutil.rmtree(root / ".phasegate", ignore_errors=True)
    for name in TOOL_CACHES:
        shutil.rmtree(root / name, ignore_errors=True)
    for pattern in COVERAGE_DATA:
        for data in root.glob(pattern):
            data.unlink()


def gate_command(subject: Subject) -> list[str]:
    return [PY, "-m", "pytest", "-q", f"--gate={GATE}", "-p", "no:cacheprovider",
            *subject.pytest_args]  # fmt: skip


def gate_pytest(subject: Subject, *, cold: bool, one_core: bool = False) -> Timing:
    if cold:
        clear_cache(subject.root)
    return timed(gate_command(subject), subject.root, env=subject.env, one_core=one_core)


#: ``phasegate gate run``, which prints its own process's CPU seconds on stderr as it exits.
CLI_OWN_CPU = """\
import atexit, resource, sys
def own():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(f"phasegate-own-cpu {usage.ru_utime + usage.ru_stime:.4f}", file=sys.stderr)
atexit.register(own)
from phasegate.cli import main
sys.exit(main(sys.argv[1:]))
"""


def cli_command(subject: Subject) -> list[str]:
    return [PY, "-c", CLI_OWN_CPU, "gate", "run", "--gate", GATE, "--",
            "-p", "no:cacheprovider", *subject.pytest_args]  # fmt: skip


def gate_cli(subject: Subject, *, cold: bool, own: list[float] | None = None) -> Timing:
    """``gate run``; its own process's CPU seconds are appended to ``own``."""
    if cold:
        clear_cache(subject.root)
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as errors:
        timing = timed(cli_command(subject), subject.root, env=subject.env, err=Path(errors.name))
        said = [line for line in errors.read().splitlines() if line.startswith("phasegate-own")]
    if not said:
        raise SystemExit("phasegate gate run did not say its own CPU time")
    if own is not None:
        own.append(float(said[-1].split()[1]))
    return timing


def plain_command(subject: Subject) -> list[str]:
    return [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", *subject.pytest_args]


def plain_pytest(subject: Subject) -> Timing:
    return timed(plain_command(subject), subject.root, env=subject.env)


def count_sides(subject: Subject, out: Path) -> dict[str, Starts | None]:
    """The programs and tasks each side starts, cold, counted once under ``perf`` apart from the
    timed runs (``usage.count_starts``); ``None`` for a side where they could not be counted."""

    def cold(command: list[str], env: dict[str, str] | None) -> Starts | None:
        clear_cache(subject.root)
        return count_starts(command, subject.root, environment(env))

    def tools() -> Starts | None:
        counted: list[Starts | None] = []
        for steps in by_hand(subject, out).values():
            clear_cache(subject.root)
            for step in steps:
                if step.fresh is not None:
                    shutil.rmtree(step.fresh, ignore_errors=True)
                counted.append(
                    count_starts(step.command, subject.root, environment(step.env), step.ok)
                )
        known = [c for c in counted if c is not None]
        return sum(known, Starts(0, 0)) if len(known) == len(counted) else None

    return {
        "by hand, one after another": tools(),
        "pytest --gate cold": cold(gate_command(subject), subject.env),
        "gate run cold": cold(cli_command(subject), subject.env),
        "plain pytest": cold(plain_command(subject), subject.env),
    }


def static_checks(subject: Subject, *, cold: bool) -> Timing:
    """The gate's static checks through the engine, in this process (threads, tools)."""
    from phasegate.config import load_config
    from phasegate.extensions import make_plugin_manager
    from phasegate.gates.runner_factory import make_runner
    from phasegate.store import Store

    if cold:
        clear_cache(subject.root)
    start = time.perf_counter()
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    loaded = load_config(subject.root).with_overrides({"gate": ("--gate", GATE)})
    store = Store(loaded.artifacts_path)
    # As pytest --gate does before any check writes: the folder's .gitignore keeps the cache
    # out of git's listing of the project, and the cache refuses an entry git lists.
    store.ensure_writable()
    runner = make_runner(
        loaded, store, make_plugin_manager(loaded.config.plugins), GATE, base=None,
        environment=environment(),
    )  # fmt: skip
    runner.run_static()
    wall = time.perf_counter() - start
    usage = usage_between(own, resource.getrusage(resource.RUSAGE_SELF)) + usage_between(
        children, resource.getrusage(resource.RUSAGE_CHILDREN)
    )
    return Timing(wall, usage.user + usage.system, usage)


def one_file_changed(subject: Subject) -> Timing:
    """The static checks on a warm cache after one package module changed (a comment added).

    The module is put back as it was afterwards. Every check that reads the module runs
    again; those that keep results per file (security, syntax) read only that module again.
    """
    modules = sorted(
        path
        for package in subject.packages
        for path in (package.rglob("*.py") if package.is_dir() else [package])
        if path.name != "__init__.py"
    )
    target = modules[0]
    original = target.read_bytes()
    target.write_bytes(original + f"\n# changed by the benchmark at {time.time_ns()}\n".encode())
    try:
        return static_checks(subject, cold=False)
    finally:
        target.write_bytes(original)


# -- one project -------------------------------------------------------------------------------


def measure(subject: Subject, rounds: int, out: Path) -> dict[str, Timing]:
    """Median wall and CPU of every variant over ``rounds`` rounds, in a rotating order."""
    hand = by_hand(subject, out)
    own: list[float] = []
    variants: dict[str, Callable[[], dict[str, Timing]]] = {
        "by hand": lambda: {
            f"tool {n}": run_steps(steps, subject.root) for n, steps in hand.items()
        },
        "pytest --gate": lambda: {
            "pytest --gate cold": gate_pytest(subject, cold=True),
            "pytest --gate warm": gate_pytest(subject, cold=False),
            # The gate's work without its tools side by side, as the tools by hand run.
            "pytest --gate cold, one core": gate_pytest(subject, cold=True, one_core=True),
        },
        "gate run": lambda: {
            "gate run cold": gate_cli(subject, cold=True, own=own),
            "gate run warm": gate_cli(subject, cold=False),
            "gate run's own process, cold": Timing(0.0, own[-1]),
        },
        "plain pytest": lambda: {"plain pytest": plain_pytest(subject)},
        "fixed work": fixed_work,
        "static": lambda: {
            "static checks cold": static_checks(subject, cold=True),
            "static checks warm": static_checks(subject, cold=False),
            "static checks, one file changed": one_file_changed(subject),
        },
    }
    order = list(variants)
    results: dict[str, list[Timing]] = {}
    for index in range(rounds):
        for variant in order[index % len(order) :] + order[: index % len(order)]:
            for key, timing in variants[variant]().items():
                results.setdefault(key, []).append(timing)
        tools = [key for key in results if key.startswith("tool ")]
        results.setdefault("by hand, one after another", []).append(
            added([results[k][-1] for k in tools])
        )
        # The gate's last cold run wrote the verdict the findings are compared with.
    gate_pytest(subject, cold=True)
    return {key: median_timing(values) for key, values in results.items()}


#: The runs whose kernel account :func:`report_usage` prints, side by side.
SIDES = (
    "by hand, one after another",
    "pytest --gate cold",
    "gate run cold",
    "plain pytest",
    "pytest --gate cold, one core",
)


def usage_row(timing: Timing, starts: Starts | None) -> list[str]:
    """A run's kernel account as printed: user and system CPU, the system's share of the CPU,
    minor and major page faults, voluntary and involuntary switches, programs and tasks."""
    u = timing.usage
    share = u.system / (u.user + u.system) if u.user + u.system else 0.0
    started = [f"{starts.programs}", f"{starts.tasks}"] if starts else ["-", "-"]
    return [
        f"{u.user:.2f}",
        f"{u.system:.2f}",
        f"{share:.1%}",
        f"{u.minor_faults:,.0f}",
        f"{u.major_faults:,.0f}",
        f"{u.voluntary_switches:,.0f}",
        f"{u.involuntary_switches:,.0f}",
        *started,
    ]


USAGE_HEADER = ["user s", "system s", "system share", "minor faults", "major faults",
                "voluntary switches", "involuntary switches", "programs", "tasks"]  # fmt: skip


def report_usage(figures: dict[str, Timing], starts: dict[str, Starts | None]) -> None:
    """Each side's user and system CPU, page faults and switches (medians; children included),
    and the programs and tasks it started (one count each, ``-`` where none could be taken)."""
    print("  the kernel's account (medians; programs and tasks: one cold run under perf):")
    print(f"  {'':<30} " + " ".join(f"{h:>12}" for h in USAGE_HEADER))
    for side in SIDES:
        row = usage_row(figures[side], starts.get(side))
        print(f"  {side:<30} " + " ".join(f"{cell:>12}" for cell in row))


def report(name: str, figures: dict[str, Timing], rounds: int) -> dict[str, float]:
    print(f"\n== {name} ({rounds} rounds, medians; {CORES} cores) ==")
    print(f"  {'':<36} {'wall s':>8} {'CPU s':>8}")
    for key, timing in figures.items():
        print(f"  {key:<36} {timing.wall:8.2f} {timing.cpu:8.2f}")
    tools = [t for k, t in figures.items() if k.startswith("tool ")]
    hand = figures["by hand, one after another"]
    limit = max(max(t.wall for t in tools), hand.cpu / CORES)
    gate, cli = figures["pytest --gate cold"], figures["gate run cold"]
    ratios = {
        "limit": limit,
        "cpu": gate.cpu / hand.cpu,
        "cli": cli.cpu / gate.cpu - 1,
        "cli_own": figures["gate run's own process, cold"].cpu / gate.cpu,
        "wall": gate.wall / limit,
        "cli_wall": cli.wall / limit,
        "warm_wall": figures["static checks warm"].wall / figures["static checks cold"].wall,
        "warm_cpu": figures["static checks warm"].cpu / figures["static checks cold"].cpu,
        "one_core": figures["pytest --gate cold, one core"].cpu / hand.cpu,
        "changed_wall": figures["static checks, one file changed"].wall
        / figures["static checks cold"].wall,
        "changed_cpu": figures["static checks, one file changed"].cpu
        / figures["static checks cold"].cpu,
        "side_by_side": side_by_side(figures),
    }
    print(f"  machine's limit max(longest tool, tools' CPU / {CORES}): {limit:.2f} s")
    print(f"  CPU: pytest --gate cold / tools by hand      {ratios['cpu']:.3f}  (target <= 0.9)")
    print(f"  CPU: gate run cold adds to pytest --gate     {ratios['cli']:+.1%}  (target <= +5%)")
    print(f"  CPU: gate run's own process / pytest --gate  {ratios['cli_own']:+.1%}  (measured)")
    print(f"  wall: pytest --gate cold / limit             {ratios['wall']:.2f}  (target <= 1.1)")
    print(f"  wall: gate run cold / limit                  {ratios['cli_wall']:.2f}")
    print(f"  CPU: pytest --gate cold on one core / by hand {ratios['one_core']:.3f}  (measured)")
    print(
        f"  CPU: fixed work side by side / alone         {ratios['side_by_side']:.3f}  (1.0: "
        "running on both cores at once costs no CPU time by itself)"
    )
    print(
        f"  warm static / cold static: wall {ratios['warm_wall']:.3f}, CPU "
        f"{ratios['warm_cpu']:.3f}  (target <= 0.1)"
    )
    print(
        f"  one file changed / cold static: wall {ratios['changed_wall']:.3f}, CPU "
        f"{ratios['changed_cpu']:.3f}  (measured)"
    )
    return ratios


def side_by_side(figures: dict[str, Timing]) -> float:
    """The fixed work's CPU side by side against alone (1.0 on one core)."""
    twin = figures.get("fixed work side by side, each")
    return twin.cpu / figures["fixed work alone"].cpu if twin else 1.0


# -- instructions ------------------------------------------------------------------------------


@dataclass
class Counted:
    """Instructions per process of the tools by hand and of one cold ``pytest --gate``.

    Each process is named by its command and its ancestors' (``pytest/bandit``); processes of
    the same name are added up.
    """

    tools: dict[str, dict[str, int]]
    gate: dict[str, int]

    @property
    def by_hand(self) -> int:
        return sum(sum(processes.values()) for processes in self.tools.values())

    @property
    def gate_total(self) -> int:
        return sum(self.gate.values())


def by_name(processes: list[ProcessCount]) -> dict[str, int]:
    named: Counter[str] = Counter()
    for process in processes:
        named[process_path(process, processes)] += process.instructions
    return dict(named)


def count(subject: Subject, out: Path) -> Counted:
    """Each tool by hand once, then one cold ``pytest --gate``, under callgrind.

    The tools' outputs are kept under ``out`` and the gate's verdict is written, as in the
    timed rounds, so the findings compare afterwards. A plain pytest run and a cold gate first
    write the bytecode of the project's modules and tests, and of phasegate's, so that no
    counted run pays for compiling them (the first to import them would, the others not).
    """
    plain_pytest(subject)
    gate_pytest(subject, cold=True)
    tools: dict[str, dict[str, int]] = {}
    for tool, steps in by_hand(subject, out).items():
        clear_cache(subject.root)
        named: Counter[str] = Counter()
        for step in steps:
            if step.fresh is not None:
                shutil.rmtree(step.fresh, ignore_errors=True)
            processes, printed = count_processes(
                step.command, subject.root, environment(step.env), ok=step.ok
            )
            if step.out is not None:
                step.out.write_text(printed)
            named.update(by_name(processes))
        tools[tool] = dict(named)
        print(f"  counted {tool}: {sum(named.values()):,}", flush=True)
    clear_cache(subject.root)
    processes, _printed = count_processes(
        gate_command(subject), subject.root, environment(subject.env), ok=(0, 1)
    )
    print(f"  counted pytest --gate cold: {len(processes)} processes", flush=True)
    return Counted(tools, by_name(processes))


def report_counts(name: str, counted: Counted) -> float:
    """Print the counts per tool and per process; return the gate's total / the tools'."""
    print(f"\n== {name}: instructions (callgrind, one count each, millions) ==")
    print("  tools by hand:")
    for tool, processes in counted.tools.items():
        print(f"    {tool:<80} {sum(processes.values()) / 1e6:>10,.1f}")
        for process, instructions in sorted(processes.items(), key=lambda item: -item[1]):
            print(f"      {process:<78} {instructions / 1e6:>10,.1f}")
    print(f"    {'total':<80} {counted.by_hand / 1e6:>10,.1f}")
    print("  pytest --gate cold, per process:")
    for process, instructions in sorted(counted.gate.items(), key=lambda item: -item[1]):
        print(f"    {process:<80} {instructions / 1e6:>10,.1f}")
    print(f"    {'total':<80} {counted.gate_total / 1e6:>10,.1f}")
    ratio = counted.gate_total / counted.by_hand
    print(f"  instructions: pytest --gate cold / tools by hand  {ratio:.3f}  (target <= 0.9)")
    return ratio


# -- the findings ------------------------------------------------------------------------------


def compare_findings(subject: Subject, out: Path) -> bool:
    """The last cold gate's findings against the tools' own output; print and say if equal.

    Findings compare as (file, rule id, line), each as often as it is reported; a notebook's
    ruff finding by its file alone (ruff's row counts within its cell, and the gate names the
    cell and that row in the message instead).
    """
    root = subject.root
    verdict = json.loads((root / ".phasegate" / "gates" / f"{GATE}.json").read_text())
    checks = {check["id"]: check for check in verdict["checks"]}

    def found(check_id: str) -> Counter[tuple[str, str, int | None]]:
        return Counter(
            (f["path"] or "", f["rule"], f["line"]) for f in checks[check_id]["findings"]
        )

    def relative(name: str) -> str:
        return Path(os.path.relpath(Path(root, name).resolve(), root.resolve())).as_posix()

    ruff = Counter((relative(e["filename"]), e["code"] or "syntax-error",
                    None if e.get("cell") else e["location"]["row"])
                   for e in json.loads((out / "ruff.json").read_text()))  # fmt: skip
    bandit = Counter((relative(e["filename"]), e["test_id"], e["line_number"])
                     for e in json.loads((out / "bandit.json").read_text())["results"])  # fmt: skip
    pip_lines = [line for line in (out / "pip.txt").read_text().splitlines() if line.strip()]
    pip = {("", line) for line in pip_lines if line != "No broken requirements found."}
    gate_pip = {("", f["message"]) for f in checks["deps"]["findings"] if f["rule"] == "pip-check"}
    compiled = (out / "compileall.txt").read_text()
    coverage = json.loads((out / "coverage.json").read_text())["totals"]
    metrics = checks["coverage"]["metrics"]
    by_hand_cov = (coverage["num_statements"], coverage["covered_lines"],
                   coverage.get("num_branches"), coverage.get("covered_branches"))  # fmt: skip
    gate_cov = (metrics["lines"], metrics["lines_covered"], metrics["branches"],
                metrics["branches_covered"])  # fmt: skip
    ignored = checks["security"]["metrics"].get("ruff_ignored") or 0
    rows = [
        (
            "lint (ruff)",
            found("lint") == ruff,
            f"{ruff.total()} by hand, {found('lint').total()} gate",
        ),
        (
            "security (bandit)",
            found("security") <= bandit and found("security").total() + ignored == bandit.total(),
            f"{bandit.total()} by hand, {found('security').total()} gate"
            + (
                f" + {ignored} left out as the project's ruff ignores their rule" if ignored else ""
            ),
        ),
        ("deps (pip check)", gate_pip == pip, f"{len(pip)} by hand, {len(gate_pip)} gate"),
        (
            "syntax (compileall)",
            (not found("syntax")) == (compiled.strip() == ""),
            f"{len(found('syntax'))} gate, compileall printed {len(compiled.splitlines())} lines",
        ),
        ("coverage (totals)", by_hand_cov == gate_cov, f"{by_hand_cov} by hand, {gate_cov} gate"),
        (
            "build",
            checks["build"]["status"] == "passed" and len(list((out / "dist").iterdir())) == 2,
            checks["build"]["reasoning"][:90],
        ),
    ]
    print(f"  findings, gate against the tools by hand ({subject.name}):")
    for what, same, detail in rows:
        print(f"    {what:<20} {'same' if same else 'DIFFERENT':<10} {detail}")
    return all(same for _what, same, _detail in rows)


# -- the projects ------------------------------------------------------------------------------


def real_subject(name: str, into: Path, suite: str) -> Subject:
    root = unpack(name, into)
    project = PROJECTS[name]
    base = root / "src" if project.layout == "src" else root
    env = {"PYTHONPATH": str(root / "src")} if project.layout == "src" else {}
    args = list(SUBSETS.get(name, [])) if suite == "subset" else []
    if suite == "subset" and not args:
        print(f"{name}: no fast subset of its tests is named; its whole suite runs")
    # dateutil marks xfail tests with pytest-cov's no_cover marker; without pytest-cov that is
    # an unknown marker, which its warnings filter turns into an error.
    args += ["-W", "ignore::pytest.PytestUnknownMarkWarning"]
    return Subject(name, root, [base / package for package in project.packages], args, env)


def make_subject(name: str, folder: Path, lines: int, suite: str) -> Subject:
    if name != "generated":
        return real_subject(name, folder / "project", suite)
    root = folder / "ledgerly"
    root.mkdir()
    written = generate_package(root, lines)
    print(f"\ngenerated package: {written} lines")
    return Subject(name, root, [root / "src" / "ledgerly"], [])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--suite", choices=("subset", "full"), default="subset")
    names = ["generated", *PROJECTS]
    measured = ["generated", "more-itertools", "python-dateutil", "attrs"]
    parser.add_argument("--only", nargs="+", choices=names, default=measured)
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count the instructions of every process under callgrind, instead of timing rounds",
    )
    args = parser.parse_args()
    if args.instructions and not available():
        raise SystemExit("--instructions needs valgrind (Debian: apt-get install valgrind)")
    load = os.getloadavg()[0]
    print(f"machine: {CORES} cores, load average {load:.1f}; python {sys.version.split()[0]}")
    equal = True
    summary: list[tuple[str, dict[str, Timing], dict[str, float], bool]] = []
    counts: list[tuple[str, Counted, bool]] = []
    usages: list[tuple[str, dict[str, Timing], dict[str, Starts | None]]] = []
    for name in args.only:
        with tempfile.TemporaryDirectory(prefix="phasegate-bench-") as tmp:
            subject = make_subject(name, Path(tmp), args.lines, args.suite)
            out = Path(tmp) / "by-hand"
            out.mkdir()
            if args.instructions:
                counted = count(subject, out)
                report_counts(name, counted)
                same = compare_findings(subject, out)
                counts.append((name, counted, same))
            else:
                starts = count_sides(subject, out)
                figures = measure(subject, args.rounds, out)
                ratios = report(name, figures, args.rounds)
                report_usage(figures, starts)
                usages.append((name, figures, starts))
                same = compare_findings(subject, out)
                summary.append((name, figures, ratios, same))
            equal = same and equal
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f} (at the start {load:.1f})")
    if args.instructions:
        print_count_table(counts)
    else:
        print_timing_table(summary)
        print_usage_table(usages)
    print(f"findings equal on every project: {'yes' if equal else 'NO'}")
    return 0 if equal else 1


def print_count_table(counts: list[tuple[str, Counted, bool]]) -> None:
    print("instructions, millions (callgrind, every process, one count each):")
    print(
        "| project | tools by hand | `pytest --gate` cold | of which the pytest process "
        "| the static process and its tools | gate / by hand | findings |"
    )
    print("|---" * 7 + "|")
    for name, counted, same in counts:
        test_side = sum(n for path, n in counted.gate.items() if "/" not in path)
        print(
            f"| {name} | {counted.by_hand / 1e6:,.0f} | {counted.gate_total / 1e6:,.0f} "
            f"| {test_side / 1e6:,.0f} | {(counted.gate_total - test_side) / 1e6:,.0f} "
            f"| {counted.gate_total / counted.by_hand:.3f} | {'same' if same else 'DIFFERENT'} |"
        )


def print_timing_table(
    summary: list[tuple[str, dict[str, Timing], dict[str, float], bool]],
) -> None:
    print("wall s / CPU s, medians:")
    columns = ["by hand, one after another", "pytest --gate cold", "pytest --gate warm",
               "gate run cold", "gate run warm"]  # fmt: skip
    print(
        "| project | tools by hand | `pytest --gate` cold | warm | `gate run` cold | warm "
        "| limit | CPU gate / by hand | `gate run` adds (own process) | wall / limit "
        "| warm static / cold (wall, CPU) | findings | CPU gate on one core / by hand "
        "| fixed work side by side / alone | one file changed / cold static (wall, CPU) |"
    )
    print("|---" * 15 + "|")
    for name, figures, r, same in summary:
        cells = " | ".join(f"{figures[c].wall:.2f} / {figures[c].cpu:.2f}" for c in columns)
        print(
            f"| {name} | {cells} | {r['limit']:.2f} | {r['cpu']:.3f} "
            f"| {r['cli']:+.1%} ({r['cli_own']:+.1%}) "
            f"| {r['wall']:.2f} | {r['warm_wall']:.3f}, {r['warm_cpu']:.3f} "
            f"| {'same' if same else 'DIFFERENT'} | {r['one_core']:.3f} | {r['side_by_side']:.3f} "
            f"| {r['changed_wall']:.3f}, {r['changed_cpu']:.3f} |"
        )


def print_usage_table(
    usages: list[tuple[str, dict[str, Timing], dict[str, Starts | None]]],
) -> None:
    print("the kernel's account, medians (programs and tasks: one cold run under perf):")
    print("| project | run | " + " | ".join(USAGE_HEADER) + " |")
    print("|---" * (len(USAGE_HEADER) + 2) + "|")
    for name, figures, starts in usages:
        for side in SIDES:
            print(
                f"| {name} | {side} | "
                + " | ".join(usage_row(figures[side], starts.get(side)))
                + " |"
            )


if __name__ == "__main__":
    raise SystemExit(main())
