"""How well ``pytest --autodebug=apply`` repairs the fault corpus, and how fast.

For each project of fixtures/faults/<class>/ (one injected fault each), in a fresh copy:

1. run ``pytest --autodebug=apply`` and time it;
2. compare every source file with the base project it was made from (syntax trees, so
   formatting aside), run the tests again, and hash the test files;
3. file the result under one of:

   * ``correct``: a repair was kept and every source file has the original's syntax tree;
   * ``plausible``: a repair was kept and the tests pass, but the code differs;
   * ``escalated``: nothing was kept, and the tree is byte for byte as it was;
   * ``wrong-kept``: a repair was kept and the tests still fail;
   * ``not-triggered``: the fault made no test fail (a corpus problem, reported if seen).

It also counts test files modified (must be 0), trees changed while nothing was kept (must
be 0), and the median seconds auto-debug spent per kept repair. The baseline row applies
what CPython's own "did you mean" suggested for the same failure (recorded live by
auto-debug) and says how many faults that alone would have repaired correctly.

    python benchmarks/autodebug.py [--only CLASS ...] [--json results.json]

With ``--real``, the faults are injected into real projects instead (``real_bench.py``):

    python benchmarks/autodebug.py --real --half dev      # the half to tune on
    python benchmarks/autodebug.py --real --half report   # the half to report
    python benchmarks/autodebug.py --real --seed phasegate-real-faults-2   # a fresh sample
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "fixtures" / "faults"
CLASSES = ("syntax", "name", "attribute", "import", "type", "none")
OUTCOMES = ("correct", "plausible", "escalated", "wrong-kept", "not-triggered")


@dataclass
class Result:
    fault: str
    error_class: str
    outcome: str
    wall_s: float
    repair_s: float | None
    tests_modified: int
    tree_changed_unkept: bool
    baseline_correct: bool
    kept: list[str] = field(default_factory=list)
    explanation: str = ""


def _hashes(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".phasegate" not in p.parts and "__pycache__" not in p.parts
    }


def _is_test(relpath: str) -> bool:
    name = Path(relpath).name
    return relpath.startswith("tests/") or name.startswith("test_") or name == "conftest.py"


def _same_tree(a: str, b: str) -> bool:
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except SyntaxError:
        return False


def _sources_match(project: Path, base: Path) -> bool:
    for path in sorted(base.rglob("*.py")):
        relpath = str(path.relative_to(base))
        if _is_test(relpath):
            continue
        mine = project / relpath
        if not mine.is_file() or not _same_tree(mine.read_text(), path.read_text()):
            return False
    return True


def _pytest(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )


def _apply_suggestion(text: str, failure: dict[str, Any]) -> str | None:
    """The faulty file with CPython's suggestion applied at the failure's line."""
    suggestion = failure.get("cpython_suggestion")
    line = failure.get("line")
    if not suggestion or not line:
        return None
    if suggestion.startswith("import "):
        return f"{suggestion}\n{text}"
    facts = failure.get("facts", {})
    wrong = facts.get("name") or (facts.get("names") or [None])[0]
    if not wrong:
        return None
    lines = text.split("\n")
    changed, count = re.subn(rf"\b{re.escape(wrong)}\b", suggestion, lines[line - 1], count=1)
    if not count:
        return None
    lines[line - 1] = changed
    return "\n".join(lines)


def _baseline(project: Path, base: Path, report: dict[str, Any], faulty_file: str) -> bool:
    """Whether CPython's suggestion alone restores the original code."""
    original = (base / faulty_file).read_text()
    for failure in report.get("failures", []):
        path = failure.get("path")
        if path is None or failure.get("cpython_suggestion") is None:
            continue
        source = project / path
        if not source.is_file():
            continue
        fixed = _apply_suggestion(source.read_text(), failure)
        if fixed is not None and path == faulty_file and _same_tree(fixed, original):
            return True
    return False


def run_fault(folder: Path, scratch: Path) -> Result:
    meta = tomllib.loads((folder / "FAULT.toml").read_text())
    base = CORPUS / "_base" / meta["base"]
    project = scratch / folder.name
    shutil.copytree(folder, project)
    before = _hashes(project)
    faulty_before = (project / meta["file"]).read_text()
    started = time.perf_counter()
    _pytest(project, "--autodebug=apply")
    wall = time.perf_counter() - started
    report_path = project / ".phasegate" / "autodebug.json"
    report = json.loads(report_path.read_text()) if report_path.is_file() else {"failures": []}
    after = _hashes(project)
    touched = {path for path in set(before) | set(after) if before.get(path) != after.get(path)}
    tests_modified = sum(1 for path in touched if _is_test(path))
    repaired = [f for f in report["failures"] if f["outcome"] == "repaired"]
    kept = [f["repair"]["diff_file"] for f in repaired]
    repair_s = sum(f["duration_s"] for f in repaired) if repaired else None
    # The baseline reads the faulty file as the failure saw it.
    snapshot = project.parent / f"{folder.name}-faulty"
    shutil.copytree(project, snapshot)
    (snapshot / meta["file"]).write_text(faulty_before)
    baseline = _baseline(snapshot, base, report, meta["file"])
    tree_changed = not repaired and after != before
    if not report["failures"]:
        outcome = "not-triggered"
    elif not repaired:
        outcome = "escalated"
    elif _sources_match(project, base):
        outcome = "correct"
    elif _pytest(project).returncode == 0:
        outcome = "plausible"
    else:
        outcome = "wrong-kept"
    first = report["failures"][0]["explanation"] if report["failures"] else ""
    return Result(
        f"{meta['class']}/{folder.name}",
        meta["class"],
        outcome,
        round(wall, 2),
        repair_s,
        tests_modified,
        tree_changed,
        baseline,
        kept,
        first,
    )


