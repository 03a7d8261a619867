"""Hypothesis fuzz of the decoder: random garbage, truncation, bit flips and splices of valid
frames, fed in random chunks. The decoder never raises, recovers every frame that no damage
touched (at its exact offset), and accounts for every other non-idle byte in an error span."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.link.frame import Decoder, ErrorSpan, Frame, encode_frame
from drivers.link.messages import Message, examples
from hil.kit import bounded

pytestmark = pytest.mark.slow  # bounded (250 examples) unless JANTAKU_SLOW=1

EXAMPLES = examples()
FUZZ = settings(
    max_examples=bounded(250, 2000),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@st.composite
def frames(draw: st.DrawFn) -> tuple[Message, int, bytes]:
    message = draw(st.sampled_from(EXAMPLES))
    seq = draw(st.integers(0, 255))
    return message, seq, encode_frame(message, seq, retransmit=draw(st.booleans()))


@st.composite
def segments(draw: st.DrawFn) -> tuple[str, bytes, Message | None, int]:
    """One piece of the stream: ("valid", bytes, message, seq) or damaged/garbage bytes."""
    kind = draw(st.sampled_from(["valid", "valid", "garbage", "truncated", "flipped", "splice"]))
    message, seq, frame = draw(frames())
    if kind == "valid":
        return kind, frame, message, seq
    if kind == "garbage":
        return kind, draw(st.binary(min_size=1, max_size=300)), None, 0
    if kind == "truncated":
        return kind, frame[: draw(st.integers(1, len(frame) - 1))], None, 0
    if kind == "flipped":
        data = bytearray(frame)
        for _ in range(draw(st.integers(1, 3))):
            bit = draw(st.integers(0, len(data) * 8 - 1))
            data[bit // 8] ^= 1 << (bit % 8)
        return kind, bytes(data), None, 0
    _, _, other = draw(frames())
    cut_a = draw(st.integers(1, len(frame) - 1))
    cut_b = draw(st.integers(1, len(other) - 1))
    return kind, frame[:cut_a] + other[cut_b:], None, 0


def feed_in_chunks(data: bytes, cuts: list[int]) -> list[Frame | ErrorSpan]:
    decoder = Decoder()
    out: list[Frame | ErrorSpan] = []
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    for a, b in itertools.pairwise(points):
        out += decoder.feed(data[a:b])
    return out + decoder.flush()


@FUZZ
@given(st.lists(segments(), max_size=25), st.lists(st.integers(0, 10_000), max_size=20))
def test_every_untouched_frame_is_recovered(
    pieces: list[tuple[str, bytes, Message | None, int]], cuts: list[int],
) -> None:
    stream = b"".join(p[1] for p in pieces)
    expected = []
    offset = 0
    for kind, data, message, seq in pieces:
        if kind == "valid":
            # the frame's span starts after its leading delimiter
            expected.append((offset + 1, len(data) - 1, message, seq))
        offset += len(data)

    decoded = feed_in_chunks(stream, cuts)

    got = {(i.offset, i.length): (i.message, i.seq) for i in decoded if isinstance(i, Frame)}
    for start, length, message, seq in expected:
        assert got.get((start, length)) == (message, seq)
    # spans are disjoint, in order, and cover every byte that is not an idle delimiter
    covered = bytearray(len(stream))
    last_end = 0
    for item in decoded:
        assert item.offset >= last_end and item.length >= 1
        last_end = item.offset + item.length
        covered[item.offset:last_end] = b"\x01" * item.length
    assert last_end <= len(stream)
    assert all(covered[i] or stream[i] == 0 for i in range(len(stream)))


@FUZZ
@given(st.binary(max_size=4000), st.lists(st.integers(0, 5000), max_size=30))
def test_random_bytes_never_raise(data: bytes, cuts: list[int]) -> None:
    decoded = feed_in_chunks(data, cuts)
    assert sum(i.length for i in decoded) <= len(data)
