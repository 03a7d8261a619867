"""Issue 13 item 7: ``jantaku demo`` reads well anywhere.

* stdout not a terminal (``make demo | tee log``): one progress line per hand as it ends, not
  silence until the end;
* stdout a terminal (a real pty): the live view, whose footer counts the same hands as the
  closing summary;
* no Python reprs anywhere (no ``{'seat': 0, ...}``, no ``[3, 4]``), honours as their faces
  (東南西北白發中), never as mjai letters (``W``: West or White?).
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from daemon.demo_view import describe, hand_line, tile_label
from hil.kit import reaped
from rules.events import BreakChecked
from rules.seats import Seat
from rules.wall import Break

JANTAKU = str(Path(sys.executable).with_name("jantaku"))
REPR = re.compile(r"[\[{]'|'[\]}]|\[\d+, \d+|\{'\w+': ")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r")


def demo_args(table: str, hands: int) -> list[str]:
    return [JANTAKU, "demo", "--hands", str(hands), "--speed", "1000", "--http-port", "0",
            "--table-id", table, "--seed", "4"]


def table_id(tag: str) -> str:
    return f"{tag}{os.getpid() % 10000}-{time.monotonic_ns() % 10**6}"


def test_a_pipe_gets_one_line_per_hand_while_it_plays() -> None:
    proc = subprocess.Popen(demo_args(table_id("pipe"), 3), stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    with reaped(proc):  # gone even if the body or its clean-exit check fails
        try:
            first = proc.stdout.readline()
            assert first.startswith("jantaku demo: overlay http://127.0.0.1:")
            # one line per hand as it ends
            hand1 = proc.stdout.readline()
            assert hand1.startswith("jantaku demo: hand 1: ")
            rest = proc.stdout.read().splitlines()
        finally:
            # 1: the daemon's events differed from the simulator's (test_demo_cli.py checks that)
            assert proc.wait(120) in (0, 1)
    hands = [hand1.rstrip("\n"), *[line for line in rest if line.startswith("jantaku demo: hand ")]]
    assert [h.split(":")[1] for h in hands] == [" hand 1", " hand 2", " hand 3"]
    for h in hands:
        assert re.search(r"; deltas [-+0-9 ]+; scores \d+ \d+ \d+ \d+$", h), h
        assert not REPR.search(h), h
    assert rest[-1].startswith("jantaku demo: 3 hands played, ")
    assert re.search(r"daemon == simulator: (yes|NO); scores \d+ \d+ \d+ \d+$", rest[-1])
    assert not any("\x1b[" in line for line in rest)  # no live-view escape codes in a log
    # the last hand line's scores are the summary's
    assert hands[-1].rsplit("scores ", 1)[1] == rest[-1].rsplit("scores ", 1)[1]


def _read_pty(fd: int, proc: subprocess.Popen[bytes], timeout: float = 120) -> str:
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child closed its side
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    return out.decode("utf-8", errors="replace")


def test_a_terminal_gets_the_live_view_and_its_footer_agrees_with_the_summary() -> None:
    main, sub = os.openpty()
    env = {**os.environ, "COLUMNS": "160", "LINES": "50", "TERM": "xterm-256color"}
    proc = subprocess.Popen(demo_args(table_id("tty"), 2), stdout=sub, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, env=env)
    os.close(sub)
    with reaped(proc):  # gone even if the body or its clean-exit check fails
        try:
            text = ANSI.sub("", _read_pty(main, proc))
        finally:
            os.close(main)
            assert proc.wait(120) in (0, 1)
    footers = re.findall(r"hands played (\d+)", text)
    assert footers, text[-3000:]
    summary = re.findall(r"jantaku demo: (\d+) hands played, (\d+) complete game", text)
    assert summary, text[-3000:]
    assert footers[-1] == summary[-1][0] == "2"
    # two hands are not a hanchan: the game was cut short, not complete
    assert summary[-1][1] == "0" and "1 cut short" in text, text[-1500:]
    assert "seat None" not in text and "None stacks" not in text
    assert not REPR.search(text), REPR.search(text)
    assert "jantaku demo: hand 1:" not in text  # the terminal has the view, not log lines


def test_event_lines_are_words_not_reprs() -> None:
    assert describe({"type": "dice_rolled", "seat": 1, "dice": [3, 4]}) == "seat 1 rolls 3 + 4 = 7"
    # the event as the reducer emits it (rules.events.BreakChecked), not a hand-made dict
    real = BreakChecked(brk=Break(Seat.S0, 9), expected=Break(Seat.S0, 9), ok=True,
                        source="dice").to_json()
    line = describe(real)
    assert line == "wall opened in seat 0's wall, 9 stacks left on its right (ok)"
    ended = {"type": "hand_ended", "hand": 2, "scores": [33000, 17000, 25000, 25000],
             "outcome": {"kind": "win"},
             "settlement": {"deltas": [8000, -8000, 0, 0],
                            "wins": [{"winner": 0, "han": 3, "fu": 40}]}}
    assert describe(ended) == "hand over: win seat 0 3 han 40 fu; +8000 -8000 0 0"
    assert hand_line(5, ended) == ("jantaku demo: hand 5: win, seat 0 3 han 40 fu; deltas "
                                   "+8000 -8000 0 0; scores 33000 17000 25000 25000")


def test_honours_are_their_faces() -> None:
    # W is West, P is White (haku): a player reads the tile's face, not mjai's letter
    assert [tile_label(t) for t in "ESWNPFC"] == list("東南西北白發中")
    assert tile_label("5mr") == "5m赤" and tile_label("7p") == "7p"
    # dora_revealed carries a tile id: 108 is the first East tile (27 kinds × 4 before it)
    assert describe({"type": "dora_revealed", "tile": 108}) == "dora indicator 東"
