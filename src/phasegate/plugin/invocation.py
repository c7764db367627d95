"""What the command line that started pytest gave, as opposed to the project's settings.

``addopts`` in the project's settings (which a change edits) is added to the arguments
before pytest parses them, so ``config.getoption`` cannot tell an option the CI job gave
from one the change gave itself. An option that decides how the run is judged (``--shard``,
``--reviews-sha256``) is taken from ``config.invocation_params.args`` only: the arguments
pytest was called with, kept before any setting was read (review s17d, 2 and 13).
"""

from __future__ import annotations

import argparse

import pytest

__all__ = ["from_command_line"]


def from_command_line(config: pytest.Config, flag: str) -> str | None:
    """The last value the command line gave ``flag`` (``--flag=V`` or ``--flag V``); else None.

    Read by argparse, as pytest reads it (no abbreviation: pytest accepts none either); pytest
    has already refused these arguments if they were not well formed.
    """
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument(flag, dest="value")
    known, _others = parser.parse_known_args(list(config.invocation_params.args))
    value: str | None = known.value
    return value
