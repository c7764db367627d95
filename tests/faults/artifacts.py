"""A minimal valid document of every artifact kind, built from its JSON Schema, and its faults."""

from __future__ import annotations

import json
from typing import Any

from phasegate.model import ARTIFACTS

__all__ = ["FAULTS", "faulty", "minimal_document"]

#: How an artifact file is spoiled: cut in half, garbled, valid JSON of the wrong schema, or
#: written by a newer major version.
FAULTS = ("truncated", "garbled", "wrong schema", "newer major")


def minimal_document(kind: str) -> dict[str, Any]:
    """A document of ``kind`` with only its required keys, each at its least value."""
    schema = ARTIFACTS[kind].model_json_schema(mode="serialization")
    document: dict[str, Any] = {**_least(schema, schema), "schema_version": "1.0", "kind": kind}
    ARTIFACTS[kind].model_validate(document)  # a test of this helper, each time it is used
    return document


def faulty(kind: str, fault: str) -> bytes:
    """The bytes of a ``kind`` file spoiled by ``fault``."""
    document = minimal_document(kind)
    text = json.dumps(document, indent=2)
    if fault == "truncated":
        return text[: len(text) // 2].encode()
    if fault == "garbled":
        return b"\x00\xff{" + text.encode()[::-1] + b"\xfe"
    if fault == "wrong schema":
        return json.dumps({**document, "kind": f"not-{kind}"}).encode()
    if fault == "newer major":
        return json.dumps({**document, "schema_version": "2.0"}).encode()
    raise ValueError(fault)


def _least(schema: dict[str, Any], node: dict[str, Any]) -> Any:
    if "$ref" in node:
        return _least(schema, schema["$defs"][node["$ref"].rsplit("/", 1)[1]])
    if "const" in node:
        return node["const"]
    if "enum" in node:
        return node["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in node:
            options = [o for o in node[key] if o.get("type") != "null"] or node[key]
            return _least(schema, options[0])
    kind = node.get("type")
    if kind == "object":
        properties = node.get("properties", {})
        return {name: _least(schema, properties[name]) for name in node.get("required", [])}
    if kind == "array":
        return [_least(schema, node.get("items", {})) for _ in range(node.get("minItems", 0))]
    if kind == "string":
        if node.get("format") == "date-time":
            return "2026-01-01T00:00:00Z"
        return "x" * max(1, node.get("minLength", 1))
    if kind in ("integer", "number"):
        if "exclusiveMinimum" in node:
            return node["exclusiveMinimum"] + (1 if kind == "integer" else 0.5)
        return node.get("minimum", 0)
    if kind == "boolean":
        return False
    return None
