"""What the agent asks of the client: permissions (fail closed) and files (inside the workspace only)."""

from __future__ import annotations

import json
import os
import socket
import stat
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.driver import SessionDriver, answers, permission
from tests.support.live import scripted_agent
from tests.support.polling import eventually
from webclient.acp.models import AgentStatus, TextPart
from webclient.domain.files import MAX_FILE_BYTES
from webclient.domain.items import FileWriteItem, NoticeItem, PermissionState
from webclient.errors import Refused
from webclient.settings import Settings


@asynccontextmanager
async def running(workspace: Path, agent: str | None = None) -> AsyncIterator[SessionDriver]:
    """A started driver with `agent` (default: the scripted `asks_client`; "" is the demo agent)."""
    command = scripted_agent("asks_client") if agent is None else agent
    driver = SessionDriver(Settings(agent=command, cwd=workspace, flush_interval=0))
    await driver.start()
    try:
        await eventually(lambda: driver.state.agent_status is AgentStatus.READY, 20, "agent ready")
        yield driver
    finally:
        await driver.shutdown()


async def ask(driver: SessionDriver, text: str) -> dict[str, Any]:
    before = len(answers(driver))
    driver.submit_prompt([TextPart(text=text)])
    await eventually(lambda: len(answers(driver)) > before, 20, f"the answer to {text!r}")
    return answers(driver)[-1]


async def test_a_chosen_option_is_what_the_agent_receives_and_every_tab_sees_it(workspace: Path) -> None:
    async with running(workspace) as driver:
        driver.submit_prompt([TextPart(text="permission")])
        await eventually(lambda: permission(driver) is not None, 20, "the permission request")
        item = permission(driver)
        assert item is not None and item.state is PermissionState.PENDING
        assert [o.id for o in item.options] == ["allow", "deny"]

        driver.current.answer_permission(item.id, "allow")
        await eventually(lambda: bool(answers(driver)), 20, "the agent's report")
        assert answers(driver)[-1] == {"result": {"outcome": {"outcome": "selected", "optionId": "allow"}}}
        answered = permission(driver)  # the same item, read again: its state changed under the answer
        assert answered is item and answered.state is PermissionState.ANSWERED and answered.chosen == "Run it"
        # A second answer to the same request approves nothing.
        with pytest.raises(Refused, match="nothing was approved"):
            driver.current.answer_permission(item.id, "deny")


async def test_unknown_requests_and_unknown_options_are_never_taken_as_approval(workspace: Path) -> None:
    async with running(workspace) as driver:
        with pytest.raises(Refused, match="nothing was approved"):
            driver.current.answer_permission("perm-404", "allow")
        driver.submit_prompt([TextPart(text="permission")])
        await eventually(lambda: permission(driver) is not None, 20, "the permission request")
        item = permission(driver)
        assert item is not None
        with pytest.raises(Refused, match="nothing was approved"):
            driver.current.answer_permission(item.id, "allow_always")
        assert item.state is PermissionState.PENDING
        driver.current.answer_permission(item.id, "deny")
        await eventually(lambda: bool(answers(driver)), 20, "the agent's report")
        assert answers(driver)[-1]["result"]["outcome"] == {"outcome": "selected", "optionId": "deny"}


async def test_cancel_answers_a_pending_request_cancelled_and_a_late_answer_is_refused(
    workspace: Path,
) -> None:
    async with running(workspace) as driver:
        driver.submit_prompt([TextPart(text="permission")])
        await eventually(lambda: permission(driver) is not None, 20, "the permission request")
        item = permission(driver)
        assert item is not None
        await driver.cancel()
        await eventually(lambda: bool(answers(driver)), 20, "the agent's report")
        assert answers(driver)[-1]["result"]["outcome"] == {"outcome": "cancelled"}
        assert item.state is PermissionState.CANCELLED
        with pytest.raises(Refused, match="nothing was approved"):
            driver.current.answer_permission(item.id, "allow")


async def test_reads_inside_the_workspace_are_served_with_line_and_limit(workspace: Path) -> None:
    async with running(workspace) as driver:
        target = workspace / "notes.txt"
        target.write_text("one\ntwo\nthree\n")
        reply = await ask(driver, f"read {target}")
        assert reply == {"result": {"content": "one\ntwo\nthree\n"}}


