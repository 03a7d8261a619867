"""The shared test vectors (tests/data/link-vectors.json) hold both codecs to the same bytes: the
host's (drivers/link: frames, CRC, COBS, decoder spans, and its Endpoint in the controller role)
and the firmware's (firmware/, here under CPython; test_firmware_checks.py runs the same check
under MicroPython). Protocol: docs/protocol/table-link.md §2-§4 (framing, CRC, spans), §7 (ARQ).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import check_vectors
import pytest

from drivers.link.arq import Endpoint
from drivers.link.cobs import cobs_decode, cobs_encode
from drivers.link.crc import crc32c_python as crc32c
from drivers.link.frame import Decoder, ErrorSpan, Frame, encode_frame
from drivers.link.messages import (
    REQUIRED_CAPABILITY,
    Message,
    capabilities_from_bits,
    message_from_json,
)
from drivers.link.reports import Delivered, Role
from drivers.link.timings import LinkTimings

DOC: dict[str, Any] = json.loads(
    (Path(__file__).parents[1] / "data" / "link-vectors.json").read_text(encoding="utf-8"))


def _item(item: Frame | ErrorSpan) -> dict[str, Any]:
    if isinstance(item, Frame):
        return {"type": int(item.message.TYPE), "payload": item.message.payload().hex(),
                "seq": item.seq, "retransmit": item.retransmit, "offset": item.offset,
                "length": item.length}
    return {"error": item.reason.value, "offset": item.offset, "length": item.length,
            "seq": item.seq, "type": item.message_type}


def test_vectors_cover_every_message_type_and_every_span_reason() -> None:
    assert {v["type"] for v in DOC["frames"]} == set(range(1, 6)) | set(range(0x10, 0x1B)) | \
        set(range(0x20, 0x25))
    reasons = {i["error"] for s in DOC["streams"] for i in s["expect"] if "error" in i}
    assert reasons == {"oversize", "cobs", "short", "crc", "version", "length", "unknown_type",
                       "payload", "truncated"}


def test_crc32c_check_value_and_vectors_host() -> None:
    # §3: CRC-32C check("123456789") = 0xE3069283
    assert {"data": b"123456789".hex(), "crc": 0xE3069283} in DOC["crc32c"]
    for v in DOC["crc32c"]:
        assert crc32c(bytes.fromhex(v["data"])) == v["crc"]


def test_cobs_edge_cases_host() -> None:
    for v in DOC["cobs"]:
        body, encoded = bytes.fromhex(v["body"]), bytes.fromhex(v["encoded"])
        assert cobs_encode(body) == encoded
        assert cobs_decode(encoded) == body
    for raw in DOC["cobs_invalid"]:
        assert cobs_decode(bytes.fromhex(raw)) is None
    for v in DOC["cobs_tolerated"]:  # §2: a closing 01 after a final full block
        assert cobs_decode(bytes.fromhex(v["encoded"])) == bytes.fromhex(v["body"])


def test_every_frame_encodes_and_decodes_byte_exact_host() -> None:
    # §3 worked example: dice [3, 4] seq 7
    worked = next(v for v in DOC["streams"] if v["name"] == "worked example §3")
    assert worked["wire"] == "00020104071202070304" "8c9147f000"
    for v in DOC["frames"]:
        message = message_from_json(v["json"])
        wire = encode_frame(message, v["seq"], retransmit=v["retransmit"])
        assert wire.hex() == v["wire"]
        (frame,) = Decoder().feed(wire)
        assert isinstance(frame, Frame) and frame.message == message


@pytest.mark.parametrize("chunk", [0, 1, 7])
def test_streams_give_the_same_frames_and_spans_host(chunk: int) -> None:
    for v in DOC["streams"]:
        wire = bytes.fromhex(v["wire"])
        size = chunk or len(wire)
        decoder = Decoder()
        items = [i for k in range(0, len(wire), size) for i in decoder.feed(wire[k:k + size])]
        items += decoder.flush()
        assert [_item(i) for i in items] == v["expect"], v["name"]


def test_arq_scripts_host_endpoint_as_controller() -> None:
    """§7: the host's Endpoint, in the controller role, answers every script byte for byte."""
    ctl = DOC["controller"]
    caps = capabilities_from_bits(ctl["capabilities"])

    def accept(message: Message) -> bool:
        needed = REQUIRED_CAPABILITY.get(message.TYPE)
        return needed is None or needed in caps

    for script in DOC["arq"]:
        ep = Endpoint(Role.CONTROLLER, boot_id=ctl["boot_id"], timings=LinkTimings(),
                      capabilities=caps, firmware=ctl["firmware"], accept=accept)
        ep.attach(0.0)
        for step in script["steps"]:
            now = step["at"] / 1000
            if "event" in step:
                ep.send(message_from_json(step["event"]), now)  # type: ignore[arg-type]
            if step.get("tick"):
                ep.tick(now)
            if "rx" in step:
                ep.receive(bytes.fromhex(step["rx"]), now)
            data, outputs = ep.drain()
            delivered = [[int(o.message.TYPE), o.at.seq] for o in outputs
                         if isinstance(o, Delivered)]
            assert (data.hex(), delivered) == (step["tx"], step["delivered"]), \
                f"{script['name']} at {step['at']} ms"


def test_firmware_codec_and_link_cpython() -> None:
    """The firmware's modules, run by CPython, against the same vectors."""
    assert check_vectors.check_codec(DOC) == []
    assert check_vectors.check_arq(DOC) == []


def test_a_wrong_vector_is_caught() -> None:
    """The checker can fail: one flipped expectation in each part is reported."""
    doc = json.loads(json.dumps(DOC))
    doc["crc32c"][1]["crc"] ^= 1
    doc["streams"][0]["expect"][0]["seq"] = 8
    doc["arq"][0]["steps"][1]["tx"] = ""
    fails = check_vectors.check(doc)
    assert any(f.startswith("crc32c") for f in fails)
    assert any(f.startswith("stream worked example") for f in fails)
    assert any(f.startswith("handshake, command") for f in fails)
