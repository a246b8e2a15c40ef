"""A server running a presentation study, for the browser tests of studies and presets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.browser import AGENT_STARTUP_TIMEOUT
from tests.support.live import LiveServer, serve_in_thread
from tests.support.sessions import wait_until_agent_ready


@contextmanager
def study_server(study: dict[str, Any], root: Path, workspace: Path) -> Iterator[LiveServer]:
    """Serve `study` (written as `root/study.json`; a `replay` in it runs that recording) over `workspace`,
    with the server's state under `root/state`; yield it once its agent is ready."""
    path = root / "study.json"
    path.write_text(json.dumps(study))
    serving = serve_in_thread(
        cwd=workspace,
        extra_args=["--study", str(path)],
        state_dir=root / "state",
        startup_timeout=AGENT_STARTUP_TIMEOUT,
    )
    with serving as live:
        wait_until_agent_ready(live, AGENT_STARTUP_TIMEOUT)
        yield live
