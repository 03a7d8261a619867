"""Consistent Overhead Byte Stuffing (Cheshire & Baker, 1999).

COBS removes every 0x00 from a frame body at a cost of one byte per 254, so 0x00 can delimit frames
on the wire: a receiver that lost sync (garbage, a cut cable) is back in step at the next 0x00.
"""

from __future__ import annotations


def cobs_encode(data: bytes) -> bytes:
    """Encode ``data``; the result contains no 0x00.

    >>> cobs_encode(b"\\x11\\x00\\x22").hex()
    '02110222'
    """
    out = bytearray()
    start, size = 0, len(data)
    while True:
        zero = data.find(0, start, min(start + 254, size))
        if zero != -1:
            out.append(zero - start + 1)
            out += data[start:zero]
            start = zero + 1
            continue
        end = min(start + 254, size)
        if end - start == 254:
            # a full block carries no implied zero (code 0xFF)
            out.append(0xFF)
            out += data[start:end]
            start = end
            if start == size:
                return bytes(out)
            continue
        out.append(end - start + 1)
        out += data[start:end]
        return bytes(out)


def cobs_decode(encoded: bytes) -> bytes | None:
    """Decode one COBS block sequence (without its 0x00 delimiter); ``None`` when it is not valid
    COBS (a code byte of 0 or one that points past the end).

    >>> cobs_decode(bytes.fromhex("02110222"))
    b'\\x11\\x00"'
    """
    if 0 in encoded:
        return None
    size = len(encoded)
    if 0xFF in encoded or not size:
        return _decode_blocks(encoded)
    # no 0xFF code (every block is followed by an implied zero): the decoded bytes are the
    # encoded ones with each code byte after the first set to zero, in place (a dice frame:
    # ~11,000 -> ~6,000 instructions)
    out = bytearray(encoded)
    pos = out[0]
    while pos < size:
        code = out[pos]
        out[pos] = 0
        pos += code
    if pos > size:
        return None
    del out[0]
    return bytes(out)


def _decode_blocks(encoded: bytes) -> bytes | None:
    """:func:`cobs_decode` block by block (0xFF blocks carry no implied zero)."""
    out = bytearray()
    pos, size = 0, len(encoded)
    while pos < size:
        code = encoded[pos]
        end = pos + code
        if code == 0 or end > size:
            return None
        out += encoded[pos + 1 : end]
        pos = end
        if code != 0xFF and pos < size:
            out.append(0)
    return bytes(out)
