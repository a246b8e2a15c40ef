"""A headless Chromium driven over the DevTools protocol with a plain WebSocket: nothing between us and it.

Playwright's driver adds a process and a round trip per call, which would be measured along with the
page; here the timing happens inside the page (`performance.now()`, a MutationObserver) and this module
only starts the browser, opens pages, evaluates scripts and reads the results afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import websockets

# The benchmark drives the Chromium the browser tests drive (the one `make test` installed), found the
# same way: bench/ runs as a script, so the checkout's root goes on the path for tests.support.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.support import chromium

DEVTOOLS_URL = re.compile(r"DevTools listening on (ws://\S+)")


def chromium_path() -> str:
    found = chromium.chromium_path()
    if found is None:
        raise SystemExit("no Chromium found: run `make browser`, or set WEBCLIENT_CHROMIUM")
    return found


class Page:
    """One tab, attached through a flat CDP session."""

    def __init__(self, browser: Browser, session_id: str, target_id: str) -> None:
        self._browser = browser
        self.session_id = session_id
        self.target_id = target_id

    async def call(self, method: str, **params: Any) -> Any:
        return await self._browser.call(method, session_id=self.session_id, **params)

    async def evaluate(self, expression: str) -> Any:
        """Run a script in the page (DevTools scripts are not bound by its CSP); return its value."""
        result = await self.call(
            "Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def wait_for(self, expression: str, timeout: float = 120.0, every: float = 0.05) -> Any:
        """Poll until `expression` is truthy in the page; return its value."""
        deadline = asyncio.get_running_loop().time() + timeout
        while not (value := await self.evaluate(expression)):
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"timed out waiting for {expression!r}")
            await asyncio.sleep(every)
        return value

    async def goto(self, url: str) -> None:
        await self.call("Page.navigate", url=url)
        await self.wait_for("document.readyState === 'complete'")

    async def main_thread_seconds(self) -> float:
        """The renderer's main-thread busy time so far (`TaskDuration`), the browser's CPU for this page."""
        metrics = await self.call("Performance.getMetrics")
        return float(next(m["value"] for m in metrics["metrics"] if m["name"] == "TaskDuration"))

    async def close(self) -> None:
        await self._browser.call("Target.closeTarget", targetId=self.target_id)


class Browser:
    def __init__(self, socket: Any) -> None:
        self._socket = socket
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        # Events by method name (a trace's data, say): each handler gets the event's params.
        self.listeners: dict[str, list[Callable[[dict[str, Any]], None]]] = {}
        self._reader = asyncio.create_task(self._read())

    async def call(self, method: str, session_id: str | None = None, **params: Any) -> Any:
        message_id = next(self._ids)
        message: dict[str, Any] = {"id": message_id, "method": method, "params": params}
        if session_id is not None:
            message["sessionId"] = session_id
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[message_id] = future
        await self._socket.send(json.dumps(message))
        return await future

    async def new_page(self, width: int = 1280, height: int = 800) -> Page:
        target = await self.call("Target.createTarget", url="about:blank")
        attached = await self.call("Target.attachToTarget", targetId=target["targetId"], flatten=True)
        page = Page(self, attached["sessionId"], target["targetId"])
        for domain in ("Page", "Runtime", "Performance"):
            await page.call(f"{domain}.enable")
        await page.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        return page

    async def _read(self) -> None:
        async for raw in self._socket:
            message = json.loads(raw)
            if "method" in message:  # an event
                for handler in self.listeners.get(message["method"], ()):
                    handler(message.get("params", {}))
                continue
            future = self._waiting.pop(message.get("id", -1), None)
            if future is None or future.done():
                continue
            if "error" in message:
                future.set_exception(RuntimeError(f"CDP error: {message['error']}"))
            else:
                future.set_result(message.get("result", {}))


@contextlib.asynccontextmanager
async def launch() -> AsyncIterator[Browser]:
    """A headless Chromium with a throwaway profile; closed and reaped on exit."""
    profile = tempfile.mkdtemp(prefix="webclient-bench-")
    argv = [
        chromium_path(),
        "--headless=new",
        "--remote-debugging-port=0",
        f"--user-data-dir={profile}",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--no-sandbox",
        "about:blank",
    ]
    # A group of its own: some launchers (Debian's chromium-headless-shell) are shell scripts that do not
    # exec the browser, so stopping the launcher alone would leave the browser running.
    process = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        url = await asyncio.to_thread(_devtools_url, process)
        async with websockets.connect(url, max_size=None, ping_interval=None) as socket:
            browser = Browser(socket)
            try:
                yield browser
            finally:
                browser._reader.cancel()
    finally:
        _signal_group(process, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            _signal_group(process, signal.SIGKILL)
            process.wait()
        shutil.rmtree(profile, ignore_errors=True)


def _signal_group(process: subprocess.Popen[str], signum: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signum)


def _devtools_url(process: subprocess.Popen[str]) -> str:
    assert process.stderr is not None
    for line in process.stderr:
        if match := DEVTOOLS_URL.search(line):
            # Keep draining stderr so Chromium never blocks on a full pipe.
            threading.Thread(target=_drain, args=(process,), daemon=True).start()
            return match.group(1)
    raise RuntimeError("Chromium exited before it listened for DevTools")


def _drain(process: subprocess.Popen[str]) -> None:
    assert process.stderr is not None
    for _ in process.stderr:
        pass
