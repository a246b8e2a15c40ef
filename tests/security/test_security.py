"""Access control of a live server: Host and Origin checks, token and cookie, security headers.

Whoever can drive the server can run code through the agent, so these run against the real server
subprocess, over real HTTP and WebSocket connections.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets
from websockets.exceptions import InvalidStatus

from tests.integration.support import Page, has_notice, status_is, turn_finished
from tests.live import ROOT, LiveServer, open_tab, run_server, scripted_agent


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server with the echo agent for the whole module: these tests change nothing on it."""
    with run_server(scripted_agent("echo_agent"), cwd=tmp_path_factory.mktemp("workspace")) as live:
        yield live


@pytest.fixture(scope="module")
def cookie(server: LiveServer) -> str:
    return server.cookie()


def csp(response: httpx.Response) -> dict[str, str]:
    """The Content-Security-Policy header as {directive: sources}."""
    directives = (d.strip().split(" ", 1) for d in response.headers["content-security-policy"].split(";"))
    return {d[0]: d[1] if len(d) > 1 else "" for d in directives}


# --- HTTP ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    ["evil.example", "evil.example:{port}", "localhost.evil.example:{port}", "127.0.0.1:1", "127.0.0.1"],
)
def test_a_foreign_host_header_is_refused_with_400(server: LiveServer, cookie: str, host: str) -> None:
    # A DNS-rebinding page reaches 127.0.0.1 under its own name; the Host header gives it away.
    response = httpx.get(server.base + "/", headers={"host": host.format(port=server.port), "cookie": cookie})

    assert response.status_code == 400


def test_the_page_without_a_token_or_cookie_is_refused_with_401(server: LiveServer) -> None:
    response = httpx.get(server.base + "/")

    assert response.status_code == 401
    assert "set-cookie" not in response.headers


def test_a_wrong_token_is_refused_with_401_and_sets_no_cookie(server: LiveServer) -> None:
    response = httpx.get(server.base + "/", params={"token": server.token[:-1] + "x"})

    assert response.status_code == 401
    assert "set-cookie" not in response.headers


def test_the_right_token_redirects_to_the_clean_url_with_a_strict_httponly_cookie(server: LiveServer) -> None:
    response = httpx.get(server.url, follow_redirects=False)

    assert response.status_code == 303
    assert response.headers["location"] == "/"
    set_cookie = response.headers["set-cookie"]
    name, attributes = set_cookie.split("=", 1)[0], [a.strip().lower() for a in set_cookie.split(";")[1:]]
    assert str(server.port) in name
    assert "httponly" in attributes
    assert "samesite=strict" in attributes
    assert server.token not in set_cookie  # the cookie is not the token itself


def test_the_page_with_the_cookie_is_served_with_a_strict_csp_and_no_referrer(
    server: LiveServer, cookie: str
) -> None:
    response = httpx.get(server.base + "/s/s1", headers={"cookie": cookie})

    assert response.status_code == 200
    assert 'data-testid="composer"' in response.text
    policy = csp(response)
    assert policy["default-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'"
    assert policy["img-src"] == "'self' data:"
    assert "'unsafe-inline'" not in policy.get("script-src", policy["default-src"])
    assert "'unsafe-eval'" not in policy.get("script-src", policy["default-src"])
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("origin", ["http://evil.example", "null", None])
def test_a_post_without_our_origin_is_refused_with_403(
    server: LiveServer, cookie: str, origin: str | None
) -> None:
    headers = {"cookie": cookie, **({"origin": origin} if origin else {})}

    response = httpx.post(server.base + "/", headers=headers, content=b"{}")

    assert response.status_code == 403


@pytest.mark.parametrize("path", ["/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"])
def test_the_api_docs_are_not_served(server: LiveServer, cookie: str, path: str) -> None:
    assert httpx.get(server.base + path, headers={"cookie": cookie}).status_code == 404


# --- WebSocket -----------------------------------------------------------------------------------------


async def _connect(server: LiveServer, headers: dict[str, str], host: str | None = None) -> int:
    """Try to open the tab's WebSocket; return the HTTP status of a refused upgrade (101 if accepted).

    With `host`, the request names that host (as a DNS-rebinding page would) but still goes to our port.
    """
    url = server.ws_url("s1") if host is None else f"ws://{host}:{server.port}/ws/s1"
    try:
        socket = await websockets.connect(url, additional_headers=headers, host="127.0.0.1", port=server.port)
    except InvalidStatus as exc:
        return exc.response.status_code
    await socket.close()
    return 101


async def test_a_websocket_with_our_origin_and_cookie_is_accepted(server: LiveServer, cookie: str) -> None:
    assert await _connect(server, {"origin": server.base, "cookie": cookie}) == 101


@pytest.mark.parametrize("origin", ["http://evil.example", "null", None, "http://127.0.0.1:1"])
async def test_a_websocket_without_our_origin_is_refused_with_403(
    server: LiveServer, cookie: str, origin: str | None
) -> None:
    headers = {"cookie": cookie, **({"origin": origin} if origin else {})}

    assert await _connect(server, headers) == 403


@pytest.mark.parametrize("which", ["missing", "wrong value", "another port's name"])
async def test_a_websocket_without_our_cookie_is_refused_with_403(
    server: LiveServer, cookie: str, which: str
) -> None:
    name, value = cookie.split("=", 1)
    bad = {
        "missing": None,
        "wrong value": f"{name}=not-the-secret",
        "another port's name": f"webclient_{server.port + 1}={value}",
    }[which]
    headers = {"origin": server.base, **({"cookie": bad} if bad else {})}

    assert await _connect(server, headers) == 403


async def test_a_websocket_with_a_foreign_host_is_refused_with_403(server: LiveServer, cookie: str) -> None:
    headers = {"origin": server.base, "cookie": cookie}

    assert await _connect(server, headers, host="evil.example") == 403


# --- the agent command -----------------------------------------------------------------------------------


async def test_no_http_request_can_set_the_agent_command(
    server: LiveServer, cookie: str, tmp_path: Path
) -> None:
    marker = tmp_path / "pwned"
    evil = f"touch {marker}"
    headers = {"cookie": cookie, "origin": server.base}

    assert httpx.post(server.base + "/", headers=headers, json={"agent": evil}).status_code == 405
    for method in ("POST", "PUT"):
        response = httpx.request(method, server.base + "/agent", headers=headers, json={"agent": evil})
        assert response.status_code == 404
    assert httpx.get(server.base + "/", params={"agent": evil}, headers={"cookie": cookie}).status_code == 303
    tab = await open_tab(server, cookie)
    await tab.wait_for(status_is("ready"))
    await tab.send(action="set_agent", agent=evil)
    await tab.wait_for(has_notice("does not understand"))

    # The running agent is the same echo agent, and the command never ran.
    await tab.send(action="prompt", text="who are you")
    await tab.wait_for(turn_finished("who are you"))
    assert "You said: who are you" in Page.parse(tab.html).agent_text
    shown = Page.parse(httpx.get(server.base + "/s/s1", headers={"cookie": cookie}).text)
    assert shown.latest_text("agent-name").endswith("scripted 0")
    assert not marker.exists()


# --- the command line ------------------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.10"])
def test_a_non_loopback_host_without_allow_remote_exits_with_code_2_and_says_why(host: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "webclient", "--host", host, "--port", "0", "--no-browser"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )

    assert result.returncode == 2
    assert f"refusing to listen on {host!r}" in result.stderr
    assert "--allow-remote" in result.stderr
    assert "running at" not in result.stdout
