"""What rendering the reports costs for a 5,000-test run, against the run itself.

Generates a project with 5,000 tests (about 2% failing, some erroring in setup) and a package
with lint findings and partly covered code, runs ``pytest --gate=bench`` on it once (the gate:
tests, coverage, lint) to get a real run report and verdict, then times, over several rounds:

* ``load``         reading report.json, the verdict and the refinement state into models;
* ``markdown``     the pull-request comment (65,536 characters) and the job summary (1 MiB);
* ``sarif``        the SARIF 2.1.0 log;
* ``annotations``  the workflow commands;
* ``diff``         ``report diff`` against a base run (the same run with other failures);
* ``all``          all of the above, as ``phasegate report github`` does them in one process;
* ``command``      ``phasegate report github`` as a subprocess: wall time, and CPU time (user +
  system, steadier than wall time on a shared machine), interpreter start and imports included.

Target (issue #7): rendering adds under 1 second for a 5,000-test run. The verdict line judges
``all`` (the rendering itself) and prints the command's figures beside it.

    python benchmarks/report.py [--tests 5000] [--rounds 7]
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
import time
from collections.abc import Callable
from pathlib import Path

from phasegate.model.gate import GateVerdict
from phasegate.report.annotations import render_annotations
from phasegate.report.bundle import Bundle, load_bundle
from phasegate.report.diff import diff_bundles
from phasegate.report.limits import COMMENT, SUMMARY
from phasegate.report.markdown import MarkdownOptions, render_markdown
from phasegate.report.sarif import render_sarif

GATE = """name = "bench"
[checks.tests]
[checks.coverage]
fail_when = [{ metric = "line_rate", op = "<", value = 0.8 }]
[checks.lint]
"""


def generate_project(root: Path, tests: int, per_file: int = 100) -> None:
    """A package with lint findings and a suite that imports it, about 2% failing."""
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n\n'
        '[tool.ruff.lint]\nselect = ["E", "F"]\n\n'
        '[tool.phasegate]\ngate_paths = ["ci"]\n'
    )
    (root / "ci").mkdir()
    (root / "ci" / "bench.toml").write_text(GATE)
    package = root / "src" / "bench"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for module in range(20):
        lines = [f"import os as os_{n}" for n in range(15)]  # F401: 300 findings in all
        lines += ["", ""]
        for fn in range(30):
            lines += [
                f"def f_{fn}(x):",
                "    if x > 10:",
                f"        return x * {fn}",
                "    return x",
                "",
            ]
        (package / f"mod_{module:02d}.py").write_text("\n".join(lines))
    folder = root / "tests"
    folder.mkdir()
    (folder / "conftest.py").write_text(
        "import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parents[1] / 'src'))\n"
        "import pytest\n\n@pytest.fixture\ndef broken():\n    raise OSError('database is down')\n"
    )
    written = index = 0
    while written < tests:
        count = min(per_file, tests - written)
        lines = [f"from bench import mod_{index % 20:02d} as mod", ""]
        for n in range(count):
            number = written + n
            if number % 50 == 7:
                lines += [f"def test_{n}():", f"    assert mod.f_{n % 30}({n}) == -1", ""]
            elif number % 500 == 11:
                lines += [f"def test_{n}(broken):", "    pass", ""]
            else:
                lines += [f"def test_{n}():", f"    assert mod.f_{n % 30}(1) == 1", ""]
        (folder / f"test_gen_{index:03d}.py").write_text("\n".join(lines))
        written += count
        index += 1


def run_gate(root: Path) -> float:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--gate=bench"]
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    completed = subprocess.run(
        command, cwd=root, capture_output=True, text=True, env=env, check=False
    )
    elapsed = time.perf_counter() - start
    if not (root / ".phasegate" / "gates" / "bench.json").is_file():
        raise SystemExit(f"the gate run wrote no verdict:\n{completed.stdout}\n{completed.stderr}")
    return elapsed


def make_base(root: Path) -> Path:
    """A base run: the same report with every failing test passing and other ones failing."""
    base = root / "base-artifacts"
    shutil.copytree(root / ".phasegate", base)
    report = json.loads((base / "report.json").read_text())
    for n, test in enumerate(report["tests"]):
        if test["outcome"] in ("failed", "error"):
            test["outcome"], test["failure"] = "passed", None
        elif n % 97 == 3:
            test["outcome"] = "failed"
        test["duration_s"] = test["duration_s"] * (3 if n % 211 == 0 else 1)
    (base / "report.json").write_text(json.dumps(report))
    return base


def timed(work: Callable[[], object], rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="phasegate-report-bench-") as tmp:
        root = Path(tmp)
        generate_project(root, args.tests)
        run_s = run_gate(root)
        artifacts = root / ".phasegate"
        base_dir = make_base(root)
        bundle = load_bundle(artifacts)
        base = load_bundle(base_dir)
        if bundle.run is None or bundle.verdict is None:
            raise SystemExit("the gate run wrote no report or no verdict")
        counts = bundle.run.counts
        findings = sum(c.findings_total for c in bundle.verdict.checks)

        def everything() -> None:
            head = load_bundle(artifacts)
            diff = diff_bundles(load_bundle(base_dir), head)
            render_markdown(head, MarkdownOptions(budget=SUMMARY, diff=diff))
            render_markdown(head, MarkdownOptions(budget=COMMENT, diff=diff))
            render_sarif(_verdict(head))
            render_annotations(_verdict(head))

        figures = {
            "load": timed(lambda: load_bundle(artifacts), args.rounds),
            "markdown": timed(
                lambda: (
                    render_markdown(bundle, MarkdownOptions(budget=COMMENT)),
                    render_markdown(bundle, MarkdownOptions(budget=SUMMARY)),
                ),
                args.rounds,
            ),
            "sarif": timed(lambda: render_sarif(_verdict(bundle)).dumps(), args.rounds),
            "annotations": timed(lambda: render_annotations(_verdict(bundle)), args.rounds),
            "diff": timed(lambda: diff_bundles(base, bundle), args.rounds),
            "all": timed(everything, args.rounds),
        }
        wall, cpu = [], []
        for _ in range(max(3, args.rounds // 2)):
            spent, used = _command(root)
            wall.append(spent)
            cpu.append(used)
        figures["command"] = wall
        figures["command cpu"] = cpu
    print(
        f"run: {counts.collected} tests ({counts.failed} failed, {counts.errors} errors), "
        f"{findings} findings; pytest --gate=bench took {run_s:.2f}s"
    )
    print(f"{'step':<12} {'median s':>9} {'fastest s':>10}")
    for name, values in figures.items():
        print(f"{name:<12} {statistics.median(values):>9.3f} {min(values):>10.3f}")
    total = statistics.median(figures["all"])
    command = statistics.median(figures["command"])
    cpu = statistics.median(figures["command cpu"])
    verdict = "PASS" if total < 1.0 else "FAIL"
    print(
        f"rendering everything: {total:.3f}s ({total / run_s:.1%} of the run), target < 1 s: "
        f"{verdict}; as a command: {command:.3f}s wall, {cpu:.3f}s CPU"
    )
    if args.json:
        args.json.write_text(json.dumps({"run_s": run_s, "seconds": figures}, indent=2))
    return 0 if total < 1.0 else 1


def _verdict(bundle: Bundle) -> GateVerdict:
    if bundle.verdict is None:
        raise SystemExit("the bundle has no verdict")
    return bundle.verdict


def _command(root: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one ``phasegate report github``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env["GITHUB_STEP_SUMMARY"] = str(root / "summary.md")
    env["GITHUB_OUTPUT"] = str(root / "outputs")
    (root / "summary.md").write_text("")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "phasegate",
            "report",
            "github",
            "--compare",
            str(root / "base-artifacts"),
            "--path-prefix",
            "",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        check=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


if __name__ == "__main__":
    raise SystemExit(main())
