"""Serial display line protocol (pure)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.display.lines import (
    MAX_LINE,
    Clear,
    DisplayProtocolError,
    Err,
    LineSplitter,
    Ok,
    Ping,
    Pong,
    SetHonba,
    SetScores,
    format_command,
    parse_reply,
)
from hil.display_emulator import format_reply, parse_command


@pytest.mark.parametrize("command, line", [
    (Ping(), b"PING\n"),
    (SetHonba(3, 1), b"HONBA 3 1\n"),
    (SetScores((25000, -1200, 0, 99900)), b"SCORES 25000 -1200 0 99900\n"),
    (Clear(), b"CLEAR\n"),
])
def test_commands_format_and_parse(command: object, line: bytes) -> None:
    assert format_command(command) == line  # type: ignore[arg-type]
    assert parse_command(line.decode().rstrip("\n")) == command


@pytest.mark.parametrize("reply", [Ok(), Err(2, "bad argument"), Pong(1, "lcd-16x2")])
def test_replies_round_trip(reply: object) -> None:
    assert parse_reply(format_reply(reply).decode().rstrip("\n")) == reply  # type: ignore[arg-type]


@pytest.mark.parametrize("line", ["HONBA 1", "HONBA a b", "SCORES 1 2 3", "HONBA 100 0",
                                  "DANCE", "PING now", ""])
def test_bad_commands_are_refused(line: str) -> None:
    with pytest.raises(DisplayProtocolError):
        parse_command(line)


@given(st.lists(st.sampled_from([b"PING\n", b"HONBA 1 2\r\n", b"x" * 100 + b"\n"]),
                max_size=10), st.integers(1, 7))
def test_splitter_finds_lines_whatever_the_chunking(parts: list[bytes], size: int) -> None:
    data = b"".join(parts)
    splitter = LineSplitter()
    got = []
    for i in range(0, len(data), size):
        got += splitter.feed(data[i:i + size])
    want = [None if len(p) > MAX_LINE + 1 else p.decode().rstrip("\r\n") for p in parts]
    assert got == want
