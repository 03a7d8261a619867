"""firmware/crc.py computes CRC-32C in 16-bit halves (no long ints on the RP2040): the same
values as the host's drivers/link/crc.py, continued or not, through every entry point."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from drivers.link.crc import crc32c_python as host_crc
from firmware import crc


def test_check_value() -> None:
    assert crc.crc32c(b"123456789") == 0xE3069283
    assert crc.crc32c(b"") == 0


@given(st.binary(max_size=300), st.binary(max_size=40))
def test_halves_agree_with_the_host(data: bytes, more: bytes) -> None:
    assert crc.crc32c(data) == host_crc(data)
    assert crc.crc32c(more, crc.crc32c(data)) == host_crc(data + more)
    out = bytearray(len(data) + 4)
    out[:len(data)] = data
    crc.put(out, len(data), out, len(data))
    assert bytes(out[len(data):]) == host_crc(data).to_bytes(4, "little")
    assert crc.check(out, len(data))
    if data:
        out[0] ^= 1
        assert not crc.check(out, len(data))
