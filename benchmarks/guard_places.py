"""Where ``if p is None:`` guards of a parameter stand, in code the real-code benchmark never draws.

A lost None guard of a parameter can go back at two places (``_guard_places`` in
``phasegate.autodebug.patterns.lost_guards``): at the top of the function, or right before the
statement that first reads the parameter, inside the blocks that statement is in. Which is
tried first decides, where both pass the tests, whether the repair gives back the original.
This counts, over every function of the installed packages, where each guard of a parameter
stands once it is taken out: where the two places meet, right before the first use only, at
the top only, or neither. The real-code benchmark's projects (and phasegate) are left out:
their guards are the faults of the none class, so counting them would learn from the sample
a headline is drawn from.

    python benchmarks/guard_places.py [--root DIR] [--verbose] [--self-attributes]

With ``--self-attributes``, the guards of an attribute of ``self`` (``if self.x is None:``) are
counted instead, against the same two places.
"""

from __future__ import annotations

import argparse
import ast
import copy
import sys
import sysconfig
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from import_placement import LEFT_OUT, packages

from phasegate.autodebug.patterns.functions import first_statement, parameters
from phasegate.autodebug.patterns.lost_guards import _first_use
from phasegate.autodebug.patterns.none_guards import blocks_held

#: Added to the benchmark after ``LEFT_OUT`` was written; their guards are faults too.
NEVER_COUNTED = LEFT_OUT | {"jinja2", "mistune", "pycparser", "webob"}
PLACES = ("both meet", "before the first use", "at the top", "neither")

Function = ast.FunctionDef | ast.AsyncFunctionDef


def _guarded_parameter(statement: ast.stmt, names: set[str]) -> str | None:
    """``p`` where ``statement`` is ``if p is None: ...`` and ``p`` a parameter."""
    left = _tested_against_none(statement)
    return left.id if isinstance(left, ast.Name) and left.id in names else None


def _guarded_self_attribute(statement: ast.stmt, names: set[str]) -> str | None:
    """``self.x`` where ``statement`` is ``if self.x is None: ...`` in a method."""
    left = _tested_against_none(statement)
    if isinstance(left, ast.Attribute) and ast.unparse(left.value) == "self" and "self" in names:
        return ast.unparse(left)
    return None


def _tested_against_none(statement: ast.stmt) -> ast.expr | None:
    """``x`` where ``statement`` is ``if x is None: ...``."""
    test = statement.test if isinstance(statement, ast.If) else None
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        return test.left
    return None


def _blocks(function: Function) -> list[list[ast.stmt]]:
    """Every block of statements of the function, its nested functions' and classes' left out."""
    found: list[list[ast.stmt]] = []
    pending = [function.body]
    while pending:
        block = pending.pop()
        found.append(block)
        for statement in block:
            if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                pending += blocks_held(statement)
    return found


def place_of(function: Function, block_index: int, index: int, subject: str) -> str:
    """Where the guard at ``index`` of the function's ``block_index``-th block stands, once
    taken out: the line of the statement that followed it, against the two places."""
    without = copy.deepcopy(function)
    block = _blocks(without)[block_index]
    if index + 1 >= len(block):
        return "neither"  # the last of its block: no statement it stood right before
    following = block[index + 1].lineno
    del block[index]
    if not without.body:
        return "neither"
    top = first_statement(without).lineno
    use = _first_use(without, subject)
    at_use = use is not None and use.lineno == following
    at_top = top == following
    if at_use and at_top:
        return "both meet"
    if at_use:
        return "before the first use"
    return "at the top" if at_top else "neither"


def count(tree: ast.Module, *, attributes: bool = False) -> Counter[str]:
    """Where each guard of a parameter of the module's functions stands (of an attribute of
    ``self``, with ``attributes``)."""
    guarded = _guarded_self_attribute if attributes else _guarded_parameter
    counts: Counter[str] = Counter()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        names = parameters(node)
        for block_index, block in enumerate(_blocks(node)):
            for index, statement in enumerate(block):
                subject = guarded(statement, names)
                if subject is not None:
                    counts[place_of(node, block_index, index, subject)] += 1
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["purelib"]))
    parser.add_argument("--verbose", action="store_true", help="a line per package")
    parser.add_argument(
        "--self-attributes", action="store_true", help="count `if self.x is None:` guards instead"
    )
    args = parser.parse_args()
    total: Counter[str] = Counter()
    counted = 0
    for package, files in packages(args.root):
        if package in NEVER_COUNTED:
            continue
        counts: Counter[str] = Counter()
        for _text, tree in files:
            counts += count(tree, attributes=args.self_attributes)
        if counts:
            counted += 1
            total += counts
            if args.verbose:
                print(f"{package}: " + ", ".join(f"{p} {counts[p]}" for p in PLACES))
    guards = sum(total.values())
    what = (
        "`if self.x is None:` guards"
        if args.self_attributes
        else "`if p is None:` guards of a parameter"
    )
    print(f"{guards} {what} in {counted} packages under {args.root}")
    for place in PLACES:
        print(f"  {place:<22} {total[place]:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