async def test_reads_outside_the_workspace_get_a_json_rpc_error(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("top secret")
    (workspace / "escape").symlink_to(outside)
    async with running(workspace) as driver:
        for path in (str(outside), f"{workspace}/../secret.txt", str(workspace / "escape"), "relative.txt"):
            reply = await ask(driver, f"read {path}")
            assert "error" in reply and "result" not in reply, path
            assert "top secret" not in json.dumps(reply)


async def test_a_write_inside_the_workspace_lands_and_shows_in_the_transcript(workspace: Path) -> None:
    async with running(workspace) as driver:
        target = workspace / "src" / "new.txt"
        reply = await ask(driver, f"write {target} hello")
        assert reply == {"result": {}}
        assert target.read_text() == "hello"
        writes = [i for i in driver.state.items if isinstance(i, FileWriteItem)]
        assert [(w.path, w.old_text, w.new_text) for w in writes] == [(str(target), None, "hello")]


async def test_a_write_outside_the_workspace_is_refused_and_leaves_the_disk_alone(
    workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    async with running(workspace) as driver:
        reply = await ask(driver, f"write {outside} pwned")
        assert "error" in reply
        assert not outside.exists()
        assert not [i for i in driver.state.items if isinstance(i, FileWriteItem)]


# --- the same, end to end with the demo agent's `edit` scenario ----------------------------------------


@pytest.fixture
def demo_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo agent keeps its sessions in this test's folder and streams without delay."""
    monkeypatch.setenv("WEBCLIENT_DEMO_STATE_DIR", str(tmp_path / "demo-state"))
    monkeypatch.setenv("WEBCLIENT_DEMO_CHUNK_DELAY_MS", "0")


@pytest.mark.usefixtures("demo_env")
async def test_demo_edit_writes_through_the_client_only_after_the_user_allows_it(workspace: Path) -> None:
    target = workspace / "src" / "app.py"
    before = target.read_text()
    async with running(workspace, agent="") as driver:
        driver.submit_prompt([TextPart(text="edit src/app.py")])
        await eventually(lambda: permission(driver) is not None, 20, "the permission request")
        assert target.read_text() == before  # nothing is written before the answer
        item = permission(driver)
        assert item is not None
        allow = next(o.id for o in item.options if o.kind == "allow_once")
        driver.current.answer_permission(item.id, allow)
        await eventually(lambda: bool(writes(driver)), 20, "the write")
        assert writes(driver)[0].path == str(target)
        assert target.read_text() != before and target.read_text().startswith(before)
        sent = [m for d, m in driver.wire_log if d == "in" and m.get("method") == "fs/write_text_file"]
        assert [m["params"]["path"] for m in sent] == [str(target)]


@pytest.mark.usefixtures("demo_env")
async def test_demo_edit_cancelled_while_asking_writes_nothing_and_refuses_a_late_answer(
    workspace: Path,
) -> None:
    target = workspace / "src" / "app.py"
    before = target.read_text()
    async with running(workspace, agent="") as driver:
        driver.submit_prompt([TextPart(text="edit src/app.py")])
        await eventually(lambda: permission(driver) is not None, 20, "the permission request")
        item = permission(driver)
        assert item is not None
        await driver.cancel()
        await eventually(lambda: driver.state.turn.value == "idle", 20, "the turn to end")
        allow = next(o.id for o in item.options if o.kind == "allow_once")
        with pytest.raises(Refused, match="nothing was approved"):
            driver.current.answer_permission(item.id, allow)
        assert item.state is PermissionState.CANCELLED
        assert target.read_text() == before
        assert not writes(driver)


def writes(driver: SessionDriver) -> list[FileWriteItem]:
    return [i for i in driver.state.items if isinstance(i, FileWriteItem)]


# --- only regular files, never blocking the server ------------------------------------------------------


def notices(driver: SessionDriver) -> list[str]:
    return [i.notice.text for i in driver.state.items if isinstance(i, NoticeItem)]


async def test_a_fifo_is_neither_read_nor_written_and_the_server_stays_responsive(workspace: Path) -> None:
    fifo = workspace / "pipe"
    os.mkfifo(fifo)
    async with running(workspace) as driver:
        # Before, this read blocked the event loop until something wrote to the FIFO: the test hung.
        reply = await ask(driver, f"read {fifo}")
        assert reply["error"]["data"] == {"path": str(fifo)}
        assert "not a regular file" in reply["error"]["message"]
        reply = await ask(driver, f"write {fifo} pwned")
        assert "not a regular file" in reply["error"]["message"]
        assert stat.S_ISFIFO(fifo.stat().st_mode)
        assert not writes(driver)
        refused = [n for n in notices(driver) if n.startswith("refused the agent's request")]
        assert len(refused) == 2 and all("not a regular file" in n for n in refused)


async def test_a_unix_socket_is_not_read(workspace: Path) -> None:
    path = workspace / "s.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        server.listen(1)
        async with running(workspace) as driver:
            reply = await ask(driver, f"read {path}")
            assert "not a regular file" in reply["error"]["message"]


async def test_a_read_over_the_cap_gets_a_clear_error_but_a_slice_of_it_is_served(workspace: Path) -> None:
    big = workspace / "big.log"
    with big.open("w") as f:
        f.write("first line\n")
        f.write("x" * (MAX_FILE_BYTES + 10) + "\n")
        f.write("last line\n")
    async with running(workspace) as driver:
        reply = await ask(driver, f"read {big}")
        assert "more than the 10485760 bytes allowed" in reply["error"]["message"]
        assert "line and limit" in reply["error"]["message"]
        reply = await ask(driver, f"read {big} 3 1")
        assert reply == {"result": {"content": "last line\n"}}
