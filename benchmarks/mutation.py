"""The mutation check on a real project: mutants run, killed, survived, and its time against
one run of the project's whole test suite.

The project is a cached source distribution from ``tests/realprojects.py`` (offline). The change
is about 50 lines of its real code: a run of consecutive top-level functions of the package,
chosen by ``--seed``, is deleted in the base commit and present again in the head commit, so the
change adds exactly those lines and the suite at head is the project's own, passing. The
candidate runs of functions are split once, by a fixed seed, into a development half (the one
the check was tuned on) and a report half; ``--half report`` (the default) draws only from the
half that was not tuned on.

Once, before the rounds, the gate runs as a user runs it, ``pytest --gate=G --base=BASE`` with a
gate of the coverage and mutation checks: that run records per-test coverage contexts, which
the mutation check reads (its own check there draws one mutant: only the run's report and
coverage data are kept). With ``--gate-overhead`` it is also timed against the same run with a
gate of the coverage check alone, which records no contexts, to say what the contexts add to
the gate's own test run (wall time).

Then each round runs, in alternating order so that machine noise falls on both alike:

* ``suite``     the project's whole test suite once (``python -m pytest``, nothing else);
* ``mutation``  the whole ``mutation`` check (copy, control run, every mutant against its
  tests), through the engine in a child process, given the run report and the coverage data
  (with its contexts) of the gate's run, as the gate hands them over.

Each is timed by its CPU time with its children (user + system) first and wall time second.
The printed ratios are medians over the rounds of mutation / suite within the same round.
Target (issue 19): the whole check within 3x one full test run, for such a change.

    python benchmarks/mutation.py [--project more-itertools] [--seed 2] [--rounds 3]
        [--half report|dev] [--budget 25] [--gate-overhead] [--json FILE]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.realprojects import PROJECTS, git_commit, unpack  # noqa: E402

#: Lines the change should add, at least.
CHANGE_LINES = 50
#: The seed that splits the candidate changes into the development and the report half.
SPLIT_SEED = 19


@dataclass(frozen=True)
class Timing:
    """One run: CPU seconds (user + system, children included) and wall seconds."""

    cpu: float
    wall: float


@dataclass(frozen=True)
class Change:
    """Consecutive top-level functions of one module: the lines the change adds."""

    path: str
    first: int
    last: int
    names: tuple[str, ...]

    @property
    def lines(self) -> int:
        return self.last - self.first + 1


def candidate_changes(root: Path, packages: tuple[str, ...]) -> list[Change]:
    """Every run of consecutive top-level functions adding at least CHANGE_LINES lines, each
    starting at a different function, in file order."""
    found: list[Change] = []
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
            for start, node in enumerate(functions):
                names: list[str] = []
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                for follower in functions[start:]:
                    names.append(follower.name)
                    last = follower.end_lineno or follower.lineno
                    if last - first + 1 >= CHANGE_LINES:
                        relative = path.relative_to(root).as_posix()
                        found.append(Change(relative, first, last, tuple(names)))
                        break
    return found


def choose_change(root: Path, packages: tuple[str, ...], half: str, seed: int) -> Change:
    candidates = candidate_changes(root, packages)
    random.Random(SPLIT_SEED).shuffle(candidates)
    middle = len(candidates) // 2
    pool = candidates[:middle] if half == "dev" else candidates[middle:]
    return random.Random(seed).choice(pool)


def make_change(root: Path, change: Change) -> str:
    """Commit the base without the change's lines, then the head with them; return the base."""
    path = root / change.path
    original = path.read_bytes()
    lines = original.splitlines(keepends=True)
    path.write_bytes(b"".join(lines[: change.first - 1] + lines[change.last :]))
    with (root / ".git" / "info" / "exclude").open("a", encoding="utf-8") as exclude:
        exclude.write(".phasegate/\n")
    base = git_commit(root, "chore: the base, without the functions the change adds")
    path.write_bytes(original)
    git_commit(root, f"feat: add {', '.join(change.names)}")
    return base


def timed(command: list[str], cwd: Path, *, out: Path | None = None) -> Timing:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    completed = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if completed.returncode not in (0, 1):
        tail = (completed.stdout + completed.stderr)[-3000:]
        raise SystemExit(f"{' '.join(command)} exited {completed.returncode}:\n{tail}")
    if out is not None:
        out.write_text(completed.stdout, encoding="utf-8")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(cpu, wall)


