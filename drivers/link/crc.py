"""CRC-32C (Castagnoli), the check value of every table-link frame.

Parameters (the ``CRC-32/ISCSI`` entry of the CRC catalogue): polynomial 0x1EDC6F41 (reflected
0x82F63B78), init 0xFFFFFFFF, reflected in and out, final XOR 0xFFFFFFFF, check value of
``b"123456789"`` = 0xE3069283. Why this CRC and not CRC-16: docs/protocol/table-link.md §3.
"""

from __future__ import annotations

_POLY_REFLECTED = 0x82F63B78


def _make_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLY_REFLECTED if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


_TABLE = _make_table()


def crc32c(data: bytes | bytearray | memoryview, crc: int = 0) -> int:
    """CRC-32C of ``data``; pass a previous result as ``crc`` to continue over more data.

    >>> hex(crc32c(b"123456789"))
    '0xe3069283'
    """
    value = crc ^ 0xFFFFFFFF
    table = _TABLE
    for byte in data:
        value = table[(value ^ byte) & 0xFF] ^ (value >> 8)
    return value ^ 0xFFFFFFFF
