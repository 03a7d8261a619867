"""Writes tests/data/link-vectors.json: the shared test vectors of the table link.

Run by hand (``.venv/bin/python tests/firmware/make_vectors.py``) when the protocol changes; the
file is checked in and both codecs are held to it: the host's (``drivers/link``, by
tests/firmware/test_vectors.py) and the firmware's (``firmware/``, by
tests/firmware/check_vectors.py under CPython and under MicroPython). The expected values come
from the host's reference implementation and from docs/protocol/table-link.md §3 (worked example,
CRC check value); the edge cases are chosen at the format's boundaries (COBS block sizes 253/254/
255, the 1040-byte oversize limit, every error reason of §4).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from drivers.link.arq import Endpoint
from drivers.link.cobs import cobs_encode
from drivers.link.crc import crc32c_of
from drivers.link.frame import (
    CRC_SIZE,
    HEADER,
    ErrorSpan,
    Frame,
    decode_all,
    encode_frame,
)
from drivers.link.messages import (
    REQUIRED_CAPABILITY,
    Ack,
    Capability,
    Dice,
    Fault,
    Hello,
    HonbaDisplay,
    Message,
    ScoreDisplay,
    StartPressed,
    WallRaised,
    examples,
    message_from_json,
)
from drivers.link.reports import Role
from drivers.link.timings import LinkTimings

OUT = Path(__file__).resolve().parents[1] / "data" / "link-vectors.json"
CTL_BOOT = 0x0BADF00D
HOST_BOOT = 0x1234ABCD
FIRMWARE = "jantaku-ctl 1.0.0 vectors"


def raw_frame(kind: int, payload: bytes, seq: int = 0, version: int = 1,
              length: int | None = None) -> bytes:
    """A frame the encoder would refuse to build (bad version, length, type or payload)."""
    body = HEADER.pack(version, 0, seq, kind, len(payload) if length is None else length) + payload
    body += crc32c_of(body).to_bytes(CRC_SIZE, "little")
    return b"\x00" + cobs_encode(body) + b"\x00"


def item_json(item: Frame | ErrorSpan) -> dict[str, Any]:
    if isinstance(item, Frame):
        return {"type": int(item.message.TYPE), "payload": item.message.payload().hex(),
                "seq": item.seq, "retransmit": item.retransmit, "offset": item.offset,
                "length": item.length}
    return {"error": item.reason.value, "offset": item.offset, "length": item.length,
            "seq": item.seq, "type": item.message_type}


def crc_vectors() -> list[dict[str, Any]]:
    datas = [b"", b"123456789", bytes(32), bytes(range(256)), b"\xff" * 33]
    return [{"data": d.hex(), "crc": crc32c_of(d)} for d in datas]


def cobs_vectors() -> list[dict[str, str]]:
    nz = bytes(i % 255 + 1 for i in range(600))
    bodies = [b"", b"\x00", b"\x00\x00", b"\x11\x22\x00\x33", b"\x11\x00", nz[:253], nz[:254],
              nz[:255], nz[:254] + b"\x00", b"\x00" + nz[:254], nz[:508], nz[:509], bytes(300),
              nz[:600]]
    return [{"body": b.hex(), "encoded": cobs_encode(b).hex()} for b in bodies]


def frame_vectors() -> list[dict[str, Any]]:
    out = []
    for seq, message in enumerate(examples()):
        for retransmit in (False, True):
            out.append({"json": message.to_json(), "type": int(message.TYPE),
                        "payload": message.payload().hex(), "seq": seq * 13 % 256,
                        "retransmit": retransmit,
                        "wire": encode_frame(message, seq * 13 % 256,
                                             retransmit=retransmit).hex()})
    return out


def stream_vectors() -> list[dict[str, Any]]:
    good = encode_frame(Dice((3, 4)), 7)
    streams: dict[str, bytes] = {
        "worked example §3": good,
        "idle fill and two frames": b"\x00\x00\x00" + good + b"\x00" + encode_frame(Ack(), 9),
        "garbage before a frame": b"\x13\x37\xfe" + good,
        "cobs code past the end": b"\x00\x05\x01\x02\x00" + good,
        "short body": b"\x00" + cobs_encode(b"\x01\x00\x00\x03") + b"\x00" + good,
        "crc mismatch": good[:-2] + bytes([good[-2] ^ 0x40]) + b"\x00" + good,
        "truncated then a frame": good[:6] + good,
        "version 2": raw_frame(0x12, b"\x03\x04", 5, version=2),
        "length disagrees": raw_frame(0x12, b"\x03\x04", 5, length=3),
        "unknown type 0x30 (seq known)": raw_frame(0x30, b"", 44),
        "unknown control type 0x0e": raw_frame(0x0E, b"\x01", 0),
        "payload: die 7": raw_frame(0x12, b"\x07\x01", 12),
        "payload: hello rx_last 256": raw_frame(0x01, bytes.fromhex("0101cdab341200000000" "0001")),
        "payload: welcome firmware not utf-8": raw_frame(
            0x02, bytes.fromhex("01 3f00 0df0ad0b ffff 02 c328".replace(" ", ""))),
        "payload: welcome version 255": raw_frame(
            0x02, bytes.fromhex("ff 0000 0df0ad0b ffff 00".replace(" ", ""))),
        "payload: nak reason 3": raw_frame(0x05, b"\x03"),
        "payload: buzzer 0 ms": raw_frame(0x22, b"\x00\x00\x01", 3),
        "payload: led mode 3": raw_frame(0x23, b"\x00\x03\x01\x02\x03", 4),
        "payload: fault code 0": raw_frame(0x17, b"\x00\x00\xff", 5),
        "payload: manifest tile 37": raw_frame(0x15, bytes([37] + [0] * 135), 6),
        "payload: indicator ring 136": raw_frame(0x14, bytes([0, 1, 0, 136, 0]), 7),
        "payload: seat_button 255": raw_frame(0x16, bytes([0, 255]), 8),
        "payload: events_dropped 0": raw_frame(0x19, b"\x00\x00", 9),
        "payload: controller_reset short": raw_frame(0x18, b"\x03\x00", 10),
        "payload: config_fault key length past the end": raw_frame(0x1A, b"\x02\xff\x05ab", 11),
        "payload: config_fault problem 0": raw_frame(0x1A, b"\x00\xff\x00", 12),
        "payload: config_fault key not utf-8": raw_frame(0x1A, b"\x02\xff\x02\xc3\x28", 13),
        "payload: config_fault key of 33 bytes": raw_frame(0x1A, b"\x02\xff\x21" + b"k" * 33, 14),
        "oversize run": b"\x00" + b"\x01" * 1100 + b"\x00" + good,
        "exactly the longest chunk": b"\x00" + b"\x01" * 1040 + b"\x00",
        "one byte over": b"\x00" + b"\x01" * 1041 + b"\x00",
        "unterminated tail": good + b"\x02\x01\x04",
    }
    out = []
    for name, wire in streams.items():
        items = decode_all(wire)
        out.append({"name": name, "wire": wire.hex(), "expect": [item_json(i) for i in items]})
    return out


# --- ARQ: scripts of what the host sends and when, and every byte the controller answers -----


def hello(min_v: int = 1, max_v: int = 1, boot: int = HOST_BOOT, rx_boot: int | None = None,
          rx_last: int | None = None) -> bytes:
    return encode_frame(Hello(min_v, max_v, boot, rx_boot, rx_last))


Step = dict[str, Any]


def arq_scripts() -> dict[str, list[Step]]:
    wire = encode_frame
    e = lambda m: {"event": m.to_json()}  # noqa: E731
    s: dict[str, list[Step]] = {}
    s["handshake, command, duplicate, event, retransmit, ack, heartbeat"] = [
        {"at": 0, "rx": hello()},
        {"at": 10, "rx": wire(HonbaDisplay(2, 1), 0)},
        {"at": 20, "rx": wire(HonbaDisplay(2, 1), 0, retransmit=True)},
        {"at": 30, **e(Dice((3, 4)))},
        {"at": 200, "tick": True},
        {"at": 210, "rx": wire(Ack(), 0)},
        {"at": 220, "rx": wire(Ack(), 0)},
        {"at": 480, "tick": True},
        {"at": 500, "rx": encode_frame(message_from_json({"type": "heartbeat"}))},
    ]
    s["corrupt chunks and the nak holdoff"] = [
        {"at": 0, "rx": hello()},
        {"at": 5, "rx": b"\x13\x37\x00"},
        {"at": 10, "rx": b"\x13\x37\x00"},
        {"at": 40, "rx": b"\x00\x05\x01\x00"},
        {"at": 45, **e(WallRaised())},
        {"at": 50, "rx": wire(message_from_json({"type": "nak", "reason": "corrupt"}))},
    ]
    s["rejections: unknown type, no capability, wrong direction, bad payload"] = [
        {"at": 0, "rx": hello()},
        {"at": 5, "rx": raw_frame(0x30, b"", 1)},
        {"at": 10, "rx": wire(ScoreDisplay((1, 2, 3, 4)), 2)},
        {"at": 15, "rx": wire(StartPressed(1), 3)},
        {"at": 20, "rx": raw_frame(0x22, b"\x00\x00\x01", 4)},
        {"at": 25, "rx": raw_frame(0x0E, b"", 0)},
        {"at": 30, **e(Fault(2, 3))},
        {"at": 35, "rx": wire(message_from_json({"type": "nak", "reason": "rejected"}), 0)},
    ]
    s["no common version: welcome 0, stays unconnected"] = [
        {"at": 0, "rx": hello(2, 3)},
        {"at": 5, "rx": wire(HonbaDisplay(1, 0), 0)},
        {"at": 10, **e(WallRaised())},
        {"at": 2000, "tick": True},
        {"at": 2010, "rx": hello(1, 2)},
    ]
    s["silence, then hello says the event was delivered"] = [
        {"at": 0, "rx": hello()},
        {"at": 10, **e(Dice((1, 1)))},
        {"at": 15, **e(Dice((2, 2)))},
        {"at": 20, "rx": wire(HonbaDisplay(3, 0), 0)},
        {"at": 1100, "tick": True},
        {"at": 1200, "rx": hello(rx_boot=CTL_BOOT, rx_last=0)},
        {"at": 1210, "rx": wire(Ack(), 1)},
        {"at": 1220, "rx": wire(HonbaDisplay(3, 0), 0, retransmit=True)},
    ]
    s["a new host boot: its seqs start afresh"] = [
        {"at": 0, "rx": hello()},
        {"at": 10, "rx": wire(HonbaDisplay(1, 0), 0)},
        {"at": 20, "rx": hello(boot=HOST_BOOT + 1)},
        {"at": 30, "rx": wire(HonbaDisplay(2, 0), 0)},
        {"at": 40, "rx": hello(boot=HOST_BOOT + 1)},
        {"at": 50, "rx": wire(HonbaDisplay(2, 0), 0, retransmit=True)},
    ]
    s["no ack: four resends, then lost; resent after the next hello"] = [
        {"at": 0, "rx": hello()},
        {"at": 10, **e(WallRaised())},
        *({"at": 10 + 160 * k, "tick": True, "rx": wire(message_from_json(
            {"type": "heartbeat"}))} for k in range(1, 6)),
        {"at": 900, "rx": hello(rx_boot=CTL_BOOT, rx_last=None)},
        {"at": 910, "rx": wire(Ack(), 0)},
    ]
    s["details §7: a corrupt-NAK resend restarts the timer, bad control frames are no life"] = [
        {"at": 0, "rx": hello()},
        {"at": 10, **e(WallRaised())},
        {"at": 100, "rx": wire(message_from_json({"type": "nak", "reason": "corrupt"}))},
        {"at": 200, "tick": True},
        {"at": 260, "tick": True},
        {"at": 270, "rx": raw_frame(0x01, b"\x01")},
        {"at": 280, "rx": encode_frame(message_from_json(
            {"type": "welcome", "version": 1, "capabilities": [], "boot_id": 9, "rx_last": None,
             "firmware": "other"}))},
        {"at": 1150, "tick": True},
        {"at": 1200, "rx": hello(rx_boot=CTL_BOOT, rx_last=200)},
        {"at": 1210, "rx": wire(Ack(), 0)},
    ]
    wrap: list[Step] = [{"at": 0, "rx": hello()}]
    for k in range(258):
        wrap += [{"at": 1 + 2 * k, **e(StartPressed(k % 4))},
                 {"at": 2 + 2 * k, "rx": wire(Ack(), k % 256)}]
    s["sequence numbers wrap 255 -> 0"] = wrap
    return s


def run_reference(steps: list[Step]) -> list[Step]:
    """Every step with what the host's Endpoint in the controller role answers (tx, delivered)."""
    caps = frozenset(Capability) - {Capability.SCORE_DISPLAYS}

    def accept(message: Message) -> bool:
        needed = REQUIRED_CAPABILITY.get(message.TYPE)
        return needed is None or needed in caps

    ctl = Endpoint(Role.CONTROLLER, boot_id=CTL_BOOT, timings=LinkTimings(), capabilities=caps,
                   firmware=FIRMWARE, accept=accept)
    ctl.attach(0.0)
    out = []
    for step in steps:
        now = step["at"] / 1000
        if "event" in step:
            ctl.send(message_from_json(step["event"]), now)  # type: ignore[arg-type]
        if step.get("tick"):
            ctl.tick(now)
        if "rx" in step:
            ctl.receive(step["rx"], now)
        data, outputs = ctl.drain()
        delivered = [[int(o.message.TYPE), o.at.seq] for o in outputs
                     if type(o).__name__ == "Delivered"]  # type: ignore[attr-defined]
        row = {k: (v.hex() if isinstance(v, bytes) else v) for k, v in step.items()}
        if "event" in step:
            event = message_from_json(step["event"])
            row["event_type"], row["event_payload"] = int(event.TYPE), event.payload().hex()
        out.append({**row, "tx": data.hex(), "delivered": delivered})
    return out


def main() -> None:
    doc = {
        "about": "Shared test vectors of the table link (docs/protocol/table-link.md). Made by "
                 "tests/firmware/make_vectors.py from the host's reference codec; checked against "
                 "both drivers/link and firmware/.",
        "controller": {"boot_id": CTL_BOOT, "firmware": FIRMWARE,
                       "capabilities": sum(c.bit for c in Capability
                                           if c is not Capability.SCORE_DISPLAYS),
                       "timings_ms": {"heartbeat_interval": 250, "link_timeout": 1000,
                                      "ack_timeout": 150, "max_retries": 4, "nak_holdoff": 20}},
        "crc32c": crc_vectors(),
        "cobs": cobs_vectors(),
        "cobs_invalid": ["05010203", "0201000102", "ff" + "01" * 10, "00"],
        # §2 "COBS details": a decoder accepts a closing 01 after a final full block
        "cobs_tolerated": [{"encoded": cobs_encode(bytes(range(1, 255))).hex() + "01",
                            "body": bytes(range(1, 255)).hex()}],
        "frames": frame_vectors(),
        "streams": stream_vectors(),
        "arq": [{"name": name, "steps": run_reference(steps)}
                for name, steps in arq_scripts().items()],
    }
    OUT.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
