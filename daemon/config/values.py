"""The configuration's values: one frozen dataclass per section, the constants they are checked
against, and :class:`Secret`, whose repr and str never show the value."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

CONFIG_VERSION: Final = 1
TABLE_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
LOG_LEVELS: Final = ("debug", "info", "warning", "error")

#: Every referee command (``jantaku/v1/<table>/cmd/<name>``), see daemon/commands.py.
COMMANDS: Final = (
    "new_game",
    "set_scores",
    "swap_seats",
    "confirm_win",
    "reject_win",
    "accept_violation",
    "dead_hand",
    "pause",
    "resume",
    "penalty",
    "chombo",
    "manual_result",
    "undo",
    "end_game",
    "time_limit",
)

#: The roles a config gets when it defines none.
DEFAULT_ROLES: Final[Mapping[str, tuple[str, ...]]] = {
    "referee": COMMANDS,
    "operator": ("new_game", "pause", "resume"),
}


class Secret:
    """A secret string: ``repr``/``str`` show ``'***'``; read it with :meth:`reveal`."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


@dataclass(frozen=True, slots=True)
class TableConfig:
    id: str
    ruleset: str


@dataclass(frozen=True, slots=True)
class EventLogConfig:
    path: Path
    #: Save a state checkpoint every N inputs (0: never; restart then replays the whole log).
    checkpoint_every: int = 2000
    #: A log of at most this many inputs is read whole against its chain at start (a changed
    #: byte anywhere refused before READY); a longer one up to its seal only, the rest read by
    #: the audit after READY (docs/daemon.md, "What is checked when"). 0: always up to the seal.
    full_check_below: int = 100_000


@dataclass(frozen=True, slots=True)
class TlsConfig:
    ca: Path
    cert: Path | None = None
    key: Path | None = None
    #: Skip the broker hostname check (a broker reached by IP with a name-only certificate).
    insecure: bool = False


@dataclass(frozen=True, slots=True)
class CommandIntakeConfig:
    """``[mqtt.commands]``: where the table reads referee commands (docs/mqtt.md "Commands under
    a flood"). ``own``: a connection of their own, read by the lean reader (daemon/mqtt_lean.py),
    so a flood of commands never reaches the table's main connection; ``shared``: the table's
    main connection, as before."""

    connection: Literal["own", "shared"] = "own"
    #: the own connection's account (on a broker that makes the client id the username, an
    #: account of its own: ``cmd.<table id>``, docs/install.md); None: anonymous
    username: str | None = None
    password: Secret | None = None
    #: the command gate's bounds (daemon/command_gate.py): each user's admitted commands (a
    #: sustained rate and a burst), the error replies to refused messages (for everyone
    #: together), and the admitted messages waiting for the desk
    per_user_per_second: float = 5.0
    per_user_burst: int = 20
    replies_per_second: float = 20.0
    replies_burst: int = 100
    queue: int = 64


@dataclass(frozen=True, slots=True)
class MqttConfig:
    host: str
    port: int = 1883
    protocol: Literal["5", "3.1.1"] = "5"
    client_id: str = ""  # "" -> "jantaku-<table id>"
    #: seconds; the client pings every ``keepalive`` s and drops a link silent for
    #: 2 x keepalive s, looking once a second (daemon/mqtt_session.py), so a dead link is
    #: noticed within ~2 x keepalive + 1 s
    keepalive: int = 4
    #: seconds to wait for the CONNACK (a connection reset before it is retried at once)
    connect_timeout: float = 5.0
    username: str | None = None
    password: Secret | None = None
    tls: TlsConfig | None = None
    #: Seconds between health publications (retained ``health``).
    health_interval: float = 10.0
    #: Least seconds between two publications of the retained ``state`` (0: every change). The
    #: latest state is always published: a change inside the interval goes out at its end.
    state_interval: float = 0.5
    #: ``[mqtt.commands]`` (default: an own connection on an anonymous broker, the table's
    #: connection when the table logs in with an account and no command account is given)
    commands: CommandIntakeConfig = CommandIntakeConfig()


@dataclass(frozen=True, slots=True)
class TableLinkConfig:
    kind: Literal["serial", "usb", "gpio", "none"]
    path: Path | None = None  # serial
    baud: int = 115200  # serial
    vid: int | None = None  # usb
    pid: int | None = None  # usb
    pins: Mapping[str, int] = field(default_factory=dict)  # gpio: signal name -> BCM pin
    #: serial/usb: every link timing (docs/protocol/table-link.md §7) times this, for a controller
    #: slower than real time (the emulated RP2040 of tests/firmware/test_chip.py runs ~5-20x slow)
    timing_scale: float = 1.0


