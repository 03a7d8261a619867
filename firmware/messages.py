"""Message type codes, capability bits, payload checks and the payloads the controller builds
(docs/protocol/table-link.md §5-§6). Messages stay bytes here: a controller only needs to know
whether a payload is valid and what its fields are, so there is no object per message.

:func:`payload_error` judges every type of §6, including those the controller only sends, so the
shared test vectors (tests/data/link-vectors.json) hold it to exactly the host's verdicts.
"""

import struct

from firmware.errors import FrameError

# --- type codes (§6) ---------------------------------------------------------------------------
HELLO = 0x01
WELCOME = 0x02
HEARTBEAT = 0x03
ACK = 0x04
NAK = 0x05
START_PRESSED = 0x10
WALL_RAISED = 0x11
DICE = 0x12
BREAK_OPENED = 0x13
INDICATOR_TURNED = 0x14
WALL_MANIFEST = 0x15
SEAT_BUTTON = 0x16
FAULT = 0x17
CONTROLLER_RESET = 0x18  # the board's own reports (table-link.md §12)
EVENTS_DROPPED = 0x19
CONFIG_FAULT = 0x1A
HONBA_DISPLAY = 0x20
SCORE_DISPLAY = 0x21
BUZZER = 0x22
LED = 0x23
PRESS_START = 0x24

KNOWN_TYPES = (HELLO, WELCOME, HEARTBEAT, ACK, NAK, START_PRESSED, WALL_RAISED, DICE,
               BREAK_OPENED, INDICATOR_TURNED, WALL_MANIFEST, SEAT_BUTTON, FAULT,
               CONTROLLER_RESET, EVENTS_DROPPED, CONFIG_FAULT, HONBA_DISPLAY, SCORE_DISPLAY,
               BUZZER, LED, PRESS_START)

NAK_CORRUPT = 1
NAK_REJECTED = 2
#: NAK payloads by reason, built once: the link sends them allocating nothing
NAK_PAYLOADS = (b"", b"\x01", b"\x02")

LED_OFF = 0
LED_ON = 1
LED_BLINK = 2

NONE_U8 = 0xFF
NONE_U16 = 0xFFFF
MAX_FIRMWARE_BYTES = 32
WALL_TILES = 136

# --- capabilities (§5) -------------------------------------------------------------------------
CAP_AUTO_OPEN = 1 << 0
CAP_AUTO_DORA_FLIP = 1 << 1
CAP_WALL_MANIFEST = 1 << 2
CAP_HONBA_DISPLAY = 1 << 3
CAP_SCORE_DISPLAYS = 1 << 4
CAP_SEAT_BUTTONS = 1 << 5
ALL_CAPABILITIES = 0x3F

# --- fault codes (§6.2) ------------------------------------------------------------------------
FAULT_MOTOR_STALL = 1
FAULT_WALL_LIFT_JAM = 2
FAULT_TILE_COUNT_MISMATCH = 3
FAULT_TILE_READ_ERROR = 4
FAULT_DICE_ERROR = 5
FAULT_LID_OPEN = 6
FAULT_OVERHEAT = 7
FAULT_POWER_LOW = 8
FAULT_FIRMWARE = 9
# reported by this firmware's adapters (docs/protocol/table-link.md §12)
FAULT_INPUT_STUCK = 10  # an input held active far longer than any press (seat: whose)
FAULT_DISPLAY = 11  # a display that does not answer (seat: whose; 0xFF: honba display)

# --- controller_reset causes and config_fault problems (§12) -----------------------------------
RESET_UNKNOWN = 0
RESET_POWER_ON = 1  # power applied (on the RP2040 also a brown-out)
RESET_PIN = 2  # the RUN pin / a reset button
RESET_WATCHDOG = 3  # the loop stopped feeding the watchdog
RESET_SOFTWARE = 4  # the firmware reset itself (machine.reset() after an error)
RESET_BROWN_OUT = 5