def _row(name: str, results: list[Result]) -> str:
    counts = {o: sum(r.outcome == o for r in results) for o in OUTCOMES}
    times = [r.repair_s for r in results if r.repair_s is not None]
    median = f"{statistics.median(times):.1f}" if times else "-"
    correct = counts["correct"]
    share = f"{100 * correct / len(results):.0f}%" if results else "-"
    return (
        f"{name:<10} {len(results):>6} {correct:>8} {share:>5} {counts['plausible']:>9} "
        f"{counts['escalated']:>9} {counts['wrong-kept']:>10} {counts['not-triggered']:>13} "
        f"{sum(r.tests_modified for r in results):>10} {median:>9} "
        f"{sum(r.baseline_correct for r in results):>12}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=CLASSES, help="classes to run")
    parser.add_argument("--json", type=Path, help="also write every result to this file")
    parser.add_argument("--real", action="store_true", help="faults in real projects instead")
    parser.add_argument(
        "--half", choices=("dev", "report"), default="report", help="with --real: which half"
    )
    parser.add_argument(
        "--per-class", type=int, default=2, help="with --real: faults per project, class and half"
    )
    parser.add_argument(
        "--seed",
        default="phasegate-real-faults-1",
        help="with --real: the seed that orders and splits the faults; any other than the "
        "default leaves out the default's faults, a fresh sample",
    )
    parser.add_argument("--projects", nargs="*", help="with --real: projects to use")
    parser.add_argument(
        "--no-suites",
        dest="suites",
        action="store_false",
        help="with --real: do not time each project's whole suite (the second yardstick)",
    )
    parser.add_argument(
        "--table",
        nargs="+",
        type=Path,
        help="with --real: print the table of these --json files of one sample together",
    )
    parser.add_argument("--limit", type=int, help="with --real: run only the first N faults")
    parser.add_argument(
        "--record-draws",
        action="store_true",
        help="with --real: record in benchmarks/real_draws.json the places every seed drawn "
        "before --seed drew (so a machine without the screening cache need not screen them), "
        "and run nothing",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="with --real: explain each fault of the report half"
    )
    args = parser.parse_args()
    if args.real:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import real_bench

        if args.table:
            return real_bench.combined(args.table)
        return real_bench.main(args)
    classes = args.only or list(CLASSES)
    folders = [f for c in classes for f in sorted((CORPUS / c).iterdir()) if f.is_dir()]
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="phasegate-autodebug-bench-") as scratch:
        for number, folder in enumerate(folders, start=1):
            result = run_fault(folder, Path(scratch))
            results.append(result)
            print(
                f"[{number:>2}/{len(folders)}] {result.fault:<40} {result.outcome:<13} "
                f"{result.wall_s:>6.1f}s  {result.explanation[:90]}",
                flush=True,
            )
    print()
    print(f"Python {sys.version.split()[0]}; {len(results)} faults; pytest --autodebug=apply")
    print(
        f"{'class':<10} {'faults':>6} {'correct':>8} {'%':>5} {'plausible':>9} {'escalated':>9} "
        f"{'wrong-kept':>10} {'not-triggered':>13} {'tests mod':>10} {'median s':>9} "
        f"{'CPython fix':>12}"
    )
    for name in classes:
        print(_row(name, [r for r in results if r.error_class == name]))
    print(_row("all", results))
    baseline = ", ".join(
        f"{name} {sum(r.baseline_correct for r in results if r.error_class == name)}"
        for name in classes
    )
    print(f"baseline, CPython's own 'did you mean' applied as suggested (correct): {baseline}")
    easy = [r for r in results if r.error_class in ("syntax", "name", "attribute", "import")]
    hard = [r for r in results if r.error_class in ("type", "none")]
    targets = (("syntax+name+attribute+import", easy, 90), ("type+none", hard, 60))
    for label, group, target in targets:
        if group:
            share = 100 * sum(r.outcome == "correct" for r in group) / len(group)
            verdict = "met" if share >= target else "MISSED"
            print(f"{label}: {share:.0f}% correct (target {target}%: {verdict})")
    changed = sum(r.tree_changed_unkept for r in results)
    print(f"trees changed although nothing was kept: {changed} (must be 0)")
    wall = statistics.median(r.wall_s for r in results)
    print(f"median wall time per fault (the whole pytest --autodebug run): {wall:.1f}s")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
