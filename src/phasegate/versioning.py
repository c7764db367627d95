"""The artifact schema version, apart from the models so that light modules can read it."""

from __future__ import annotations

from pathlib import Path

from phasegate.errors import SchemaVersionError

__all__ = ["SCHEMA_VERSION", "check_version", "schema_major"]

#: The version of every artifact schema this phasegate writes (``major.minor``).
SCHEMA_VERSION = "1.0"


def schema_major(version: str) -> int:
    """The major number of a ``major.minor`` schema version; ``ValueError`` if malformed."""
    head, _, _ = version.partition(".")
    if not head.isdigit():
        raise ValueError(f"schema_version {version!r} is not of the form MAJOR.MINOR")
    return int(head)


def check_version(where: Path | str, data: object) -> None:
    """Refuse data written with a newer major schema version (:class:`SchemaVersionError`).

    Data without a readable version is left to the model's validation to judge.
    """
    if not isinstance(data, dict) or "schema_version" not in data:
        return  # the model validation that follows reports what is missing
    version = data["schema_version"]
    try:
        major = schema_major(str(version))
    except ValueError:
        return
    if major > schema_major(SCHEMA_VERSION):
        raise SchemaVersionError(
            f"{where} was written with schema version {version}, newer than the "
            f"{SCHEMA_VERSION} this phasegate understands; upgrade pytest-phasegate, or move "
            "the file away (it was left as it is)"
        )
