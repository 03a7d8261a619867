"""CRC-32C (Castagnoli), the check of every frame (docs/protocol/table-link.md §3).

Polynomial 0x1EDC6F41 (reflected 0x82F63B78), init and final XOR 0xFFFFFFFF, reflected; check
value of b"123456789" = 0xE3069283. Table-driven, one lookup per byte, computed in two 16-bit
halves: MicroPython's small ints have 31 bits on the RP2040, so a 32-bit ``crc`` (table entries
>= 2**30, ``^``, ``>>``) would box a long int at every byte (measured on the emulated chip: 8 KB
of garbage per 64 bytes). The halves stay small ints: :func:`check` and :func:`put`
allocate nothing; :func:`crc32c` allocates only the int it returns. The halves of a result go
into a 2-element array: the caller's own (``halves``, one per decoder or link: emulated tables
may run on several threads) or a module default.
"""

from array import array

_POLY = 0x82F63B78


def _make_tables() -> "tuple[array[int], array[int]]":
    lo = array("H", [0] * 256)
    hi = array("H", [0] * 256)
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLY if crc & 1 else crc >> 1
        lo[byte] = crc & 0xFFFF
        hi[byte] = crc >> 16
    return lo, hi


_LO, _HI = _make_tables()
_OUT = array("H", [0, 0])  # the last result's halves (low, high), preallocated


def new_halves() -> "array[int]":
    return array("H", [0, 0])


def _run(data: "bytes | bytearray | memoryview", end: int, lo: int, hi: int,
         out: "array[int]") -> None:
    """CRC of ``data[:end]`` from the (already inverted) halves ``lo``/``hi`` into ``out``."""
    tlo = _LO
    thi = _HI
    i = 0
    while i < end:
        idx = (lo ^ data[i]) & 0xFF
        lo = tlo[idx] ^ (lo >> 8) ^ ((hi & 0xFF) << 8)
        hi = thi[idx] ^ (hi >> 8)
        i += 1
    out[0] = lo ^ 0xFFFF
    out[1] = hi ^ 0xFFFF


def crc32c(data: "bytes | bytearray | memoryview", crc: int = 0) -> int:
    """CRC-32C of ``data``; pass a previous result as ``crc`` to continue over more data."""
    out = new_halves()
    _run(data, len(data), (crc & 0xFFFF) ^ 0xFFFF, (crc >> 16) ^ 0xFFFF, out)
    return (out[1] << 16) | out[0]


def put(data: "bytes | bytearray | memoryview", end: int, out: "bytearray | memoryview",
        at: int, halves: "array[int] | None" = None) -> None:
    """Write the CRC of ``data[:end]`` as 4 bytes little-endian at ``out[at:]``."""
    h = _OUT if halves is None else halves
    _run(data, end, 0xFFFF, 0xFFFF, h)
    lo = h[0]
    hi = h[1]
    out[at] = lo & 0xFF
    out[at + 1] = lo >> 8
    out[at + 2] = hi & 0xFF
    out[at + 3] = hi >> 8


def check(body: "bytes | bytearray | memoryview", end: int,
          halves: "array[int] | None" = None) -> bool:
    """True when ``body[end:end + 4]`` is the CRC (little-endian) of ``body[:end]``."""
    h = _OUT if halves is None else halves
    _run(body, end, 0xFFFF, 0xFFFF, h)
    lo = h[0]
    hi = h[1]
    return (body[end] == lo & 0xFF and body[end + 1] == lo >> 8
            and body[end + 2] == hi & 0xFF and body[end + 3] == hi >> 8)
