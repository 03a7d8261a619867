"""Table-link codec: CRC, COBS, every message's payload and JSON forms, decoder error spans."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.link.cobs import cobs_decode, cobs_encode
from drivers.link.crc import crc32c_of, crc32c_python
from drivers.link.errors import MalformedMessageError
from drivers.link.frame import (
    MAX_ENCODED,
    Decoder,
    ErrorReason,
    ErrorSpan,
    Frame,
    decode_all,
    encode,
    encode_frame,
    frame_body,
)
from drivers.link.messages import (
    MESSAGE_CLASSES,
    Dice,
    Fault,
    IndicatorTurned,
    Layer,
    WallManifest,
    examples,
    manifest_index,
    message_from_json,
    tile_from_code,
    tile_to_code,
)


def test_crc32c_check_value() -> None:
    assert crc32c_of(b"") == crc32c_python(b"") == 0
    assert crc32c_python(b"123456789") == crc32c_of(b"123456789") == 0xE3069283


@given(st.binary(max_size=1100), st.integers(0, 0xFFFFFFFF))
def test_crc32c_library_equals_the_python_reference(data: bytes, crc: int) -> None:
    """google-crc32c (drivers/link/crc.py) and the slicing-by-4 Python give the same values; the
    Python continues from any start over bytes, bytearray and memoryview alike."""
    assert crc32c_of(data) == crc32c_python(data)
    want = crc32c_python(data, crc)
    assert crc32c_python(bytearray(data), crc) == crc32c_python(memoryview(data), crc) == want


@given(st.binary(max_size=1200))
def test_cobs_round_trips_and_removes_zeros(data: bytes) -> None:
    encoded = cobs_encode(data)
    assert 0 not in encoded
    assert len(encoded) <= len(data) + len(data) // 254 + 1
    assert cobs_decode(encoded) == data


def test_cobs_rejects_bad_codes() -> None:
    assert cobs_decode(b"\x05\x01") is None  # points past the end
    assert cobs_decode(b"\x02\x00") is None  # contains a zero


def test_examples_cover_every_type() -> None:
    assert sorted(m.TYPE for m in examples()) == sorted(MESSAGE_CLASSES)


@pytest.mark.parametrize("message", examples(), ids=lambda m: m.TYPE.json_name)
def test_every_message_round_trips_through_frame_and_json(message: object) -> None:
    from drivers.link.messages import Message

    assert isinstance(message, Message)
    [frame] = decode_all(encode_frame(message, 200, retransmit=True))
    assert isinstance(frame, Frame)
    assert (frame.message, frame.seq, frame.retransmit) == (message, 200, True)
    assert message_from_json(message.to_json()) == message
    assert next(iter(message.to_json())) == "type"


def test_json_form_examples() -> None:
    assert Dice((3, 4)).to_json() == {"type": "dice", "values": [3, 4]}
    assert IndicatorTurned(2, 5, Layer.TOP, 130, "5mr").to_json() == {
        "type": "indicator_turned", "seat": 2, "stack": 5, "layer": "top", "ring": 130,
        "tile": "5mr"}
    assert Fault(2, None).to_json() == {"type": "fault", "code": 2, "name": "wall_lift_jam",
                                        "seat": None}
    assert Fault(999).name == "unknown"


@pytest.mark.parametrize("obj, expected", [
    ({"type": "dice", "values": [0, 3]}, "values\\[0\\] must be 1..6"),
    ({"type": "dice", "values": [1, 2, 3]}, "list of 2"),
    ({"type": "dice"}, "missing key"),
    ({"type": "dice", "values": [1, 2], "extra": 1}, "unknown key"),
    ({"type": "break_opened", "seat": 4, "count": 7}, "seat must be 0..3"),
    ({"type": "indicator_turned", "seat": 0, "stack": 18, "layer": "top", "ring": None,
      "tile": None}, "stack must be 1..17"),
    ({"type": "indicator_turned", "seat": 0, "stack": 1, "layer": "up", "ring": None,
      "tile": None}, "layer must be"),
    ({"type": "indicator_turned", "seat": 0, "stack": 1, "layer": "top", "ring": None,
      "tile": "0m"}, "not an mjai tile"),
    ({"type": "fault", "code": 2, "name": "overheat", "seat": None}, "does not match"),
    ({"type": "teleport"}, "unknown message type"),
    ([1, 2], "must be a JSON object"),
    ({"type": "dice", "values": [True, 2]}, "must be an integer"),
])
def test_malformed_json_is_rejected_precisely(obj: object, expected: str) -> None:
    with pytest.raises(MalformedMessageError, match=expected):
        message_from_json(obj)


def test_tile_codes() -> None:
    assert [tile_from_code(c) for c in (0, 8, 9, 27, 33, 34, 36, 0xFF)] == [
        "1m", "9m", "1p", "E", "C", "5mr", "5sr", None]
    assert all(tile_to_code(tile_from_code(c)) == c for c in [*range(37), 0xFF])
    with pytest.raises(MalformedMessageError):
        tile_from_code(37)


def test_manifest_positions_follow_the_geometry_terms() -> None:
    tiles = [None] * 136
    tiles[manifest_index(3, 17, Layer.BOTTOM)] = "C"
    manifest = WallManifest(tuple(tiles))
    assert manifest_index(3, 17, Layer.BOTTOM) == 135
    assert manifest.tiles[135] == "C"
    assert manifest.payload()[135] == 33


def _spans(data: bytes) -> list[tuple[str, int, int]]:
    return [(i.reason.value, i.offset, i.length) for i in decode_all(data)
            if isinstance(i, ErrorSpan)]


def test_error_spans_name_the_reason_and_location() -> None:
    good = encode_frame(Dice((1, 2)), 3)
    body = bytearray(frame_body(Dice((1, 2)), 3))
    body[0] = 2  # a frame version from the future, with a matching CRC
    body[-4:] = crc32c_of(bytes(body[:-4])).to_bytes(4, "little")
    future = b"\x00" + cobs_encode(bytes(body)) + b"\x00"
    flipped = bytearray(good)
    flipped[5] ^= 0x01
    stream = b"abc" + good + bytes(flipped) + future + good[:7]
    decoded = decode_all(stream)
    frames = [i for i in decoded if isinstance(i, Frame)]
    assert [(f.message, f.offset, f.length) for f in frames] == [(Dice((1, 2)), 4, len(good) - 1)]
    assert [s[0] for s in _spans(stream)] == ["cobs", "crc", "version", "truncated"]
    assert _spans(stream)[0] == ("cobs", 0, 4)  # 'abc' and the delimiter that ended it


def test_intact_but_unusable_frames_carry_their_seq() -> None:
    body = bytes([1, 0, 77, 0x12, 1, 0, 9])  # dice with one byte of payload
    raw = b"\x00" + cobs_encode(body + crc32c_of(body).to_bytes(4, "little")) + b"\x00"
    [span] = decode_all(raw)
    assert isinstance(span, ErrorSpan)
    assert (span.reason, span.seq, span.message_type) == (ErrorReason.PAYLOAD, 77, 0x12)


def test_oversize_runs_are_discarded_up_to_the_next_delimiter() -> None:
    decoder = Decoder()
    out = []
    for _ in range(10):
        out += decoder.feed(b"\x01" * (MAX_ENCODED // 3))
    out += decoder.feed(encode(Dice((6, 6))))
    assert [type(i) for i in out] == [ErrorSpan, Frame]
    assert isinstance(out[0], ErrorSpan) and out[0].reason is ErrorReason.OVERSIZE
    assert out[0].length == 10 * (MAX_ENCODED // 3) + 1


def test_frame_is_found_whatever_the_chunking() -> None:
    stream = encode(Dice((2, 3))) * 3
    for size in (1, 2, 5, 64):
        decoder = Decoder()
        got = []
        for i in range(0, len(stream), size):
            got += decoder.feed(stream[i:i + size])
        assert [i.message for i in got if isinstance(i, Frame)] == [Dice((2, 3))] * 3
