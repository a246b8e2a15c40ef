"""Remote agents in the settings: a URL instead of a command.

```jsonc
"agent_servers": {
  "build-box": {
    "url": "wss://build.example.com/acp",
    "headers": { "Authorization": "Bearer ${ACP_TOKEN}" },   // ${NAME}: from webclient's environment
    "localTools": false,                                     // the default: no local files, no commands
    "cwd": "/srv/shop"                                       // sessions' directory there (default: --cwd)
  }
}
```

`--agent ws://HOST/PATH` (or `wss://`, `http://`, `https://`) names one on the command line. A
`${NAME}` whose variable is unset is an error that names it; `$${` writes a literal `${`. A
`WEBCLIENT_*` name is refused: webclient's own settings, its token among them, never go to an agent.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from webclient.errors import SettingsError

WEBSOCKET_SCHEMES = ("ws", "wss")
HTTP_SCHEMES = ("http", "https")
REMOTE_SCHEMES = WEBSOCKET_SCHEMES + HTTP_SCHEMES
_VARIABLE = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def is_remote_url(text: str) -> bool:
    """Whether `text` names a remote agent: a ws, wss, http or https URL with a host."""
    parts = urlsplit(text.strip())
    return parts.scheme in REMOTE_SCHEMES and bool(parts.hostname)


def expand(value: str, where: str, environ: Mapping[str, str] | None = None) -> str:
    """`value` with each `${NAME}` replaced by that environment variable; SettingsError when unset."""
    source = os.environ if environ is None else environ

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name is None:
            return "${"
        if name.upper().startswith("WEBCLIENT_"):
            raise SettingsError(
                f"{where}: ${{{name}}} names one of webclient's own settings (WEBCLIENT_*), which never "
                "go to an agent (the sign-in token is one); put the value in a variable of another name"
            )
        if name not in source:
            raise SettingsError(f"{where}: the environment variable {name} is not set (used as ${{{name}}})")
        return source[name]

    return _VARIABLE.sub(replace, value)


def remote_url(raw: Any, where: str, environ: Mapping[str, str] | None = None) -> str:
    """An entry's `url`, expanded and checked."""
    if not isinstance(raw, str) or not raw.strip():
        raise SettingsError(f'{where}: "url" is not a non-empty string')
    url = expand(raw.strip(), f"{where}.url", environ)
    if not is_remote_url(url):
        raise SettingsError(f'{where}: "url" must be a ws://, wss://, http:// or https:// URL, not {url!r}')
    return url


def remote_headers(raw: Any, where: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """An entry's `headers`, each value expanded; names and values must be strings."""
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise SettingsError(f"{where}.headers: must be an object of string values")
    return {name: expand(value, f"{where}.headers.{name}", environ) for name, value in raw.items()}


def remote_cwd(raw: Any, where: str) -> str | None:
    """An entry's `cwd`: the sessions' working directory on the agent's machine (None: webclient's)."""
    if raw is None:
        return None
    if not isinstance(raw, str) or not raw.strip():
        raise SettingsError(f'{where}: "cwd" must be a non-empty string (a path on the agent\'s machine)')
    return raw.strip()


def local_tools(raw: Any, where: str) -> bool:
    if not isinstance(raw, bool):
        raise SettingsError(f'{where}: "localTools" must be true or false')
    return raw
