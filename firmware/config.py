"""The board's pin map (docs/firmware.md "Wiring", "/config.json") and its check.

:class:`Config` holds the documented wiring; a venue may override any key in ``config.json`` on
the Pico's flash. :func:`load` reads and checks that file: a wrong one (no JSON object, an unknown
key, a value of the wrong type or out of range, a pin used by two signals) never stops the board.
It then runs :func:`safe` -- the link only, no table pin driven or read, every command refused --
and reports each problem to the host as a ``config_fault`` naming the key.
"""

from firmware import messages as m
from firmware.errors import FirmwareConfigError

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython has no typing module
    TYPE_CHECKING = False  # type: ignore[misc,unused-ignore]
if TYPE_CHECKING:
    from typing import Any

#: GPIOs a Pico brings out to its pins (GP23-25 and GP29 are wired on the board itself)
PINS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 26,
        27, 28)
MAX_PROBLEMS = 8  # reported per boot (the first ones, in key order)

# what each key holds
_PIN = 1  # a GPIO number
_OPT_PIN = 2  # a GPIO number or null
_PIN_LIST = 3  # a list of GPIO numbers
_STARTS = 4  # [[seat or null, pin], ...]
_SEAT_BUTTONS = 5  # [[seat, button, pin], ...]
_DICE_LINES = 6  # [[pin, pin, pin], [pin, pin, pin]]
_BOOL = 7
_MS = 8  # milliseconds 1..600000
_STATUS = 9  # a GPIO number, "LED" or null
_QUEUE = 10  # events held while the host is away: 8..1024

KINDS = {
    "transport": ("usb", "uart"), "uart_id": (0, 1), "uart_tx": _PIN, "uart_rx": _PIN,
    "baud": (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600),
    "start_inputs": _STARTS, "start_relay": _OPT_PIN, "wall_input": _OPT_PIN,
    "seat_buttons": _SEAT_BUTTONS, "dice": ("lines", "buttons", "none"),
    "dice_lines": _DICE_LINES, "dice_buttons": _PIN_LIST, "display_clk": _OPT_PIN,
    "honba_dio": _OPT_PIN, "honba_digits": (4, 6), "score_dios": _PIN_LIST,
    "score_digits": (4, 6), "buzzer": _OPT_PIN, "leds": _OPT_PIN, "status_led": _STATUS,
    "maintenance_pin": _OPT_PIN, "active_low": _BOOL, "stuck_ms": _MS, "debounce_ms": _MS,
    "dice_settle_ms": _MS, "event_queue": _QUEUE,
}
#: the keys that choose the link: honoured by the safe configuration when they are right
LINK_KEYS = ("transport", "uart_id", "uart_tx", "uart_rx", "baud")


class Config:
    """Pico GPIO numbers of every signal (``None``/empty: the table has no such signal)."""

    def __init__(self) -> None:
        self.transport = "usb"  # "usb" (the Pico's USB CDC serial) or "uart"
        self.uart_id = 0
        self.uart_tx = 0
        self.uart_rx = 1
        self.baud = 115200
        self.start_inputs: list[tuple[int | None, int]] = [(None, 2)]  # (seat or None, pin)
        self.start_relay: int | None = 3
        self.wall_input: int | None = 4
        self.seat_buttons: list[tuple[int, int, int]] = [(0, 0, 5), (1, 0, 6), (2, 0, 7),
                                                         (3, 0, 8)]  # (seat, button, pin)
        self.dice = "lines"  # "lines", "buttons" or "none"
        self.dice_lines: list[list[int]] = [[9, 10, 11], [12, 13, 14]]  # bit 0, 1, 2 per die
        self.dice_buttons: list[int] = [9, 10]  # STEP, ENTER
        self.display_clk: int | None = 16  # shared by every TM1637
        self.honba_dio: int | None = 17
        self.honba_digits = 4
        self.score_dios: list[int] = [18, 19, 20, 21]  # seat 0..3
        self.score_digits = 6
        self.buzzer: int | None = 22
        self.leds: int | None = 26  # WS2812 chain, one pixel per seat
        self.status_led: int | str | None = "LED"
        self.maintenance_pin: int | None = 15  # to GND at power-up: do not run (mpremote)
        self.active_low = True  # optocoupler outputs pull the pin low when the signal is on
        self.stuck_ms = 10000
        self.debounce_ms = 20
        self.dice_settle_ms = 300
        self.event_queue = 256  # events held while the host is away (about 40 B of RAM each)
        #: the safe configuration of a board whose config.json is wrong: it refuses commands
        self.safe = False

    def update(self, values: "dict[str, Any]") -> None:
        """Override keys (the host's tools); a problem is an error, not silently ignored."""
        problems = check(values)
        if problems:
            problem, key, pin = problems[0]
            raise FirmwareConfigError("config.json: " + describe(problem, key, pin))
        for key in values:
            setattr(self, key, values[key])


