"""Agents on other machines: ACP's HTTP transport (WebSocket and Streamable HTTP) as an `AgentEndpoint`."""

from webclient.acp.remote.endpoint import RemoteAgent
from webclient.acp.remote.refusals import shown_url

__all__ = ["RemoteAgent", "shown_url"]
