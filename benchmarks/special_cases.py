"""The ``special-cased-input`` integrity rule on honest code: its hits and its cost.

Each real project of ``tests/realprojects.py`` (cached sdists, offline; or any unpacked project
folder given with ``--folder``) is judged as if every line of its package had been added by one
change: every comparison of the package with a composite literal is set against the literals
of the project's own tests. Honest code should give no hit; each hit printed is one a reviewer
reads. The cost is paired CPU time in this process, alternating in each round: the rule on a
fresh project (its parses included), reading every test file's literals alone (what the rule
does only when an added line compares with a composite literal), and ``ast.parse`` of every
package and test file (the floor of any reading of them). Medians of ``--rounds``.

    python benchmarks/special_cases.py [--rounds 5] [--folder PATH ...]
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.realprojects import PROJECTS, cached, unpack  # noqa: E402 -- the same

from phasegate.gates.newcode import NewCode  # noqa: E402 -- after the repository is importable
from phasegate.gates.project import GateProject  # noqa: E402 -- the same
from phasegate.integrity import special_cases  # noqa: E402 -- the same
from phasegate.integrity.testcode import is_test_file  # noqa: E402 -- the same
from phasegate.model.gate import BaseInfo  # noqa: E402 -- the same

#: Every line of the package is new: the change is the whole project.
EVERY_LINE = NewCode(BaseInfo(ref="(none)", note="every line taken as added"))


def judge(name: str, root: Path, rounds: int) -> None:
    project = GateProject(root)
    tests = [path for path in project.python_files if is_test_file(project.relative(path))]
    compared = special_cases._added_comparisons(project, EVERY_LINE)
    hits = special_cases.special_case_tricks(project, EVERY_LINE)
    rule, literals, parse = _paired(root, [*project.source_files, *tests], rounds)
    packages = ", ".join(project.relative(path) for path in project.package_dirs)
    print(
        f"{name}: package {packages}: {len(project.source_files)} files, {len(tests)} test "
        f"files; {len(compared)} comparison(s) with a composite literal, {len(hits)} hit(s); "
        f"CPU ms (median of {rounds}): rule {rule:.1f}, test literals alone {literals:.1f}, "
        f"ast.parse of every file {parse:.1f}"
    )
    for hit in hits:
        print(f"    {hit.sentence}")


def _paired(root: Path, files: list[Path], rounds: int) -> tuple[float, float, float]:
    """Median CPU milliseconds of the rule, of the test literals alone, of parsing all files."""

    def rule() -> None:
        special_cases.special_case_tricks(GateProject(root), EVERY_LINE)

    def literals() -> None:
        list(special_cases._test_literals(GateProject(root)))

    def parse() -> None:
        for path in files:
            ast.parse(path.read_bytes())

    measured: dict[str, list[float]] = {"rule": [], "literals": [], "parse": []}
    for _ in range(rounds):
        for key, run in (("rule", rule), ("literals", literals), ("parse", parse)):
            measured[key].append(_cpu_ms(run))
    median = {key: statistics.median(values) for key, values in measured.items()}
    return median["rule"], median["literals"], median["parse"]


def _cpu_ms(run: Callable[[], None]) -> float:
    start = time.process_time()
    run()
    return (time.process_time() - start) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="paired rounds (default 5)")
    parser.add_argument("--folder", type=Path, action="append", default=[], help="a project")
    args = parser.parse_args(argv)
    for folder in args.folder:
        judge(folder.name, folder.resolve(), args.rounds)
    if args.folder:
        return 0
    with tempfile.TemporaryDirectory() as work:
        for name in sorted(PROJECTS):
            if cached(PROJECTS[name]) is None:
                print(f"{name}: not cached (python tests/realprojects.py fetch {name})")
                continue
            judge(name, unpack(name, Path(work) / name, commit=False), args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