def describe(problem: int, key: str | None, pin: int | None) -> str:
    if problem == m.CONFIG_JSON:
        return "not a JSON object"
    if problem == m.CONFIG_UNKNOWN_KEY:
        return "unknown key " + str(key)
    if problem == m.CONFIG_PIN_CONFLICT:
        return str(key) + ": pin " + str(pin) + " is used by another signal"
    return str(key) + ": " + ("wrong type" if problem == m.CONFIG_TYPE else "bad value")


def _is_int(value: object) -> bool:
    return type(value) is int  # not a bool (a subclass of int in both interpreters)


def _pin(value: "Any") -> int:
    """0: a usable GPIO number; else the problem."""
    if not _is_int(value):
        return m.CONFIG_TYPE
    return 0 if value in PINS else m.CONFIG_VALUE


def _rows(value: "Any", size: int) -> int:
    if not isinstance(value, list):
        return m.CONFIG_TYPE
    for row in value:
        if not isinstance(row, list) or len(row) != size:
            return m.CONFIG_TYPE
    return 0


def _seat(value: "Any", optional: bool) -> int:
    if value is None and optional:
        return 0
    if not _is_int(value):
        return m.CONFIG_TYPE
    return 0 if 0 <= value <= 3 else m.CONFIG_VALUE


def _first(*problems: int) -> int:
    for problem in problems:
        if problem:
            return problem
    return 0


def _check_value(kind: "Any", value: "Any") -> int:
    """0 when ``value`` is what ``kind`` holds, else the problem (CONFIG_TYPE/CONFIG_VALUE)."""
    if isinstance(kind, tuple):
        if value in kind and type(value) is type(kind[0]):
            return 0
        return m.CONFIG_VALUE if type(value) is type(kind[0]) else m.CONFIG_TYPE
    if kind == _PIN:
        return _pin(value)
    if kind == _OPT_PIN:
        return 0 if value is None else _pin(value)
    if kind == _STATUS:
        return 0 if value is None or value == "LED" else _pin(value)
    if kind == _BOOL:
        return 0 if isinstance(value, bool) else m.CONFIG_TYPE
    if kind == _MS:
        if not _is_int(value):
            return m.CONFIG_TYPE
        return 0 if 1 <= value <= 600000 else m.CONFIG_VALUE
    if kind == _QUEUE:
        if not _is_int(value):
            return m.CONFIG_TYPE
        return 0 if 8 <= value <= 1024 else m.CONFIG_VALUE
    if kind == _PIN_LIST:
        if not isinstance(value, list):
            return m.CONFIG_TYPE
        return _first(*[_pin(v) for v in value])
    if kind == _STARTS:
        return _rows(value, 2) or _first(*[_first(_seat(r[0], True), _pin(r[1]))
                                          for r in value])
    if kind == _SEAT_BUTTONS:
        problem = _rows(value, 3)
        if problem:
            return problem
        for seat, button, pin in value:
            if not _is_int(button):
                return m.CONFIG_TYPE
            problem = _first(_seat(seat, False), 0 if 0 <= button <= 254 else m.CONFIG_VALUE,
                             _pin(pin))
            if problem:
                return problem
        return 0
    # _DICE_LINES
    return _rows(value, 3) or (0 if len(value) == 2 else m.CONFIG_VALUE) \
        or _first(*[_pin(p) for row in value for p in row])


