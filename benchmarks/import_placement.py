"""Where a lost import goes back in an unsorted header: the file's own rule, the project's order.

Every one-line import of every unsorted leading-import header (three imports or more, in
neither isort order) of the installed packages is deleted and put back three ways: by the
file's own order alone; by the file's own rule, :func:`phasegate.autodebug.source.insert_import`,
which also reads where a block of one import was from the blank lines it left
(:mod:`phasegate.autodebug.import_gaps`: it won on both halves and was adopted); and with the
order the package's other modules keep (:class:`ImportPrecedence`, learnt from every other
file of the same top-level package, consulted only where the import's block of
imports is in no isort order). A restoration counts when it gives back the file byte for byte.
The packages are split by a fixed seed into a development half (tune on it) and a report
half (report it); the projects of the real-code benchmark and phasegate itself are left out.

Apart, in every header (sorted or not): each one-line ``from`` import of a module another
``from`` import of the header imports from again, put back by the file's own rule and as it
was before the file's style of ``from`` imports was read (joined to the statement of its
module wherever the file writes no module twice; :mod:`phasegate.autodebug.import_joins`).

The project's order won on the development half and lost on the report half, so auto-debug
keeps the file's own rule and the project's order lives here only, for this measurement.
Hand-written: isort and ruff sort imports by fixed rules; none learns a project's own order.

    python benchmarks/import_placement.py [--seed S] [--half dev|report|both] [--verbose]
        [--no-project-order]
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import sysconfig
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from phasegate.autodebug import source
from phasegate.autodebug.source import insert_import, insert_lines, leading_imports, parse

SEED = "phasegate-import-placement-1"
# The top-level packages of the real-code benchmark's projects (and phasegate): never measured.
LEFT_OUT = {
    "attr",
    "attrs",
    "boltons",
    "cachetools",
    "click",
    "dateutil",
    "inflection",
    "marshmallow",
    "more_itertools",
    "parso",
    "phasegate",
    "tlz",
    "toolz",
}

ImportNode = ast.Import | ast.ImportFrom


def import_identity(stmt: ImportNode) -> str:
    """What an import reads, as the project's modules repeat it: ``import os``, ``from .x``
    (the names a ``from`` import takes vary from module to module; its module does not)."""
    if isinstance(stmt, ast.ImportFrom):
        return f"from {'.' * stmt.level}{stmt.module or ''}"
    return "import " + ", ".join(alias.name for alias in stmt.names)


class ImportPrecedence:
    """How many of the project's files put one import before another."""

    def __init__(self) -> None:
        self._before: Counter[tuple[str, str]] = Counter()

    def learn(self, header: Sequence[ImportNode], weight: int = 1) -> None:
        """Count the order of one file's leading imports (a negative ``weight`` takes back a
        file counted before)."""
        order = list(dict.fromkeys(import_identity(stmt) for stmt in header))
        for index, first in enumerate(order):
            for second in order[index + 1 :]:
                self._before[first, second] += weight

    def lean(self, first: str, second: str) -> int:
        """How many more files put ``first`` before ``second`` than after it."""
        return self._before[first, second] - self._before[second, first]

    def line_for(self, header: Sequence[ImportNode], new: ImportNode, fallback: int) -> int:
        """The line ``new`` goes before among ``header`` (a module's leading imports): the
        place between two imports that agrees with most of the project's counts about the
        imports above and below it; ``fallback`` when the project never orders ``new`` against
        any of them, or when ``fallback`` agrees as well as any place does."""
        wanted = import_identity(new)
        leans = [(stmt.lineno, self.lean(import_identity(stmt), wanted)) for stmt in header]
        if not any(lean for _line, lean in leans):
            return fallback
        scores = {line: _agreement(leans, line) for line in _places(header)}
        return _best_place(scores, fallback)


def _places(header: Sequence[ImportNode]) -> list[int]:
    """The lines an import may go before: each import's first line, and the line after each
    run of adjacent imports (the end of a block, before a blank line or what follows)."""
    places = {stmt.lineno for stmt in header}
    for stmt, following in zip(header, [*header[1:], None], strict=True):
        end = (stmt.end_lineno or stmt.lineno) + 1
        if following is None or following.lineno != end:
            places.add(end)
    return sorted(places)


def _best_place(scores: dict[int, int], fallback: int) -> int:
    """The place of the highest score: ``fallback`` if it has it, else the nearest to it."""
    best = max(scores.values())
    if scores.get(fallback) == best:
        return fallback
    tied = [line for line, score in scores.items() if score == best]
    return min(tied, key=lambda line: (abs(line - fallback), line))


def _agreement(leans: list[tuple[int, int]], line: int) -> int:
    """How many of the project's counts a new import put before ``line`` agrees with: those
    that put each import above it first, and each import below it after."""
    return sum(lean if above < line else -lean for above, lean in leans)


