"""What per-test coverage contexts cost on a large suite, beside what ``pytest --gate`` costs.

``pytest --gate`` records each test's lines under its node id (coverage.py's dynamic contexts)
only when the gate has the mutation check, a base to compare with and a changed line of the
package: the mutation check runs
each mutant against the tests that ran its line. This measures what that costs. On
python-dateutil's whole suite (``tests/realprojects.py``, cached sdist, offline), in each round
and in a rotating order, side by side:

* plain pytest;
* pytest under branch coverage, as ``pytest --cov --cov-branch`` measures it
  (``coverage run --branch``, the project's packages as the source, no contexts);
* ``pytest --gate`` with a gate of the checks that read the test run (tests, coverage,
  mutation), without a base: branch coverage, no contexts;
* the same with ``--base=HEAD~1``, against a commit that adds a comment line to a package
  module: a context per test (the changed line holds nothing to mutate, so the mutation check
  itself is skipped and the difference is the contexts alone);
* optionally (``--all``) coverage.py's own ``dynamic_context = test_function`` under
  ``coverage run`` and ``pytest --gate=twelve-check`` from cold.

Each run's wall time and CPU time (user + system, children included) is taken; the figures are
medians over the rounds, with each variant's CPU against plain pytest's.

    python benchmarks/coverage_contexts.py [--rounds 1] [--project python-dateutil] [--all]
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
from tests.realprojects import git_commit  # noqa: E402

#: A gate of the checks that read the test run only (no static check, no child process).
TEST_SIDE_GATE = """\
name = "test-side"
[checks.tests]
[checks.coverage]
[checks.mutation]
skip_allowed = true
"""


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

    def gate(name: str, *options: str) -> Callable[[], Timing]:
        def run() -> Timing:
            clear_cache(root)
            shutil.rmtree(root / ".phasegate" / "coverage", ignore_errors=True)
            return timed([PY, *pytest, f"--gate={name}", *options], root, env=env)

        return run

    return {
        "plain pytest": lambda: timed([PY, *pytest], root, env=env),
        "branch coverage, no contexts": lambda: coverage_run("--branch", f"--source={source}"),
        "pytest --gate (test side), no contexts": gate(str(gate_file)),
        "pytest --gate (test side) --base=HEAD~1, contexts": gate(str(gate_file), "--base=HEAD~1"),
        "coverage run, a context per test": lambda: coverage_run(f"--rcfile={contexts_rc}"),
        "pytest --gate=twelve-check, cold": gate("twelve-check"),
    }


def touch_a_package_line(root: Path, packages: list[Path]) -> None:
    """Commit a comment line in a package module: a change with nothing to mutate in it."""
    module = next(
        path for package in packages for path in sorted(package.rglob("*.py")) if path.is_file()
    )
    with module.open("a", encoding="utf-8") as handle:
        handle.write("# a changed line, for benchmarks/coverage_contexts.py\n")
    git_commit(root, "chore: a changed line for the benchmark")


#: The variants run without ``--all``.
DEFAULT = 4


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--project", default="python-dateutil")
    parser.add_argument("--all", action="store_true", help="also the last two variants")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="phasegate-contexts-") as tmp:
        folder = Path(tmp)
        subject = real_subject(args.project, folder / "project", "full")
        touch_a_package_line(subject.root, subject.packages)
        scratch = folder / "scratch"
        scratch.mkdir()
        runs = variants(subject.root, subject.packages, subject.pytest_args, subject.env, scratch)
        if not args.all:
            runs = dict(list(runs.items())[:DEFAULT])
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
