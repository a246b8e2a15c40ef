"""Token auth, Host and Origin checks, and security headers, as one ASGI middleware.

Whoever can drive this server can run code on the user's machine through the agent, so every HTTP and
WebSocket request is checked before any route sees it:
- Host must be one of our own loopback names with our port (defeats DNS rebinding);
- a WebSocket upgrade and every state-changing request must carry an Origin of ours (a missing or
  `null` Origin is refused too);
- the per-start token, given once in the URL, is exchanged for an HttpOnly, SameSite=Strict cookie,
  once: after that the link signs nobody else in (a browser that already holds the cookie is simply
  sent on), and the redirect after the exchange only ever goes to a path of ours;
- cookies are not kept apart by port, so every other server on this machine the browser visits is sent
  ours, and can overwrite or evict it. So the cookie alone opens nothing: the token exchange also hands
  the page a key of its own (in the redirect's fragment, which no server is sent), which the page keeps
  in its origin's storage (kept apart by port). Every state-changing request carries it (`X-Webclient-Key`)
  and a WebSocket's first message is it; a page that lost the cookie gives the key back to have the
  cookie set again (`/auth/renew`).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, quote, urlencode

from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from webclient.web.error_pages import (
    BAD_HOST,
    CROSS_ORIGIN,
    NO_KEY,
    NOT_SIGNED_IN,
    SPENT_TOKEN,
    TOO_MANY_COOKIES,
    WRONG_TOKEN,
    Refusal,
)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PUBLIC_PREFIXES = ("/static/", "/favicon.ico")
# A page that lost the cookie gives its key back here (POST, our Origin, the key as the body) to have the
# cookie set again.
RENEW_PATH = "/auth/renew"
# What a page is shown when its WebSocket was refused for want of the key.
NO_KEY_PATH = "/auth/no-key"
# The key: in the fragment of the address the token link redirects to, in this header of every
# state-changing request, and as this field of a WebSocket's first message.
KEY_FRAGMENT = "webclient-key"
KEY_HEADER = "x-webclient-key"
KEY_FIELD = "webclient_key"
# A Cookie header past this is refused with a page that clears the cookies it names: other programs on
# 127.0.0.1 can make the browser send so many that no request of ours could be read (the server reads
# headers up to `MAX_HEADER_BYTES`, so that it can say so).
MAX_COOKIE_BYTES = 16 * 1024
MAX_HEADER_BYTES = 1024 * 1024
# A WebSocket's first message must come this soon; 4401 closes one without the key.
KEY_WAIT = 10.0
NO_KEY_CLOSE = 4401

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "media-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


@dataclass(frozen=True)
class AccessPolicy:
    """Who may talk to this server: its hosts, its token, and the cookie the token turns into."""

    port: int
    token: str
    extra_hosts: tuple[str, ...] = ()
    cookie_secret: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    page_key: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    @property
    def cookie_name(self) -> str:
        # The port in the name keeps two servers on one machine from overwriting each other's cookie.
        return f"webclient_{self.port}"

    @property
    def allowed_hosts(self) -> frozenset[str]:
        names = ("127.0.0.1", "localhost", "[::1]", *(_host_name(h) for h in self.extra_hosts))
        return frozenset(f"{name}:{self.port}".lower() for name in names)

    @property
    def allowed_origins(self) -> frozenset[str]:
        return frozenset(f"http://{host}" for host in self.allowed_hosts)

    def host_ok(self, host: str | None) -> bool:
        return host is not None and host.lower() in self.allowed_hosts

    def origin_ok(self, origin: str | None) -> bool:
        return origin is not None and origin.lower() in self.allowed_origins

    def token_ok(self, candidate: str | None) -> bool:
        return candidate is not None and hmac.compare_digest(candidate.encode(), self.token.encode())

    def cookie_ok(self, cookie_header: str | None) -> bool:
        value = _cookie_value(cookie_header, self.cookie_name)
        return value is not None and hmac.compare_digest(value.encode(), self.cookie_secret.encode())

    def key_ok(self, candidate: bytes | str | None) -> bool:
        if isinstance(candidate, str):
            candidate = candidate.encode("utf-8", "replace")
        return candidate is not None and hmac.compare_digest(candidate, self.page_key.encode())

    def set_cookie_header(self) -> str:
        return f"{self.cookie_name}={self.cookie_secret}; HttpOnly; SameSite=Strict; Path=/"


class SecurityMiddleware:
    """Checks every request against an `AccessPolicy` before the app sees it."""

    def __init__(self, app: ASGIApp, policy: AccessPolicy) -> None:
        self.app = app
        self.policy = policy
        self.token_spent = False  # the token signs in one browser per start

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = _headers(scope)
        method = scope["method"]
        path: str = scope["path"]
        if not self.policy.host_ok(headers.get("host")):
            return await _respond(send, BAD_HOST)
        if len(headers.get("cookie", "")) > MAX_COOKIE_BYTES:
            return await _respond(send, TOO_MANY_COOKIES, _clearing(headers["cookie"]))
        if method not in SAFE_METHODS and not self.policy.origin_ok(headers.get("origin")):
            return await _respond(send, CROSS_ORIGIN)
        if path == RENEW_PATH and method == "POST":
            return await self._renew(receive, send)
        if not path.startswith(PUBLIC_PREFIXES):
            query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
            if "token" in query:
                return await self._exchange_token(scope, send, query)
            if not self.policy.cookie_ok(headers.get("cookie")):
                return await _respond(send, NOT_SIGNED_IN)
            if method not in SAFE_METHODS and not self.policy.key_ok(headers.get(KEY_HEADER)):
                return await _respond(send, NO_KEY)  # the cookie alone changes nothing
            if path == NO_KEY_PATH:
                return await _respond(send, NO_KEY)
        await self.app(scope, receive, _with_security_headers(send))

    async def _renew(self, receive: Receive, send: Send) -> None:
        """Set the cookie again for a page that gives back its key (another server on this machine may
        have overwritten the cookie); the Origin was checked already, as for any POST."""
        body = await _read_body(receive, limit=256)
        if body is None or not self.policy.key_ok(body):
            return await _plain(send, 401, b"")
        await _plain(send, 204, b"", set_cookie=self.policy.set_cookie_header())

    async def _exchange_token(self, scope: Scope, send: Send, query: dict[str, str]) -> None:
        token = query.pop("token")
        location = own_path(scope["path"]) + (f"?{urlencode(query)}" if query else "")
        # The page's key goes in the fragment, which the browser keeps across redirects and sends to no
        # server; the page moves it into its origin's storage and out of the address bar.
        with_key = f"{location}#{KEY_FRAGMENT}={self.policy.page_key}"
        if self.policy.cookie_ok(_headers(scope).get("cookie")):
            # Signed in already: the clean URL, with the key again for whoever holds the token too.
            again = with_key if self.policy.token_ok(token) else location
            return await _redirect(send, again, set_cookie=None)
        if not self.policy.token_ok(token):
            return await _respond(send, WRONG_TOKEN)
        if self.token_spent:
            return await _respond(send, SPENT_TOKEN)
        self.token_spent = True
        await _redirect(send, with_key, set_cookie=self.policy.set_cookie_header())

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = _headers(scope)
        if (
            not self.policy.host_ok(headers.get("host"))
            or not self.policy.origin_ok(headers.get("origin"))
            or not self.policy.cookie_ok(headers.get("cookie"))
        ):
            # Closing before accepting makes the server answer the upgrade with HTTP 403.
            await send({"type": "websocket.close", "code": 1008})
            return
        connect = await receive()
        if connect["type"] != "websocket.connect":
            return
        await send({"type": "websocket.accept"})
        if not await self._key_first(receive):
            reason = "no sign-in key: open the link webclient printed when it started"
            await send({"type": "websocket.close", "code": NO_KEY_CLOSE, "reason": reason})
            return
        await self.app(scope, _replaying(connect, receive), _accepted(send))

    async def _key_first(self, receive: Receive) -> bool:
        """Whether the socket's first message, within `KEY_WAIT`, is `{"webclient_key": KEY}`."""
        try:
            async with asyncio.timeout(KEY_WAIT):
                message = await receive()
        except TimeoutError:
            return False
        text = message.get("text") if message["type"] == "websocket.receive" else None
        if not isinstance(text, str) or len(text) > 1024:
            return False
        try:
            value = json.loads(text)
        except ValueError:
            return False
        return isinstance(value, dict) and self.policy.key_ok(str(value.get(KEY_FIELD, "")))


