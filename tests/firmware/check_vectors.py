"""Holds the firmware's codec and link to the shared vectors (tests/data/link-vectors.json).

Written to run unchanged under CPython (tests/firmware/test_vectors.py imports it) and under
MicroPython (tests/firmware/test_micropython.py runs it in the MicroPython WebAssembly port), so
that the vectors check the code as the Pico runs it. ``check(doc)`` returns the failures.
"""

from binascii import hexlify, unhexlify

from firmware import frame as fr
from firmware import link as ln
from firmware.cobs import cobs_decode, cobs_encode
from firmware.crc import crc32c
from firmware.table import Table


def _hex(data: bytes) -> str:
    return hexlify(data).decode()


def _item(item: "fr.Frame | fr.Garbled") -> dict[str, object]:
    if isinstance(item, fr.Frame):
        return {"type": item.kind, "payload": _hex(item.payload), "seq": item.seq,
                "retransmit": item.retransmit, "offset": item.offset, "length": item.length}
    return {"error": item.reason, "offset": item.offset, "length": item.length,
            "seq": item.seq, "type": item.kind}


def _decode(wire: bytes, chunk: int) -> list[dict[str, object]]:
    decoder = fr.Decoder()
    items = []
    for start in range(0, len(wire), chunk):
        items += decoder.feed(wire[start:start + chunk])
    items += decoder.flush()
    return [_item(i) for i in items]


def check_codec(doc: dict[str, list[dict[str, object]]]) -> list[str]:
    fails = []
    for v in doc["crc32c"]:
        if crc32c(unhexlify(str(v["data"]))) != v["crc"]:
            fails.append("crc32c " + str(v["data"])[:16])
    for v in doc["cobs"]:
        body, enc = unhexlify(str(v["body"])), unhexlify(str(v["encoded"]))
        if cobs_encode(body) != enc or cobs_decode(enc) != body:
            fails.append("cobs body of " + str(len(body)) + " bytes")
    for raw in doc["cobs_invalid"]:
        if cobs_decode(unhexlify(str(raw))) is not None:
            fails.append("cobs accepted invalid " + str(raw))
    for v in doc["cobs_tolerated"]:
        if cobs_decode(unhexlify(str(v["encoded"]))) != unhexlify(str(v["body"])):
            fails.append("cobs refused a closing 01 after a full block")
    for v in doc["frames"]:
        kind, payload = int(str(v["type"])), unhexlify(str(v["payload"]))
        seq, retransmit = int(str(v["seq"])), bool(v["retransmit"])
        wire = unhexlify(str(v["wire"]))
        if fr.encode_frame(kind, payload, seq, retransmit) != wire:
            fails.append("encode type " + str(kind))
        got = _decode(wire, len(wire))
        if len(got) != 1 or got[0].get("type") != kind or got[0].get("payload") != v["payload"] \
                or got[0].get("seq") != seq or got[0].get("retransmit") != retransmit:
            fails.append("decode type " + str(kind) + ": " + str(got))
    for v in doc["streams"]:
        wire = unhexlify(str(v["wire"]))
        for chunk in (len(wire) or 1, 1, 7):
            if _decode(wire, chunk) != v["expect"]:
                fails.append("stream " + str(v["name"]) + " in chunks of " + str(chunk))
    return fails


class _Watched(Table):
    """The firmware's table, noting each command it is delivered."""

    def __init__(self, link: ln.Link) -> None:
        Table.__init__(self, link)
        self.seen: list[list[int]] = []

    def delivered(self, kind: int, payload: bytes, seq: int, now: int) -> None:
        self.seen.append([kind, seq])
        Table.delivered(self, kind, payload, seq, now)


def check_arq(doc: dict[str, object]) -> list[str]:
    fails = []
    ctl = doc["controller"]
    assert isinstance(ctl, dict)
    t = ctl["timings_ms"]
    arq = doc["arq"]
    assert isinstance(arq, list)
    for script in arq:
        link = ln.Link(ctl["boot_id"], ctl["capabilities"], ctl["firmware"],
                       ln.Timings(t["heartbeat_interval"], t["link_timeout"], t["ack_timeout"],
                                  t["max_retries"], t["nak_holdoff"]))
        table = _Watched(link)  # the capability check as the firmware does it
        delivered = table.seen
        link.attach(0)
        for step in script["steps"]:
            now = step["at"]
            if "event_type" in step:
                link.send(step["event_type"], unhexlify(step["event_payload"]), now)
            if step.get("tick"):
                link.tick(now)
            if "rx" in step:
                link.receive(unhexlify(step["rx"]), now)
            data = link.take_tx()
            if _hex(data) != step["tx"] or delivered != step["delivered"]:
                fails.append(script["name"] + " at " + str(now) + " ms: sent " + _hex(data)
                             + " delivered " + str(delivered) + ", expected " + step["tx"]
                             + " " + str(step["delivered"]))
                break
            del delivered[:]
    return fails


def check(doc: dict[str, object]) -> list[str]:
    return check_codec(doc) + check_arq(doc)  # type: ignore[arg-type]


def main() -> None:
    """Under MicroPython (run_micropython.mjs): the vectors are at /data/link-vectors.json."""
    import json
    import sys

    with open("/data/link-vectors.json") as f:
        doc = json.load(f)
    fails = check(doc)
    print("micropython", sys.implementation.version, "vectors", fails if fails else "ok")
    if fails:
        raise SystemExit(1)
