"""How often a swap of two adjacent letters is caught: CPython's "did you mean" against OSA.

For every identifier of the fault corpus's base projects (3 letters or more) and every swap
of two adjacent, different letters in it, a function binds the identifier and reads the
misspelling. CPython's suggestion is taken from its own error display; auto-debug's is the
nearest name by :func:`phasegate.autodebug.distance.closest` among the same names (the
local and the builtins). Prints how many of the swaps each one corrects.

    python benchmarks/distance.py
"""

from __future__ import annotations

import builtins
import io
import keyword
import re
import sys
from pathlib import Path

from phasegate.autodebug.distance import closest

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "faults" / "_base"
_SUGGESTION = re.compile(r"Did you mean: '([^']+)'\?")


def identifiers() -> list[str]:
    names: set[str] = set()
    for path in CORPUS.rglob("*.py"):
        names.update(re.findall(r"\b[a-z_][a-z0-9_]{2,}\b", path.read_text()))
    return sorted(n for n in names if not keyword.iskeyword(n) and n not in dir(builtins))


def swaps(name: str) -> list[str]:
    found = []
    for i in range(len(name) - 1):
        if name[i] != name[i + 1]:
            found.append(name[:i] + name[i + 1] + name[i] + name[i + 2 :])
    return [s for s in found if s != name and not keyword.iskeyword(s)]


def cpython_suggests(name: str, typo: str) -> str | None:
    namespace: dict[str, object] = {}
    exec(f"def probe():\n    {name} = 1\n    return {typo}\n", namespace)  # noqa: S102 - generated
    try:
        namespace["probe"]()  # type: ignore[operator]
    except NameError as exc:
        buffer, saved = io.StringIO(), sys.stderr
        sys.stderr = buffer
        try:
            sys.__excepthook__(type(exc), exc, exc.__traceback__)
        finally:
            sys.stderr = saved
        found = _SUGGESTION.search(buffer.getvalue())
        return found.group(1) if found else None
    return None


def main() -> int:
    scope_extra = [n for n in dir(builtins) if not n.startswith("_")]
    total = cpython = ours = 0
    by_length: dict[int, list[int]] = {}
    for name in identifiers():
        for typo in swaps(name):
            if typo in scope_extra:
                continue
            total += 1
            caught = cpython_suggests(name, typo) == name
            best = closest(typo, [name, *scope_extra])
            found = bool(best) and best[0].name == name
            cpython += caught
            ours += found
            row = by_length.setdefault(min(len(name), 9), [0, 0, 0])
            row[0] += 1
            row[1] += caught
            row[2] += found
    print(f"{total} adjacent-letter swaps of {len(identifiers())} identifiers")
    version = sys.version.split()[0]
    print(f"CPython {version} 'did you mean': {cpython} ({100 * cpython / total:.1f}%)")
    print(f"auto-debug (OSA distance):  {ours} ({100 * ours / total:.1f}%)")
    print("by length of the name: swaps, CPython, auto-debug")
    for length, (count, caught, found) in sorted(by_length.items()):
        label = f"{length}+" if length == 9 else str(length)
        print(f"  {label:>3} letters: {count:>5} {caught:>5} {found:>5}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
