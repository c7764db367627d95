"""Where a lost import goes back in an unsorted header: the file's own rule, the project's order.

Every one-line import of every unsorted leading-import header (three imports or more, in
neither isort order) of the installed packages is deleted and put back by
:func:`phasegate.autodebug.source.insert_import`, once by the file's own rule alone and once
with the order the package's other modules keep (:class:`ImportPrecedence`, learnt from
every other file of the same top-level package). A restoration counts when it gives back the
file byte for byte. The packages are split by a fixed seed into a development half (tune on
it) and a report half (report it); the projects of the real-code benchmark and phasegate
itself are left out.

    python benchmarks/import_placement.py [--seed S] [--half dev|report|both] [--verbose]
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from phasegate.autodebug.import_order import ImportPrecedence
from phasegate.autodebug.source import insert_import, leading_imports, parse

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
    "phasegate",
    "tlz",
    "toolz",
}


@dataclass
class Tally:
    cases: int = 0
    own_rule: int = 0
    project_order: int = 0
    informed: int = 0
    packages: set[str] = field(default_factory=set)

    def add(self, other: Tally) -> None:
        self.cases += other.cases
        self.own_rule += other.own_rule
        self.project_order += other.project_order
        self.informed += other.informed
        self.packages |= other.packages

    def share(self, count: int) -> str:
        return f"{count}/{self.cases} ({100 * count / max(self.cases, 1):.1f}%)"

    def line(self, half: str) -> str:
        return (
            f"{half}: {len(self.packages)} packages, {self.cases} imports; exact file: "
            f"file's own rule {self.share(self.own_rule)}, with the project's order "
            f"{self.share(self.project_order)}; the project ordered the import: {self.informed}"
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


def unsorted_header(header: list[ast.Import | ast.ImportFrom]) -> bool:
    from phasegate.autodebug import source

    keys = (source._import_key, source._plain_import_key)  # the rule measured
    return len(header) >= 3 and not any(source._sorted_by(header, key) for key in keys)


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


def measure(files: list[tuple[str, ast.Module]], tally: Tally) -> None:
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
            tally.own_rule += insert_import(without, statement) == text
            tally.project_order += insert_import(without, statement, precedence) == text
            tally.informed += _informed(precedence, header, stmt)
        precedence.learn(header)


def _informed(
    precedence: ImportPrecedence, header: list[ast.Import | ast.ImportFrom], stmt: ast.stmt
) -> bool:
    from phasegate.autodebug.import_order import import_identity

    assert isinstance(stmt, (ast.Import, ast.ImportFrom))
    wanted = import_identity(stmt)
    return any(precedence.lean(import_identity(s), wanted) for s in header if s is not stmt)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", default=SEED)
    parser.add_argument("--half", choices=["dev", "report", "both"], default="dev")
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["purelib"]))
    parser.add_argument("--verbose", action="store_true", help="a line per package")
    args = parser.parse_args()
    tallies = {"dev": Tally(), "report": Tally()}
    for package, files in packages(args.root):
        half = half_of(package, args.seed)
        if args.half in (half, "both"):
            tally = Tally(packages={package})
            measure(files, tally)
            if tally.cases:
                tallies[half].add(tally)
                if args.verbose:
                    print(tally.line(f"{half} {package}"), flush=True)
    for half, tally in tallies.items():
        if args.half in (half, "both"):
            print(tally.line(half))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
