"""The artifact schema version, apart from the models so that light modules can read it."""

from __future__ import annotations

__all__ = ["SCHEMA_VERSION", "schema_major"]

#: The version of every artifact schema this phasegate writes (``major.minor``).
SCHEMA_VERSION = "1.0"


def schema_major(version: str) -> int:
    """The major number of a ``major.minor`` schema version; ``ValueError`` if malformed."""
    head, _, _ = version.partition(".")
    if not head.isdigit():
        raise ValueError(f"schema_version {version!r} is not of the form MAJOR.MINOR")
    return int(head)
