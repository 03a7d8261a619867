"""CRC-32C (Castagnoli), the check value of every table-link frame.

Parameters (the ``CRC-32/ISCSI`` entry of the CRC catalogue): polynomial 0x1EDC6F41 (reflected
0x82F63B78), init 0xFFFFFFFF, reflected in and out, final XOR 0xFFFFFFFF, check value of
``b"123456789"`` = 0xE3069283. Why this CRC and not CRC-16: docs/protocol/table-link.md §3.

The computation is Google's CRC32C library (the ``google-crc32c`` package, a C extension using the
CPU's CRC instructions on x86_64 and aarch64: docs/engineering.md says why this dependency): a
dice frame's check is ~1,000 instructions there against ~14,000 in Python, one in fifty of the
daemon's work on a table frame (docs/performance.md). Without the package (an environment not
reinstalled since it became a dependency) the pure Python below computes the same values:
slicing-by-4 (four 256-entry tables, 32 KB), a little-endian 32-bit word per loop turn instead of
a byte, since each turn of a Python loop costs far more than its table look-ups (a dice frame's
check: ~1.2 µs byte by byte, ~0.8 µs by words; 1 KB: 87 → 55 µs). tests/drivers/test_link_codec.py
holds the two equal.
"""

from __future__ import annotations

import importlib
import struct
from collections.abc import Callable
from types import ModuleType

_POLY_REFLECTED = 0x82F63B78

#: the CRC-32C of any data followed by its own CRC-32C (little-endian): a receiver checks a
#: frame body with its CRC in one pass, with no slice (an exact equivalent of comparing the two:
#: the CRC of four appended bytes is a bijection of those bytes)
RESIDUE = 0x48674BC7


def _make_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLY_REFLECTED if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


def _next_table(prev: tuple[int, ...], base: tuple[int, ...]) -> tuple[int, ...]:
    """The table of a byte followed by one more zero byte."""
    return tuple((value >> 8) ^ base[value & 0xFF] for value in prev)


_TABLE = _make_table()
_TABLE1 = _next_table(_TABLE, _TABLE)
_TABLE2 = _next_table(_TABLE1, _TABLE)
_TABLE3 = _next_table(_TABLE2, _TABLE)
#: the word unpackers by word count, made as lengths are met (a frame body is at most 1034 bytes)
_WORDS: dict[int, struct.Struct] = {}


def crc32c_python(data: bytes | bytearray | memoryview, crc: int = 0) -> int:
    """CRC-32C of ``data`` in Python (slicing-by-4), continued from a previous result ``crc``:
    the fallback, and the reference the tests hold the library to.

    >>> hex(crc32c_python(b"123456789"))
    '0xe3069283'
    """
    value = crc ^ 0xFFFFFFFF
    t0, t1, t2, t3 = _TABLE, _TABLE1, _TABLE2, _TABLE3
    size = len(data)
    words = size >> 2
    if words:
        unpack = _WORDS.get(words)
        if unpack is None:
            unpack = _WORDS[words] = struct.Struct(f"<{words}I")
        for word in unpack.unpack_from(data):
            value ^= word
            value = (t3[value & 0xFF] ^ t2[(value >> 8) & 0xFF] ^ t1[(value >> 16) & 0xFF]
                     ^ t0[value >> 24])
    for index in range(words << 2, size):
        value = t0[(value ^ data[index]) & 0xFF] ^ (value >> 8)
    return value ^ 0xFFFFFFFF


def _library() -> ModuleType | None:
    try:
        return importlib.import_module("google_crc32c")
    except ImportError:  # pragma: no cover - an environment not reinstalled: the Python above
        return None


_LIBRARY = _library()
#: the CRC-32C of a ``bytes``, for the codec's own frames: the C function itself when there is
#: one (no Python call around it)
crc32c_of: Callable[[bytes], int] = crc32c_python if _LIBRARY is None else _LIBRARY.value