CONFIG_JSON = 1  # config.json is no JSON object
CONFIG_UNKNOWN_KEY = 2
CONFIG_TYPE = 3
CONFIG_VALUE = 4
CONFIG_PIN_CONFLICT = 5
MAX_KEY_BYTES = 32


def is_control(kind: int) -> bool:
    return kind < 0x10


def is_event(kind: int) -> bool:
    return 0x10 <= kind < 0x20


def is_command(kind: int) -> bool:
    return kind >= 0x20


def required_capability(kind: int) -> int:
    """The capability bit a command needs (0: every table carries it out)."""
    if kind == HONBA_DISPLAY:
        return CAP_HONBA_DISPLAY
    if kind == SCORE_DISPLAY:
        return CAP_SCORE_DISPLAYS
    return 0


# --- payload checks ----------------------------------------------------------------------------

_SIZES = {HEARTBEAT: 0, ACK: 0, NAK: 1, HELLO: 12, START_PRESSED: 1, WALL_RAISED: 0, DICE: 2,
          BREAK_OPENED: 2, INDICATOR_TURNED: 5, WALL_MANIFEST: WALL_TILES, SEAT_BUTTON: 2,
          FAULT: 3, CONTROLLER_RESET: 3, EVENTS_DROPPED: 2, HONBA_DISPLAY: 2, SCORE_DISPLAY: 16,
          BUZZER: 3, LED: 5, PRESS_START: 0}


def _tile_ok(code: int) -> bool:
    return code <= 36 or code == NONE_U8


def _seat_ok(seat: int, optional: bool) -> bool:
    return seat <= 3 or (optional and seat == NONE_U8)


