"""The distributions installed for this interpreter, as files a cache key can hash.

Some checks depend on the environment as much as on the source: mypy on the installed stubs
and libraries, the deps check on what is installed. Every installed distribution has a
metadata file whose path carries its name and version, so hashing those files notices any
install, upgrade or removal.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["metadata_files"]


def metadata_files() -> list[Path]:
    """The metadata file of every distribution on ``sys.path``, sorted."""
    found: set[Path] = set()
    for entry in sys.path:
        folder = Path(entry) if entry else Path.cwd()
        if not folder.is_dir():
            continue
        found.update(folder.glob("*.dist-info/METADATA"))
        found.update(folder.glob("*.egg-info/PKG-INFO"))
    return sorted(found)