def key_message(key: str) -> str:
    """A WebSocket's first message: the page's key (what `static/sign_in_key.js` sends)."""
    return json.dumps({KEY_FIELD: key})


def key_in(location: str) -> str | None:
    """The key in the fragment of the address the token link redirected to, if there is one."""
    _, _, fragment = location.partition("#")
    name, _, value = fragment.partition("=")
    return value if name == KEY_FRAGMENT and value else None


def _replaying(connect: Message, receive: Receive) -> Receive:
    """The socket's `receive` for the app: the connect event it expects first, then the socket's own."""
    pending = [connect]

    async def replayed() -> Message:
        return pending.pop() if pending else await receive()

    return replayed


def _accepted(send: Send) -> Send:
    """The socket's `send` for the app, which accepts a socket the middleware accepted already."""

    async def wrapped(message: Message) -> None:
        if message["type"] != "websocket.accept":
            await send(message)

    return wrapped


def _host_name(host: str) -> str:
    """A listen address as it appears in a Host header: IPv6 addresses in brackets."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def own_path(path: str) -> str:
    """``path`` as a path on this server: never ``//host/...`` or ``/\\host``, which browsers would take
    for another site, and percent-encoded so the Location header says exactly what it means."""
    return "/" + quote(path.lstrip("/\\"), safe="/-._~!$&'()*+,;=:@%")


async def _redirect(send: Send, location: str, set_cookie: str | None) -> None:
    headers = [(b"location", location.encode("latin-1"))]
    if set_cookie is not None:
        headers.append((b"set-cookie", set_cookie.encode()))
    await send(
        {
            "type": "http.response.start",
            "status": 303,
            "headers": [
                *headers,
                (b"cache-control", b"no-store"),
                (b"content-length", b"0"),
                *SECURITY_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": b""})


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The request's body, or None past `limit` bytes."""
    body = b""
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        body += bytes(message.get("body", b""))
        if len(body) > limit:
            return None
        if not message.get("more_body", False):
            return body


