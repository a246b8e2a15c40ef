"""A single malformed or absurd message never leaves a session stuck: it is a notice (or is read as
empty), and the session goes on. Each case once left the agent stuck with no notice and no Restart.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.html import Page, status_is, turn_finished
from tests.support.live import Serve, Tab, open_tab


async def ready_tab(serve: Serve, version: str, start: str) -> Tab:
    server = serve("absurd", version, start, env={"WEBCLIENT_PROTOCOL": version})
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"), timeout=60)
    return tab


async def still_going(tab: Tab, word: str) -> None:
    await tab.send(action="prompt", text=word)
    await tab.wait_for(turn_finished(word), timeout=60)
    assert f"still here after {word}" in Page.parse(tab.html).agent_text


@pytest.mark.parametrize("version", ["1", "2"])
async def test_a_message_nested_900_levels_deep_is_cut_and_the_session_goes_on(
    serve: Serve, version: str
) -> None:
    tab = await ready_tab(serve, version, "none")
    await still_going(tab, "deep")
    assert Page.parse(tab.html).notices_with("malformed agent_message_chunk update was ignored")
    await still_going(tab, "again")


@pytest.mark.parametrize("version", ["1", "2"])
async def test_messages_whose_ids_are_arrays_are_garbage_and_the_session_goes_on(
    serve: Serve, version: str
) -> None:
    tab = await ready_tab(serve, version, "none")
    await still_going(tab, "array-id")
    assert Page.parse(tab.html).notices_with("not JSON-RPC")  # said, with the line in the details
    await still_going(tab, "again")


async def test_a_cost_of_4000_digits_is_left_out_and_the_session_goes_on(serve: Serve) -> None:
    tab = await ready_tab(serve, "2", "none")
    await still_going(tab, "cost")
    await still_going(tab, "again")
    assert "9999999999" not in Page.parse(tab.html).agent_text


@pytest.mark.parametrize(
    ("version", "start"),
    [
        ("1", "auth-number"),
        ("2", "auth-number"),
        ("1", "args"),
        ("2", "args"),
        ("1", "modes"),
        ("1", "vars-object"),
    ],
)
async def test_answers_whose_lists_are_other_types_read_as_empty(
    serve: Serve, version: str, start: str
) -> None:
    tab = await ready_tab(serve, version, start)
    await still_going(tab, "hello")


async def test_a_sign_in_variable_that_cannot_be_a_name_is_never_offered_nor_saved(
    serve: Serve, tmp_path: Path
) -> None:
    xdg = tmp_path / "xdg"
    server = serve("absurd", "1", "vars", env={"XDG_CONFIG_HOME": str(xdg), "WEBCLIENT_PROTOCOL": "1"})
    tab = await open_tab(server)
    await tab.wait_for(status_is("auth-required"), timeout=60)
    await tab.wait_for(lambda html: bool(Page.parse(html).in_auth("auth-var")))
    names = [field.attrs["name"] for field in Page.parse(tab.html).in_auth("auth-var")]
    assert names == ["var.API_KEY"]
    [unusable] = Page.parse(tab.html).in_auth("auth-unusable-vars")  # said, not silently dropped
    assert "asks for A=B, which cannot be the name of an environment variable" in unusable.text

    await tab.send(
        action="sign_in_env", method_id="key", remember="on", **{"var.A=B": "x", "var.API_KEY": "k"}
    )
    await tab.wait_for(status_is("ready"), timeout=60)
    saved = json.loads((xdg / "webclient" / "settings.json").read_text())
    [entry] = saved["agent_servers"].values()
    assert entry["env"] == {"API_KEY": "k"}
    await still_going(tab, "hello")
