"""What every artifact has in common: a kind, a schema version, and lenient reading.

Readers ignore keys they do not know (a file from a newer minor version still loads); writers
never drop the keys this version knows. A file whose major version is newer than
:data:`SCHEMA_VERSION` is refused by the store, never guessed at.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from phasegate.versioning import SCHEMA_VERSION, schema_major

__all__ = ["SCHEMA_VERSION", "ArtifactModel", "Model", "schema_major"]


class Model(BaseModel):
    """Base of every part of an artifact: unknown keys are ignored when reading."""

    model_config = ConfigDict(extra="ignore", frozen=False, populate_by_name=True)


class ArtifactModel(Model):
    """Base of every top-level artifact file; ``KIND`` names it in the exported schemas."""

    KIND: ClassVar[str] = "artifact"

    schema_version: str = SCHEMA_VERSION
