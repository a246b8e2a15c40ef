"""One heavy but legal message (a huge diff or file write, a flood of suggestions, one endless suggestion,
a huge user chunk) neither freezes the server nor makes later pages slow: each is shown bounded.

The figures printed are the worst wait of another client's requests while the message was handled, and
the time of a later page load; the assertions hold them to generous bounds (the machine is shared), far
under what the unbounded rendering took (20 to 37 s, and again at every page load).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.html import Page, status_is, turn_finished
from tests.support.live import LiveServer, Serve, Tab, http_get, open_tab

MiB = 1024 * 1024


@contextmanager
def other_client(server: LiveServer) -> Iterator[list[float]]:
    """Another client's small requests, one after another while the block runs: their waits, in seconds."""
    waits: list[float] = []
    stop = threading.Event()

    def probe() -> None:
        while not stop.is_set():
            started = time.perf_counter()
            http_get(server.base + "/favicon.ico", timeout=120)
            waits.append(time.perf_counter() - started)

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    try:
        yield waits
    finally:
        stop.set()
        thread.join(timeout=130)


def page_load(server: LiveServer) -> tuple[float, str]:
    started = time.perf_counter()
    page = http_get(server.base + "/s/s1", headers={"cookie": server.cookie()}, timeout=120)
    assert page.status_code == 200
    return time.perf_counter() - started, page.text


async def heavy_turn(server: LiveServer, prompt: str) -> tuple[Tab, float, float, str]:
    tab = await open_tab(server)
    await tab.wait_for(status_is("ready"), timeout=60)
    with other_client(server) as waits:
        await tab.send(action="prompt", text=prompt)
        await tab.wait_for(turn_finished(prompt), timeout=120)
    load, html = page_load(server)
    worst = max(waits)
    print(f"{prompt}: other client's worst wait {worst * 1000:.0f} ms, later page load {load * 1000:.0f} ms")
    return tab, worst, load, html


# A regression bound, not the target: the unbounded code stalls 20 to 37 s, bounded it takes a second or
# less on an idle machine (the figures are printed), and a machine busy with other test runs has shown 8 s.
STALL_BOUND = 10.0


@pytest.fixture
def server(serve: Serve) -> LiveServer:
    return serve("big_items")


async def test_a_diff_of_100000_lines_shows_its_sizes_and_ends_and_downloads_whole(
    server: LiveServer,
) -> None:
    tab, worst, load, html = await heavy_turn(server, "diff")

    assert worst < STALL_BOUND and load < STALL_BOUND  # unbounded: 27.8 s, then 25.6 s at each page load
    assert 'data-testid="diff-summary"' in html and 'data-testid="diff"' not in html
    assert "100,000 lines" in html and len(html.encode()) < MiB
    link = r'href="(/agent-text/\w+)" download data-testid="diff-download" data-side="after"'
    [after] = re.findall(link, html)
    whole = http_get(server.base + after, headers={"cookie": server.cookie()}, timeout=60)
    assert whole.status_code == 200 and "attachment" in whole.headers["content-disposition"]
    assert whole.text == "".join(f"line {n % 5}\n" for n in range(100_000))
    assert len(tab.html.encode()) < 2 * MiB  # what went over the WebSocket, all frames together


async def test_a_file_write_of_100000_lines_is_written_and_shown_bounded(
    server: LiveServer, workspace: Path
) -> None:
    target = workspace / "big.txt"
    target.write_text("".join(f"line {n % 7}\n" for n in range(100_000)))

    tab, worst, load, html = await heavy_turn(server, f"write {target}")

    assert worst < STALL_BOUND and load < STALL_BOUND  # unbounded: 20.1 s
    assert "ANSWER ok" in tab.html
    assert target.read_text() == "".join(f"line {n % 5}\n" for n in range(100_000))
    assert 'data-testid="diff-summary"' in html and len(html.encode()) < MiB


async def test_a_list_of_20000_suggestions_keeps_50_and_says_how_many_were_left_out(
    server: LiveServer,
) -> None:
    tab, worst, load, _ = await heavy_turn(server, "suggestions")

    assert worst < STALL_BOUND and load < STALL_BOUND  # unbounded: 37.4 s and an 89.8 MB frame
    latest = tab.html.rsplit('id="suggestions"', 1)[1]  # the list comes over the WebSocket
    assert latest.count('data-testid="suggestion" ') == 50
    [notice] = Page.parse(tab.html).notices_with("skipped suggestion 51")
    assert "the 19,949 after it were left out: a list offers at most 50 suggestions" in notice
    assert len(tab.html.encode()) < 4 * MiB


async def test_a_suggestion_of_5000000_characters_shows_bounded_is_never_sent_and_downloads_whole(
    server: LiveServer,
) -> None:
    tab, worst, load, page = await heavy_turn(server, "long-suggestion")

    assert worst < STALL_BOUND and load < STALL_BOUND  # unbounded: 23.2 s and a 25 MB page
    assert len(page.encode()) < MiB
    html = tab.html  # the list comes over the WebSocket
    assert len(html.encode()) < MiB
    assert "4,996,000 more characters are not shown" in html
    [link] = re.findall(r'href="(/agent-text/\w+)" download data-testid="suggestion-download"', html)
    whole = http_get(server.base + link, headers={"cookie": server.cookie()}, timeout=60)
    assert whole.status_code == 200 and whole.text == "L" * 5_000_000

    generation = int(re.findall(r'data-generation="(\d+)"', html)[-1])
    await tab.send(action="suggestion", generation=generation, index=1)
    await tab.wait_for(lambda seen: "so it was not sent" in seen, timeout=30)
    await tab.send(action="suggestion", generation=generation, index=0)  # the short one still goes
    await tab.wait_for(turn_finished("short one"), timeout=60)


async def test_a_user_chunk_of_5_mb_does_not_stall_other_clients_and_shows_bounded(
    server: LiveServer,
) -> None:
    tab, worst, load, page = await heavy_turn(server, "user-chunk")

    assert worst < 2.0 and load < 2.0  # a character-by-character scan for hidden characters: 3 s and more
    assert "done user-chunk" in tab.html
    # The page shows its start (shown whole, the browser took seconds to lay it out at every page load).
    assert len(page.encode()) < MiB and len(tab.html.encode()) < MiB
    assert "4,900,000 more characters are not shown" in page
    [link] = re.findall(r'href="(/agent-text/\w+)" download data-testid="user-text-download"', page)
    whole = http_get(server.base + link, headers={"cookie": server.cookie()}, timeout=60)
    assert whole.status_code == 200 and whole.text == "u" * 5_000_000
