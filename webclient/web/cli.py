"""`webclient [--agent NAME|CMD] [--config PATH] [--agent-env KEY=VALUE] [--cwd DIR] [--port N] ...`.

Start-up prints the address first: the socket is bound and listening before anything heavy is imported
(the app, and through it the ACP SDK, whose schema module alone takes over a second to import), so the
URL shows at once and a browser that opens it waits in the listen queue until the server answers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import signal
import socket
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from webclient import __version__
from webclient.agent_config import INSTALL_LINES
from webclient.errors import SettingsError
from webclient.settings import Settings, is_loopback
from webclient.web.launch import open_browser, remove

if TYPE_CHECKING:
    from types import FrameType

    import uvicorn


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="webclient",
        description="Run an ACP agent and use it from your browser. "
        "Without --agent, runs the bundled demo agent.",
    )
    parser.add_argument(
        "--agent",
        help="an agent named in the settings file, a command line, "
        'e.g. "claude-agent-acp" or "gemini --acp", the URL of an agent on another machine '
        '(ws://, wss://, http:// or https://), or "replay:PATH [--speed F]" to play back a session '
        "downloaded from the protocol inspector",
    )
    parser.add_argument(
        "--config",
        help="the settings file with agent_servers and context_servers "
        "(default: $XDG_CONFIG_HOME/webclient/settings.json)",
    )
    parser.add_argument(
        "--agent-env",
        action="append",
        metavar="KEY=VALUE",
        help="add a variable to every agent's environment (repeatable)",
    )
    parser.add_argument("--cwd", help="the agent's working directory (default: the current one)")
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port to listen on; 0 picks a free one (default 8765)")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a non-loopback --host (the token is still required)",
    )
    parser.add_argument(
        "--no-prompt-suggestions",
        action="store_true",
        help="do not advertise the promptSuggestions capability to the agent",
    )
    parser.add_argument(
        "--jetbrains-air-meta",
        action="store_true",
        help="declare clientCapabilities._meta.jetbrains.air, so agents that only send their legacy "
        "suggestions to that client send them to us too",
    )
    parser.add_argument(
        "--protected",
        action="append",
        metavar="GLOB",
        help="protect more paths (repeatable): a glob matched against the path relative to --cwd and "
        "against the file name; a trailing / protects everything under a directory",
    )
    parser.add_argument(
        "--suggestion-style",
        choices=("chips", "list", "ghost"),
        help="how prompt suggestions show in a browser that has not chosen yet: a row of chips, a list "
        "above the composer, or ghost text in it (default chips; the page's Display menu switches live)",
    )
    parser.add_argument(
        "--present",
        action="store_true",
        help="open pages in presenter mode, for showing an agent to an audience: larger type, no protocol "
        "details (a browser that chose keeps its choice; the page's Present button switches it)",
    )
    parser.add_argument(
        "--protocol",
        choices=("auto", "1", "2"),
        help="the ACP version to speak: auto offers v2 and falls back to v1 for an agent that answers 1 "
        "(restarting it once); 1 or 2 speak only that version (default auto)",
    )
    parser.add_argument(
        "--study",
        metavar="PATH",
        help="run the presentation study in this TOML or JSON file: participants who agree on the page "
        "are shown the presets it compares, and what they do with the suggestions is recorded on this "
        "computer (reports at /studies)",
    )
    parser.add_argument(
        "--presets", metavar="PATH", help="a TOML or JSON file of the project's own presentation presets"
    )
    parser.add_argument("--version", action="version", version=f"webclient {__version__}")
    return parser


# Options that set the setting of their own name when given.
_VALUES = ("agent", "config", "cwd", "host", "port", "suggestion_style", "protocol", "study", "presets")
_LISTS = ("agent_env", "protected")
# Switches: (the option's name, the setting it sets, to what).
_SWITCHES = (
    ("no_browser", "open_browser", False),
    ("allow_remote", "allow_remote", True),
    ("no_prompt_suggestions", "prompt_suggestions", False),
    ("jetbrains_air_meta", "jetbrains_air", True),
    ("present", "present", True),
)


def settings_from_args(argv: Sequence[str] | None = None) -> Settings:
    args = build_parser().parse_args(argv)
    overrides: dict[str, Any] = {
        name: getattr(args, name) for name in _VALUES if getattr(args, name) is not None
    }
    overrides.update({name: tuple(getattr(args, name)) for name in _LISTS if getattr(args, name)})
    overrides.update({setting: value for option, setting, value in _SWITCHES if getattr(args, option)})
    settings = Settings(**overrides)
    if settings.study is not None:
        settings = _with_study(settings)
    return settings


def _with_study(settings: Settings) -> Settings:
    """The study file checked now (a mistake stops the start, naming the field and the line); a study that
    plays a recording runs the replay agent, unless an agent was named."""
    from webclient.web.study import load_plan  # only a study start pays for its imports

    plan = load_plan(settings)
    if plan is not None and plan.replay is not None and not settings.agent:
        return settings.model_copy(update={"agent": f"replay:{plan.replay}"})
    return settings


def bind(host: str, port: int) -> socket.socket:
    """Bind before starting the server, so `--port 0` knows its real port for the Host allowlist."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def url_for(host: str, port: int, token: str) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/?token={token}"


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["check"]:  # `webclient check ...`: the headless RFD check, no server
        from webclient.check.cli import main as check

        return check(arguments[1:])
    settings = _startup_settings(argv)
    if isinstance(settings, str):
        print(settings, file=sys.stderr)
        return 2
    try:
        sock = bind(settings.host, settings.port)
    except OSError as exc:
        print(f"webclient: cannot listen on {settings.host}:{settings.port}: {exc.strerror}", file=sys.stderr)
        return 2
    _serve_until_stopped(settings, sock)
    return 0


