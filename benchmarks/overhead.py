"""What recording a run costs: plain pytest against `pytest --gate` and pytest-json-report.

Generates a suite of small tests (5,000 by default), then runs, alternately in one process
so that machine noise falls on every variant alike:

* ``plain``        pytest with phasegate installed but not asked for;
* ``no-plugin``    pytest with phasegate disabled (``-p no:phasegate``): the true baseline;
* ``gate-record``  ``pytest --gate=record``: phasegate's test recording and report only;
* ``json-report``  ``pytest --json-report`` (pytest-json-report), what users pick today.

Each round runs every variant once, in a shuffled order. For each variant it prints the
median and the fastest wall time, the median over rounds of its wall time divided by plain
pytest's in the same round (paired), and the ratio of the fastest runs; then the same for CPU
time (user and system time of the pytest process). On a shared machine other work only ever
adds time, so the fastest run of each variant is the steadiest estimate of its own cost, and
CPU time leaves out the time a run waited for a processor; the paired medians show how much the
noise moves them. With ``--instructions`` it also runs each variant once under valgrind's
callgrind and prints the instructions each executed against plain pytest's: a count that does
not move with the machine's load (see ``benchmarks/instructions.py``). Targets (issue #2):
phasegate's recording costs at most 5% over plain pytest, and less than pytest-json-report.

    python benchmarks/overhead.py [--tests 5000] [--rounds 11] [--instructions]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

VARIANTS: dict[str, list[str]] = {
    "no-plugin": ["-p", "no:phasegate"],
    "plain": [],
    "gate-record": ["--gate=record"],
    "json-report": ["--json-report", "--json-report-file=.report.json"],
}


def generate_suite(root: Path, tests: int, per_file: int = 100) -> None:
    """Write ``tests`` trivial tests in files of ``per_file``, a few of them parametrized."""
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\ntestpaths = ['tests']\n")
    folder = root / "tests"
    folder.mkdir()
    written = 0
    index = 0
    while written < tests:
        count = min(per_file, tests - written)
        lines = ["import pytest", ""]
        plain = count - 10 if count > 20 else count
        for n in range(plain):
            lines += [f"def test_{n}():", f"    assert {n} + 1 == {n + 1}", ""]
        if plain < count:
            values = list(range(count - plain))
            lines += [
                f"@pytest.mark.parametrize('v', {values})",
                "def test_param(v):",
                "    assert v >= 0",
                "",
            ]
        (folder / f"test_gen_{index:03d}.py").write_text("\n".join(lines))
        written += count
        index += 1


def child_environment() -> dict[str, str]:
    """The environment of every run: byte-code caching on, as on a user's machine.

    With PYTHONDONTWRITEBYTECODE set (some CI images set it), every run recompiles every
    module and rewrites every test file's asserts, which swamps what is being measured.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(root: Path, extra: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one pytest run."""
    command = pytest_command(extra)
    cpu_start = _children_cpu()
    start = time.perf_counter()
    completed = subprocess.run(
        command, cwd=root, capture_output=True, text=True, check=False, env=child_environment()
    )
    elapsed = time.perf_counter() - start
    cpu = _children_cpu() - cpu_start
    if completed.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{completed.stdout}\n{completed.stderr}")
    return elapsed, cpu


def pytest_command(extra: list[str]) -> list[str]:
    """The pytest command of one run of a variant."""
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra]


def count_variants(root: Path, variants: dict[str, list[str]]) -> dict[str, int]:
    """Instructions executed by one run of each variant, under callgrind."""
    from instructions import available, count_instructions

    if not available():
        raise SystemExit("--instructions needs valgrind (Debian: apt-get install valgrind)")
    env = child_environment()
    return {
        name: count_instructions(pytest_command(extra), root, env)
        for name, extra in variants.items()
    }


def print_instructions(counts: dict[str, int], baseline: str) -> None:
    """One line per variant: instructions and their ratio to the baseline's."""
    print(f"{'instructions':<16} {'count':>15} {'vs ' + baseline:>16}")
    for name, count in counts.items():
        print(f"{name:<16} {count:>15,} {count / counts[baseline]:>16.4f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--instructions", action="store_true", help="also count instructions under callgrind"
    )
    args = parser.parse_args()

    rng = random.Random(args.seed)
    instructions: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="phasegate-overhead-") as tmp:
        root = Path(tmp)
        generate_suite(root, args.tests)
        for extra in VARIANTS.values():  # warm the file cache and byte-code once
            run_once(root, extra)
        wall: dict[str, list[float]] = {name: [] for name in VARIANTS}
        cpu: dict[str, list[float]] = {name: [] for name in VARIANTS}
        for _round in range(args.rounds):
            order = list(VARIANTS)
            rng.shuffle(order)
            for name in order:
                wall_s, cpu_s = run_once(root, VARIANTS[name])
                wall[name].append(wall_s)
                cpu[name].append(cpu_s)
        report = json.loads((root / ".phasegate" / "report.json").read_text())
        recorded = report["counts"]["collected"]
        if args.instructions:
            instructions = count_variants(root, VARIANTS)

    def paired(times: dict[str, list[float]], name: str) -> float:
        return statistics.median(a / b for a, b in zip(times[name], times["plain"], strict=True))

    print(f"suite: {args.tests} tests ({recorded} recorded by phasegate), {args.rounds} rounds")
    for measure, times in (("wall", wall), ("cpu", cpu)):
        print(
            f"{measure + ' time':<12} {'median s':>8} {'fastest s':>9} {'paired':>7} {'fastest':>8}"
        )
        fastest = {name: min(values) for name, values in times.items()}
        for name in VARIANTS:
            print(
                f"{name:<12} {statistics.median(times[name]):>8.3f} {fastest[name]:>9.3f} "
                f"{paired(times, name):>7.3f} {fastest[name] / fastest['plain']:>8.3f}"
            )
        for label, name, target in (
            ("phasegate recording", "gate-record", " (target <= +5.0%)"),
            ("pytest-json-report", "json-report", ""),
            ("phasegate installed, not asked, vs -p no:phasegate", "no-plugin", ""),
        ):
            if name == "no-plugin":
                by_fastest = fastest["plain"] / fastest[name] - 1
                by_pairs = 1 / paired(times, name) - 1
            else:
                by_fastest = fastest[name] / fastest["plain"] - 1
                by_pairs = paired(times, name) - 1
            print(
                f"{measure}: {label}: {by_fastest:+.1%} (fastest runs), "
                f"{by_pairs:+.1%} (paired median){target}"
            )
    if instructions:
        print_instructions(instructions, "plain")
        for label, name in (
            ("phasegate recording", "gate-record"),
            ("pytest-json-report", "json-report"),
        ):
            print(f"instructions: {label}: {instructions[name] / instructions['plain'] - 1:+.2%}")
        print(
            "instructions: phasegate installed, not asked, vs -p no:phasegate: "
            f"{instructions['plain'] / instructions['no-plugin'] - 1:+.2%}"
        )
    if args.json:
        figures = {"wall_s": wall, "cpu_s": cpu, "instructions": instructions}
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