def _utf8_ok(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeError:
        return False
    return True


def payload_error(kind: int, p: bytes) -> str | None:
    """Why ``p`` is no valid payload of message type ``kind`` (a known type), or ``None``."""
    if kind == WELCOME:
        if len(p) < 10 or len(p) != 10 + p[9]:
            return "welcome: payload must be 10 bytes + firmware"
        if p[0] == 255 or p[3:7] == b"\x00\x00\x00\x00" or (p[8] and p[7:9] != b"\xff\xff"):
            return "welcome: version, boot_id or rx_last out of range"
        if p[9] > MAX_FIRMWARE_BYTES or not _utf8_ok(p[10:]):
            return "welcome: firmware must be UTF-8, at most 32 bytes"
        return None
    if kind == CONFIG_FAULT:
        if len(p) < 3 or len(p) != 3 + p[2]:
            return "config_fault: payload must be 3 bytes + key"
        if p[0] == 0 or p[2] > MAX_KEY_BYTES or not _utf8_ok(p[3:]):
            return "config_fault: problem 1..255, key UTF-8 of at most 32 bytes"
        return None
    size = _SIZES[kind]
    if len(p) != size:
        return f"type 0x{kind:02x}: payload must be {size} bytes, got {len(p)}"
    if kind == HELLO:
        lo, hi, boot, _rx_boot, rx_last = struct.unpack("<BBIIH", p)
        if not 1 <= lo <= hi <= 254 or boot == 0 or (255 < rx_last < NONE_U16):
            return "hello: versions, boot_id or rx_last out of range"
    elif kind == NAK:
        if p[0] not in (NAK_CORRUPT, NAK_REJECTED):
            return "nak: reason must be 1 or 2"
    elif kind == START_PRESSED:
        if not _seat_ok(p[0], True):
            return "start_pressed: seat must be 0..3 or 0xFF"
    elif kind == DICE:
        if not (1 <= p[0] <= 6 and 1 <= p[1] <= 6):
            return "dice: each die must be 1..6"
    elif kind == BREAK_OPENED:
        if not _seat_ok(p[0], False) or not 2 <= p[1] <= 24:
            return "break_opened: seat 0..3, count 2..24"
    elif kind == INDICATOR_TURNED:
        if (not _seat_ok(p[0], False) or not 1 <= p[1] <= 17 or p[2] > 1
                or not (p[3] <= 135 or p[3] == NONE_U8) or not _tile_ok(p[4])):
            return "indicator_turned: seat, stack, layer, ring or tile out of range"
    elif kind == WALL_MANIFEST:
        for code in p:
            if not _tile_ok(code):
                return f"wall_manifest: tile code {code} is not 0..36 or 0xFF"
    elif kind == SEAT_BUTTON:
        if not _seat_ok(p[0], False) or p[1] == NONE_U8:
            return "seat_button: seat 0..3, button 0..254"
    elif kind == FAULT:
        if p[0:2] == b"\x00\x00" or not _seat_ok(p[2], True):
            return "fault: code 1..65535, seat 0..3 or 0xFF"
    elif kind == EVENTS_DROPPED:
        if p == b"\x00\x00":
            return "events_dropped: count 1..65535"
    elif kind == BUZZER:
        duration, count = struct.unpack("<HB", p)
        if not (1 <= duration <= 10000 and 1 <= count <= 10):
            return "buzzer: duration_ms 1..10000, count 1..10"
    elif kind == LED and (not _seat_ok(p[0], True) or p[1] > LED_BLINK):
        return "led: seat 0..3 or 0xFF, mode 0..2"
    return None


# --- payloads the controller builds ------------------------------------------------------------

def welcome(version: int, capabilities: int, boot_id: int, rx_last: int | None,
            firmware: str) -> bytes:
    fw = firmware.encode("utf-8")
    if len(fw) > MAX_FIRMWARE_BYTES:
        raise FrameError("firmware string longer than 32 bytes: " + firmware)
    return struct.pack("<BHIHB", version, capabilities, boot_id,
                       NONE_U16 if rx_last is None else rx_last, len(fw)) + fw


def start_pressed(seat: int | None) -> bytes:
    return bytes((NONE_U8 if seat is None else seat,))


def dice(a: int, b: int) -> bytes:
    return bytes((a, b))


def break_opened(seat: int, count: int) -> bytes:
    return bytes((seat, count))


def indicator_turned(seat: int, stack: int, layer: int, ring: int | None,
                     tile: int | None) -> bytes:
    return bytes((seat, stack, layer, NONE_U8 if ring is None else ring,
                  NONE_U8 if tile is None else tile))


def seat_button(seat: int, button: int) -> bytes:
    return bytes((seat, button))


def fault(code: int, seat: int | None) -> bytes:
    return struct.pack("<HB", code, NONE_U8 if seat is None else seat)


def controller_reset(cause: int, lost: int | None) -> bytes:
    return struct.pack("<BH", cause, NONE_U16 if lost is None else min(lost, NONE_U16 - 1))


def events_dropped(count: int) -> bytes:
    return struct.pack("<H", min(count, 0xFFFF))


def config_fault(problem: int, key: str | None, pin: int | None) -> bytes:
    """The key is cut to 32 bytes on a character boundary (a config.json key is anything)."""
    name = b"" if key is None else key.encode("utf-8")
    n = len(name) if len(name) < MAX_KEY_BYTES else MAX_KEY_BYTES
    while n and not _utf8_ok(name[:n]):
        n -= 1
    name = name[:n]
    return bytes((problem, NONE_U8 if pin is None else pin, len(name))) + name


def nak(reason: int) -> bytes:
    return bytes((reason,))


class Hello:
    """The fields of a ``hello`` payload (checked by :func:`payload_error` first)."""

    def __init__(self, p: bytes) -> None:
        lo, hi, boot, rx_boot, rx_last = struct.unpack("<BBIIH", p)
        self.min_version: int = lo
        self.max_version: int = hi
        self.boot_id: int = boot
        self.rx_boot_id: int | None = rx_boot or None
        self.rx_last: int | None = None if rx_last == NONE_U16 else rx_last


def scores(p: bytes) -> tuple[int, int, int, int]:
    a, b, c, d = struct.unpack("<4i", p)
    return (a, b, c, d)


def buzzer(p: bytes) -> tuple[int, int]:
    duration, count = struct.unpack("<HB", p)
    return (duration, count)
