"""Differential fuzz: the firmware's decoder (firmware/frame.py) and the host's
(drivers/link/frame.py) read any byte stream -- valid frames of every type, bit flips,
truncations, garbage, intact frames with corrupted payloads, fed in random chunks -- into the
same frames and the same error spans (reason, offset, length, seq, type; §4), and a frame the
firmware encodes is the host's byte for byte (§3)."""

from __future__ import annotations

import struct
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.link.crc import crc32c_python as crc32c
from drivers.link.frame import Decoder, ErrorSpan, Frame, encode_frame
from drivers.link.messages import MessageType, examples, message_from_payload
from firmware import frame as fw
from hil.kit import bounded

pytestmark = pytest.mark.slow  # bounded (300 examples) unless JANTAKU_SLOW=1

FUZZ = settings(max_examples=bounded(300, 3000),
                deadline=None, suppress_health_check=[HealthCheck.too_slow])
EXAMPLES = examples()


def _intact(kind: int, payload: bytes, seq: int) -> bytes:
    """A frame with a good CRC whatever its type and payload (unknown types, bad payloads)."""
    from drivers.link.cobs import cobs_encode

    body = struct.pack("<BBBBH", 1, 0, seq, kind, len(payload)) + payload
    return b"\x00" + cobs_encode(body + crc32c(body).to_bytes(4, "little")) + b"\x00"


@st.composite
def pieces(draw: st.DrawFn) -> bytes:
    message = draw(st.sampled_from(EXAMPLES))
    seq = draw(st.integers(0, 255))
    frame = encode_frame(message, seq, retransmit=draw(st.booleans()))
    kind = draw(st.sampled_from(["valid", "flip", "truncate", "garbage", "intact", "intact"]))
    if kind == "flip":
        raw = bytearray(frame)
        raw[draw(st.integers(1, len(raw) - 2))] ^= 1 << draw(st.integers(0, 7))
        return bytes(raw)
    if kind == "truncate":
        return frame[:draw(st.integers(1, len(frame) - 1))]
    if kind == "garbage":
        return draw(st.binary(min_size=1, max_size=40))
    if kind == "intact":  # any type byte, any payload: unknown_type, payload or a valid frame
        payload = message.payload()
        if payload and draw(st.booleans()):
            raw = bytearray(payload)
            raw[draw(st.integers(0, len(raw) - 1))] = draw(st.integers(0, 255))
            payload = bytes(raw)
        else:
            payload = draw(st.binary(max_size=20))
        return _intact(draw(st.sampled_from([int(message.TYPE), *range(0, 0x30)])), payload, seq)
    return frame


def _host(items: list[Frame | ErrorSpan]) -> list[tuple[Any, ...]]:
    return [("frame", int(i.message.TYPE), i.message.payload(), i.seq, i.retransmit, i.offset,
             i.length) if isinstance(i, Frame) else
            ("span", i.reason.value, i.offset, i.length, i.seq, i.message_type) for i in items]


def _firmware(items: list[fw.Frame | fw.Garbled]) -> list[tuple[Any, ...]]:
    # the payload as the host re-encodes what it read (a welcome's unknown capability bits are
    # dropped, §5): both decoders took the same frame if the host reads the same message
    return [("frame", i.kind, message_from_payload(MessageType(i.kind), i.payload).payload(),
             i.seq, i.retransmit, i.offset, i.length)
            if isinstance(i, fw.Frame) else ("span", i.reason, i.offset, i.length, i.seq, i.kind)
            for i in items]


@FUZZ
@given(st.lists(pieces(), min_size=1, max_size=12), st.integers(1, 64))
def test_both_decoders_read_any_stream_alike(parts: list[bytes], chunk: int) -> None:
    stream = b"".join(parts)
    host, firm = Decoder(), fw.Decoder()
    got_host: list[Frame | ErrorSpan] = []
    got_fw: list[fw.Frame | fw.Garbled] = []
    for k in range(0, len(stream), chunk):
        got_host += host.feed(stream[k:k + chunk])
        got_fw += firm.feed(stream[k:k + chunk])
    got_host += host.flush()
    got_fw += firm.flush()
    assert _firmware(got_fw) == _host(got_host)


@FUZZ
@given(st.sampled_from(EXAMPLES), st.integers(0, 255), st.booleans())
def test_the_firmware_encodes_every_frame_as_the_host(message: Any, seq: int, rt: bool) -> None:
    assert fw.encode_frame(int(message.TYPE), message.payload(), seq, rt) == \
        encode_frame(message, seq, retransmit=rt)
