"""Fast unit tests of the demo agent's pure rules (no subprocess)."""

from __future__ import annotations

import asyncio
import base64
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from webclient.demo_agent.capabilities import SuggestionSupport
from webclient.demo_agent.config import DemoSettings
from webclient.demo_agent.images import tiny_png_base64
from webclient.demo_agent.intents import Intent, Kind, classify
from webclient.demo_agent.markdown import code, fenced
from webclient.demo_agent.offers import SuggestionOffers
from webclient.demo_agent.predictions import is_sendable
from webclient.demo_agent.store import SessionStore
from webclient.demo_agent.streaming import split_chunks
from webclient.demo_agent.workspace import Workspace, WorkspaceError


def params(prompt_suggestions: Any) -> dict[str, Any]:
    return {
        "protocolVersion": 1,
        "clientCapabilities": {"session": {"promptSuggestions": prompt_suggestions}},
    }


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (params({}), {"text", "resource_link"}),
        (params({"image": {}}), {"text", "resource_link", "image"}),
        (params({"embeddedContext": {}}), {"text", "resource_link", "resource"}),
        (params({"audio": {}}), {"text", "resource_link"}),  # we do not accept audio prompts ourselves
        (params({"image": None, "embeddedContext": True}), {"text", "resource_link"}),
    ],
)
def test_allowed_block_types_are_those_both_sides_advertise(raw: Any, expected: set[str]) -> None:
    support = SuggestionSupport.from_initialize_params(raw)

    assert support.advertised
    assert support.block_types == expected


@pytest.mark.parametrize(
    "raw", [None, [], {}, {"clientCapabilities": None}, {"clientCapabilities": {"session": []}}, params([])]
)
def test_malformed_or_missing_capabilities_advertise_nothing(raw: Any) -> None:
    support = SuggestionSupport.from_initialize_params(raw)

    assert not support.advertised
    assert not support.allows("text")


@pytest.mark.parametrize(
    ("entry", "sendable"),
    [
        ({"prompt": [{"type": "text", "text": "Go"}]}, True),
        (
            {
                "prompt": [
                    {"type": "text", "text": " "},
                    {"type": "resource_link", "name": "a", "uri": "file:///a"},
                ]
            },
            True,
        ),
        ({"prompt": []}, False),
        ({"prompt": [{"type": "text", "text": " \n"}]}, False),
        ({"prompt": [{"type": "text"}]}, False),
        ({"prompt": [{"type": "image", "data": "", "mimeType": "image/png"}]}, False),
        ({"prompt": [{"type": "audio", "data": "", "mimeType": "audio/wav"}]}, False),
        ({}, False),
    ],
)
def test_only_suggestions_within_the_rfd_rules_are_sendable(entry: Any, sendable: bool) -> None:
    assert is_sendable(entry, SuggestionSupport.from_initialize_params(params({}))) is sendable


def test_nothing_is_sendable_when_the_client_did_not_advertise() -> None:
    assert not is_sendable({"prompt": [{"type": "text", "text": "Go"}]}, SuggestionSupport())


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("help", Intent(Kind.HELP)),
        ("What can you do?", Intent(Kind.HELP)),
        ("/help", Intent(Kind.HELP)),
        ("ls", Intent(Kind.LIST)),
        ("list files in src/lib", Intent(Kind.LIST, "src/lib")),
        ("/ls docs", Intent(Kind.LIST, "docs")),
        ("Show me README.md", Intent(Kind.SHOW, "README.md")),
        ("cat `My File.txt`", Intent(Kind.SHOW, "My File.txt")),
        ("open file.txt", Intent(Kind.SHOW, "file.txt")),
        ("Explain ", Intent(Kind.EXPLAIN)),
        ("count to 7", Intent(Kind.COUNT, "7")),
        ("slow", Intent(Kind.COUNT, "15")),
        ('/suggest [{"Prompt": [ ]}]', Intent(Kind.SUGGEST, '[{"Prompt": [ ]}]')),
        ("/suggest-demo Hostile", Intent(Kind.SUGGEST_DEMO, "Hostile")),
        ("/suggest-delay 250", Intent(Kind.SUGGEST_DELAY, "250")),
        ("listen to me", Intent(Kind.UNKNOWN, "listen to me")),
        ("  ", Intent(Kind.UNKNOWN)),
    ],
)  # fmt: skip
def test_prompts_are_classified_with_their_arguments_verbatim(text: str, intent: Intent) -> None:
    assert classify(text) == intent


@pytest.mark.parametrize("text", ["", "short", "word " * 200, "x" * 10_000, "line\n" * 3000])
def test_chunks_rejoin_to_the_text_and_stay_small(text: str) -> None:
    chunks = split_chunks(text)

    assert "".join(chunks) == text
    assert len(chunks) <= 150
    if len(text) < 4000:
        assert all(len(chunk) <= 40 for chunk in chunks)


