"""The official ACP v2 schema vendored in tests/fixtures/acp-sdk-schema/: its definitions, methods and
update kinds, a validator per definition, and the smallest instance of a definition that the schema
accepts (only the required fields)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "fixtures" / "acp-sdk-schema" / "v2-schema.json"


@cache
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA_FILE.read_text())
    return loaded


def definition(name: str) -> dict[str, Any]:
    found: dict[str, Any] = schema()["$defs"][name]
    return found


def methods(side: str, suffix: str) -> dict[str, str]:
    """Method -> definition name, for the definitions of `side` ("agent": what a client calls; "client":
    what an agent calls) whose name ends with `suffix` ("Request", "Response", "Notification")."""
    return {
        d["x-method"]: name
        for name, d in schema()["$defs"].items()
        if d.get("x-side") == side and "x-method" in d and name.endswith(suffix)
    }


def update_kinds() -> dict[str, str]:
    """`sessionUpdate` kind -> the definition of its fields."""
    kinds = {}
    for variant in definition("SessionUpdate")["anyOf"]:
        tag = variant.get("properties", {}).get("sessionUpdate", {}).get("const")
        if tag is not None:
            kinds[tag] = variant["allOf"][0]["$ref"].rsplit("/", 1)[1]
    return kinds


def errors(name: str, instance: Any) -> list[str]:
    """Why `instance` is not a valid `name` (empty when it is)."""
    validator = Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": schema()["$defs"]})
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
        for e in validator.iter_errors(instance)
    ]


def minimal(node: dict[str, Any]) -> Any:
    """The smallest value a schema node accepts: required fields only, the first choice of a union."""
    if "$ref" in node:
        return minimal(definition(node["$ref"].rsplit("/", 1)[1]))
    if "const" in node:
        return node["const"]
    merged: dict[str, Any] = {}
    for part in node.get("allOf", ()):
        value = minimal(part)
        if not isinstance(value, dict):
            return value
        merged |= value
    choices = [c for c in node.get("anyOf", node.get("oneOf", ())) if c.get("type") != "null"]
    if choices:
        value = minimal(choices[0])
        return merged | value if isinstance(value, dict) else value
    return _minimal_of_type(node, merged)


def _minimal_of_type(node: dict[str, Any], merged: dict[str, Any]) -> Any:
    """The smallest value of the node's own type, added to what its `allOf` parts made (`merged`)."""
    kind = node.get("type")
    kind = next(k for k in kind if k != "null") if isinstance(kind, list) else kind
    if kind == "object" or "properties" in node:
        props = node.get("properties", {})
        return merged | {key: minimal(props.get(key, {"type": "string"})) for key in node.get("required", ())}
    if "enum" in node:
        return node["enum"][0]
    if kind == "array":
        return [minimal(node.get("items", {"type": "string"})) for _ in range(node.get("minItems", 0))]
    if kind == "string":
        return "aGk=" if node.get("contentEncoding") == "base64" else "x"
    if kind in ("integer", "number"):
        return max(1, node.get("minimum", 1))
    if kind == "boolean":
        return True
    return merged