def _used(values: "dict[str, Any]") -> "list[tuple[str, int]]":
    """(key, pin) of every pin the configuration uses, in key order."""
    cfg = Config()
    for key in values:
        setattr(cfg, key, values[key])
    used: list[tuple[str, int]] = []

    def add(key: str, pin: "Any") -> None:
        if _is_int(pin):
            used.append((key, pin))

    if cfg.transport == "uart":
        add("uart_tx", cfg.uart_tx)
        add("uart_rx", cfg.uart_rx)
    for _seat_or_none, pin in cfg.start_inputs:
        add("start_inputs", pin)
    for key in ("start_relay", "wall_input"):
        add(key, getattr(cfg, key))
    for _s, _b, pin in cfg.seat_buttons:
        add("seat_buttons", pin)
    if cfg.dice == "lines":
        for row in cfg.dice_lines:
            for pin in row:
                add("dice_lines", pin)
    elif cfg.dice == "buttons":
        for pin in cfg.dice_buttons:
            add("dice_buttons", pin)
    for key in ("display_clk", "honba_dio"):
        add(key, getattr(cfg, key))
    for pin in cfg.score_dios:
        add("score_dios", pin)
    for key in ("buzzer", "leds", "status_led", "maintenance_pin"):
        add(key, getattr(cfg, key))
    return used


def check(values: object) -> "list[tuple[int, str | None, int | None]]":
    """Every problem of ``values`` (config.json's object) as (problem, key, pin): each key's own,
    in key order, then the pins used twice among the keys that are right (named by the key the
    file sets, the other may be a default)."""
    if not isinstance(values, dict):
        return [(m.CONFIG_JSON, None, None)]
    problems: list[tuple[int, str | None, int | None]] = []
    right = {}
    for key in sorted(values):
        kind = KINDS.get(key)
        if kind is None:
            problems.append((m.CONFIG_UNKNOWN_KEY, key, None))
            continue
        problem = _check_value(kind, values[key])
        if problem:
            problems.append((problem, key, None))
        else:
            right[key] = values[key]
    if right.get("dice") == "buttons" and len(right.get("dice_buttons", [9, 10])) != 2:
        problems.append((m.CONFIG_VALUE, "dice_buttons", None))
    if len(right.get("score_dios", ())) > 4:  # one display per seat
        problems.append((m.CONFIG_VALUE, "score_dios", None))
        del right["score_dios"]
    seen: dict[int, str] = {}
    for key, pin in _used(right):
        if pin in seen:
            problems.append((m.CONFIG_PIN_CONFLICT, key if key in values else seen[pin], pin))
        seen[pin] = key
    return problems[:MAX_PROBLEMS]


def safe(values: object) -> Config:
    """The configuration of a board whose config.json is wrong: the link as configured when its
    own keys are right (the Pi listens there), else USB; no table signal; commands refused."""
    cfg = Config()
    if isinstance(values, dict):
        link = {}
        for key in LINK_KEYS:
            if key in values:
                link[key] = values[key]
        if not check(link):
            for key in link:
                setattr(cfg, key, link[key])
    cfg.start_inputs = []
    cfg.start_relay = cfg.wall_input = cfg.display_clk = cfg.honba_dio = None
    cfg.seat_buttons = []
    cfg.dice = "none"
    cfg.score_dios = []
    cfg.buzzer = cfg.leds = None
    cfg.status_led = "LED"  # on the Pico itself: never wired to the table
    cfg.safe = True
    return cfg


def load(path: str = "/config.json") -> "tuple[Config, list[tuple[int, str | None, int | None]]]":
    """The configuration to run and its problems (none: as configured, or the documented wiring
    when there is no config.json)."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return Config(), []  # no config.json: the documented wiring
    try:
        import json

        values = json.loads(text)
    except ValueError:  # not JSON (also MicroPython's error)
        return safe(None), [(m.CONFIG_JSON, None, None)]
    problems = check(values)
    if problems:
        return safe(values), problems
    cfg = Config()
    for key in values:
        setattr(cfg, key, values[key])
    return cfg, []
