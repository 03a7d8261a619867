"""``jantaku link``: the table-link protocol analyzer (docs/protocol/table-link.md §9).

Stable contract, used by tools outside this repository:

* ``jantaku link encode`` reads messages as JSON lines on stdin (``{"type": "dice", "values":
  [3, 4]}``; optional ``seq`` 0..255 and ``retransmit``) and writes their frames, raw bytes, to
  stdout. A line that is no valid message is reported on stderr and skipped (exit 1 at the end).
* ``jantaku link encode --examples`` prints one valid message of every type as JSON lines.
* ``jantaku link decode [FILE]`` reads raw bytes from FILE or stdin and prints, in stream order,
  every recovered frame as a JSON line (the message's keys, then ``seq``, ``retransmit``,
  ``offset``) and every unusable span as ``{"error": REASON, "offset": N, "length": M}``. It
  never stops on bad input and exits 0.

Bad arguments exit 2 with a one-line error.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import BinaryIO, TextIO

USAGE = "usage: jantaku link encode [--examples] | jantaku link decode [FILE]"
ENCODE_HELP = """\
usage: jantaku link encode [--examples]

Read table-link messages as JSON lines on stdin, write their frames (raw bytes) to stdout.
Each line is one message: {"type": ..., its fields}; optional "seq" (0..255, default 0) and
"retransmit" (true/false). A line that is no valid message is reported on stderr with its line
number and skipped; the exit status is then 1.

options:
  --examples  print one valid message of every type as JSON lines (a template to edit)

example (messages.jsonl holds lines like {"type": "dice", "values": [3, 4], "seq": 7}):
  jantaku link encode < messages.jsonl > frames.bin
"""
DECODE_HELP = """\
usage: jantaku link decode [FILE]

Read raw bytes (a capture of the serial line) from FILE, or stdin when FILE is absent or "-",
and print in stream order every recovered frame as a JSON line (the message's keys, then seq,
retransmit, offset) and every unusable span as {"error": REASON, "offset": N, "length": M}.
Never stops on bad input; exits 0.

arguments:
  FILE  the capture to read (default: stdin)

example:
  jantaku link decode capture.bin | grep -v '"error"'
"""
HELP = f"""\
{USAGE}

The table-link protocol analyzer (docs/protocol/table-link.md §9): frames to JSON and back.

subcommands:
  encode [--examples]  JSON lines on stdin -> frames on stdout (--examples: a template of
                       every message type); `jantaku link encode --help`
  decode [FILE]        raw bytes from FILE or stdin -> one JSON line per frame or bad span;
                       `jantaku link decode --help`

examples:
  jantaku link encode --examples | jantaku link encode | jantaku link decode
  jantaku link decode capture.bin
"""
ENVELOPE = ("seq", "retransmit", "offset")


def _fail(message: str) -> int:
    print(f"jantaku link: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str]) -> int:
    try:
        return _main(list(argv))
    except BrokenPipeError:
        # the reader went away (`... | head`): stop quietly, as other filters do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _main(args: list[str]) -> int:
    if not args:
        return _fail(f"missing subcommand; {USAGE}")
    if args[0] in ("-h", "--help"):
        sys.stdout.write(HELP)
        return 0
    command, rest = args[0], args[1:]
    if command in ("encode", "decode") and rest and rest[0] in ("-h", "--help"):
        sys.stdout.write(ENCODE_HELP if command == "encode" else DECODE_HELP)
        return 0
    if command == "encode":
        if rest == ["--examples"]:
            return _examples()
        if rest:
            return _fail(f"encode takes no argument but --examples, got {rest!r}")
        return _encode(sys.stdin, sys.stdout.buffer)
    if command == "decode":
        if len(rest) > 1 or (rest and rest[0].startswith("-") and rest[0] != "-"):
            return _fail(f"decode takes at most one FILE, got {rest!r}")
        if not rest or rest[0] == "-":
            return _decode(sys.stdin.buffer)
        try:
            with open(rest[0], "rb") as handle:
                return _decode(handle)
        except OSError as exc:
            return _fail(f"cannot read {rest[0]!r}: {exc.strerror}")
    return _fail(f"unknown subcommand {command!r}; {USAGE}")


def _examples() -> int:
    from drivers.link.messages import examples

    for message in examples():
        sys.stdout.write(json.dumps(message.to_json()) + "\n")
    return 0


def _encode(lines: TextIO, out: BinaryIO) -> int:
    from drivers.link.errors import MalformedMessageError
    from drivers.link.frame import encode_frame
    from drivers.link.messages import message_from_json

    status = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            if not isinstance(obj, dict):
                raise MalformedMessageError(f"a message must be a JSON object, got {obj!r}")
            seq = obj.pop("seq", 0)
            retransmit = obj.pop("retransmit", False)
            obj.pop("offset", None)
            if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= 255:
                raise MalformedMessageError(f"seq must be an integer 0..255, got {seq!r}")
            if not isinstance(retransmit, bool):
                raise MalformedMessageError(f"retransmit must be true or false, got "
                                            f"{retransmit!r}")
            frame = encode_frame(message_from_json(obj), seq, retransmit=retransmit)
        except (json.JSONDecodeError, MalformedMessageError) as exc:
            print(f"jantaku link encode: line {number}: {exc}", file=sys.stderr)
            status = 1
            continue
        out.write(frame)
    out.flush()
    return status


def _decode(source: BinaryIO) -> int:
    from drivers.link.frame import Decoded, Decoder, Frame

    decoder = Decoder()
    write = sys.stdout.write

    def emit(items: list[Decoded]) -> None:
        for item in items:
            if isinstance(item, Frame):
                obj = item.message.to_json()
                obj.update(seq=item.seq, retransmit=item.retransmit, offset=item.offset)
            else:
                obj = {"error": item.reason.value, "offset": item.offset, "length": item.length}
            write(json.dumps(obj) + "\n")

    # read1: decode what a pipe has delivered so far, without waiting for a full buffer
    read = getattr(source, "read1", source.read)
    while chunk := read(65536):
        emit(decoder.feed(chunk))
    emit(decoder.flush())
    sys.stdout.flush()
    return 0