@dataclass(frozen=True, slots=True)
class ButtonsConfig:
    kind: Literal["gpio", "none"]
    seat_pins: tuple[int, int, int, int] | None = None
    referee_pin: int | None = None
    #: per-seat clock warning LEDs (seats 0..3) and a buzzer, driven from the live clocks
    led_pins: tuple[int, int, int, int] | None = None
    buzzer_pin: int | None = None


@dataclass(frozen=True, slots=True)
class DisplaysConfig:
    #: Where the honba/deposit and score displays hang: on the table link, or nowhere.
    honba: Literal["table", "none"] = "table"
    scores: Literal["table", "none"] = "table"
    buzzer: Literal["table", "none"] = "table"
    #: A serial clock display (drivers/display, the CLOCKS line): per-seat time left (W 打牌时限).
    clocks_path: Path | None = None
    clocks_baud: int = 9600


@dataclass(frozen=True, slots=True)
class DevicesConfig:
    table: TableLinkConfig
    buttons: ButtonsConfig
    displays: DisplaysConfig


@dataclass(frozen=True, slots=True)
class RefereeUser:
    name: str
    role: str
    key: Secret  # "pbkdf2-sha256$<iterations>$<hex>", see daemon/auth.py


@dataclass(frozen=True, slots=True)
class RefereeConfig:
    roles: Mapping[str, tuple[str, ...]]
    users: tuple[RefereeUser, ...]
    #: A command's ``ts`` may differ from the table's clock by this much (replay protection).
    max_skew_seconds: float = 120.0

    def user(self, name: str) -> RefereeUser | None:
        return next((u for u in self.users if u.name == name), None)


@dataclass(frozen=True, slots=True)
class LoggingConfig:
    level: Literal["debug", "info", "warning", "error"] = "info"
    #: "-" for stderr (journald), or a file path.
    file: str = "-"


@dataclass(frozen=True, slots=True)
class WebLimits:
    """``[web]``'s bounds on what the network may hold of the web server (docs/daemon.md
    "Web limits"): connections, header and idle time, SSE clients."""

    #: connections open at once, in total (bounded again by the process's descriptor limit)
    max_connections: int = 512
    #: connections open at once from one client address
    max_connections_per_address: int = 32
    #: a new connection's request headers must be complete within this
    header_timeout_seconds: float = 10.0
    #: an idle keep-alive connection (and a next request's headers) is given this long
    keepalive_timeout_seconds: float = 30.0
    #: SSE clients (overlay streams) at once; one more is told to retry later
    max_sse_clients: int = 100


@dataclass(frozen=True, slots=True)
class WebConfig:
    """``[web]``: the overlay and the referee console, served by the daemon (docs/overlay.md,
    docs/console.md). With ``tls_cert``/``tls_key`` both are served over HTTPS."""

    host: str = "127.0.0.1"
    port: int = 8080
    tls_cert: Path | None = None
    tls_key: Path | None = None
    session_idle_seconds: float = 30 * 60.0
    session_absolute_seconds: float = 8 * 3600.0
    max_login_failures: int = 5
    lockout_seconds: float = 5 * 60.0
    #: > 0: also serve the spectator feed (players' hands) this many seconds behind the table
    spectator_delay_seconds: float = 0.0
    #: also serve the multi-table scoreboard from the venue broker (docs/overlay.md)
    scoreboard: bool = False
    #: the tables on it, in this order (empty: every table on the broker, by id)
    scoreboard_tables: tuple[str, ...] = ()
    limits: WebLimits = WebLimits()


@dataclass(frozen=True, slots=True)
class Config:
    source: Path
    table: TableConfig
    eventlog: EventLogConfig
    mqtt: MqttConfig
    devices: DevicesConfig
    referee: RefereeConfig
    logging: LoggingConfig
    #: ``[tiles]``: RFID readers and their enrolment (drivers/tiles/config.py, docs/tiles.md);
    #: None: no tile sensors. With readers, the device tracker (daemon/tracker.py) runs.
    tiles: Any = None
    #: ``[web]``: overlay + referee console; None: no web server.
    web: WebConfig | None = None

    @property
    def client_id(self) -> str:
        return self.mqtt.client_id or f"jantaku-{self.table.id}"
