"""Consistent Overhead Byte Stuffing (docs/protocol/table-link.md §2): removes every 0x00 from a
frame body so that 0x00 can delimit frames; one byte of overhead per 254."""


def cobs_encode(data: bytes | bytearray) -> bytes:
    out = bytearray()
    start = 0
    size = len(data)
    while True:
        end = start + 254 if start + 254 < size else size
        zero = data.find(b"\x00", start, end)
        if zero != -1:
            out.append(zero - start + 1)
            out += data[start:zero]
            start = zero + 1
            continue
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


def cobs_decode(encoded: bytes | bytearray) -> bytes | None:
    """The body of one COBS chunk (without delimiters); ``None`` when it is not valid COBS."""
    if encoded.find(b"\x00") != -1:
        return None
    out = bytearray()
    pos = 0
    size = len(encoded)
    while pos < size:
        code = encoded[pos]
        end = pos + code
        if end > size:
            return None
        out += encoded[pos + 1:end]
        pos = end
        if code != 0xFF and pos < size:
            out.append(0)
    return bytes(out)
