"""The house stays easy to change: the figures the codebase was brought to, kept there.

Each test measures `src/phasegate` the way the figure was first measured, so that a change
which pushes it back over the line fails here with the places to look at: radon's cyclomatic
complexity (``radon cc src/phasegate``) ranks no block E or F (31 and more); and fewer than 20
``dict[str, Any]`` are left in the source, counted as text (a TypedDict where the keys are
known; ``Mapping[str, object]``, narrowed where it is read, where they are not).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from radon.complexity import cc_rank, cc_visit

SOURCE = Path(__file__).resolve().parent.parent / "src" / "phasegate"


def _sources() -> list[Path]:
    return sorted(SOURCE.rglob("*.py"))


def _blocks() -> list[tuple[str, str, int]]:
    """Every block radon's ``cc`` command lists: (file, name, complexity)."""
    found = []
    for path in _sources():
        relative = path.relative_to(SOURCE.parent).as_posix()
        for block in cc_visit(path.read_text(encoding="utf-8")):
            found.append((relative, block.name, block.complexity))
    return found


def test_no_block_is_too_complex_to_read() -> None:
    too_complex = [
        f"{path}::{name} ({complexity}, rank {cc_rank(complexity)})"
        for path, name, complexity in _blocks()
        if cc_rank(complexity) in ("E", "F")
    ]
    assert not too_complex, "blocks ranked E or F by radon; split them: " + ", ".join(too_complex)


#: How many ``dict[str, Any]`` the source may hold at most: issue 16's bound (it brought 148
#: down to 3, each a type form or free-form data, with a comment that says so).
MOST_UNTYPED_DICTS = 19


def test_few_dicts_are_left_untyped() -> None:
    spelled = "dict[str, Any]"
    found = Counter(
        {
            path.relative_to(SOURCE.parent).as_posix(): count
            for path in _sources()
            if (count := path.read_text(encoding="utf-8").count(spelled))
        }
    )
    where = ", ".join(f"{path} ({count})" for path, count in found.most_common())
    assert found.total() <= MOST_UNTYPED_DICTS, (
        f"{found.total()} {spelled} in src/, at most {MOST_UNTYPED_DICTS}: type the data "
        f"(a TypedDict of the keys read, or Mapping[str, object] narrowed where read) in {where}"
    )
