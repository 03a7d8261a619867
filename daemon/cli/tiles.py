"""``jantaku tiles``: tile sensors — RFID enrolment and camera detection.

``jantaku tiles enroll STATE.json [--no-aka] [--tile ID] [--forget TAG] [--evdev PATH | --serial
PATH [--baud N]]`` enrols a tile set's tags, guided: it names the next tile to scan, takes one tag
per scan (from a reader, or one per line on standard input — which is what a keyboard-emulating
reader types into a terminal), saves STATE.json after every accepted scan, and refuses duplicates
with a message. Run it again with the same file to resume. Exits 0 when it stops (end of input or
a complete set), 2 on bad arguments or an unreadable state file.

``jantaku tiles detect IMAGE [--model M.onnx --classes 1m,2m,... ] [--threshold T]`` prints the
tiles detected in an image, left to right, as one JSON array of ``{"tile", "confidence", "box"}``
(mjai names; camera reads are evidence with a confidence, not truth).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

HELP = """\
usage: jantaku tiles {enroll,detect} ...

Tile sensors (docs/tiles.md): RFID enrolment and camera detection.

subcommands:
  enroll STATE.json  guided enrolment of a tile set's RFID tags: names the next tile to scan,
                     takes one tag per scan (a reader, or one per line on stdin), saves after
                     every scan, refuses duplicates, resumes with the same file;
                     options --no-aka --tile ID --forget TAG --evdev PATH | --serial PATH
                     --baud N (`jantaku tiles enroll --help`)
  detect IMAGE       the tiles a camera image shows, left to right, as a JSON array of
                     {"tile", "confidence", "box"}; options --model M.onnx --classes ...
                     --threshold T (`jantaku tiles detect --help`); needs the 'camera' extra

examples:
  jantaku tiles enroll /var/lib/jantaku/tiles-set-a.json --evdev /dev/input/by-id/usb-rfid-kbd
  jantaku tiles detect frame.png --threshold 0.6
"""
ENROLL_EPILOG = """\
Without --evdev/--serial, tags are read one per line from stdin (what a keyboard-emulating
reader types into a terminal). Exits 0 when it stops (end of input or a complete set), 2 on bad
arguments or an unreadable state file.

example:
  jantaku tiles enroll set-a.json --evdev /dev/input/by-id/usb-rfid-kbd
"""
DETECT_EPILOG = """\
Prints one JSON array of {"tile": mjai name, "confidence": 0..1, "box": [x1, y1, x2, y2]}, left
to right. Camera reads are evidence with a confidence, not truth. Needs the 'camera' extra
(pip install 'jantaku[camera]').

example:
  jantaku tiles detect frame.png --model venue.onnx --classes 1m,2m,3m,... --threshold 0.6
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"{self.prog}: {message}", file=sys.stderr)
        raise SystemExit(2)


def _stdin_tags(stream: TextIO) -> Iterator[str]:
    for line in stream:
        text = line.strip()
        if text:
            yield text


def _reader_tags(args: argparse.Namespace) -> Iterator[str]:
    """Tags from an RFID reader, one at a time (faults are shown, never enrolled)."""
    from drivers.tiles.evdev_reader import EvdevTagReader
    from drivers.tiles.events import ReaderEvent, ReaderFault, TagSeen
    from drivers.tiles.serial_reader import SerialTagReader

    reader: EvdevTagReader | SerialTagReader
    if args.evdev:
        reader = EvdevTagReader("enrol", args.evdev)
    else:
        reader = SerialTagReader("enrol", args.serial, baudrate=args.baud)
    loop = asyncio.new_event_loop()
    queue: asyncio.Queue[ReaderEvent] = asyncio.Queue()
    task = loop.create_task(reader.run(queue.put_nowait))
    try:
        while True:
            ev = loop.run_until_complete(queue.get())
            if isinstance(ev, TagSeen):
                yield ev.tag
            elif isinstance(ev, ReaderFault):
                # shown, never enrolled: the operator scans the tile again
                print(f"reader {ev.kind.value}: {ev.detail}", file=sys.stderr, flush=True)
    finally:
        task.cancel()
        loop.run_until_complete(asyncio.gather(task, return_exceptions=True))
        loop.close()


