"""Why a remote agent could not be reached, in words a user can act on.

Either transport's failure becomes `RemoteRefused` (it will fail again: credentials, TLS, not an ACP
endpoint) or `RemoteUnreachable` (it may work later: refused, network, a gateway's 5xx), so the
supervisor knows whether reconnecting is worth it.
"""

from __future__ import annotations

import ssl
from http import HTTPStatus
from urllib.parse import urlsplit, urlunsplit

import httpx
from websockets.exceptions import InvalidHandshake, InvalidStatus

from webclient.errors import AgentStartError, RemoteRefused, RemoteUnreachable


def shown_url(url: str) -> str:
    """The URL without user info or query (either may hold a secret), for messages and the page."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def http_refusal(url: str, status: int, what: str) -> AgentStartError:
    """The error for an HTTP `status` where `what` (an upgrade, an answer to initialize) was expected."""
    url = shown_url(url)
    try:
        phrase = f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        phrase = str(status)
    if status in (401, 403):
        return RemoteRefused(
            f"the remote agent at {url} refused the credentials (HTTP {phrase}): check the headers of "
            "its entry in the settings file (an Authorization header, a token from the environment)"
        )
    if status >= 500:
        return RemoteUnreachable(f"the remote agent at {url} answered HTTP {phrase} instead of {what}")
    return RemoteRefused(
        f"{url} answered HTTP {phrase} instead of {what}: it is not an ACP endpoint (check the path, "
        "and ws:// or http:// for the server's transport)"
    )


def refusal(url: str, exc: BaseException) -> AgentStartError:
    """The error for a connection attempt that raised `exc`."""
    if isinstance(exc, InvalidStatus):
        return http_refusal(url, exc.response.status_code, "a WebSocket upgrade")
    url = shown_url(url)
    tls = _tls_problem(exc)
    if tls is not None:
        return RemoteRefused(f"could not connect to {url} securely: {tls}")
    if isinstance(exc, InvalidHandshake):
        return RemoteRefused(f"{url} does not speak the WebSocket protocol ({exc})")
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.RemoteProtocolError):
        return RemoteRefused(
            f"{url} gave no usable HTTP answer ({exc}): it is not a Streamable HTTP endpoint of ACP (a "
            "WebSocket-only server, such as acpremote, needs a ws:// or wss:// URL)"
        )
    if _in_chain(exc, ConnectionRefusedError):
        return RemoteUnreachable(
            f"could not connect to the remote agent at {url}: connection refused (is its server running?)"
        )
    if isinstance(exc, TimeoutError | httpx.TimeoutException):
        return RemoteUnreachable(f"the remote agent at {url} did not answer in time")
    if isinstance(exc, OSError | httpx.TransportError):
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        return RemoteUnreachable(f"could not connect to the remote agent at {url}: {reason}")
    return RemoteUnreachable(f"could not connect to the remote agent at {url}: {exc}")


def _in_chain(exc: BaseException, kind: type[BaseException]) -> bool:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, kind):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _tls_problem(exc: BaseException) -> str | None:
    """What went wrong with TLS, if that is what failed (httpx wraps the ssl error in its own)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLCertVerificationError):
            return f"its TLS certificate could not be verified ({seen.verify_message})"
        if isinstance(seen, ssl.SSLError):
            return f"TLS failed ({seen.reason or seen})"
        seen = seen.__cause__ or seen.__context__
    text = str(exc)
    if "CERTIFICATE_VERIFY_FAILED" in text:
        return "its TLS certificate could not be verified"
    return None