def run_check(root: Path, base: str, artifacts: Path, budget: int) -> dict[str, Any]:
    """The mutation check through the engine, as the gate runs it at the end of a session
    (in the child process this script starts for each measured run), given the gate run's
    report and coverage data."""
    from phasegate.gates.checks.mutation import MutationCheck, MutationOptions
    from phasegate.gates.mutation_runs import read_contexts
    from phasegate.gates.newcode import resolve_new_code
    from phasegate.gates.project import GateProject
    from phasegate.gates.protocol import CheckContext, CheckError, SessionData
    from phasegate.model.run import RunReport
    from phasegate.store import Store

    store = Store(Path(tempfile.mkdtemp(prefix="phasegate-bench-store-")))
    context = CheckContext(
        project=GateProject(root),
        new_code=resolve_new_code(root, base, {}),
        store=store,
        timeout_s=3600.0,
        session=SessionData(
            run=RunReport.model_validate_json((artifacts / "report.json").read_text("utf-8")),
            line_contexts=read_contexts(artifacts / "coverage" / ".coverage", root),
        ),
    )
    try:
        measured = MutationCheck().measure(context, MutationOptions(budget=budget))
    except CheckError as exc:
        return {"error": exc.reason}
    return {
        "summary": measured.summary,
        "skipped": measured.skipped,
        "metrics": measured.metrics,
        "survivors": [f"{f.path}:{f.line} {f.message}" for f in measured.findings],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", default="more-itertools", choices=sorted(PROJECTS))
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--half", choices=["report", "dev"], default="report")
    parser.add_argument("--budget", type=int, default=25)
    parser.add_argument(
        "--gate-overhead",
        action="store_true",
        help="also time the gate's run without per-test contexts (a coverage-only gate)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--check-only", nargs=3, metavar=("ROOT", "BASE", "REPORT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.check_only:
        root, base, artifacts = args.check_only
        print(json.dumps(run_check(Path(root), base, Path(artifacts), args.budget)))
        return 0

    project = PROJECTS[args.project]
    with tempfile.TemporaryDirectory(prefix="phasegate-mutation-bench-") as tmp:
        root = unpack(args.project, Path(tmp))
        change = choose_change(root, project.packages, args.half, args.seed)
        base = make_change(root, change)
        print(
            f"{args.project} {project.version}: the change adds {change.lines} lines of "
            f"{change.path} ({', '.join(change.names)}), {args.half} half, seed {args.seed}"
        )
        gates = Path(tmp) / "gates"
        gates.mkdir()
        (gates / "cov.toml").write_text('name = "cov"\n[checks.coverage]\n', encoding="utf-8")
        (gates / "mut.toml").write_text(
            'name = "mut"\n[checks.coverage]\n[checks.mutation]\noptions = { budget = 1 }\n',
            encoding="utf-8",
        )
        suite = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        plain_gate = None
        if args.gate_overhead:
            plain_gate = timed([*suite, f"--gate={gates / 'cov.toml'}", f"--base={base}"], root)
        gate = timed([*suite, f"--gate={gates / 'mut.toml'}", f"--base={base}"], root)
        verdict = json.loads((root / ".phasegate" / "gates" / "mut.json").read_text("utf-8"))
        in_gate = {c["id"]: c for c in verdict["checks"]}["mutation"]
        gate_without_check = gate.wall - in_gate["duration_s"]
        artifacts = Path(tmp) / "artifacts"
        shutil.copytree(root / ".phasegate", artifacts)
        check = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--budget",
            str(args.budget),
            "--check-only",
            str(root),
            base,
            str(artifacts),
        ]
        times: dict[str, list[Timing]] = {"suite": [], "mutation": []}
        result: dict[str, Any] = {}
        for round_index in range(args.rounds):
            order = ["suite", "mutation"] if round_index % 2 == 0 else ["mutation", "suite"]
            for name in order:
                if name == "suite":
                    times[name].append(timed(suite, root))
                else:
                    out = Path(tmp) / "check.json"
                    times[name].append(timed(check, REPO, out=out))
                    result = json.loads(out.read_text(encoding="utf-8"))
        if "error" in result:
            raise SystemExit(f"the mutation check could not run: {result['error']}")

    cpu_ratios = [m.cpu / s.cpu for m, s in zip(times["mutation"], times["suite"], strict=True)]
    wall_ratios = [m.wall / s.wall for m, s in zip(times["mutation"], times["suite"], strict=True)]
    figures = {
        "project": args.project,
        "version": project.version,
        "seed": args.seed,
        "half": args.half,
        "change": {"path": change.path, "lines": change.lines, "functions": list(change.names)},
        "metrics": result.get("metrics"),
        "summary": result.get("summary"),
        "survivors": result.get("survivors", []),
        "suite_cpu_s": [round(t.cpu, 2) for t in times["suite"]],
        "suite_wall_s": [round(t.wall, 2) for t in times["suite"]],
        "mutation_cpu_s": [round(t.cpu, 2) for t in times["mutation"]],
        "mutation_wall_s": [round(t.wall, 2) for t in times["mutation"]],
        "cpu_ratio_median": round(statistics.median(cpu_ratios), 2),
        "wall_ratio_median": round(statistics.median(wall_ratios), 2),
        "gate_without_contexts_wall_s": round(plain_gate.wall, 2) if plain_gate else None,
        "gate_with_contexts_wall_s": round(gate_without_check, 2),
        "cores": len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
    }
    metrics = figures["metrics"] or {}
    print(f"mutation check: {figures['summary']}")
    print(
        f"mutants {metrics.get('mutants')}: killed {metrics.get('killed')} (timeouts "
        f"{metrics.get('timed_out')}), survived {metrics.get('survived')} (not covered "
        f"{metrics.get('not_covered')})"
    )
    for survivor in figures["survivors"]:
        print(f"  survived: {survivor}")
    print(f"suite    CPU {figures['suite_cpu_s']} s, wall {figures['suite_wall_s']} s")
    print(f"mutation CPU {figures['mutation_cpu_s']} s, wall {figures['mutation_wall_s']} s")
    print(
        f"mutation / suite, median of {args.rounds} rounds: CPU x{figures['cpu_ratio_median']}, "
        f"wall x{figures['wall_ratio_median']} on {figures['cores']} cores (target: within x3)"
    )
    if plain_gate is not None:
        print(
            f"the gate's own run: with contexts {figures['gate_with_contexts_wall_s']} s wall "
            f"(its mutation check's time left out), without "
            f"{figures['gate_without_contexts_wall_s']} s "
            f"(x{gate_without_check / plain_gate.wall:.2f})"
        )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