def _enroll(argv: Sequence[str]) -> int:
    parser = _Parser(prog="jantaku tiles enroll", epilog=ENROLL_EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     description="Guided enrolment of the RFID tags of a tile set's 136 tiles.")
    parser.add_argument("state", type=Path, help="enrolment JSON file (created if missing)")
    parser.add_argument("--no-aka", dest="aka", action="store_false",
                        help="the set has no red fives (new files only)")
    parser.add_argument("--tile", type=int, metavar="ID",
                        help="enrol one tag for this tile id (0..135) and stop")
    parser.add_argument("--forget", metavar="TAG", help="remove a tag (to replace a tile's tag)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--evdev", metavar="PATH", help="keyboard-emulating reader device")
    source.add_argument("--serial", metavar="PATH", help="serial frame reader port")
    parser.add_argument("--baud", type=int, default=9600, metavar="N",
                        help="baud rate of the --serial reader (default 9600)")
    args = parser.parse_args(list(argv))

    from drivers.tiles.enroll import Enrolment, describe, load, save
    from drivers.tiles.errors import EnrolmentError
    from rules.tiles import Tile, TileError

    prog = "jantaku tiles enroll"
    try:
        state = load(args.state) if args.state.exists() else Enrolment(aka=args.aka)
        if state.aka and not args.aka:
            raise EnrolmentError(f"{args.state} was started with red fives; --no-aka conflicts")
        target = None if args.tile is None else Tile(args.tile)
        if args.forget:
            state = state.forget(args.forget)
            save(state, args.state)
            print(f"forgot tag {args.forget}; {len(state.tags)}/136 enrolled")
            return 0
    except (EnrolmentError, TileError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2

    print(f"{args.state}: {len(state.tags)}/136 enrolled"
          + (" (resumed)" if state.tags else ""), flush=True)
    tags = _reader_tags(args) if args.evdev or args.serial else _stdin_tags(sys.stdin)

    def prompt() -> bool:
        nxt = target if target is not None else state.next_tile()
        if nxt is None:
            print("complete: all 136 tiles enrolled", flush=True)
            return False
        print(f"scan {describe(nxt, state.aka)} ({len(state.tags) + 1}/136):", flush=True)
        return True

    if not prompt():
        return 0
    for raw in tags:
        asked = target if target is not None else state.next_tile()
        try:
            state = state.scan(raw, target)
        except EnrolmentError as exc:
            print(f"refused: {exc}", flush=True)
            prompt()
            continue
        save(state, args.state)
        assert asked is not None  # a complete set raised EnrolmentError above
        print(f"ok: {state.by_tile[asked]} is {describe(asked, state.aka)}", flush=True)
        if target is not None or not prompt():
            return 0
    print(f"stopped at {len(state.tags)}/136; run again with {args.state} to resume", flush=True)
    return 0


def _detect(argv: Sequence[str]) -> int:
    parser = _Parser(prog="jantaku tiles detect", epilog=DETECT_EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     description="The tiles detected in an image, as JSON.")
    parser.add_argument("image", type=Path, help="a PNG/JPEG frame")
    parser.add_argument("--model", type=Path, metavar="M.onnx",
                        help="a YOLOv8-style ONNX model (default: mahjong-detector's)")
    parser.add_argument("--classes", metavar="1m,2m,...",
                        help="comma-separated mjai names of the model's classes, in output order "
                             "(required with --model)")
    parser.add_argument("--threshold", type=float, default=0.5, metavar="T",
                        help="drop detections below this confidence (default 0.5)")
    args = parser.parse_args(list(argv))

    from drivers.tiles import camera_stack

    try:
        camera_stack.require(camera_stack.detector_modules(default_model=args.model is None),
                             "camera detection")
    except camera_stack.CameraStackMissing as exc:
        print(f"jantaku tiles detect: {exc}", file=sys.stderr)
        return 2
    from PIL import Image, UnidentifiedImageError

    from drivers.tiles.detector import load_detector
    from drivers.tiles.errors import DetectorError
    try:
        classes = None if args.classes is None else args.classes.split(",")
        detector = load_detector(args.model, classes)
        with Image.open(args.image) as img:
            import numpy as np

            frame = np.asarray(img.convert("RGB"))
    except (OSError, UnidentifiedImageError, DetectorError, ValueError) as exc:
        print(f"jantaku tiles detect: {exc}", file=sys.stderr)
        return 2
    dets = [d for d in detector.detect(frame) if d.confidence >= args.threshold]
    dets.sort(key=lambda d: (d.box[0], d.box[1]))
    out = [{"tile": d.kind.mjai, "confidence": round(d.confidence, 3), "box": list(d.box)}
           for d in dets]
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


def main(argv: Sequence[str]) -> int:
    args = list(argv)
    commands = {"enroll": _enroll, "detect": _detect}
    if args and args[0] in ("-h", "--help"):
        sys.stdout.write(HELP)
        return 0
    if not args or args[0] not in commands:
        got = f"unknown subcommand {args[0]!r}" if args else "missing subcommand"
        print(f"jantaku tiles: {got}; usage: jantaku tiles {{enroll,detect}} ... "
              "(jantaku tiles --help)", file=sys.stderr)
        return 2
    return commands[args[0]](args[1:])
