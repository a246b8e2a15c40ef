"""AccessPolicy: which hosts, origins, tokens and cookies this server accepts."""

from __future__ import annotations

import hmac

import pytest

from webclient.web.security import AccessPolicy

PORT = 8765
TOKEN = "t0ken-" + "x" * 26
SECRET = "cookie-secret-value"


@pytest.fixture
def policy() -> AccessPolicy:
    return AccessPolicy(port=PORT, token=TOKEN, cookie_secret=SECRET)


def test_allowed_hosts_are_the_loopback_names_with_our_port(policy: AccessPolicy) -> None:
    assert policy.allowed_hosts == {"127.0.0.1:8765", "localhost:8765", "[::1]:8765"}


def test_allowed_origins_are_http_urls_of_the_allowed_hosts(policy: AccessPolicy) -> None:
    assert policy.allowed_origins == {"http://127.0.0.1:8765", "http://localhost:8765", "http://[::1]:8765"}


def test_extra_hosts_are_added_lower_cased() -> None:
    policy = AccessPolicy(port=9000, token=TOKEN, extra_hosts=("MyBox.Local",))
    assert "mybox.local:9000" in policy.allowed_hosts
    assert policy.host_ok("MYBOX.local:9000")
    assert policy.origin_ok("http://mybox.local:9000")


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "LOCALHOST:8765", "LocalHost:8765", "[::1]:8765"])
def test_host_check_accepts_our_hosts_in_any_case(policy: AccessPolicy, host: str) -> None:
    assert policy.host_ok(host)


@pytest.mark.parametrize(
    "host",
    [
        None,
        "",
        "localhost",
        "127.0.0.1",
        "localhost:8766",
        "evil.example:8765",
        "127.0.0.1:8765.evil.example",
        "0.0.0.0:8765",
        "::1:8765",
        " localhost:8765",
    ],
)
def test_host_check_refuses_anything_else(policy: AccessPolicy, host: str | None) -> None:
    assert not policy.host_ok(host)


@pytest.mark.parametrize("origin", ["http://127.0.0.1:8765", "HTTP://LOCALHOST:8765", "http://[::1]:8765"])
def test_origin_check_accepts_our_origins_in_any_case(policy: AccessPolicy, origin: str) -> None:
    assert policy.origin_ok(origin)


@pytest.mark.parametrize(
    "origin",
    [
        None,
        "",
        "null",
        "https://localhost:8765",
        "http://localhost:8766",
        "http://localhost",
        "http://evil.example",
        "http://localhost:8765/",
        "localhost:8765",
    ],
)
def test_origin_check_refuses_anything_else(policy: AccessPolicy, origin: str | None) -> None:
    assert not policy.origin_ok(origin)


def test_token_ok_accepts_only_the_exact_token(policy: AccessPolicy) -> None:
    assert policy.token_ok(TOKEN)
    assert not policy.token_ok(TOKEN + "x")
    assert not policy.token_ok(TOKEN[:-1])
    assert not policy.token_ok(TOKEN.upper())
    assert not policy.token_ok("")
    assert not policy.token_ok(None)


def test_token_ok_does_not_choke_on_non_ascii(policy: AccessPolicy) -> None:
    assert not policy.token_ok("tøken-ünïcode")


def test_token_ok_compares_in_constant_time(policy: AccessPolicy, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    assert not policy.token_ok("wrong")
    assert policy.token_ok(TOKEN)
    assert calls == [(b"wrong", TOKEN.encode()), (TOKEN.encode(), TOKEN.encode())]


def test_cookie_name_includes_the_port_so_two_servers_do_not_clash() -> None:
    assert AccessPolicy(port=1, token=TOKEN).cookie_name != AccessPolicy(port=2, token=TOKEN).cookie_name


def test_each_policy_gets_its_own_cookie_secret_by_default() -> None:
    assert (
        AccessPolicy(port=PORT, token=TOKEN).cookie_secret
        != AccessPolicy(port=PORT, token=TOKEN).cookie_secret
    )


def test_set_cookie_header_is_http_only_strict_and_site_wide(policy: AccessPolicy) -> None:
    header = policy.set_cookie_header()
    name_value, *flags = [part.strip() for part in header.split(";")]
    assert name_value == f"webclient_{PORT}={SECRET}"
    assert set(flags) == {"HttpOnly", "SameSite=Strict", "Path=/"}


def test_the_cookie_we_set_is_the_cookie_we_accept(policy: AccessPolicy) -> None:
    assert policy.cookie_ok(policy.set_cookie_header().split(";")[0])


@pytest.mark.parametrize(
    "header",
    [
        f"webclient_{PORT}={SECRET}",
        f"theme=dark; webclient_{PORT}={SECRET}; lang=en",
        f"webclient_{PORT}={SECRET};other=1",
        f'webclient_{PORT}="{SECRET}"',
        # Other apps on localhost share our cookie jar (cookies ignore the port); their odd cookies
        # must not hide ours.
        f'prefs={{"a":1}}; webclient_{PORT}={SECRET}',
        f"msg=hello world; webclient_{PORT}={SECRET}",
        f'half="quoted; webclient_{PORT}={SECRET}',
        f"user@host=1; webclient_{PORT}={SECRET}",
    ],
)
def test_cookie_ok_finds_the_right_cookie(policy: AccessPolicy, header: str) -> None:
    assert policy.cookie_ok(header)


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "theme=dark",
        f"webclient_{PORT}=wrong",
        f"webclient_{PORT}={SECRET}x",
        f"webclient_{PORT}=",
        f"webclient_{PORT + 1}={SECRET}",
        f"xwebclient_{PORT}={SECRET}",
        f"webclient_{PORT}",
        SECRET,
        "===;;;",
        ";",
        "\x00\xff",
    ],
)
def test_cookie_ok_refuses_missing_wrong_or_malformed_cookies(
    policy: AccessPolicy, header: str | None
) -> None:
    assert not policy.cookie_ok(header)
