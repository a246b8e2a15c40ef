"""Memory is bounded by configuration, not by what an agent sends: each path that once kept everything
is flooded through a real server, and the server's peak resident set may grow by at most 50 MiB.

Before: 60 released terminals 65 -> 330 MiB; 150 display terminals 64 -> 257 MiB; 60 made-up session
ids in the protocol log 65 -> 381 MiB; updates for a session still opening 63 -> 325 MiB.
"""

from __future__ import annotations

from functools import partial

import pytest

from tests.support.html import finished
from tests.support.live import LiveServer, Serve, Tab, open_tab

# Floods through a real server, a minute of CPU and more: `make test` runs them, not `make test-fast`.
pytestmark = pytest.mark.slow

MiB = 1024 * 1024


def peak_rss(server: LiveServer) -> int:
    """The server's peak resident set (VmHWM), in bytes."""
    with open(f"/proc/{server.popen.pid}/status") as status:
        for row in status:
            if row.startswith("VmHWM:"):
                return int(row.split()[1]) * 1024
    raise AssertionError("no VmHWM")


# A flood's tab receives hundreds of MB: its waits check the page built frame by frame (`wait_for_page`).
async def ready(server: LiveServer) -> Tab:
    tab = await open_tab(server)
    await tab.wait_for_page(lambda page: page.status == "ready", timeout=120)
    return tab


async def flood(tab: Tab, server: LiveServer, turns: int) -> float:
    before = peak_rss(server)
    for n in range(turns):
        text = f"flood {n}"
        await tab.send(action="prompt", text=text)
        await tab.wait_for_page(partial(finished, prompt=text), timeout=300)
    grown = (peak_rss(server) - before) / MiB
    print(f"server peak RSS grew by {grown:.0f} MiB over {turns} floods")
    return grown


@pytest.mark.parametrize(
    ("mode", "version", "turns"), [("terminals", "1", 3), ("display", "2", 3), ("sessions", "1", 3)]
)
async def test_a_flood_grows_the_servers_memory_by_at_most_50_mib(
    serve_process: Serve, mode: str, version: str, turns: int
) -> None:
    server = serve_process("memory_floods", mode, env={"WEBCLIENT_PROTOCOL": version})
    tab = await ready(server)
    assert await flood(tab, server, turns) <= 50
    assert "flooded" in tab.page.agent_text


async def test_updates_for_a_session_still_opening_are_bounded_and_said(serve_process: Serve) -> None:
    quiet = serve_process(
        "memory_floods", "none"
    )  # the same server and agent, without the flood: the baseline
    await ready(quiet)
    server = serve_process(
        "memory_floods", "opening"
    )  # 3000 updates of 50 KiB before session/new is answered
    tab = await ready(server)
    page = await tab.wait_for_page(
        lambda page: bool(page.notices_with("updates before it answered the opening")), timeout=120
    )
    assert page.notices_with("the oldest were dropped")
    grown = (peak_rss(server) - peak_rss(quiet)) / MiB
    print(f"peak RSS {grown:.0f} MiB above a server whose agent sent nothing")
    assert grown <= 50
