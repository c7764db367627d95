"""Find the data phasegate ships: the built-in gates, the demo project and the TDD kata.

In a wheel they sit inside the package (``phasegate/_bundled/``); in a source checkout (an
editable install, or running from the repository) they are the top-level ``gates/`` and
``fixtures/demo/`` and ``fixtures/kata/`` folders. Both layouts are looked at, in that order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from phasegate.errors import PhasegateError

__all__ = ["bundled_path"]

_PACKAGE = Path(__file__).resolve().parent
_SOURCE_LAYOUT = {"gates": ("gates",), "demo": ("fixtures", "demo"), "kata": ("fixtures", "kata")}


def bundled_path(name: Literal["gates", "demo", "kata"]) -> Path:
    """The folder of the named bundled data."""
    packaged = _PACKAGE / "_bundled" / name
    if packaged.is_dir():
        return packaged
    source = _PACKAGE.parents[1].joinpath(*_SOURCE_LAYOUT[name])
    if source.is_dir():
        return source
    raise PhasegateError(
        f"phasegate's bundled {name!r} folder is missing (looked in {packaged} and "
        f"{source}); reinstall pytest-phasegate"
    )
