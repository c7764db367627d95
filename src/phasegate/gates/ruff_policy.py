"""The rules a project tells ruff to ignore, for checks whose tool has ruff's twin rules.

ruff's ``S`` rules are flake8-bandit's, numbered as bandit numbers its tests (``S307`` is
bandit's ``B307``, ``eval``). A project that ignores ``S307`` in its ruff settings has stated a
policy on ``eval``; the security check, which runs bandit, honours it instead of failing the
project on what its own configuration accepts (see :mod:`phasegate.gates.checks.security`).

Only exact codes are taken, never a family (``S``, ``S3``): a family would switch a whole
check off, which ``[tool.bandit] skips`` does openly. Read from ``.ruff.toml``, ``ruff.toml``
or ``[tool.ruff]`` in ``pyproject.toml``, the first that exists, as ruff itself looks them up:
``ignore`` and ``extend-ignore``, and ``per-file-ignores`` and ``extend-per-file-ignores``,
under ``lint`` or (older settings) at the top. ruff's settings are read here, not by running
ruff: ruff prints no resolved configuration in a stable format.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from phasegate import tomlfile

__all__ = ["RuffPolicy", "read_ruff_policy"]

_CODE = re.compile(r"^[A-Z]+[0-9]+$")


@dataclass(frozen=True)
class RuffPolicy:
    """The exact rule codes ruff is told to ignore: everywhere, and per file pattern."""

    source: str | None = None
    everywhere: frozenset[str] = frozenset()
    per_file: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def ignores(self, code: str, path: str) -> bool:
        """Whether ``code`` is ignored at ``path`` (relative to the project root, ``/``)."""
        if code in self.everywhere:
            return True
        return any(
            code in codes and _matches(path, pattern) for pattern, codes in self.per_file.items()
        )


def read_ruff_policy(root: Path, pyproject: Mapping[str, object]) -> RuffPolicy:
    """The project's ruff ignores; an empty policy when it configures none."""
    for name in (".ruff.toml", "ruff.toml"):  # ruff's own order: .ruff.toml wins
        path = root / name
        if path.is_file():
            try:
                data = tomlfile.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomlfile.TOMLDecodeError):
                return RuffPolicy()  # the lint check reports a configuration ruff cannot read
            return _policy(data, name)
    ruff = tomlfile.table_in(pyproject, "tool", "ruff")
    if not ruff:
        return RuffPolicy()
    return _policy(ruff, "[tool.ruff] in pyproject.toml")


def _policy(settings: Mapping[str, object], source: str) -> RuffPolicy:
    everywhere: set[str] = set()
    per_file: dict[str, set[str]] = {}
    for table in (settings, tomlfile.table_in(settings, "lint")):
        for key in ("ignore", "extend-ignore"):
            everywhere.update(_codes(table.get(key)))
        for pattern, codes in _per_file_ignores(table):
            per_file.setdefault(pattern, set()).update(codes)
    return RuffPolicy(
        source=source,
        everywhere=frozenset(everywhere),
        per_file={pattern: frozenset(codes) for pattern, codes in per_file.items() if codes},
    )


def _per_file_ignores(table: Mapping[str, object]) -> Iterator[tuple[str, Iterable[str]]]:
    """Each file pattern of a table's ``per-file-ignores`` and ``extend-per-file-ignores``,
    with the codes it ignores."""
    for key in ("per-file-ignores", "extend-per-file-ignores"):
        patterns = table.get(key)
        if isinstance(patterns, Mapping):
            for pattern, codes in patterns.items():
                yield str(pattern), _codes(codes)


def _codes(value: object) -> Iterable[str]:
    if not isinstance(value, list):
        return ()
    return (str(code) for code in value if _CODE.match(str(code)))


def _matches(path: str, pattern: str) -> bool:
    """ruff's file patterns, near enough: a glob on the path, or on the name, or a folder."""
    pattern = pattern.removeprefix("./")
    if fnmatch.fnmatchcase(path, pattern):
        return True
    if "/" not in pattern and fnmatch.fnmatchcase(path.rsplit("/", 1)[-1], pattern):
        return True
    return path.startswith(pattern.rstrip("/") + "/")
