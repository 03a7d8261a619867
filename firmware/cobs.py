"""Consistent Overhead Byte Stuffing (docs/protocol/table-link.md §2): removes every 0x00 from a
frame body so that 0x00 can delimit frames; one byte of overhead per 254.

The ``*_into`` forms work between caller-owned buffers and allocate nothing (the Pico's hot path,
docs/firmware.md "Memory and timing"); :func:`cobs_encode`/:func:`cobs_decode` return new bytes.
"""


def encoded_size(size: int) -> int:
    """The most bytes COBS makes of ``size`` bytes."""
    return size + size // 254 + 1


def cobs_encode_into(src: "bytes | bytearray", start: int, end: int, out: bytearray,
                     at: int) -> int:
    """COBS of ``src[start:end]`` written at ``out[at:]``; returns where it ends in ``out``."""
    code_at = at
    at += 1
    code = 1
    i = start
    while i < end:
        byte = src[i]
        i += 1
        if byte == 0:
            out[code_at] = code
            code_at = at
            at += 1
            code = 1
            continue
        out[at] = byte
        at += 1
        code += 1
        if code == 0xFF:
            # a full block carries no implied zero; one that ends the data ends the encoding
            out[code_at] = code
            if i == end:
                return at
            code_at = at
            at += 1
            code = 1
    out[code_at] = code
    return at


def cobs_decode_into(src: "bytes | bytearray", start: int, end: int, out: bytearray) -> int:
    """The body of the COBS chunk ``src[start:end]`` written at ``out[0:]``; returns its length,
    or -1 when the chunk is not valid COBS (a code past the end, a 0x00 inside)."""
    n = 0
    pos = start
    while pos < end:
        code = src[pos]
        if code == 0:
            return -1
        stop = pos + code
        if stop > end:
            return -1
        pos += 1
        while pos < stop:
            byte = src[pos]
            if byte == 0:
                return -1
            out[n] = byte
            n += 1
            pos += 1
        if code != 0xFF and pos < end:
            out[n] = 0
            n += 1
    return n


def cobs_encode(data: "bytes | bytearray") -> bytes:
    out = bytearray(encoded_size(len(data)))
    return bytes(out[:cobs_encode_into(data, 0, len(data), out, 0)])


def cobs_decode(encoded: "bytes | bytearray") -> bytes | None:
    """The body of one COBS chunk (without delimiters); ``None`` when it is not valid COBS."""
    out = bytearray(len(encoded))
    n = cobs_decode_into(encoded, 0, len(encoded), out)
    return None if n < 0 else bytes(out[:n])
