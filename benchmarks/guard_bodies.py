"""Whether auto-debug's guard synthesis gives back a deleted ``if x is None: ...`` guard.

Over the installed packages the real-code benchmark never draws from (and not phasegate),
each None guard is deleted with the real benchmark's own operator
(``_drop_none_guard`` of ``benchmarks/real_faults.py``), and the engine's guard synthesis for
a lost guard (``_guards`` of :mod:`phasegate.autodebug.patterns.lost_guards`: the bodies of
:func:`~phasegate.autodebug.patterns.none_guards.guard_bodies` at each of the guard's places,
ranked by score) is asked for its candidates, with no test run. A guard is found when a
candidate's file is, as an AST, the original file: the same body at the same place. Its rank
among the candidates, and whether it is within the engine's budget of validated candidates
(``max_iterations``), are counted. The synthesis is told which function and which value lost
a guard (the test runs and the ranking that choose them are not measured here) and no
exception a test waits for (there is no test).

The packages are split by a fixed seed into a development half (tune on it) and a report
half (report it once, at the end). The counts by what gave the body (the ``why`` of the
body ranked first among those that give the guard back, or "not found") say which body
sources matter.

    python benchmarks/guard_bodies.py [--seed S] [--half dev|report|both] [--verbose]
        [--root DIR] [--misses N]
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import os
import sys
import sysconfig
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from guard_places import NEVER_COUNTED
from import_placement import half_of
from real_faults import mutants

from phasegate.autodebug.patterns import lost_guards
from phasegate.autodebug.patterns.none_guards import _setter
from phasegate.autodebug.project import Project, TestFiles
from phasegate.autodebug.settings import AutodebugSettings
from phasegate.autodebug.source import enclosing_function, parse

SEED = "phasegate-guard-bodies-1"
#: The candidates auto-debug validates at most for one failure.
BUDGET = AutodebugSettings().max_iterations
HALVES = ("dev", "report")
#: The guards drawn from one package at most.
PER_PACKAGE = 40


class InstalledPackage(Project):
    """An installed package as a project, each file read once, one file read as a mutant's."""

    def __init__(self, root: Path) -> None:
        super().__init__(root, TestFiles(AutodebugSettings().test_files))
        self._kept: dict[str, str | None] = {}
        self._trees: dict[str, ast.Module | None] = {}
        self.changed: tuple[str, str] | None = None

    def relpath(self, path: str | os.PathLike[str]) -> str | None:
        """``path`` relative to the root (a project's own rule refuses installed files)."""
        try:
            return (self.root / path).resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return None

    def _real_file(self, relpath: str) -> bool:
        return (self.root / relpath).is_file()

    def parsed_naming(self, name: str, relpaths: Iterable[str]) -> Iterator[tuple[str, ast.Module]]:
        """As a project's, each file parsed once (the same answer, thousands of times faster)."""
        for relpath in relpaths:
            text = self.read(relpath)
            tree = self._tree(relpath, text) if text is not None and name in text else None
            if tree is not None:
                yield relpath, tree

    def _tree(self, relpath: str, text: str) -> ast.Module | None:
        if self.changed is not None and relpath == self.changed[0]:
            return parse(text)
        if relpath not in self._trees:
            self._trees[relpath] = parse(text)
        return self._trees[relpath]

    def read(self, relpath: str) -> str | None:
        if self.changed is not None and relpath == self.changed[0]:
            return self.changed[1]
        if relpath not in self._kept:
            path = self.root / relpath
            self._kept[relpath] = path.read_text(encoding="utf-8") if path.is_file() else None
        return self._kept[relpath]


@dataclass
class Guard:
    """One deleted guard: where, what it tested, and the file with and without it."""

    package: str
    relpath: str
    line: int
    subject: str
    body: str
    original: str
    without: str

    @property
    def name(self) -> str:
        return f"{self.package}/{self.relpath}:{self.line} `if {self.subject} is None: {self.body}`"


@dataclass
class Outcome:
    """Where the original guard came among the candidates (None: not among them)."""

    rank: int | None
    candidates: int
    why: str
    #: Why the first candidate was made, when it is not the original.
    first_why: str = ""


@dataclass
class Tally:
    guards: int = 0
    first: int = 0
    in_budget: int = 0
    found: int = 0
    by_source: Counter[str] = field(default_factory=Counter)
    wrong_first: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)

    def add(self, guard: Guard, outcome: Outcome) -> None:
        self.guards += 1
        self.first += outcome.rank == 1
        self.in_budget += outcome.rank is not None and outcome.rank <= BUDGET
        self.found += outcome.rank is not None
        self.by_source[outcome.why if outcome.rank is not None else "not found"] += 1
        self.wrong_first[outcome.first_why] += outcome.rank != 1 and bool(outcome.first_why)
        if outcome.rank is None or outcome.rank > BUDGET:
            self.misses.append(guard.name)


