"""What the TDD ledger costs: ``pytest --gate`` and ``--gate=record``, with and without ``--tdd``.

Generates the suite of ``benchmarks/overhead.py`` (5,000 small tests by default) in a new git
repository, with a one-function package the suite covers (so that the default gate passes),
then runs, alternately in one process so that machine noise falls on every variant alike:

* ``gate``             ``pytest --gate``: the default gate (syntax, tests, coverage, lint,
  security), the run the target is stated against;
* ``gate+tdd``         ``pytest --gate --tdd=auto``: the same, judged by the TDD rules and
  appended to the ledger (hashing every test file, reading the state, writing the entry, the
  state, the session log);
* ``gate-record``      ``pytest --gate=record``: phasegate records the run, no gate, no TDD;
* ``gate-record+tdd``  ``pytest --gate=record --tdd=auto``: the strictest base. A run that only
  records loads no pydantic (``phasegate.config.settings_cache``), so here the TDD run also pays for
  importing pydantic, which its ledger models need; under a gate, pydantic is loaded anyway.

It also times the TDD work alone, in this process, on the last run's report: hashing the files
(which the plugin does in the background while the tests run) and judging plus writing the
ledger, the state and the log (which happens at the end of the session, on the critical path),
and, of that, keeping the work tree as a git tree for ``phasegate tdd verify`` (wall time, and
the CPU time of the git processes).

The first ``--tdd=auto`` run records the starting point (and keeps a snapshot of every file); the
measured runs then find nothing changed and judge a refactor, as a developer re-running the
suite does. The ledger grows by one entry of every test's outcome per run; the script prints its
size, so a cost that grows with the ledger's history would show.

Each round runs every variant once, in a shuffled order. For each variant it prints the median
and the fastest wall time, the median over rounds of its wall time divided by its base's in the
same round (paired), the ratio of the fastest runs, and the same for CPU time (user and system
time of the pytest process and the processes it waited for, such as git and the gate's tools).
On a shared machine other work only ever adds time, so the fastest run of each variant is the
steadiest estimate of its own cost, and CPU time leaves out the time a run waited for a
processor; the paired medians show how much the noise moves them. Target (issue #4): the
ledger adds at most 3% to a ``pytest --gate`` run on the 5,000-test suite. With
``--instructions`` it also runs each variant once under valgrind's callgrind (child processes
included) and prints the instructions each executed: a count that does not move with the
machine's load (``benchmarks/instructions.py``).

    python benchmarks/tdd_overhead.py [--tests 5000] [--rounds 11] [--instructions]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from overhead import (
    child_environment,
    count_variants,
    generate_suite,
    print_instructions,
    pytest_command,
)

VARIANTS: dict[str, list[str]] = {
    "gate": ["--gate"],
    "gate+tdd": ["--gate", "--tdd=auto"],
    "gate-record": ["--gate=record"],
    "gate-record+tdd": ["--gate=record", "--tdd=auto"],
}
#: Each variant's base: the same run without --tdd.
BASE = {"gate": "gate", "gate+tdd": "gate", "gate-record": "gate-record",
        "gate-record+tdd": "gate-record"}  # fmt: skip


def add_covered_package(root: Path) -> None:
    """A package of one function, a test that covers it, and a lint selection the suite meets.

    The default gate measures coverage of the project's packages and lints every file; the
    generated suite alone has no package and ruff's import-sorting rule flags its files.
    """
    package = root / "src" / "bench"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        '"""A small package for the suite to cover."""\n\n\n'
        "def double(value: int) -> int:\n"
        '    """Twice ``value``."""\n'
        "    return value * 2\n"
    )
    (root / "tests" / "test_bench.py").write_text(
        "from bench import double\n\n\ndef test_double():\n    assert double(2) == 4\n"
    )
    (root / "pyproject.toml").write_text(
        "[tool.pytest.ini_options]\ntestpaths = ['tests']\npythonpath = ['src']\n\n"
        "[tool.ruff.lint]\nselect = ['E', 'F']\n"
    )


def run_once(root: Path, extra: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one pytest run.

    CPU time is what the run itself spent; on a shared machine the wall time also holds the
    time it waited for the processor.
    """
    command = pytest_command(extra)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    completed = subprocess.run(
        command, cwd=root, capture_output=True, text=True, check=False, env=child_environment()
    )
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if completed.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{completed.stdout}\n{completed.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def init_git(root: Path) -> None:
    """Commit the suite, so that files are listed by git as in a real project."""
    for command in (
        ["git", "init", "-q"],
        ["git", "add", "."],
        [
            "git",
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.invalid",
            "commit",
            "-qm",
            "suite",
        ],
    ):
        subprocess.run(command, cwd=root, check=True, capture_output=True)


def time_the_tdd_work(root: Path, repeats: int = 7) -> tuple[float, float, float, float]:
    """Fastest seconds of (hashing the tree, judging and recording a run) in this process.

    Also the part of the recording that keeps the work tree as a git tree, alone: its fastest
    wall time and the least CPU time of the git processes it starts.
    """
    from phasegate.config import load_config
    from phasegate.store import Store
    from phasegate.tdd.cycles import TddProject, facts_from_report
    from phasegate.tdd.worktree import record_work_tree

    report = json.loads((root / ".phasegate" / "report.json").read_text(encoding="utf-8"))
    loaded = load_config(root)
    project = TddProject(root, loaded.config.tdd, Store(loaded.artifacts_path))
    hashing: list[float] = []
    judging: list[float] = []
    tree_wall: list[float] = []
    tree_cpu: list[float] = []
    for repeat in range(repeats):
        start = time.perf_counter()
        files = project.hash_tree()
        hashing.append(time.perf_counter() - start)
        report["run_id"] = f"bench-{repeat}"
        start = time.perf_counter()
        facts = facts_from_report(
            report,
            requested="auto",
            files=files,
            classifier=project.classifier(lambda nodeid: nodeid.split("::")[0], files),
            nodeid_path=lambda nodeid: nodeid.split("::")[0],
        )
        result = project.record_run(facts)
        judging.append(time.perf_counter() - start)
        if result.entry.verdict != "passed":
            raise SystemExit(f"the timed run failed: {result.entry.violations}")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        kept = record_work_tree(root, f"bench-tree-{repeat}")
        tree_wall.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        tree_cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if kept.tree is None or kept.problem is not None:
            raise SystemExit(f"the work tree was not kept: {kept.problem}")
    return min(hashing), min(judging), min(tree_wall), min(tree_cpu)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--instructions", action="store_true", help="also count instructions under callgrind"
    )
    args = parser.parse_args()
    instructions: dict[str, int] = {}

    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="phasegate-tdd-overhead-") as tmp:
        root = Path(tmp)
        generate_suite(root, args.tests)
        add_covered_package(root)
        (root / ".gitignore").write_text(".phasegate/\n__pycache__/\n")
        init_git(root)
        for extra in VARIANTS.values():  # warm the file cache and byte-code; record the start
            run_once(root, extra)
        wall: dict[str, list[float]] = {name: [] for name in VARIANTS}
        cpu: dict[str, list[float]] = {name: [] for name in VARIANTS}
        for _round in range(args.rounds):
            order = list(VARIANTS)
            rng.shuffle(order)
            for name in order:
                elapsed, spent = run_once(root, VARIANTS[name])
                wall[name].append(elapsed)
                cpu[name].append(spent)
        if args.instructions:
            instructions = count_variants(root, VARIANTS)
        hash_s, judge_s, tree_s, tree_cpu_s = time_the_tdd_work(root)
        ledger = root / ".phasegate" / "tdd" / "ledger.jsonl"
        lines = ledger.read_bytes().splitlines()
        last = json.loads(lines[-1])
        recorded = len(last["tests"])
        verdicts = {json.loads(line)["verdict"] for line in lines}

    def paired(times: dict[str, list[float]], name: str) -> float:
        pairs = zip(times[name], times[BASE[name]], strict=True)
        return statistics.median(a / b for a, b in pairs)

    fastest = {name: min(values) for name, values in wall.items()}
    least_cpu = {name: min(values) for name, values in cpu.items()}
    print(f"suite: {args.tests} tests ({recorded} in each ledger entry), {args.rounds} rounds")
    print(
        f"ledger: {len(lines)} entries, {sum(len(line) + 1 for line in lines) / 1e6:.1f} MB "
        f"({len(lines[-1]) / 1e3:.0f} kB per entry), verdicts {sorted(verdicts)}"
    )
    print(
        f"{'variant':<16} {'median s':>8} {'fastest s':>9} {'paired':>7} {'fastest':>8}"
        f" {'cpu s':>7} {'cpu paired':>10} {'cpu least':>9}"
    )
    for name in VARIANTS:
        base = BASE[name]
        print(
            f"{name:<16} {statistics.median(wall[name]):>8.3f} {fastest[name]:>9.3f} "
            f"{paired(wall, name):>7.3f} {fastest[name] / fastest[base]:>8.3f} "
            f"{least_cpu[name]:>7.3f} {paired(cpu, name):>10.3f} "
            f"{least_cpu[name] / least_cpu[base]:>9.3f}"
        )
    for name, base, target in (
        ("gate+tdd", "gate", " (target <= +3.0%)"),
        ("gate-record+tdd", "gate-record", ""),
    ):
        print(
            f"TDD ledger over pytest {' '.join(VARIANTS[base])}, wall: "
            f"{fastest[name] / fastest[base] - 1:+.1%} (fastest runs), "
            f"{paired(wall, name) - 1:+.1%} (paired median); CPU: "
            f"{least_cpu[name] / least_cpu[base] - 1:+.1%} (least), "
            f"{paired(cpu, name) - 1:+.1%} (paired median){target}"
        )
    print(
        f"TDD work alone (fastest of 7, in-process): hashing {hash_s * 1000:.1f} ms (in the "
        f"background during the run), judging and writing {judge_s * 1000:.1f} ms = "
        f"{judge_s / fastest['gate-record']:.1%} of the fastest gate-record run"
    )
    print(
        f"of which keeping the work tree as a git tree (for tdd verify): {tree_s * 1000:.1f} ms "
        f"wall, {tree_cpu_s * 1000:.1f} ms CPU of git = {tree_cpu_s / least_cpu['gate']:.2%} of "
        "the least CPU of a pytest --gate run"
    )
    if instructions:
        print_instructions(instructions, "gate-record")
        for name, base in (("gate+tdd", "gate"), ("gate-record+tdd", "gate-record")):
            extra = instructions[name] / instructions[base] - 1
            print(f"instructions: TDD ledger over pytest {' '.join(VARIANTS[base])}: {extra:+.2%}")
    if args.json:
        figures = {"wall_s": wall, "cpu_s": cpu, "instructions": instructions}
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