def insert_in_project_order(text: str, statement: str, precedence: ImportPrecedence) -> str | None:
    """:func:`insert_import`, except that among imports in no isort order (the header's and
    the block's own), the import goes where the project's other modules put it."""
    tree = parse(text)
    new = source._import_statement(statement)  # the rule measured against is source's own
    if tree is None or new is None:
        return None
    header, after = leading_imports(tree)
    if not _in_no_isort_order(header, new):
        return insert_import(text, statement)
    fallback = source._import_line(header, new, after, source.split_lines(text))
    return insert_lines(text, precedence.line_for(header, new, fallback), [statement])


def insert_by_own_order_alone(text: str, statement: str) -> str | None:
    """:func:`insert_import` before it read the blank lines a block of one import leaves
    (:mod:`phasegate.autodebug.import_gaps`): in a header in no isort order, the file's own
    order alone; what the vacated place is measured against."""
    tree = parse(text)
    new = source._import_statement(statement)
    if tree is None or new is None:
        return None
    header, _after = leading_imports(tree)
    joins = isinstance(new, ast.ImportFrom) and source._joinable_import(header, new) is not None
    if joins or not unsorted_header(header, least=1):
        return insert_import(text, statement)
    return insert_lines(text, source._line_in_own_order(header, new), [statement])


def insert_joined_as_before(text: str, statement: str) -> str | None:
    """:func:`insert_import` before it read the file's style of ``from`` imports
    (:mod:`phasegate.autodebug.import_joins`): joined to a statement of its module wherever the
    file writes no module twice; what the file's own rule is measured against."""
    tree = parse(text)
    new = source._import_statement(statement)
    if tree is None or not isinstance(new, ast.ImportFrom):
        return None
    header, _after = leading_imports(tree)
    same = [s for s in header if isinstance(s, ast.ImportFrom) and _same_module(s, new)]
    if not same or source._one_name_per_statement(header):
        return insert_import(text, statement)
    return source._joined(text, source.split_lines(text), same[0], new)


def _same_module(stmt: ast.ImportFrom, new: ast.ImportFrom) -> bool:
    return (stmt.module, stmt.level) == (new.module, new.level) and all(
        a.name != "*" for a in stmt.names
    )


def _in_no_isort_order(header: list[ImportNode], new: ImportNode) -> bool:
    """Whether the file's own rule falls back on its order of kinds and sections: neither the
    header nor the block ``new`` belongs in is sorted by isort's key or by module alone (and
    ``new`` joins no ``from`` import of the header)."""
    if isinstance(new, ast.ImportFrom) and source._joinable_import(header, new) is not None:
        return False
    block = source._own_block(header, new) or []
    return bool(header) and not any(
        source._sorted_by(imports, key)
        for imports in (header, block)
        if imports
        for key in (source._import_key, source._plain_import_key)
    )


@dataclass
class Tally:
    cases: int = 0
    own_order_alone: int = 0
    own_rule: int = 0
    project_order: int = 0
    informed: int = 0
    join_cases: int = 0
    joined_as_before: int = 0
    join_own_rule: int = 0
    packages: set[str] = field(default_factory=set)

    def add(self, other: Tally) -> None:
        self.cases += other.cases
        self.own_order_alone += other.own_order_alone
        self.own_rule += other.own_rule
        self.project_order += other.project_order
        self.informed += other.informed
        self.join_cases += other.join_cases
        self.joined_as_before += other.joined_as_before
        self.join_own_rule += other.join_own_rule
        if other.cases:  # the packages the placement figure counts
            self.packages |= other.packages

    def share(self, count: int, cases: int | None = None) -> str:
        cases = self.cases if cases is None else cases
        return f"{count}/{cases} ({100 * count / max(cases, 1):.1f}%)"

    def joins_line(self, half: str) -> str:
        return (
            f"{half}: {self.join_cases} from imports of a module imported from again; exact "
            f"file: joined as before {self.share(self.joined_as_before, self.join_cases)}, "
            f"file's own rule {self.share(self.join_own_rule, self.join_cases)}"
        )

    def line(self, half: str, project_order: bool = True) -> str:
        own = (
            f"{half}: {len(self.packages)} packages, {self.cases} imports; exact file: "
            f"file's own order alone {self.share(self.own_order_alone)}, "
            f"file's own rule {self.share(self.own_rule)}"
        )
        if not project_order:
            return own
        return (
            f"{own}, with the project's order {self.share(self.project_order)}; "
            f"the project ordered the import: {self.informed}"
        )


def half_of(package: str, seed: str) -> str:
    digest = hashlib.sha256(f"{seed}:{package}".encode()).digest()
    return "dev" if digest[0] % 2 == 0 else "report"


def packages(root: Path) -> Iterator[tuple[str, list[tuple[str, ast.Module]]]]:
    """Each top-level package under ``root`` with its files that parse, text and tree."""
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        if folder.name in LEFT_OUT or not (folder / "__init__.py").is_file():
            continue
        files = []
        for path in sorted(folder.rglob("*.py")):
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            tree = parse(text)
            if tree is not None:
                files.append((text, tree))
        yield folder.name, files


