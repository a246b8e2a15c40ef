"""Updates for session ids an agent made up are one notice per session of ours, with a count and the
latest ids cut short, not a notice each (100,000 chunks over 50 ids once made pages of 40 MB)."""

from __future__ import annotations

import pytest

from tests.support.html import Page, status_is, turn_finished
from tests.support.live import Serve, open_tab


@pytest.mark.parametrize("mode, version", [("made-up", "1"), ("made-up-v2", "2")], ids=["v1", "v2"])
async def test_updates_for_made_up_sessions_are_one_notice_with_a_count_and_short_ids(
    serve: Serve, mode: str, version: str
) -> None:
    server = serve("memory_floods", mode, env={"WEBCLIENT_PROTOCOL": version})
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"), timeout=120)
    for n, total in ((1, "5,000"), (2, "10,000")):  # the second turn's updates join the same notice
        await tab.send(action="prompt", text=f"flood {n}")
        await tab.wait_for(turn_finished(f"flood {n}"), timeout=300)
        await tab.wait_for(lambda html, total=total: f"{total} in all" in html, timeout=60)
    page = Page.parse(tab.html)
    [notice] = page.notices_with("unknown session")
    assert "'made-up-48'" in notice and "(1,048,576 characters)" in notice
    assert len(notice) < 1000  # the 1 MiB id is cut short
    assert len(tab.html) < 512 * 1024  # not 10,000 notices
