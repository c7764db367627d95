"""Whether ``[tool.bandit]``'s ``exclude_dirs`` accounts for a file bandit did not scan.

bandit leaves a file out when one of its excluded paths is a glob the file's path matches or
a part of that path (``pattern in path``), on the path as it was given: the whole of it, the
project's own folder included. With its default excluded names (``.git``, ``CVS``, ``.tox``,
``.eggs``, ...) that drops every file of a project whose folder is named ``proj.git`` (its
``.git`` a file, as in a git worktree, so that the name stays bare) or ``CVS-export``, and
``exclude_dirs = ["tests"]`` drops every file under ``/home/latests/``. The security check
cannot tell those from the files the settings meant to leave out by bandit's report alone:
that a setting excludes *something* accounts for no file in particular.

So a file bandit did not scan counts as left out by the settings only when one of
``exclude_dirs`` matches its path in the project, or matches its whole path where it does not
match the project's folder; any other is unaccounted for, and the check cannot pass on it.
Hand-written: bandit's own test of a path is private (``bandit.core.manager``) and reads the
whole path, which is the trouble here.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from phasegate.failures import relative_path

__all__ = ["excluded_dirs", "left_out_by_settings"]


def excluded_dirs(settings: Mapping[str, object]) -> list[str]:
    """The patterns of ``[tool.bandit]``'s ``exclude_dirs`` (none unless it is a list)."""
    value = settings.get("exclude_dirs")
    patterns = value if isinstance(value, list) else []
    return [str(pattern) for pattern in patterns]


def left_out_by_settings(root: Path, path: Path, patterns: Sequence[str]) -> bool:
    """Whether one of ``patterns`` leaves ``path`` out for what lies below ``root``."""
    name, folder = relative_path(path, root), f"{root}{os.sep}"
    return any(_matches(p, name) or _matches_below(p, str(path), folder) for p in patterns)


def _matches(pattern: str, path: str) -> bool:
    """bandit's test of an excluded path: a glob ``path`` matches, or a part of ``path``."""
    return fnmatch.fnmatch(path, pattern) or pattern in path


def _matches_below(pattern: str, path: str, folder: str) -> bool:
    """Whether ``pattern`` matches ``path`` but not ``folder``, the project's, above it."""
    return _matches(pattern, path) and not _matches(pattern, folder)
