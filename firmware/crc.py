"""CRC-32C (Castagnoli), the check of every frame (docs/protocol/table-link.md §3).

Polynomial 0x1EDC6F41 (reflected 0x82F63B78), init and final XOR 0xFFFFFFFF, reflected; check
value of b"123456789" = 0xE3069283. Table-driven: 256 words, one lookup per byte. The table is
an ``array("I")`` so that on the RP2040 its entries are not 256 boxed integers.
"""

from array import array

_POLY = 0x82F63B78


def _make_table() -> "array[int]":
    table = array("I", [0] * 256)
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLY if crc & 1 else crc >> 1
        table[byte] = crc
    return table


_TABLE = _make_table()


def crc32c(data: bytes | bytearray | memoryview, crc: int = 0) -> int:
    """CRC-32C of ``data``; pass a previous result as ``crc`` to continue over more data."""
    value = crc ^ 0xFFFFFFFF
    table = _TABLE
    for byte in data:
        value = table[(value ^ byte) & 0xFF] ^ (value >> 8)
    return value ^ 0xFFFFFFFF
