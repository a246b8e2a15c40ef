"""The kept-transcript database: what it writes (a grown message as what it gained), its bounds (age, total
size), delete, and its modes."""

from __future__ import annotations

import stat
from pathlib import Path

from tests.support.kept import DAY, put
from webclient.domain.kept.database import Bounds, TranscriptDatabase
from webclient.domain.kept.entries import KeptEntry


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def database(
    tmp_path: Path, clock: Clock, max_bytes: int = 10**9, max_age: float = 30 * DAY
) -> TranscriptDatabase:
    return TranscriptDatabase(tmp_path / "state" / "transcripts", Bounds(max_bytes, max_age), clock)


def test_a_transcript_reads_back_in_order_with_its_later_changes(tmp_path: Path) -> None:
    clock = Clock()
    db = database(tmp_path, clock)
    db.write([put("a", clock.now, "hello", "Hi")])
    later = put("a", clock.now + 1)
    later.entries = {"msg-1": (1, KeptEntry(kind="message", role="agent", text="Hi there"))}
    db.write([later])
    kept = db.load("a")
    assert kept is not None
    assert [e.text for e in kept.entries] == ["hello", "Hi there"]
    assert kept.summary.size == len(
        KeptEntry(kind="message", role="user", text="hello").model_dump_json()
    ) + len(KeptEntry(kind="message", role="agent", text="Hi there").model_dump_json())


def test_transcripts_older_than_the_age_bound_are_pruned_at_the_next_write(tmp_path: Path) -> None:
    clock = Clock()
    db = database(tmp_path, clock, max_age=7 * DAY)
    db.write([put("old", clock.now, "x"), put("recent", clock.now + 5 * DAY, "y")])
    clock.now += 8 * DAY
    pruned = db.write([put("new", clock.now, "z")])
    assert pruned == ["old"]
    assert [s.key for s in db.summaries()] == ["new", "recent"]
    assert db.load("old") is None


def test_past_the_size_bound_the_oldest_go_first_and_a_held_one_stays(tmp_path: Path) -> None:
    clock = Clock()
    one = len(KeptEntry(kind="message", role="user", text="x" * 1000).model_dump_json())
    db = database(tmp_path, clock, max_bytes=2 * one)
    db.write([put("first", clock.now, "x" * 1000), put("second", clock.now + 1, "x" * 1000)])
    assert [s.key for s in db.summaries()] == ["second", "first"]
    pruned = db.write([put("third", clock.now + 2, "x" * 1000)], held=frozenset({"first"}))
    assert pruned == ["second"]  # the oldest not held
    assert {s.key for s in db.summaries()} == {"first", "third"}
    assert sum(s.size for s in db.summaries()) <= 2 * one


def test_delete_removes_a_transcript_and_its_entries(tmp_path: Path) -> None:
    clock = Clock()
    db = database(tmp_path, clock)
    db.write([put("a", clock.now, "secret"), put("b", clock.now, "other")])
    assert db.delete("a") is True
    assert db.delete("a") is False
    assert db.load("a") is None
    count = db.connection.execute("SELECT COUNT(*) FROM entries WHERE key = 'a'").fetchone()[0]
    assert count == 0
    assert [s.key for s in db.summaries()] == ["b"]


def test_the_folder_and_the_files_are_the_users_alone(tmp_path: Path) -> None:
    clock = Clock()
    db = database(tmp_path, clock)
    db.write([put("a", clock.now, "x")])
    folder = tmp_path / "state" / "transcripts"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for path in folder.iterdir():  # the database and its -wal and -shm files
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert db.connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def message(role: str, text: str) -> KeptEntry:
    return KeptEntry(kind="message", role=role, text=text)  # type: ignore[arg-type]


def test_a_message_that_grew_is_written_as_what_it_gained_and_reads_back_whole(tmp_path: Path) -> None:
    clock = Clock()
    db = database(tmp_path, clock)
    db.write([put("a", clock.now, "hello", "Hi")])
    for gained in (" there", ", how", " are you?"):
        later = put("a", clock.now)
        later.appended = {"msg-1": gained}
        db.write([later])
    kept = db.load("a")
    assert kept is not None
    assert [e.text for e in kept.entries] == ["hello", "Hi there, how are you?"]
    # The row written first is not written again: each write added a piece of its own.
    body = db.connection.execute("SELECT body FROM entries WHERE entry_id = 'msg-1'").fetchone()[0]
    assert KeptEntry.model_validate_json(body).text == "Hi"
    pieces = db.connection.execute("SELECT text FROM pieces WHERE entry_id = 'msg-1' ORDER BY rowid")
    assert [text for (text,) in pieces] == [" there", ", how", " are you?"]
    first = len(message("user", "hello").model_dump_json()) + len(message("agent", "Hi").model_dump_json())
    assert kept.summary.size == first + len(" there, how are you?")


def test_a_message_written_whole_again_drops_what_was_appended_to_it(tmp_path: Path) -> None:
    clock = Clock()
    db = database(tmp_path, clock)
    db.write([put("a", clock.now, "hello", "Hi")])
    grown = put("a", clock.now)
    grown.appended = {"msg-1": " there"}
    db.write([grown])
    replaced = put("a", clock.now)
    replaced.entries = {"msg-1": (1, message("agent", "Replaced"))}
    db.write([replaced])
    kept = db.load("a")
    assert kept is not None and [e.text for e in kept.entries] == ["hello", "Replaced"]
    assert kept.summary.size == len(message("user", "hello").model_dump_json()) + len(
        message("agent", "Replaced").model_dump_json()
    )
    assert db.connection.execute("SELECT COUNT(*) FROM pieces").fetchone()[0] == 0
    assert db.delete("a") is True  # and a transcript deleted takes its pieces along
    grown = put("b", clock.now, "x")
    db.write([grown])
    more = put("b", clock.now)
    more.appended = {"msg-0": "yz"}
    db.write([more])
    db.delete("b")
    assert db.connection.execute("SELECT COUNT(*) FROM pieces").fetchone()[0] == 0


def test_puts_merged_in_a_batch_keep_their_order_of_whole_writes_and_appends() -> None:
    first = put("a", 1.0, "Hi")
    first.appended = {"msg-0": " stale"}
    whole = put("a", 2.0)
    whole.entries = {"msg-0": (0, message("user", "Hello"))}
    grown = put("a", 3.0)
    grown.appended = {"msg-0": " there"}
    again = put("a", 4.0)
    again.appended = {"msg-0": "!"}
    for later in (whole, grown, again):
        first.merge(later)
    assert first.summary.updated == 4.0
    assert first.entries == {"msg-0": (0, message("user", "Hello"))}
    assert first.appended == {"msg-0": " there!"}
