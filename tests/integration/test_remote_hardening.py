"""Remote endpoints that misbehave on purpose: a Streamable HTTP answer that never ends, or ends too
slowly, is an error that says so (and bounded memory), not a server that grows or waits without end."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from tests.support.driver import SessionDriver
from tests.support.polling import eventually
from tests.support.remote_agents import hostile_http, remote_settings_file, running
from webclient.acp.models import AgentStatus
from webclient.acp.remote import http_stream
from webclient.agent_config import ConfigError
from webclient.domain.items import NoticeItem
from webclient.settings import Settings


@asynccontextmanager
async def driving(tmp_path: Path, url: str, initialize_timeout: float = 60) -> AsyncIterator[SessionDriver]:
    config = remote_settings_file(tmp_path / "settings.json", url, token=None)
    settings = Settings(
        agent="remote", config=config, cwd=tmp_path, flush_interval=0, initialize_timeout=initialize_timeout
    )
    driver = SessionDriver(settings)
    await driver.start()
    try:
        yield driver
    finally:
        await driver.shutdown()


def notices(driver: SessionDriver) -> str:
    return "\n".join(i.notice.text for i in driver.state.items if isinstance(i, NoticeItem))


async def failed_with(driver: SessionDriver, text: str) -> None:
    await eventually(
        lambda: driver.state.agent_status is AgentStatus.EXITED and text in notices(driver),
        60,
        f"the agent failed, saying {text!r}",
        lambda: notices(driver),
    )


async def test_an_initialize_answer_that_never_ends_is_cut_at_the_message_cap_and_said(
    tmp_path: Path,
) -> None:
    with running(hostile_http("flood")) as server:
        async with driving(tmp_path, server.url("http")) as driver:
            await failed_with(driver, "sent more than 16,777,216 bytes in its answer to ACP's initialize")


async def test_an_initialize_answer_that_trickles_forever_ends_at_its_deadline_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http_stream, "POST_DEADLINE", 2.0)
    with running(hostile_http("trickle")) as server:
        async with driving(tmp_path, server.url("http")) as driver:
            await failed_with(driver, "did not finish its answer to ACP's initialize within 2 s")


@pytest.mark.parametrize("name", ["WEBCLIENT_TOKEN", "WEBCLIENT_STATE_DIR", "webclient_token"])
def test_a_header_naming_a_webclient_setting_is_a_settings_error_and_its_value_goes_nowhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    secret = "the-sign-in-token-0123456789"
    monkeypatch.setenv(name, secret)
    config = tmp_path / "settings.json"
    entry = {"url": "http://127.0.0.1:1/acp", "headers": {"X-Leak": f"${{{name}}}"}}
    config.write_text(json.dumps({"agent_servers": {"remote": entry}}), encoding="utf-8")
    settings = Settings(agent="remote", config=config, cwd=tmp_path)
    with pytest.raises(
        ConfigError, match=rf"\$\{{{name}\}} names one of webclient's own settings"
    ) as refused:
        _ = settings.catalog
    assert secret not in str(refused.value)


async def test_an_endpoint_that_never_answers_shows_the_attempt_and_its_deadline_while_starting(
    tmp_path: Path,
) -> None:
    with running(hostile_http("silent")) as server:
        async with driving(tmp_path, server.url("http"), initialize_timeout=5) as driver:
            url = server.url("http")
            said = f"connecting to the remote agent at {url} (attempt 1): it has 5 s to answer"
            await eventually(
                lambda: said in notices(driver), 30, "where and how long", lambda: notices(driver)
            )
            assert driver.state.agent_status is AgentStatus.STARTING  # said while it still waits
            await failed_with(driver, "did not answer")  # then the deadline's end, said too
