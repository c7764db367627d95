"""How the plugin's terminal sections name a file it wrote: relative to where pytest was run.

A file below the directory pytest was invoked from is named relative to it, as pytest names
test files; any other file (the artifacts folder when pytest runs in a subdirectory of the
project) by its absolute path, which can be copied from the terminal as it stands.
"""

from __future__ import annotations

from pathlib import Path

import pytest

__all__ = ["display_path"]


def display_path(path: Path, config: pytest.Config) -> str:
    """``path`` as the terminal shows it: relative to the invocation directory when inside it."""
    try:
        return str(path.relative_to(config.invocation_params.dir))
    except ValueError:
        return str(path)
