"""StderrTail: the last lines of the agent's stderr, bounded in lines, in bytes, and per line."""

from __future__ import annotations

from webclient.acp.stderr_tail import StderrTail


def test_keeps_the_last_lines_in_order_whatever_the_pieces() -> None:
    tail = StderrTail(max_lines=3)
    for piece in (b"one\ntw", b"o\nthr", b"ee\nfour\nfi", b"ve"):
        tail.feed(piece)
    assert tail.lines() == ["… [3 earlier lines not kept]", "four", "five"]
    tail.close()
    assert tail.lines() == ["… [3 earlier lines not kept]", "four", "five"]


def test_a_long_line_keeps_its_beginning_and_says_how_much_was_cut() -> None:
    tail = StderrTail(line_bytes=10)
    tail.feed(b"0123456789" + b"x" * 990)
    tail.feed(b"y" * 1000 + b"\nshort\n")
    assert tail.lines() == ["0123456789… [1990 more bytes cut]", "short"]


def test_the_whole_tail_stays_under_its_byte_cap_and_keeps_the_newest() -> None:
    tail = StderrTail(max_lines=100, total_bytes=1000, line_bytes=300)
    for n in range(50):
        tail.feed(f"{n:02d} ".encode() + b"z" * 500 + b"\n")
    note, *lines = tail.lines()
    assert sum(len(line.encode()) for line in lines) <= 1000
    assert lines[-1].startswith("49 zzz") and lines[-1].endswith("more bytes cut]")
    assert note == f"… [{50 - len(lines)} earlier lines not kept]"


def test_crlf_and_invalid_utf8_are_shown_readably() -> None:
    tail = StderrTail()
    tail.feed(b"caf\xe9\r\nok\r\n")
    assert tail.lines() == ["caf\ufffd", "ok"]
