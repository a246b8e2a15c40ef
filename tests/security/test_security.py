"""Access control: Host and Origin checks, token and cookie, security headers, the agent command.

Whoever can drive the server can run code through the agent, so every check runs against the real app
(in-process, its agent a real subprocess). The few that depend on the server itself run against a real
one: uvicorn's answer to a refused upgrade and the token link over a real socket (the server on a thread
of this process), and the command line and the printed link (a server subprocess).
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets
from starlette.websockets import WebSocketDisconnect
from websockets.exceptions import InvalidStatus

from tests.support.html import Page, has_notice, status_is, turn_finished
from tests.support.inprocess import PORT, TOKEN, InProcessApp, run_app, wait_until_ready
from tests.support.live import (
    ROOT,
    LiveServer,
    http_get,
    open_tab,
    run_server,
    scripted_agent,
    serve_in_thread,
)
from webclient.views import assets
from webclient.web.cli import main
from webclient.web.security import key_message


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessApp]:
    """The app with the echo agent, in-process, for the whole module: these tests change nothing on it."""
    with run_app(scripted_agent("echo_agent"), cwd=tmp_path_factory.mktemp("workspace")) as running:
        yield running


@pytest.fixture(scope="module")
def cookie(app: InProcessApp) -> str:
    return app.cookie


def csp(response: httpx.Response) -> dict[str, str]:
    """The Content-Security-Policy header as {directive: sources}."""
    directives = (d.strip().split(" ", 1) for d in response.headers["content-security-policy"].split(";"))
    return {d[0]: d[1] if len(d) > 1 else "" for d in directives}


# --- HTTP ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    ["evil.example", "evil.example:{port}", "localhost.evil.example:{port}", "127.0.0.1:1", "127.0.0.1"],
)
def test_a_foreign_host_header_is_refused_with_400(app: InProcessApp, cookie: str, host: str) -> None:
    # A DNS-rebinding page reaches 127.0.0.1 under its own name; the Host header gives it away.
    response = app.client.get("/", headers={"host": host.format(port=PORT), "cookie": cookie})

    assert response.status_code == 400


def test_the_page_without_a_token_or_cookie_is_refused_with_401(app: InProcessApp) -> None:
    response = app.client.get("/")

    assert response.status_code == 401
    assert "set-cookie" not in response.headers


def test_a_wrong_token_is_refused_with_401_and_sets_no_cookie(app: InProcessApp) -> None:
    response = app.client.get("/", params={"token": TOKEN[:-1] + "x"})

    assert response.status_code == 401
    assert "set-cookie" not in response.headers


def test_the_right_token_redirects_to_the_clean_url_with_a_strict_httponly_cookie(app: InProcessApp) -> None:
    response = app.exchange  # the answer to the app's one token link

    assert response.status_code == 303
    assert response.headers["location"] == f"/#webclient-key={app.key}"  # the page's key, as a fragment
    assert app.key not in response.headers["set-cookie"] and TOKEN not in app.key
    set_cookie = response.headers["set-cookie"]
    name, attributes = set_cookie.split("=", 1)[0], [a.strip().lower() for a in set_cookie.split(";")[1:]]
    assert str(PORT) in name
    assert "httponly" in attributes
    assert "samesite=strict" in attributes
    assert TOKEN not in set_cookie  # the cookie is not the token itself


def test_the_page_with_the_cookie_is_served_with_a_strict_csp_and_no_referrer(
    app: InProcessApp, cookie: str
) -> None:
    response = app.client.get("/s/s1", headers={"cookie": cookie})

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


def test_the_pages_bundles_are_served_without_a_cookie_under_the_csp_and_kept_for_good(
    app: InProcessApp, cookie: str
) -> None:
    page = app.client.get("/s/s1", headers={"cookie": cookie}).text
    links = re.findall(r'<link rel="stylesheet" href="([^"]+)"', page)
    scripts = re.findall(r'<script src="([^"]+)"', page)
    assert links == [assets.url("css")] and scripts == [assets.url("js")]
    for url, kind in ((links[0], "text/css"), (scripts[0], "text/javascript")):
        response = app.client.get(url)  # no cookie: static files are public, as the error pages need
        assert response.status_code == 200
        assert response.headers["content-type"].startswith(kind)
        assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert csp(response)["default-src"] == "'self'"
        assert response.content == assets.find(url.rsplit("/", 1)[1]).body  # type: ignore[union-attr]
    assert app.client.get("/static/bundles/page-0000000000000000.js").status_code == 404
    assert app.client.get("/static/app.css").status_code == 200  # the sources stay served too


@pytest.mark.parametrize("origin", ["http://evil.example", "null", None])
def test_a_post_without_our_origin_is_refused_with_403(
    app: InProcessApp, cookie: str, origin: str | None
) -> None:
    headers = {"cookie": cookie, **({"origin": origin} if origin else {})}

    response = app.client.post("/", headers=headers, content=b"{}")

    assert response.status_code == 403


def test_the_pages_key_alone_sets_the_cookie_again(app: InProcessApp, cookie: str) -> None:
    # Another server on this machine may overwrite the cookie (cookies ignore the port); the key the page
    # keeps in its own origin's storage gets it back.
    own = {"origin": app.origin}
    key = app.key.encode()
    renewed = app.client.post("/auth/renew", headers=own, content=key)
    app.client.cookies.clear()  # the client keeps what a response sets; the other tests send their own
    assert renewed.status_code == 204
    assert renewed.headers["set-cookie"].split(";")[0] == cookie

    for refused in (
        app.client.post("/auth/renew", headers=own, content=b"a wrong key"),
        app.client.post("/auth/renew", headers=own, content=TOKEN.encode()),  # not the token either
        app.client.post(
            "/auth/renew", headers=own, content=cookie.split("=", 1)[1].encode()
        ),  # nor the cookie
        app.client.post("/auth/renew", headers=own, content=key + b"x" * 300),
    ):
        assert refused.status_code == 401 and "set-cookie" not in refused.headers
    assert app.client.post("/auth/renew", content=key).status_code == 403  # no Origin
    assert app.client.get("/auth/renew").status_code == 401  # only a POST renews


def test_the_cookie_alone_gives_no_key_and_changes_nothing(app: InProcessApp, cookie: str) -> None:
    # Every server on 127.0.0.1 the browser visits is sent the cookie, and can forge any Origin: with the
    # cookie alone, no request that changes anything goes through, and none hands out the key.
    own = {"origin": app.origin, "cookie": cookie}
    for path in ("/auth/key", "/playground/send", "/playground"):
        refused = app.client.post(path, headers=own, content=b"text=hi")
        assert refused.status_code == 403 and "has no sign-in key" in refused.text, path
        assert app.key not in refused.text
    wrong = app.client.post("/playground", headers={**own, "x-webclient-key": "guess"}, content=b"text=hi")
    assert wrong.status_code == 403
    shown = app.client.post("/playground", headers={**own, "x-webclient-key": app.key}, content=b"text=hi")
    assert shown.status_code in (200, 422) and "has no sign-in key" not in shown.text


@pytest.mark.parametrize("first", [None, "", "not json", '{"webclient_key": "guess"}', "cookie"])
def test_a_websocket_whose_first_message_is_not_the_key_is_closed_with_4401(
    app: InProcessApp, cookie: str, first: str | None
) -> None:
    tab = app.open_tab(key=None)
    if first is not None:
        tab.socket.send_text(key_message(cookie.split("=", 1)[1]) if first == "cookie" else first)
        with pytest.raises(WebSocketDisconnect) as closed:
            tab.socket.receive_text()
        assert closed.value.code == 4401 and "open the link webclient printed" in closed.value.reason
    assert app.open_tab().socket  # with the key, a tab opens as before


@pytest.mark.parametrize("path", ["/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"])
def test_the_api_docs_are_not_served(app: InProcessApp, cookie: str, path: str) -> None:
    assert app.client.get(path, headers={"cookie": cookie}).status_code == 404


# --- WebSocket -----------------------------------------------------------------------------------------


def _connect(app: InProcessApp, headers: dict[str, str], host: str = "127.0.0.1") -> str:
    """Try to open a tab's WebSocket; "accepted", or how the app refused it before accepting.

    `host` is the name the request uses (as a DNS-rebinding page would), in its URL and so its Host header.
    """
    try:
        with app.client.websocket_connect(f"ws://{host}:{PORT}/ws/s1", headers=headers):
            return "accepted"
    except WebSocketDisconnect as exc:
        return f"closed {exc.code}"  # uvicorn answers an upgrade closed before accepting with HTTP 403


REFUSED = "closed 1008"


def test_a_websocket_with_our_origin_and_cookie_is_accepted(app: InProcessApp, cookie: str) -> None:
    assert _connect(app, {"origin": app.origin, "cookie": cookie}) == "accepted"


@pytest.mark.parametrize("origin", ["http://evil.example", "null", None, "http://127.0.0.1:1"])
def test_a_websocket_without_our_origin_is_refused(
    app: InProcessApp, cookie: str, origin: str | None
) -> None:
    headers = {"cookie": cookie, **({"origin": origin} if origin else {})}

    assert _connect(app, headers) == REFUSED


@pytest.mark.parametrize("which", ["missing", "wrong value", "another port's name"])
def test_a_websocket_without_our_cookie_is_refused(app: InProcessApp, cookie: str, which: str) -> None:
    name, value = cookie.split("=", 1)
    bad = {
        "missing": None,
        "wrong value": f"{name}=not-the-secret",
        "another port's name": f"webclient_{PORT + 1}={value}",
    }[which]
    headers = {"origin": app.origin, **({"cookie": bad} if bad else {})}

    assert _connect(app, headers) == REFUSED


def test_a_websocket_with_a_foreign_host_is_refused(app: InProcessApp, cookie: str) -> None:
    headers = {"origin": app.origin, "cookie": cookie}

    assert _connect(app, headers, host="evil.example") == REFUSED


# --- the agent command -----------------------------------------------------------------------------------


def test_no_http_request_can_set_the_agent_command(app: InProcessApp, cookie: str, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    evil = f"touch {marker}"
    headers = {"cookie": cookie, "origin": app.origin, "x-webclient-key": app.key}  # the page's own

    assert app.client.post("/", headers=headers, json={"agent": evil}).status_code == 405
    for method in ("POST", "PUT"):
        response = app.client.request(method, "/agent", headers=headers, json={"agent": evil})
        assert response.status_code == 404
    assert app.client.get("/s/s1", params={"agent": evil}, headers={"cookie": cookie}).status_code == 200
    tab = app.open_tab()
    wait_until_ready(tab)
    tab.send(action="set_agent", agent=evil)
    tab.wait_for(has_notice("does not understand"))

    # The running agent is the same echo agent, and the command never ran.
    tab.send(action="prompt", text="who are you")
    tab.wait_for(turn_finished("who are you"))
    assert "You said: who are you" in Page.parse(tab.html).agent_text
    shown = Page.parse(app.client.get("/s/s1", headers={"cookie": cookie}).text)
    assert shown.latest_text("agent-name").endswith("scripted 0")
    assert not marker.exists()


# --- the command line ------------------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.10", "::"])
def test_a_non_loopback_host_without_allow_remote_exits_with_code_2_and_says_why(
    host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["--host", host, "--port", "0", "--no-browser"])

    out, err = capsys.readouterr()
    assert code == 2
    assert f"refusing to listen on {host!r}" in err
    assert "--allow-remote" in err
    assert "running at" not in out


@pytest.mark.system
def test_the_command_refuses_a_non_loopback_host_before_it_listens() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "webclient", "--host", "0.0.0.0", "--port", "0", "--no-browser"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode == 2
    assert "refusing to listen on '0.0.0.0'" in result.stderr
    assert "running at" not in result.stdout


# --- a real server: what it does at its own socket -------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with serve_in_thread(scripted_agent("echo_agent"), cwd=tmp_path_factory.mktemp("served")) as live:
        yield live


def test_a_real_server_signs_in_with_its_token_once_and_checks_host_and_cookie(server: LiveServer) -> None:
    assert http_get(server.base + "/").status_code == 401
    cookie = server.cookie()  # the token link answers 303 with the cookie

    assert http_get(server.base + "/s/s1", headers={"cookie": cookie}).status_code == 200
    foreign = {"cookie": cookie, "host": f"evil.example:{server.port}"}
    assert http_get(server.base + "/", headers=foreign).status_code == 400


@pytest.mark.system
async def test_another_process_with_the_cookie_alone_cannot_run_a_prompt(tmp_path: Path) -> None:
    # Every server on 127.0.0.1 the browser visits is sent the cookie; with it, and a forged Origin, a
    # process once opened a session's socket and ran a prompt. The page's key is what lets a tab in.
    with run_server(scripted_agent("echo_agent"), cwd=tmp_path) as live:
        cookie = live.cookie()
        page = http_get(live.base + "/s/s1", headers={"cookie": cookie})
        assert page.status_code == 200 and live.key() not in page.text  # the page never holds the key
        forged = {"origin": live.base, "cookie": cookie}
        async with websockets.connect(live.ws_url, additional_headers=forged) as socket:
            await socket.send(json.dumps({"action": "prompt", "text": "run rm -rf ~"}))
            with pytest.raises(websockets.ConnectionClosed) as closed:
                async with asyncio.timeout(30):  # refused at once; not frames of a session
                    while True:
                        await socket.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
        tab = await open_tab(live)  # the page itself, with its key
        # A prompt while the agent still starts is refused for that: wait as a user waits for "ready".
        await tab.wait_for(status_is("ready"), timeout=60)
        await tab.send(action="prompt", text="hello")
        await tab.wait_for(turn_finished("hello"), timeout=60)
        assert "rm -rf" not in tab.html


async def test_a_real_server_answers_a_refused_websocket_upgrade_with_403(server: LiveServer) -> None:
    url, cookie = server.ws_url, server.cookie()
    async with websockets.connect(url, additional_headers={"origin": server.base, "cookie": cookie}):
        pass  # ours is accepted
    with pytest.raises(InvalidStatus) as refused:
        await websockets.connect(url, additional_headers={"origin": "http://evil.example", "cookie": cookie})

    assert refused.value.response.status_code == 403


# --- the token link of a real server, used once -----------------------------------------------------


def csp_header(server: LiveServer) -> str:
    return http_get(server.base + "/static/app.css").headers["content-security-policy"]


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own, whose token nobody has used yet."""
    with serve_in_thread(scripted_agent("echo_agent"), cwd=tmp_path) as live:
        yield live


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("//attacker.example/", "/attacker.example/"),
        ("/\\attacker.example/", "/attacker.example/"),
        ("///attacker.example/x", "/attacker.example/x"),
        ("/s/s1", "/s/s1"),
    ],
)
def test_the_token_exchange_redirects_only_to_our_own_paths(
    fresh: LiveServer, path: str, expected: str
) -> None:
    # The first exchange (real token, no cookie) and a later one (with the cookie) alike.
    first = http_get(f"{fresh.base}{path}?token={fresh.token}", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"].partition("#")[0] == expected
    cookie = first.headers["set-cookie"].split(";", 1)[0]
    later = http_get(
        f"{fresh.base}{path}?token={fresh.token}", headers={"cookie": cookie}, follow_redirects=False
    )
    assert later.status_code == 303 and later.headers["location"].partition("#")[0] == expected


@pytest.mark.system
@pytest.mark.parametrize("host", ["127.0.0.2", "localhost"])
def test_any_loopback_host_serves_the_printed_url(tmp_path: Path, host: str) -> None:
    with run_server(scripted_agent("echo_agent"), cwd=tmp_path, extra_args=["--host", host]) as live:
        assert live.base.startswith(f"http://{host}:")
        response = http_get(live.url, follow_redirects=True)

        assert response.status_code == 200, response.text
        assert 'data-testid="composer"' in response.text
        foreign = http_get(live.base + "/", headers={"host": f"evil.example:{live.port}"})
        assert foreign.status_code == 400


def test_the_token_signs_in_once_and_a_second_exchange_gets_401_and_a_page_saying_what_to_do(
    fresh: LiveServer,
) -> None:
    cookie = fresh.cookie()

    again = http_get(fresh.url, follow_redirects=False)

    assert again.status_code == 401
    assert "set-cookie" not in again.headers
    assert again.headers["content-type"].startswith("text/html")
    assert 'data-testid="error-page"' in again.text and "already used" in again.text
    assert "open the printed link again" in again.text and "restart webclient" in again.text
    assert "style=" not in again.text and "<script" not in again.text
    assert again.headers["content-security-policy"] == csp_header(fresh)
    # The browser that signed in may open the printed link again: it is sent on, with no new cookie.
    same = http_get(fresh.url, headers={"cookie": cookie}, follow_redirects=False)
    assert same.status_code == 303 and same.headers["location"] == f"/#webclient-key={fresh.key()}"
    assert "set-cookie" not in same.headers


def test_a_huge_cookie_header_from_other_local_servers_gets_a_page_that_clears_them_and_says_why(
    server: LiveServer,
) -> None:
    # Cookies ignore the port: other programs on 127.0.0.1 can make the browser send 176 KB of them,
    # which once reset every connection, so the page could not even say what happened.
    ours = server.cookie()
    junk = "; ".join(f"other{n}={'x' * 1000}" for n in range(176))
    refused = httpx.get(server.base + "/s/s1", headers={"cookie": f"{junk}; {ours}"}, timeout=30)
    assert refused.status_code == 431
    assert "too many cookies" in refused.text and "Cookies are not kept apart by port" in refused.text
    cleared = refused.headers.get_list("set-cookie")
    assert "other0=; Max-Age=0; Path=/" in cleared and "other175=; Max-Age=0; Path=/" in cleared
    assert f"{ours.split('=')[0]}=; Max-Age=0; Path=/" in cleared
    assert 'data-role="sign-in-renewal"' in refused.text  # the page gets our cookie back with its key
    renewed = httpx.post(
        server.base + "/auth/renew",
        headers={"origin": server.base},
        content=server.key().encode(),
        timeout=30,
    )
    assert renewed.status_code == 204 and renewed.headers["set-cookie"].split(";")[0] == ours
