"""Serial RFID frames (drivers/tiles/serial_frame.py): the codec, every fault, and properties."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.tiles.events import FaultKind, ReaderFault, TagSeen
from drivers.tiles.serial_frame import FrameDecoder, checksum, encode_frame
from hil.rfid_emulator import rdm6300_frame

MS = 1_000_000


def decode(data: bytes, t: int = 0) -> list[TagSeen | ReaderFault]:
    return FrameDecoder("r1").feed(data, t)


def test_a_real_rdm6300_frame_decodes() -> None:
    # EM4100 card 0x62E3086CED: checksum = 62^E3^08^6C^ED = 0x08
    frame = b"\x0262E3086CED08\x03"
    assert decode(frame) == [TagSeen("r1", "62E3086CED", 0)]
    assert encode_frame("62e3086ced") == frame
    assert checksum(bytes.fromhex("62E3086CED")) == 0x08


def test_lower_case_hex_and_line_noise_between_frames_are_accepted() -> None:
    data = b"\r\n" + rdm6300_frame("04A1B2C3").lower() + b"\r\n\x00" + rdm6300_frame("0A0B")
    assert decode(data) == [TagSeen("r1", "04A1B2C3", 0), TagSeen("r1", "0A0B", 0)]


def test_a_frame_split_across_reads_is_one_tag() -> None:
    dec = FrameDecoder("r1")
    frame = rdm6300_frame("04A1B2C3D4E5F6")
    out = []
    for i in range(len(frame)):
        out += dec.feed(frame[i : i + 1], i)
    assert out == [TagSeen("r1", "04A1B2C3D4E5F6", len(frame) - 1)]


def test_bad_checksum_is_reported_not_repaired() -> None:
    frame = bytearray(rdm6300_frame("62E3086CED"))
    frame[-2] = ord("9")
    (fault,) = decode(bytes(frame))
    assert isinstance(fault, ReaderFault) and fault.kind is FaultKind.BAD_CHECKSUM
    assert "62E3086CED09" in fault.detail


def test_garbage_before_a_frame_is_reported_and_the_frame_survives() -> None:
    out = decode(b"\xff\xfeZZ" + rdm6300_frame("04A1B2C3"))
    assert [type(e) for e in out] == [ReaderFault, TagSeen]
    assert isinstance(out[0], ReaderFault) and out[0].kind is FaultKind.GARBAGE
    assert "4 bytes" in out[0].detail


def test_a_frame_cut_off_by_the_next_stx_is_truncated_and_the_next_one_survives() -> None:
    out = decode(rdm6300_frame("04A1B2C3")[:6] + rdm6300_frame("0A0B0C0D"))
    assert isinstance(out[0], ReaderFault) and out[0].kind is FaultKind.TRUNCATED
    assert out[1:] == [TagSeen("r1", "0A0B0C0D", 0)]


def test_a_frame_cut_off_by_silence_is_truncated_after_the_gap_only() -> None:
    dec = FrameDecoder("r1", gap_ns=100 * MS)
    assert dec.feed(rdm6300_frame("04A1B2C3")[:7], 0) == []
    assert dec.flush(50 * MS) == []  # still within a frame's time
    (fault,) = dec.flush(100 * MS)
    assert isinstance(fault, ReaderFault) and fault.kind is FaultKind.TRUNCATED
    assert dec.flush(500 * MS) == []  # reported once


def test_a_late_continuation_is_not_glued_to_a_stale_frame() -> None:
    dec = FrameDecoder("r1", gap_ns=100 * MS)
    frame = rdm6300_frame("04A1B2C3")
    assert dec.feed(frame[:5], 0) == []
    out = dec.feed(frame[5:], 300 * MS)
    assert isinstance(out[0], ReaderFault) and out[0].kind is FaultKind.TRUNCATED
    assert not any(isinstance(e, TagSeen) for e in out)


def test_odd_or_short_bodies_and_overlong_frames_are_refused() -> None:
    for body in (b"0", b"ABC", b"12345", b"0A0"):
        (fault,) = decode(b"\x02" + body + b"\x03")
        assert isinstance(fault, ReaderFault) and fault.kind is FaultKind.TRUNCATED, body
    out = decode(b"\x02" + b"A" * 80 + b"\x03")
    assert next(e.kind for e in out if isinstance(e, ReaderFault)) is FaultKind.TOO_LONG
    assert not any(isinstance(e, TagSeen) for e in out)


def test_a_non_hex_byte_inside_a_frame_cuts_it() -> None:
    out = decode(b"\x0204A1\xffB2C3\x03" + rdm6300_frame("0A0B"))
    assert out[0] == ReaderFault("r1", FaultKind.TRUNCATED, "frame '04A1' cut off by byte 0xff", 0)
    assert out[-1] == TagSeen("r1", "0A0B", 0)
    assert sum(isinstance(e, TagSeen) for e in out) == 1


@settings(max_examples=300)
@given(st.binary(max_size=200), st.lists(st.integers(1, 16), max_size=8))
def test_random_bytes_never_crash_and_every_byte_is_accounted(data: bytes, cuts: list[int]) -> None:
    dec = FrameDecoder("r1")
    out = []
    pos = 0
    for c in cuts:
        out += dec.feed(data[pos : pos + c], 0)
        pos += c
    out += dec.feed(data[pos:], 0)
    out += dec.flush(0, force=True)
    assert not dec.in_progress
    for e in out:
        assert isinstance(e, (TagSeen, ReaderFault))
        if isinstance(e, TagSeen):
            # a tag only comes from a frame whose checksum matched
            assert encode_frame(e.tag) in data.upper()


uids = st.binary(min_size=2, max_size=16).map(lambda b: b.hex().upper())
garbage = st.binary(max_size=40)


@settings(max_examples=300)
@given(st.lists(st.tuples(garbage, uids), min_size=1, max_size=8), garbage,
       st.integers(1, 64))
def test_every_intact_frame_is_recovered_in_order(
    pieces: list[tuple[bytes, str]], tail: bytes, chunk: int
) -> None:
    stream = b"".join(g + encode_frame(u) for g, u in pieces) + tail
    dec = FrameDecoder("r1")
    out = []
    for i in range(0, len(stream), chunk):
        out += dec.feed(stream[i : i + chunk], 0)
    out += dec.flush(0, force=True)
    tags = iter(e.tag for e in out if isinstance(e, TagSeen))
    # every frame appears, in order (garbage may itself contain a valid frame: extras allowed)
    assert all(any(t == u for t in tags) for _, u in pieces)


@given(st.lists(st.tuples(st.binary(max_size=20).filter(lambda g: 2 not in g), uids),
                min_size=1, max_size=8))
def test_garbage_without_stx_adds_no_tags(pieces: list[tuple[bytes, str]]) -> None:
    stream = b"".join(g + encode_frame(u) for g, u in pieces)
    out = decode(stream)
    assert [e.tag for e in out if isinstance(e, TagSeen)] == [u for _, u in pieces]