def _startup_settings(argv: Sequence[str] | None) -> Settings | str:
    """The settings to start with, or what stops the start (a line for stderr)."""
    try:
        settings = settings_from_args(argv)
        settings.check_host()
        missing = _missing_command(settings)  # reads the settings file now: a mistake in it stops the start
    except ValidationError as exc:
        return f"webclient: {exc.errors()[0]['msg']}"
    except SettingsError as exc:
        return f"webclient: {exc}"
    return settings if missing is None else missing


def _serve_until_stopped(settings: Settings, sock: socket.socket) -> None:
    """Print the link, open the browser half a second later, and serve until interrupted."""
    url = url_for(settings.host, sock.getsockname()[1], settings.token)
    opened: list[Path] = []
    launcher = threading.Timer(0.5, lambda: opened.append(open_browser(url)))
    # Ctrl+C must work from the moment the URL shows, also when the process inherited SIGINT ignored
    # (started in the background by a script); uvicorn installs its own handler only once it serves.
    interrupt = _Interrupt()
    signal.signal(signal.SIGINT, interrupt)
    # SIGTERM and SIGHUP end `main` by an exception too, so that its `finally` removes the file that
    # opened the browser: at their default they would end the process at once, and uvicorn, which
    # handles SIGTERM while it serves, raises it again once it has stopped.
    for stop in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(stop, _exit_on_signal)
    try:
        print(f"webclient {__version__} is running at {url}", flush=True)
        if settings.open_browser:
            launcher.start()
        serve(settings, sock, interrupt)
    except KeyboardInterrupt:  # a Ctrl+C that uvicorn raises again once it has stopped: nothing left to stop
        sock.close()
    finally:
        launcher.cancel()  # stopped before the browser was due: do not open it on a server that is gone
        if launcher.is_alive():  # or it is opening now: wait, so that its file is removed below
            launcher.join()
        for path in opened:
            remove(path)


class _Interrupt:
    """Ctrl+C before uvicorn takes the signal over: remembered, and handed to the server once it exists.

    Not a KeyboardInterrupt raised wherever the main thread is: in the middle of the server's import it can
    land in a C callback (pydantic's schema building), which swallows it, and the server then served on.
    """

    def __init__(self) -> None:
        self.seen = False
        self.server: uvicorn.Server | None = None

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.seen = True
        if self.server is not None:  # built, not serving yet: it stops as soon as it has started
            self.server.handle_exit(signum, frame)

    def take(self, server: uvicorn.Server) -> bool:
        """Hand the server its Ctrl+C from now on; whether one came already (then it is not to serve)."""
        self.server = server
        return self.seen


def _exit_on_signal(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def _missing_command(settings: Settings) -> str | None:
    """Why the agent the server starts with cannot run, when its command is not found; None when it is
    found (or is the demo agent, or a remote one)."""
    spec = settings.catalog.default
    if spec.url is not None or not spec.argv:
        return None
    command = spec.argv[0]
    path = (spec.env or {}).get("PATH") or os.environ.get("PATH")
    if shutil.which(command, path=path) or shutil.which(str(settings.cwd / command)):
        return None
    lines = [f"webclient: the agent command {command!r} was not found (not on PATH, nor in {settings.cwd})."]
    lines.append("Check --agent (or the settings file), or install the agent's ACP adapter:")
    lines.extend(f"  {name}: {line}" for name, line in INSTALL_LINES)
    return "\n".join(lines)


def serve(settings: Settings, sock: socket.socket, interrupt: _Interrupt | None = None) -> None:
    """Import the server (the slow part of start-up) and serve on the bound socket until interrupted."""
    server = build_server(settings, sock)
    if interrupt is not None and interrupt.take(server):  # a Ctrl+C meanwhile: nothing runs yet
        sock.close()
        return
    from webclient.domain.collector import COLLECTOR

    COLLECTOR.enable()  # the garbage collector's full passes at quiet moments only (domain/collector.py)
    # uvicorn shuts down gracefully (stopping the agent's process group) on SIGINT and SIGTERM. A closed
    # terminal sends SIGHUP, whose default would end us at once and leave the agent running: the
    # agent has its own session, so the terminal's hangup does not reach it.
    signal.signal(signal.SIGHUP, server.handle_exit)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(server.serve(sockets=[sock]))


def build_server(settings: Settings, sock: socket.socket) -> uvicorn.Server:
    """The uvicorn server for the app on `sock` (bound by `bind`), not yet serving: `serve` runs it."""
    import uvicorn

    from webclient.web.app import create_app
    from webclient.web.security import MAX_HEADER_BYTES

    app = create_app(settings, sock.getsockname()[1])
    # WebSocket compression only across a network: on loopback it saves no time, and compressing every
    # frame (and inflating it in the browser) costs CPU at each render of a streamed answer.
    deflate = not is_loopback(settings.host)
    # Headers are read up to 1 MiB (h11's default, 16 KiB, reset the connection): other programs on
    # 127.0.0.1 can make the browser send a huge Cookie header, which the middleware then answers.
    config = uvicorn.Config(
        app,
        log_level="warning",
        ws="websockets-sansio",
        lifespan="on",
        ws_per_message_deflate=deflate,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
    )
    return uvicorn.Server(config)