async def _plain(send: Send, status: int, body: bytes, set_cookie: str | None = None) -> None:
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        *([(b"set-cookie", set_cookie.encode())] if set_cookie else []),
        *SECURITY_HEADERS,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if status == 204 else body})


def _headers(scope: Scope) -> dict[str, str]:
    result: dict[str, str] = {}
    for key, value in scope.get("headers", []):
        name = key.decode("latin-1").lower()
        # A repeated Host or Origin header is suspicious: keep the first, and a mismatch fails the check.
        result.setdefault(name, value.decode("latin-1"))
    return result


def _cookie_value(cookie_header: str | None, name: str) -> str | None:
    if not cookie_header:
        return None
    # Not SimpleCookie: it stops at the first cookie it finds invalid, so any odd cookie another app on
    # localhost set (cookies ignore the port) would hide ours. This parser reads cookies as browsers do.
    return cookie_parser(cookie_header).get(name)


def _with_security_headers(send: Send) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            existing = {k.lower() for k, _ in message.get("headers", [])}
            extra = [(k, v) for k, v in SECURITY_HEADERS if k not in existing]
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return wrapped


def _clearing(cookie_header: str) -> list[tuple[bytes, bytes]]:
    """`Set-Cookie` headers that expire every cookie named in `cookie_header` (at path `/`), ours too."""
    names = dict.fromkeys(cookie_parser(cookie_header))
    return [(b"set-cookie", f"{name}=; Max-Age=0; Path=/".encode("latin-1", "replace")) for name in names]


async def _respond(send: Send, refusal: Refusal, extra: Iterable[tuple[bytes, bytes]] = ()) -> None:
    """Refuse with a page that says what happened and what to do (HTML, under the same strict CSP)."""
    status = refusal.status
    body = refusal.html().encode()
    headers: Iterable[tuple[bytes, bytes]] = [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        *SECURITY_HEADERS,
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": list(headers)})
    await send({"type": "http.response.body", "body": body})
