"""Cyclomatic complexity of the source, measured with radon, to hold refactors to "not worse".

Every function and method of the source files counts as one block (radon's ``cc_visit``;
classes are not counted again, their methods are). The figures are the highest block, the
mean over blocks and the total. radon comes with the ``gate`` extra; without it
:func:`require_radon` raises the error that says how to install it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType

from phasegate.model.tdd import ComplexityFigures
from phasegate.optional import require

__all__ = ["ComplexityMeter", "require_radon"]


def require_radon() -> ModuleType:
    """radon's complexity module, or :class:`~phasegate.errors.MissingDependencyError`."""
    return require(
        "radon.complexity",
        what="the TDD refactor rule (complexity must not rise)",
        package="radon",
        extra="gate",
    )


@dataclass
class ComplexityMeter:
    """Measures sets of files, measuring each distinct content once."""

    _blocks: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)

    def measure(
        self, files: Mapping[str, str], read: Callable[[str, str], bytes]
    ) -> ComplexityFigures:
        """The figures over ``{path: hash}``; ``read(path, hash)`` returns a file's bytes."""
        radon = require_radon()
        blocks: list[tuple[str, int]] = []
        for path, sha in sorted(files.items()):
            if sha not in self._blocks:
                self._blocks[sha] = self._functions(radon, path, sha, read)
            blocks.extend((f"{path}:{name}", value) for name, value in self._blocks[sha])
        if not blocks:
            return ComplexityFigures()
        worst_name, worst = max(blocks, key=lambda block: block[1])
        total = sum(value for _name, value in blocks)
        return ComplexityFigures(
            max=worst,
            mean=round(total / len(blocks), 3),
            total=total,
            blocks=len(blocks),
            worst=worst_name,
        )

    def _functions(
        self, radon: ModuleType, path: str, sha: str, read: Callable[[str, str], bytes]
    ) -> list[tuple[str, int]]:
        """Each function's name and complexity; none for a file that does not parse (noted
        in :attr:`unreadable`)."""
        try:
            visited = radon.cc_visit(read(path, sha).decode("utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            self.unreadable.append(path)
            return []
        return [
            (getattr(block, "fullname", block.name), int(block.complexity))
            for block in visited
            if type(block).__name__ == "Function"
        ]
