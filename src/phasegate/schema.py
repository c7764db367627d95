"""Export the JSON Schemas of every artifact (``phasegate schema --out DIR``).

The schemas describe the files as written (pydantic's serialization mode). The committed
copies in ``docs/schema/`` are checked against this export by the test suite.
"""

from __future__ import annotations

import json
from pathlib import Path

from phasegate.model import ARTIFACTS, SCHEMA_VERSION

__all__ = ["JSON_SCHEMA_DIALECT", "export_schemas", "schema_documents"]

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema_documents() -> dict[str, str]:
    """``{file name: JSON text}`` for every artifact, stable byte for byte."""
    documents: dict[str, str] = {}
    for kind, model in sorted(ARTIFACTS.items()):
        schema: dict[str, object] = {  # written as JSON, never read here
            "$schema": JSON_SCHEMA_DIALECT,
            "$comment": f"phasegate artifact schema version {SCHEMA_VERSION}",
            **model.model_json_schema(mode="serialization"),
        }
        documents[f"{kind}.schema.json"] = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    return documents


def export_schemas(out_dir: Path) -> list[Path]:
    """Write every schema into ``out_dir`` (created if needed); return the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in schema_documents().items():
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
