"""Keyboard-emulating readers: struct input_event bytes → key presses → tags (pure parts)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.tiles.events import FaultKind, ReaderFault, TagSeen
from drivers.tiles.input_event import EV_KEY, InputEvent, InputEventDecoder
from drivers.tiles.keymap import KeyTagAssembler
from hil.rfid_emulator import KEY_CODES, input_event, typed

MS = 1_000_000
T0 = 1_700_000_000 * 1_000_000_000


def run(data: bytes, word_bytes: int = 8, gap_ns: int = 200 * MS) -> list[TagSeen | ReaderFault]:
    dec = InputEventDecoder(word_bytes)
    keys = KeyTagAssembler("kbd", gap_ns)
    out = []
    for ev in dec.feed(data):
        out += keys.feed(ev)
    return out


@pytest.mark.parametrize("word_bytes", [8, 4])
def test_a_typed_tag_is_one_tag_at_the_enter_timestamp(word_bytes: int) -> None:
    data = typed("04a1b2c3d4", T0, word_bytes=word_bytes)
    assert len(data) == 11 * 6 * (24 if word_bytes == 8 else 16)
    assert run(data, word_bytes) == [TagSeen("kbd", "04A1B2C3D4", T0 + 10 * MS)]


def test_the_decoder_reads_the_kernel_layout() -> None:
    raw = struct.pack("<qqHHi", 12, 345_678, EV_KEY, 30, 1)
    assert InputEventDecoder(8).feed(raw) == [InputEvent(12, 345_678, EV_KEY, 30, 1)]
    assert InputEvent(12, 345_678, EV_KEY, 30, 1).t_ns == 12_345_678_000


def test_events_split_anywhere_are_reassembled() -> None:
    data = typed("0A0B0C0D", T0) + typed("12345678", T0 + 50 * MS)
    dec = InputEventDecoder(8)
    keys = KeyTagAssembler("kbd")
    out = []
    for i in range(0, len(data), 7):
        for ev in dec.feed(data[i : i + 7]):
            out += keys.feed(ev)
    assert [e.tag for e in out if isinstance(e, TagSeen)] == ["0A0B0C0D", "12345678"]
    assert dec.pending == 0


def test_keypad_digits_and_keypad_enter_make_a_tag() -> None:
    kp = {"1": 79, "2": 80, "3": 81, "4": 75, "5": 76, "6": 77, "7": 71, "8": 72, "9": 73, "0": 82}
    data = b"".join(
        input_event(T0 + i * MS, EV_KEY, kp[c], v)
        for i, c in enumerate("0012345678")
        for v in (1, 0)
    ) + input_event(T0 + 20 * MS, EV_KEY, 96, 1)
    assert run(data) == [TagSeen("kbd", "0012345678", T0 + 20 * MS)]


def test_non_hex_keys_make_a_garbage_fault_not_a_tag() -> None:
    (fault,) = run(typed("04XYZ9", T0))
    assert isinstance(fault, ReaderFault) and fault.kind is FaultKind.GARBAGE
    assert "'X'" in fault.detail and "04XYZ9" in fault.detail


def test_unknown_key_codes_and_autorepeat_are_garbage() -> None:
    data = typed("04A1", T0, enter=False) + input_event(T0 + 5 * MS, EV_KEY, 183, 1)
    data += input_event(T0 + 6 * MS, EV_KEY, KEY_CODES["1"], 2) + typed("", T0 + 7 * MS)
    (fault,) = run(data)
    assert isinstance(fault, ReaderFault) and fault.kind is FaultKind.GARBAGE
    assert "key code 183" in fault.detail and "autorepeat" in fault.detail


def test_a_bare_enter_and_a_short_tag_are_faults() -> None:
    out = run(typed("", T0) + typed("0A", T0 + 10 * MS))
    assert [(e.kind if isinstance(e, ReaderFault) else e) for e in out] == [
        FaultKind.GARBAGE, FaultKind.TRUNCATED,
    ]


def test_a_tag_without_enter_is_truncated_by_silence_and_the_next_tag_is_clean() -> None:
    data = typed("04A1B2", T0, enter=False) + typed("0A0B0C0D", T0 + 300 * MS)
    out = run(data)
    assert isinstance(out[0], ReaderFault) and out[0].kind is FaultKind.TRUNCATED
    assert "04A1B2" in out[0].detail
    assert out[1:] == [TagSeen("kbd", "0A0B0C0D", T0 + 308 * MS)]


def test_flush_reports_a_pending_tag_only_after_the_gap() -> None:
    keys = KeyTagAssembler("kbd", 200 * MS)
    for ev in InputEventDecoder(8).feed(typed("04A1", T0, enter=False)):
        keys.feed(ev)
    assert keys.flush(T0 + 100 * MS) == []
    (fault,) = keys.flush(T0 + 400 * MS)
    assert isinstance(fault, ReaderFault) and fault.kind is FaultKind.TRUNCATED


def test_an_overlong_tag_is_too_long() -> None:
    (fault,) = run(typed("A" * 40, T0, interval_ns=100_000))
    assert isinstance(fault, ReaderFault) and fault.kind is FaultKind.TOO_LONG


def test_syn_dropped_loses_the_tag_in_progress_loudly() -> None:
    data = typed("04A1", T0, enter=False) + input_event(T0 + 5 * MS, 0, 3, 0)
    data += typed("B2C3", T0 + 6 * MS)
    out = run(data)
    assert isinstance(out[0], ReaderFault) and out[0].kind is FaultKind.DROPPED
    # the tail after the drop is not glued to the head: "B2C3" alone is a (short but valid) tag
    assert out[1:] == [TagSeen("kbd", "B2C3", T0 + 10 * MS)]


@settings(max_examples=200)
@given(st.binary(max_size=600))
def test_random_bytes_never_crash(data: bytes) -> None:
    for word in (8, 4):
        out = run(data, word)
        assert all(isinstance(e, (TagSeen, ReaderFault)) for e in out)


key_event = st.tuples(st.integers(0, 0x1F), st.integers(0, 300), st.integers(-1, 3))
tags = st.text("0123456789ABCDEF", min_size=4, max_size=32)


@settings(max_examples=200)
@given(st.lists(st.tuples(st.lists(key_event, max_size=12), tags), min_size=1, max_size=6))
def test_every_intact_tag_after_noise_and_a_gap_is_recovered(
    pieces: list[tuple[list[tuple[int, int, int]], str]],
) -> None:
    t = T0
    data = b""
    for noise, tag in pieces:
        for type_, code, value in noise:
            data += input_event(t, type_, code, value)
            t += MS
        t += 250 * MS  # readers pause between tags: the gap cuts any noise off
        data += typed(tag, t)
        t += 100 * MS
    out = run(data)
    recovered = iter(e.tag for e in out if isinstance(e, TagSeen))
    # in order; noise that types hex digits and Enter is itself a tag, so extras may appear
    assert all(any(r == tag for r in recovered) for _, tag in pieces)
