"""``jantaku link`` as a subprocess: the stable contract used by tools outside the repo."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

JANTAKU = str(Path(sys.executable).with_name("jantaku"))


def run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([JANTAKU, "link", *args], input=stdin, capture_output=True,
                          timeout=60, check=False)


def lines(out: bytes) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.decode().splitlines()]


def test_examples_round_trip_through_encode_and_decode() -> None:
    examples = run("encode", "--examples")
    assert examples.returncode == 0
    messages = lines(examples.stdout)
    assert len({m["type"] for m in messages}) == len(messages) == 21
    frames = run("encode", stdin=examples.stdout)
    assert frames.returncode == 0 and frames.stderr == b""
    decoded = run("decode", stdin=frames.stdout)
    assert decoded.returncode == 0
    back = lines(decoded.stdout)
    assert [{k: v for k, v in d.items() if k not in ("seq", "retransmit", "offset")}
            for d in back] == messages
    assert all(d["seq"] == 0 and d["retransmit"] is False for d in back)
    assert next(d["offset"] for d in back) == 1


def test_decode_reports_garbage_and_keeps_going(tmp_path: Path) -> None:
    frames = run("encode", stdin=b'{"type": "dice", "values": [3, 4], "seq": 9}\n'
                                 b'{"type": "wall_raised", "seq": 10, "retransmit": true}\n')
    cut = frames.stdout.index(b"\x00\x00") + 1
    dice, wall = frames.stdout[:cut], frames.stdout[cut:]
    stream = b"\xde\xad\xbe\xef" + dice + dice[:6] + wall  # garbage, frame, truncated, frame
    path = tmp_path / "capture.bin"
    path.write_bytes(stream)
    out = run("decode", str(path))
    assert out.returncode == 0
    got = lines(out.stdout)
    assert got[0] == {"error": "cobs", "offset": 0, "length": 5}
    assert got[1] == {"type": "dice", "values": [3, 4], "seq": 9, "retransmit": False,
                      "offset": 5}
    assert got[2]["error"] in ("cobs", "short", "crc")
    assert (got[2]["offset"], got[2]["length"]) == (4 + len(dice) + 1, 6)
    assert got[3] == {"type": "wall_raised", "seq": 10, "retransmit": True,
                      "offset": 4 + len(dice) + 6 + 1}
    assert len(got) == 4


def test_encode_skips_bad_lines_with_a_message() -> None:
    out = run("encode", stdin=b'{"type": "dice", "values": [7, 1]}\nnot json\n'
                              b'{"type": "dice", "values": [1, 1]}\n')
    assert out.returncode == 1
    errors = out.stderr.decode().splitlines()
    assert errors[0].startswith("jantaku link encode: line 1: dice: values[0] must be 1..6")
    assert errors[1].startswith("jantaku link encode: line 2:")
    assert [d["values"] for d in lines(run("decode", stdin=out.stdout).stdout)] == [[1, 1]]


def test_bad_arguments_exit_2_with_one_line() -> None:
    for args in ([], ["frobnicate"], ["encode", "--bogus"], ["decode", "a", "b"],
                 ["decode", "/nonexistent/capture.bin"]):
        out = run(*args)
        assert out.returncode == 2, args
        assert len(out.stderr.decode().splitlines()) == 1, args
        assert out.stdout == b""
