"""What per-test coverage contexts cost on a large suite, beside what ``pytest --gate`` costs.

On python-dateutil's whole suite (``tests/realprojects.py``, cached sdist, offline), in each
round and in a rotating order, side by side:

* plain pytest;
* pytest under branch coverage, as ``pytest --cov --cov-branch`` measures it
  (``coverage run --branch``, the project's packages as the source, no contexts);
* the same with a coverage context per test (coverage.py's ``dynamic_context =
  test_function``): what collecting contexts in the measured run would add;
* phasegate's own contexts run (``-p phasegate.plugin.contexts``, the ``ctrace`` core, the
  node id of each test's setup, call and teardown as the context: what auto-debug's
  localization and the mutation check run in their own subprocess);
* ``pytest --gate=twelve-check`` from cold, and ``pytest`` with a gate of only the tests and
  coverage checks (the test side of the gate, without its static checks).

Each run's wall time and CPU time (user + system, children included) is taken; the figures are
medians over the rounds, with each variant's CPU against plain pytest's.

    python benchmarks/coverage_contexts.py [--rounds 2] [--project python-dateutil]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gate import PY, Timing, clear_cache, real_subject, timed  # noqa: E402

#: A gate of the checks that read the test run only (no static check, no child process).
TEST_SIDE_GATE = 'name = "test-side"\n[checks.tests]\n[checks.coverage]\n'


def variants(root: Path, packages: list[Path], args: list[str], env: dict[str, str],
             scratch: Path) -> dict[str, Callable[[], Timing]]:  # fmt: skip
    """Each way of running the suite, as a function that runs it once."""
    source = ",".join(str(package) for package in packages)
    contexts_rc = scratch / "contexts.rc"
    contexts_rc.write_text(
        "[run]\nbranch = True\ndynamic_context = test_function\n"
        f"source = {', '.join(str(package) for package in packages)}\n"
    )
    gate_file = scratch / "test-side.toml"
    gate_file.write_text(TEST_SIDE_GATE)
    data = scratch / "data"
    pytest = ["-m", "pytest", "-q", "-p", "no:cacheprovider", *args]

    def coverage_run(*options: str) -> Timing:
        for leftover in scratch.glob("data*"):
            leftover.unlink()
        return timed(
            [PY, "-m", "coverage", "run", f"--data-file={data}", *options, *pytest],
            root, env=env,
        )  # fmt: skip

    def phasegate_contexts() -> Timing:
        for leftover in scratch.glob("data*"):
            leftover.unlink()
        extra = {
            **env,
            "PHASEGATE_CONTEXTS_DATA": str(data),
            "PHASEGATE_CONTEXTS_SOURCE": str(packages[0].parent),
        }
        return timed([PY, *pytest, "-p", "phasegate.plugin.contexts"], root, env=extra)

    def gate(name: str) -> Callable[[], Timing]:
        def run() -> Timing:
            clear_cache(root)
            shutil.rmtree(root / ".phasegate" / "coverage", ignore_errors=True)
            return timed([PY, *pytest, f"--gate={name}"], root, env=env)

        return run

    return {
        "plain pytest": lambda: timed([PY, *pytest], root, env=env),
        "branch coverage, no contexts": lambda: coverage_run("--branch", f"--source={source}"),
        "branch coverage, a context per test": lambda: coverage_run(f"--rcfile={contexts_rc}"),
        "phasegate's contexts run (ctrace)": phasegate_contexts,
        "pytest --gate=twelve-check, cold": gate("twelve-check"),
        "pytest --gate (tests and coverage only)": gate(str(gate_file)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--project", default="python-dateutil")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="phasegate-contexts-") as tmp:
        folder = Path(tmp)
        subject = real_subject(args.project, folder / "project", "full")
        scratch = folder / "scratch"
        scratch.mkdir()
        runs = variants(subject.root, subject.packages, subject.pytest_args, subject.env, scratch)
        results: dict[str, list[Timing]] = {name: [] for name in runs}
        order = list(runs)
        for index in range(args.rounds):
            shift = index % len(order)
            for name in order[shift:] + order[:shift]:
                results[name].append(runs[name]())
                print(f"  round {index + 1}: {name}: {results[name][-1]}", flush=True)
    plain = statistics.median(t.cpu for t in results["plain pytest"])
    print(f"\n{args.project}, whole suite, {args.rounds} rounds, medians:")
    print(f"  {'':<42} {'wall s':>8} {'CPU s':>8} {'CPU / plain':>12}")
    for name, timings in results.items():
        wall = statistics.median(t.wall for t in timings)
        cpu = statistics.median(t.cpu for t in timings)
        print(f"  {name:<42} {wall:8.1f} {cpu:8.1f} {cpu / plain:12.2f}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