def guards(package: str, project: InstalledPackage) -> Iterator[Guard]:
    """Every None guard the real benchmark's operator deletes from the package."""
    for relpath in project.source_files:
        text = project.read(relpath)
        tree = parse(text) if text is not None else None
        if text is None or tree is None:
            continue
        for found in mutants(relpath, text, "none", SEED).values():
            for mutant in found:
                guard = _guard_at(tree, mutant.line)
                if guard is not None:
                    subject, body = guard
                    yield Guard(package, relpath, mutant.line, subject, body, text, mutant.text)


def _guard_at(tree: ast.Module, line: int) -> tuple[str, str] | None:
    """``x`` and the body of the ``if x is None:`` statement at ``line``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and node.lineno == line:
            assert isinstance(node.test, ast.Compare)
            body = "; ".join(ast.unparse(statement) for statement in node.body)
            return ast.unparse(node.test.left), body
    return None


def outcome(project: InstalledPackage, guard: Guard) -> Outcome:
    """The rank of the original file among the lost-guard candidates for ``guard``."""
    project.changed = (guard.relpath, guard.without)
    try:
        tree = parse(guard.without)
        function = enclosing_function(tree, guard.line) if tree is not None else None
        if function is None:
            return Outcome(None, 0, "outside a function")
        setter = _setter(function, guard.subject, guard.line)
        value = lost_guards._Value(guard.relpath, guard.without, function, guard.subject, setter)
        candidates = sorted(lost_guards._guards(project, value, None, 1.0), key=lambda c: -c.score)
    finally:
        project.changed = None
    wanted = ast.dump(ast.parse(guard.original))
    for rank, candidate in enumerate(candidates, 1):
        if ast.dump(ast.parse(candidate.edits[0].text)) == wanted:
            first_why = _why(candidates[0].description) if rank > 1 else ""
            return Outcome(rank, len(candidates), _why(candidate.description), first_why)
    first_why = _why(candidates[0].description) if candidates else ""
    return Outcome(None, len(candidates), "", first_why)


def _why(description: str) -> str:
    """The body's reason in a candidate's description: ``(<why>; the None flows on ...)``,
    without the place."""
    why = description.rpartition(" (")[2].partition("; the None flows on")[0]
    return why.replace(", before its first use", "")


def drawn(found: list[Guard], seed: str, per_package: int) -> list[Guard]:
    """At most ``per_package`` of a package's guards, drawn by a hash of the seed and their
    place (a few big packages would otherwise outweigh all the others)."""

    def key(guard: Guard) -> bytes:
        return hashlib.sha256(f"{seed}:{guard.relpath}:{guard.line}".encode()).digest()

    return sorted(found, key=key)[:per_package]


def measure(
    root: Path, seed: str, halves: tuple[str, ...], verbose: bool, per_package: int = PER_PACKAGE
) -> dict[str, Tally]:
    tallies = {half: Tally() for half in halves}
    for folder in sorted(p for p in root.iterdir() if (p / "__init__.py").is_file()):
        half = half_of(folder.name, seed)
        if folder.name in NEVER_COUNTED or half not in halves:
            continue
        project = InstalledPackage(folder)
        before = tallies[half].guards
        for guard in drawn(list(guards(folder.name, project)), seed, per_package):
            tallies[half].add(guard, outcome(project, guard))
        if verbose and tallies[half].guards > before:
            print(f"{half} {folder.name}: {tallies[half].guards - before} guards", flush=True)
    return tallies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", default=SEED)
    parser.add_argument("--half", choices=[*HALVES, "both"], default="dev")
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["purelib"]))
    parser.add_argument("--verbose", action="store_true", help="a line per package")
    parser.add_argument("--misses", type=int, default=0, help="list this many misses per half")
    parser.add_argument("--per-package", type=int, default=PER_PACKAGE, help="guards drawn at most")
    args = parser.parse_args()
    halves = HALVES if args.half == "both" else (args.half,)
    tallies = measure(args.root, args.seed, halves, args.verbose, args.per_package)
    print(
        f"None guards deleted and synthesized again (seed {args.seed}, budget {BUDGET}, "
        f"at most {args.per_package} a package)"
    )
    print(f"{'half':<8}{'guards':>8}{'rank 1':>8}{f'first {BUDGET}':>9}{'found':>8}{'not':>8}")
    for half, tally in tallies.items():
        not_found = tally.guards - tally.found
        print(
            f"{half:<8}{tally.guards:>8}{tally.first:>8}{tally.in_budget:>9}"
            f"{tally.found:>8}{not_found:>8}"
        )
        for why, count in tally.by_source.most_common():
            print(f"    {count:>6}  {why}")
        print("  first, not the original:")
        for why, count in tally.wrong_first.most_common():
            print(f"    {count:>6}  {why}")
        for miss in tally.misses[: args.misses]:
            print(f"    miss: {miss}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
