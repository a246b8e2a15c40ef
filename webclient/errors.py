"""The project's exceptions: one tree, each branch caught in one place.

```text
WebclientError                  raised on purpose; never a bug
├── SettingsError               the command line, the environment or a file asks for the impossible
│   ├── ConfigError             the settings file (settings_file)
│   ├── PresetError             a presets file (views.presets)
│   └── StudyFileError          a study file (views.study_config)
├── AgentError                  the agent could not serve
│   ├── AgentStartError
│   │   ├── RemoteUnreachable
│   │   └── RemoteRefused
│   ├── AgentTimeoutError
│   ├── AgentExitedError
│   │   └── RemoteLost
│   ├── AgentRequestError
│   └── VersionMismatch         (acp.v2.connection)
├── Refused                     what the user asked for cannot be done; the text says why
│   ├── AttachmentRejected      a file or image for the composer (domain.picker)
│   ├── PromptRejected          a composed prompt (domain.prompt)
│   └── StudyRefusal            what a study page asked (domain.study)
└── RequestRefused              a request of the agent's we refuse: a JSON-RPC error
    └── TerminalError           (domain.terminals)
```

Where each is caught: `SettingsError` where the server starts (a line on stderr, exit code 2);
`AgentError` by the supervisor and the session, which say it on the page; `Refused` by the door it came
in at (a tab's action in `web/tab.py`, a study's request in `web/study.py`, the playground's form), which
shows its text to whoever asked, so nothing below re-wraps a rejection; `RequestRefused` by the
connection, which answers the agent with it. `tests/unit/test_errors.py` holds this drawing to the code.
"""

from __future__ import annotations


class WebclientError(Exception):
    """Base class for every error this package raises on purpose."""


class SettingsError(WebclientError):
    """The command line or environment asked for something unsafe or impossible."""


class AgentError(WebclientError):
    """The agent could not be started or stopped answering."""


class AgentStartError(AgentError):
    """The agent command could not be spawned at all (missing binary, bad cwd)."""


class RemoteUnreachable(AgentStartError):
    """A remote agent's server could not be reached now (refused, network, a gateway error): worth
    trying again later."""


class RemoteRefused(AgentStartError):
    """A remote agent's server answered, but will not or cannot serve us (credentials, TLS, not ACP):
    trying again would only fail again."""


class AgentTimeoutError(AgentError):
    """The agent did not answer a request in time."""


class AgentExitedError(AgentError):
    """The agent process ended; carries its exit code and the last lines of its stderr."""

    def __init__(self, exit_code: int | None, stderr_tail: list[str]) -> None:
        self.exit_code = exit_code
        self.stderr_tail = stderr_tail
        super().__init__(describe_exit(exit_code))


class RemoteLost(AgentExitedError):
    """The connection to a remote agent ended: to a session, what an exit is for a local agent."""

    def __init__(self, text: str) -> None:
        super().__init__(None, [])
        self.args = (text,)


class AgentRequestError(AgentError):
    """The agent answered a request with a JSON-RPC error."""

    def __init__(self, method: str, code: int, message: str, data: object = None) -> None:
        self.method = method
        self.code = code
        self.data = data
        super().__init__(f"{method} failed: {message} (code {code})")


class Refused(WebclientError):
    """Something the user asked for cannot be done now; the message says why and is safe to show.

    Raised anywhere below the web layer and caught in one place there, which shows it to the tab that
    asked. Whatever raised it changed nothing. `detail`: the technical text behind it (the agent's error
    and its data), shown one click away.
    """

    def __init__(self, message: str, detail: str | None = None) -> None:
        self.detail = detail
        super().__init__(message)


class RequestRefused(WebclientError):
    """We refuse a request the agent sent us; becomes a JSON-RPC error with this code and message."""

    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    RESOURCE_NOT_FOUND = -32002

    def __init__(self, code: int, message: str) -> None:
        self.code = code
        super().__init__(message)


def describe_exit(exit_code: int | None) -> str:
    """A one-line, user-facing description of how the agent process ended."""
    if exit_code is None:
        return "agent exited"
    if exit_code < 0:
        return f"agent exited with code {exit_code} (killed by signal {-exit_code})"
    return f"agent exited with code {exit_code}"