def test_file_uris_resolve_inside_the_workspace_and_other_schemes_are_refused(tmp_path: Path) -> None:
    (tmp_path / "a b.txt").write_text("x")
    workspace = Workspace(tmp_path)

    assert workspace.resolve((tmp_path / "a b.txt").as_uri()) == tmp_path.resolve() / "a b.txt"
    with pytest.raises(WorkspaceError, match="not a local file URI"):
        workspace.resolve("https://example.com/a.txt")
    with pytest.raises(WorkspaceError, match="outside the workspace"):
        workspace.resolve("file:///etc/passwd")


@pytest.mark.parametrize("session_id", ["../escape", "sess_../../x", "sess_" + "z" * 32, ""])
def test_session_ids_that_are_not_ours_never_reach_the_file_system(tmp_path: Path, session_id: str) -> None:
    (tmp_path / "escape.json").write_text("{}")

    assert SessionStore(tmp_path / "sessions").load(session_id) is None


def test_code_spans_and_fences_cannot_be_closed_by_their_content() -> None:
    assert code("a`b") == "``a`b``"
    assert fenced("```\nx\n", "md") == "````md\n```\nx\n````"


class RecordingSink:
    def __init__(self) -> None:
        self.sent: list[Any] = []

    async def session_update(self, session_id: str, update: dict[str, Any]) -> None:
        self.sent.append(update["suggestions"])


async def test_a_prediction_from_an_earlier_turn_never_goes_out_after_a_prompt_is_accepted() -> None:
    sink = RecordingSink()
    offers = SuggestionOffers("s", sink)
    turn = offers.accept_prompt()
    offers.schedule(turn, [{"prompt": [{"type": "text", "text": "stale"}]}], delay_s=0)

    offers.accept_prompt()
    await asyncio.sleep(0.01)

    assert sink.sent == []
    await offers.withdraw()
    assert sink.sent == [], "nothing was offered, so nothing is withdrawn"
    await offers.close()


async def test_accepting_a_prompt_after_a_list_went_out_lets_the_turn_withdraw_it() -> None:
    sink = RecordingSink()
    offers = SuggestionOffers("s", sink)
    offers.schedule(offers.accept_prompt(), [{"prompt": [{"type": "text", "text": "next"}]}], delay_s=0)
    await asyncio.sleep(0.01)

    offers.accept_prompt()
    await offers.withdraw()

    assert sink.sent == [[{"prompt": [{"type": "text", "text": "next"}]}], []]
    await offers.close()


def test_the_generated_png_is_a_valid_8x8_image() -> None:
    png = base64.b64decode(tiny_png_base64(), validate=True)

    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, offset = {}, 8
    while offset < len(png):
        (length,) = struct.unpack(">I", png[offset : offset + 4])
        kind, payload = png[offset + 4 : offset + 8], png[offset + 8 : offset + 8 + length]
        (crc,) = struct.unpack(">I", png[offset + 8 + length : offset + 12 + length])
        assert crc == zlib.crc32(kind + payload)
        chunks[kind] = payload
        offset += 12 + length
    assert list(chunks) == [b"IHDR", b"IDAT", b"IEND"]
    assert struct.unpack(">IIBB", chunks[b"IHDR"][:10]) == (8, 8, 8, 2)
    assert len(zlib.decompress(chunks[b"IDAT"])) == 8 * (1 + 8 * 3)


@pytest.mark.parametrize(
    ("env", "state_dir", "delay_s"),
    [
        ({"WEBCLIENT_DEMO_STATE_DIR": "/s", "XDG_STATE_HOME": "/x"}, Path("/s"), 0.015),
        ({"XDG_STATE_HOME": "/x", "WEBCLIENT_DEMO_CHUNK_DELAY_MS": "0"}, Path("/x/webclient-demo"), 0.0),
        ({"WEBCLIENT_DEMO_CHUNK_DELAY_MS": "soon"}, Path.home() / ".local/state/webclient-demo", 0.015),
    ],
)
def test_settings_come_from_the_environment_with_defaults(
    env: dict[str, str], state_dir: Path, delay_s: float
) -> None:
    settings = DemoSettings.from_env(env)

    assert settings.state_dir == state_dir
    assert settings.chunk_delay_s == delay_s


def test_every_delay_can_be_shortened_from_the_environment_and_keeps_its_default_otherwise() -> None:
    env = {
        "WEBCLIENT_DEMO_CHUNK_DELAY_MS": "1",
        "WEBCLIENT_DEMO_PREDICTION_DELAY_MS": "2",
        "WEBCLIENT_DEMO_SLOW_STEP_MS": "30",
    }
    unreadable = {"WEBCLIENT_DEMO_PREDICTION_DELAY_MS": "", "WEBCLIENT_DEMO_SLOW_STEP_MS": "x"}

    short, default = DemoSettings.from_env(env), DemoSettings.from_env(unreadable)

    assert (short.chunk_delay_s, short.prediction_delay_s, short.slow_step_s) == (0.001, 0.002, 0.03)
    assert (default.chunk_delay_s, default.prediction_delay_s, default.slow_step_s) == (0.015, 0.05, 0.2)
