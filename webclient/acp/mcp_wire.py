"""The MCP servers we ask an agent to connect to, in the shape `session/new`, `load` and `resume` take."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from webclient.agent_config import McpServer


def mcp_wire(servers: Sequence[McpServer], *, typed: bool = False) -> list[dict[str, Any]]:
    """MCP servers as `McpServerStdio` objects, or `McpServerHttp` for those with a URL; `typed` (v2):
    every entry carries its `type`, `stdio` included (v1 leaves it out for stdio)."""
    entries = [_mcp_server_wire(server) for server in servers]
    return [{"type": "stdio", **entry} if typed and "type" not in entry else entry for entry in entries]


def _mcp_server_wire(server: McpServer) -> dict[str, Any]:
    if server.url is not None:
        headers = [{"name": k, "value": v} for k, v in server.headers.items()]
        return {"type": "http", "name": server.name, "url": server.url, "headers": headers}
    return {
        "name": server.name,
        "command": server.command,
        "args": list(server.args),
        "env": [{"name": k, "value": v} for k, v in server.env.items()],
    }