def unsorted_header(header: list[ast.Import | ast.ImportFrom], least: int = 3) -> bool:
    """Whether ``header`` holds ``least`` imports or more in neither isort order."""
    keys = (source._import_key, source._plain_import_key)  # the rule measured
    return len(header) >= least and not any(source._sorted_by(header, key) for key in keys)


def restorable(header: list[ast.Import | ast.ImportFrom], stmt: ast.stmt, lines: list[str]) -> bool:
    """A one-line import of one module that would not join another ``from`` import."""
    if stmt.lineno != stmt.end_lineno or not lines[stmt.lineno - 1].endswith("\n"):
        return False
    if isinstance(stmt, ast.Import):
        return len(stmt.names) == 1
    assert isinstance(stmt, ast.ImportFrom)
    same = [s for s in header if isinstance(s, ast.ImportFrom) and s.module == stmt.module]
    return (
        all(a.name != "*" for a in stmt.names)
        and len([s for s in same if s.level == stmt.level]) == 1
    )


def rejoinable(header: list[ast.Import | ast.ImportFrom], stmt: ast.stmt, lines: list[str]) -> bool:
    """A one-line ``from`` import of a module another ``from`` import of ``header`` imports
    from at the same level (not a ``*`` import): once deleted, it could join that one."""
    if not isinstance(stmt, ast.ImportFrom) or stmt.lineno != stmt.end_lineno:
        return False
    others = [s for s in header if isinstance(s, ast.ImportFrom) and s is not stmt]
    return lines[stmt.lineno - 1].endswith("\n") and any(_same_module(s, stmt) for s in others)


def measure_joins(files: list[tuple[str, ast.Module]], tally: Tally) -> None:
    """Each :func:`rejoinable` import of every header, deleted and put back."""
    for text, tree in files:
        header = leading_imports(tree)[0]
        lines = text.splitlines(keepends=True)
        for stmt in header:
            statement = lines[stmt.lineno - 1].strip()
            if not rejoinable(header, stmt, lines) or ast.unparse(stmt) != statement:
                continue
            without = "".join(lines[: stmt.lineno - 1] + lines[stmt.lineno :])
            tally.join_cases += 1
            tally.joined_as_before += insert_joined_as_before(without, statement) == text
            tally.join_own_rule += insert_import(without, statement) == text


def measure(files: list[tuple[str, ast.Module]], tally: Tally, project_order: bool = True) -> None:
    precedence = ImportPrecedence()
    headers = [leading_imports(tree)[0] for _text, tree in files]
    for header in headers:
        precedence.learn(header)
    for (text, _tree), header in zip(files, headers, strict=True):
        if not unsorted_header(header):
            continue
        precedence.learn(header, weight=-1)  # the file's own order is what is measured
        lines = text.splitlines(keepends=True)
        for stmt in header:
            if not restorable(header, stmt, lines):
                continue
            statement = lines[stmt.lineno - 1].strip()
            if ast.unparse(stmt) != statement:
                continue  # a comment or odd spacing on the line: not put back as written
            without = "".join(lines[: stmt.lineno - 1] + lines[stmt.lineno :])
            tally.cases += 1
            tally.own_order_alone += insert_by_own_order_alone(without, statement) == text
            tally.own_rule += insert_import(without, statement) == text
            if project_order:
                tally.project_order += (
                    insert_in_project_order(without, statement, precedence) == text
                )
                tally.informed += _informed(precedence, header, stmt)
        precedence.learn(header)


def _informed(
    precedence: ImportPrecedence, header: list[ast.Import | ast.ImportFrom], stmt: ast.stmt
) -> bool:
    assert isinstance(stmt, (ast.Import, ast.ImportFrom))
    wanted = import_identity(stmt)
    return any(precedence.lean(import_identity(s), wanted) for s in header if s is not stmt)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", default=SEED)
    parser.add_argument("--half", choices=["dev", "report", "both"], default="dev")
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["purelib"]))
    parser.add_argument("--verbose", action="store_true", help="a line per package")
    parser.add_argument(
        "--no-project-order", action="store_true", help="the file's own rules only (faster)"
    )
    args = parser.parse_args()
    tallies = {"dev": Tally(), "report": Tally()}
    ordered = not args.no_project_order
    for package, files in packages(args.root):
        half = half_of(package, args.seed)
        if args.half in (half, "both"):
            tally = Tally(packages={package})
            measure(files, tally, project_order=ordered)
            measure_joins(files, tally)
            if tally.cases or tally.join_cases:
                tallies[half].add(tally)
                if args.verbose:
                    print(tally.line(f"{half} {package}", ordered), flush=True)
                    print(tally.joins_line(f"{half} {package}"), flush=True)
    for half, tally in tallies.items():
        if args.half in (half, "both"):
            print(tally.line(half, ordered))
            print(tally.joins_line(half))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
