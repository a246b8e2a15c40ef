"""How one configured agent is reached: a process of its command, with its environment as it is now
(sign-in values included), or a connection when it runs on another machine; and what `initialize`
offers it in each protocol version.
"""

from __future__ import annotations

from collections.abc import Mapping

from webclient.acp.capabilities import initialize_params, initialize_params_v2
from webclient.acp.endpoint import AgentEndpoint
from webclient.acp.negotiate import Offer
from webclient.acp.process import AgentProcess
from webclient.acp.remote import RemoteAgent
from webclient.agent_config import AgentSpec, agent_environment
from webclient.settings import Settings


def new_endpoint(settings: Settings, spec: AgentSpec, sign_in_env: Mapping[str, str]) -> AgentEndpoint:
    """A process for this agent, or a connection to it when it runs elsewhere. No variable of it gets
    the server's token."""
    if spec.url is not None:
        return RemoteAgent(spec.url, spec.headers)
    env = agent_environment(spec, (settings.extra_env, spec.env, sign_in_env), secrets=(settings.token,))
    return AgentProcess(spec.argv, settings.cwd, settings.stderr_tail_lines, env=env)


def initialize_offer(settings: Settings, spec: AgentSpec) -> Offer:
    """What `initialize` offers the agent, in version 1 and in version 2 (which the settings choose)."""
    suggestions = settings.prompt_suggestions
    return Offer(
        choice=settings.protocol,
        v1_params=initialize_params(
            prompt_suggestions=suggestions,
            jetbrains_air=settings.jetbrains_air,
            local_tools=spec.local_tools,
        ),
        v2_params=initialize_params_v2(prompt_suggestions=suggestions, jetbrains_air=settings.jetbrains_air),
        timeout=settings.initialize_timeout,
        state_dir=settings.state_dir,
        key=spec.command_line,
    )
