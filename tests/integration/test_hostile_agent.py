"""A misbehaving agent cannot stall or bloat the server: live servers against hostile scripted agents.

Memory figures are the server process's peak resident set (VmHWM in /proc), so a test fails if the
server ever held what the agent sent, not only if it still holds it at the end.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.html import Page, has_notice, status_is, turn_finished
from tests.support.live import Serve, http_get, open_tab

# Whole processes driven from outside: `make test` runs it, `make test-fast` leaves it out.
pytestmark = pytest.mark.system

MiB = 1024 * 1024


def peak_rss(pid: int) -> int:
    """The process's peak resident set size in bytes (Linux)."""
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith("VmHWM:"):
            return int(row.split()[1]) * 1024
    raise AssertionError("no VmHWM in /proc status")


async def test_an_endless_stdout_line_stops_the_agent_with_a_notice_and_memory_stays_bounded(
    serve_process: Serve,
) -> None:
    server = serve_process("endless_line")
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"))
    before = peak_rss(server.popen.pid)

    await tab.send(action="prompt", text="go")
    await tab.wait_for(has_notice("without a newline"), timeout=60)
    await tab.wait_for(status_is("exited"), timeout=30)

    page = Page.parse(tab.html)
    [notice] = page.notices_with("longer than 16 MiB without a newline")
    assert "webclient stopped the agent so that memory stays bounded" in notice
    assert page.texts("agent") == ["here it comes"]  # the transcript stays
    assert page.texts("user") == ["go"]
    peak = peak_rss(server.popen.pid)
    print(f"server peak RSS: {before / MiB:.0f} MiB before, {peak / MiB:.0f} MiB after a 200 MiB line")
    # The agent sent 200 MiB; the server may hold the 16 MiB cap a few times over, never the line.
    assert peak - before < 80 * MiB


async def test_a_flood_of_huge_stderr_lines_gives_an_exit_notice_of_at_most_64_kib(
    serve_process: Serve,
) -> None:
    server = serve_process("stderr_bomb")
    tab = await open_tab(server)

    await tab.wait_for(status_is("exited"), timeout=60)

    page = Page.parse(tab.html)
    [notice] = page.notices_with("code 3")
    assert "the real error: config file missing" in notice  # the last line, whole
    assert "line 29: eeee" in notice and "more bytes cut]" in notice  # long lines, cut with a marker
    assert len(notice.encode()) < 70 * 1024
    assert len(tab.html.encode()) < 200 * 1024  # what went over the WebSocket, all frames together
    peak = peak_rss(server.popen.pid)
    print(f"server peak RSS after 450 MiB of stderr: {peak / MiB:.0f} MiB")
    assert peak < 150 * MiB


async def test_fifty_big_attachments_in_a_prompt_are_refused_and_the_agent_gets_nothing(
    serve_process: Serve,
) -> None:
    # The composer's attachments live on the server; a prompt names them by short ids. A tab that sends
    # content instead (50 blocks of 190,000 characters) is refused before anything is parsed.
    server = serve_process("echo_agent")
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"))
    block = json.dumps({"type": "text", "text": "A" * 190_000})

    await tab.send(action="prompt", text="hi", attachments=[block] * 50)
    await tab.wait_for(has_notice("the browser sent a request this server does not understand"), timeout=30)
    await tab.send(action="prompt", text="still there?")
    await tab.wait_for(turn_finished("still there?"))

    page = Page.parse(tab.html)
    assert page.texts("user") == ["still there?"]  # the refused prompt never reached the transcript
    assert page.texts("agent") == ["You said: still there?"]  # nor the agent


async def test_the_inspector_keeps_a_bounded_number_of_bytes_and_says_how_much_it_dropped(
    serve_process: Serve,
) -> None:
    # 24 updates of 5 MiB: 120 MiB, several times the inspector's 16 MiB cap (holding them all once
    # took 326 MiB for 300 MiB sent); more would only make the test slower.
    server = serve_process("huge_tool_updates", "24")
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"))
    before = peak_rss(server.popen.pid)

    await tab.send(action="prompt", text="go")
    await tab.wait_for(turn_finished("go"), timeout=120)

    peak = peak_rss(server.popen.pid)
    print(f"server peak RSS: {before / MiB:.0f} MiB before, {peak / MiB:.0f} MiB after 120 MiB of updates")
    assert peak - before < 90 * MiB  # the cap and one update in flight, not what was sent
    await tab.send(action="inspector", open=True)
    await tab.wait_for(lambda html: "were dropped to keep memory bounded" in html, timeout=30)
    notes = re.findall(r'data-testid="inspector-note" data-dropped="(\d+)"[^>]*>([^<]*)', tab.html)
    dropped, text = notes[-1]
    assert int(dropped) >= 18
    assert f"{dropped} older entries were dropped to keep memory bounded" in " ".join(text.split())
    cookie = server.cookie()
    kept = http_get(server.base + "/s/s1/inspector.jsonl", headers={"cookie": cookie}, timeout=30)
    assert kept.status_code == 200 and len(kept.content) < 24 * MiB


async def test_lone_surrogates_in_a_chunk_a_title_and_a_stored_title_show_marked_and_pages_still_load(
    serve_process: Serve,
) -> None:
    # A JavaScript agent that cuts a string inside an emoji sends half of a surrogate pair; one used to
    # make the session's page (a chunk), every page (a title) or every start (a stored title) answer 500.
    server = serve_process("broken_text")
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"))
    await tab.wait_for(lambda html: "stored \ufffd" in html)  # the agent's stored session, in the sidebar

    await tab.send(action="prompt", text="go")
    await tab.wait_for(turn_finished("go"))
    await tab.wait_for(lambda html: "\ufffd title" in html)

    assert Page.parse(tab.html).texts("agent") == ["cut here \ufffd, and here \ufffd."]
    headers = {"cookie": server.cookie()}
    page = http_get(server.base + "/s/s1", headers=headers, timeout=30)
    assert page.status_code == 200, page.text[:500]
    assert "\ufffd title" in page.text and "stored \ufffd" in page.text
    fresh = await open_tab(server)
    await fresh.wait_for(lambda html: "cut here \ufffd, and here \ufffd." in html)
    log = http_get(server.base + "/s/s1/inspector.jsonl", headers=headers, timeout=30)
    assert log.status_code == 200 and "\ufffd title" in log.text
