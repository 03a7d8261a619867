"""The daemon's configuration: one TOML file, validated completely before anything starts.

An unknown key, a wrong type, a missing value or a missing device fails with one
:class:`~daemon.errors.ConfigError` naming the file and the key (docs/daemon.md lists every key;
``systemd/jantaku.example.toml`` is a complete example). Secrets (the MQTT password, referee keys)
are held in :class:`Secret`, whose repr and str never show the value.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from daemon.errors import ConfigError

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


@dataclass(frozen=True, slots=True)
class TlsConfig:
    ca: Path
    cert: Path | None = None
    key: Path | None = None
    #: Skip the broker hostname check (a broker reached by IP with a name-only certificate).
    insecure: bool = False


@dataclass(frozen=True, slots=True)
class MqttConfig:
    host: str
    port: int = 1883
    protocol: Literal["5", "3.1.1"] = "5"
    client_id: str = ""  # "" -> "jantaku-<table id>"
    #: seconds; paho pings after ``keepalive`` s without a byte from the broker and drops the
    #: link ``keepalive`` s later, so a dead link is noticed within ~2 x keepalive + 1 s
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


@dataclass(frozen=True, slots=True)
class TableLinkConfig:
    kind: Literal["serial", "usb", "gpio", "none"]
    path: Path | None = None  # serial
    baud: int = 115200  # serial
    vid: int | None = None  # usb
    pid: int | None = None  # usb
    pins: Mapping[str, int] = field(default_factory=dict)  # gpio: signal name -> BCM pin


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
    #: None: no tile sensors. With readers, the sensor tracker (daemon/tracker.py) runs.
    tiles: Any = None
    #: ``[web]``: overlay + referee console; None: no web server.
    web: WebConfig | None = None

    @property
    def client_id(self) -> str:
        return self.mqtt.client_id or f"jantaku-{self.table.id}"


# --------------------------------------------------------------------------- reading


class _Section:
    """Reads one TOML table: typed getters, and :meth:`done` rejects the keys nobody read."""

    def __init__(self, file: Path, where: str, table: Any) -> None:
        self.file, self.where = file, where
        if not isinstance(table, dict):
            raise self.error(f"[{where}] must be a table, got {_kind(table)}")
        self.table: dict[str, Any] = table
        self.seen: set[str] = set()

    def error(self, message: str) -> ConfigError:
        return ConfigError(f"{self.file}: {message}")

    def _key(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def has(self, key: str) -> bool:
        return key in self.table

    def get(
        self, key: str, check: Callable[[Any], bool], expected: str, default: Any = ...
    ) -> Any:
        self.seen.add(key)
        if key not in self.table:
            if default is ...:
                raise self.error(f"missing key {self._key(key)!r} ({expected})")
            return default
        value = self.table[key]
        if not check(value):
            raise self.error(f"{self._key(key)}: expected {expected}, got {value!r}")
        return value

    def str_(self, key: str, default: Any = ...) -> Any:
        return self.get(
            key, lambda v: isinstance(v, str) and v != "", "a non-empty string", default
        )

    def int_(self, key: str, lo: int, hi: int, default: Any = ...) -> Any:
        return self.get(
            key,
            lambda v: isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi,
            f"an integer {lo}..{hi}",
            default,
        )

    def float_(self, key: str, lo: float, hi: float, default: Any = ...) -> Any:
        value = self.get(
            key,
            lambda v: isinstance(v, int | float) and not isinstance(v, bool) and lo <= v <= hi,
            f"a number {lo}..{hi}",
            default,
        )
        return float(value) if isinstance(value, int | float) else value

    def bool_(self, key: str, default: Any = ...) -> Any:
        return self.get(key, lambda v: isinstance(v, bool), "true or false", default)

    def choice(self, key: str, choices: tuple[str, ...], default: Any = ...) -> Any:
        return self.get(key, lambda v: v in choices, f"one of {list(choices)}", default)

    def path(self, key: str, default: Any = ...) -> Any:
        value = self.str_(key, default)
        return Path(value) if isinstance(value, str) else value

    def sub(self, key: str, required: bool = True) -> _Section | None:
        self.seen.add(key)
        if key not in self.table:
            if required:
                raise self.error(f"missing table [{self._key(key)}]")
            return None
        return _Section(self.file, self._key(key), self.table[key])

    def done(self) -> None:
        unknown = sorted(set(self.table) - self.seen)
        if unknown:
            raise self.error(
                f"unknown key {self._key(unknown[0])!r} (known here: {sorted(self.seen)})"
            )


def _kind(value: Any) -> str:
    return type(value).__name__


def _secret_file(sec: _Section, key: str) -> Secret:
    path = sec.path(key)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise sec.error(f"{sec._key(key)}: cannot read {path}: {exc.strerror}") from None
    value = text.strip()
    if not value:
        raise sec.error(f"{sec._key(key)}: {path} is empty")
    return Secret(value)


def _mqtt(sec: _Section) -> MqttConfig:
    host = sec.str_("host")
    port = sec.int_("port", 1, 65535, 1883)
    protocol = sec.choice("protocol", ("5", "3.1.1"), "5")
    client_id = sec.get(
        "client_id",
        lambda v: isinstance(v, str) and re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", v) is not None,
        "1..64 characters of A-Z a-z 0-9 _ . -",
        "",
    )
    keepalive = sec.int_("keepalive", 1, 3600, 4)
    connect_timeout = sec.float_("connect_timeout", 0.5, 120.0, 5.0)
    username = sec.str_("username", None)
    password: Secret | None = None
    if sec.has("password") and sec.has("password_file"):
        raise sec.error("mqtt: give either password or password_file, not both")
    if sec.has("password"):
        password = Secret(sec.str_("password"))
    elif sec.has("password_file"):
        password = _secret_file(sec, "password_file")
    if password is not None and username is None:
        raise sec.error("mqtt: a password needs a username")
    tls: TlsConfig | None = None
    tsec = sec.sub("tls", required=False)
    if tsec is not None:
        ca = tsec.path("ca")
        cert = tsec.path("cert", None)
        key = tsec.path("key", None)
        insecure = tsec.bool_("insecure", False)
        tsec.done()
        if (cert is None) != (key is None):
            raise sec.error("mqtt.tls: cert and key go together (client certificate)")
        for name, p in (("ca", ca), ("cert", cert), ("key", key)):
            if p is not None and not Path(p).is_file():
                raise sec.error(f"mqtt.tls.{name}: no such file {p}")
        tls = TlsConfig(ca=ca, cert=cert, key=key, insecure=insecure)
    health = sec.float_("health_interval", 1.0, 3600.0, 10.0)
    state_interval = sec.float_("state_interval", 0.0, 60.0, 0.5)
    sec.done()
    return MqttConfig(
        host=host,
        port=port,
        protocol=protocol,
        client_id=client_id,
        keepalive=keepalive,
        connect_timeout=connect_timeout,
        username=username,
        password=password,
        tls=tls,
        health_interval=health,
        state_interval=state_interval,
    )


def _hex16(sec: _Section, key: str) -> int:
    value = sec.get(
        key,
        lambda v: (isinstance(v, str) and re.fullmatch(r"(0x)?[0-9a-fA-F]{4}", v) is not None)
        or (isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 0xFFFF),
        'a 16-bit id ("0x1d50" or 7504)',
    )
    return value if isinstance(value, int) else int(value, 16)


def _is_pin(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 27


def _table_link(sec: _Section) -> TableLinkConfig:
    # no "simulator": the demo and the HIL rig run the emulator on a pty and name it as "serial"
    kind = sec.choice("kind", ("serial", "usb", "gpio", "none"))
    if kind == "serial":
        path = sec.path("path")
        baud = sec.int_("baud", 1200, 4_000_000, 115200)
        sec.done()
        return TableLinkConfig(kind="serial", path=path, baud=baud)
    if kind == "usb":
        vid, pid = _hex16(sec, "vid"), _hex16(sec, "pid")
        sec.done()
        return TableLinkConfig(kind="usb", vid=vid, pid=pid)
    if kind == "gpio":
        psec = sec.sub("pins")
        assert psec is not None
        # drivers/table/gpio.py: a relay across the start button, an input on the wall-up lamp
        pins = {name: psec.int_(name, 0, 27) for name in ("relay", "wall")}
        psec.done()
        if pins["relay"] == pins["wall"]:
            raise sec.error("devices.table.pins: relay and wall must be different pins")
        sec.done()
        return TableLinkConfig(kind="gpio", pins=pins)
    sec.done()
    return TableLinkConfig(kind=kind)


def _buttons(sec: _Section | None) -> ButtonsConfig:
    if sec is None:
        return ButtonsConfig(kind="none")
    kind = sec.choice("kind", ("gpio", "none"))
    if kind == "none":
        sec.done()
        return ButtonsConfig(kind="none")
    pins = sec.get(
        "seat_pins",
        lambda v: isinstance(v, list) and len(v) == 4 and all(_is_pin(p) for p in v),
        "a list of 4 BCM pins 0..27 (seats 0..3)",
    )
    referee = sec.int_("referee_pin", 0, 27, None)
    leds = sec.get(
        "led_pins",
        lambda v: isinstance(v, list) and len(v) == 4 and all(_is_pin(p) for p in v),
        "a list of 4 BCM pins 0..27 (seat warning LEDs 0..3)",
        None,
    )
    buzzer = sec.int_("buzzer_pin", 0, 27, None)
    sec.done()
    used = [*pins, *([referee] if referee is not None else []), *(leds or []),
            *([buzzer] if buzzer is not None else [])]
    if len(set(used)) != len(used):
        raise sec.error(f"devices.buttons: a pin is used twice in {used}")
    seat_pins = (pins[0], pins[1], pins[2], pins[3])
    led_pins = None if leds is None else (leds[0], leds[1], leds[2], leds[3])
    return ButtonsConfig(kind="gpio", seat_pins=seat_pins, referee_pin=referee,
                         led_pins=led_pins, buzzer_pin=buzzer)


def _displays(sec: _Section | None) -> DisplaysConfig:
    if sec is None:
        return DisplaysConfig()
    out = DisplaysConfig(
        honba=sec.choice("honba", ("table", "none"), "table"),
        scores=sec.choice("scores", ("table", "none"), "table"),
        buzzer=sec.choice("buzzer", ("table", "none"), "table"),
        clocks_path=sec.path("clocks_path", None),
        clocks_baud=sec.int_("clocks_baud", 1200, 1_000_000, 9600),
    )
    sec.done()
    return out


def _referee(sec: _Section | None) -> RefereeConfig:
    if sec is None:
        return RefereeConfig(roles=dict(DEFAULT_ROLES), users=())
    roles: dict[str, tuple[str, ...]] = dict(DEFAULT_ROLES)
    rsec = sec.sub("roles", required=False)
    if rsec is not None:
        roles = {}
        for name in list(rsec.table):
            cmds = rsec.get(
                name,
                lambda v: isinstance(v, list) and all(c in COMMANDS for c in v),
                f"a list of commands from {list(COMMANDS)}",
            )
            roles[name] = tuple(cmds)
        rsec.done()
    users: list[RefereeUser] = []
    sec.seen.add("users")
    raw_users = sec.table.get("users", [])
    if not isinstance(raw_users, list):
        raise sec.error(f"referee.users: expected an array of tables, got {raw_users!r}")
    for i, raw in enumerate(raw_users):
        usec = _Section(sec.file, f"referee.users[{i}]", raw)
        name = usec.get(
            "name",
            lambda v: isinstance(v, str) and re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", v) is not None,
            "a user name of 1..64 characters A-Z a-z 0-9 _ . -",
        )
        role = usec.choice("role", tuple(roles))
        if usec.has("key") and usec.has("key_file"):
            raise usec.error(f"referee.users[{i}]: give either key or key_file, not both")
        key = _secret_file(usec, "key_file") if usec.has("key_file") else Secret(usec.str_("key"))
        usec.done()
        from daemon.auth import parse_key  # a cycle otherwise: auth reads RefereeConfig

        try:
            parse_key(key.reveal())
        except ValueError as exc:
            raise usec.error(f"referee.users[{i}].key: {exc}") from None
        if any(u.name == name for u in users):
            raise usec.error(f"referee.users[{i}]: user {name!r} is listed twice")
        users.append(RefereeUser(name=name, role=role, key=key))
    skew = sec.float_("max_skew_seconds", 1.0, 86400.0, 120.0)
    sec.done()
    return RefereeConfig(roles=roles, users=tuple(users), max_skew_seconds=skew)


#: the shortest broadcast delay for a feed that shows hands
MIN_SPECTATOR_DELAY_S = 10.0


def _table_ids(sec: _Section, key: str) -> tuple[str, ...]:
    raw = sec.get(
        key,
        lambda v: isinstance(v, list)
        and all(isinstance(x, str) and TABLE_ID.fullmatch(x) for x in v),
        "a list of table ids (1..32 of a-z 0-9 _ -)",
        [],
    )
    return tuple(raw)


def _web(sec: _Section | None) -> WebConfig | None:
    if sec is None:
        return None
    d = WebConfig()
    cfg = WebConfig(
        host=sec.str_("host", d.host),
        port=sec.int_("port", 0, 65535, d.port),
        tls_cert=sec.path("tls_cert", None),
        tls_key=sec.path("tls_key", None),
        session_idle_seconds=sec.float_("session_idle_seconds", 10.0, 86400.0,
                                        d.session_idle_seconds),
        session_absolute_seconds=sec.float_("session_absolute_seconds", 60.0, 7 * 86400.0,
                                            d.session_absolute_seconds),
        max_login_failures=sec.int_("max_login_failures", 1, 1000, d.max_login_failures),
        lockout_seconds=sec.float_("lockout_seconds", 1.0, 86400.0, d.lockout_seconds),
        spectator_delay_seconds=sec.float_("spectator_delay_seconds", 0.0, 3600.0, 0.0),
        scoreboard=sec.bool_("scoreboard", False),
        scoreboard_tables=_table_ids(sec, "scoreboard_tables"),
    )
    sec.done()
    if (cfg.tls_cert is None) != (cfg.tls_key is None):
        raise sec.error("web: tls_cert and tls_key go together")
    if 0 < cfg.spectator_delay_seconds < MIN_SPECTATOR_DELAY_S:
        raise sec.error(
            f"web.spectator_delay_seconds: at least {MIN_SPECTATOR_DELAY_S:.0f} s (hands on air "
            "must be well behind the table), or 0 for no spectator feed"
        )
    return cfg


def parse_config(text: str, source: Path | str = "<config>") -> Config:
    """Parse and validate a config (no device checks: see :func:`check_devices`)."""
    file = Path(source)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML: {exc}") from None
    root = _Section(file, "", raw)
    version = root.int_("config_version", 1, 1_000_000)
    if version != CONFIG_VERSION:
        raise root.error(
            f"config_version {version} is not supported (this daemon reads {CONFIG_VERSION})"
        )
    tsec = root.sub("table")
    assert tsec is not None
    table_id = tsec.get(
        "id",
        lambda v: isinstance(v, str) and TABLE_ID.fullmatch(v) is not None,
        "a table id: 1..32 of a-z 0-9 _ - (it is an MQTT topic level)",
    )
    ruleset = tsec.str_("ruleset")
    tsec.done()
    from rules.ruleset import RulesetError, load_ruleset

    try:
        load_ruleset(ruleset)
    except (RulesetError, OSError) as exc:
        raise ConfigError(f"{file}: table.ruleset: {exc}") from None

    esec = root.sub("eventlog")
    assert esec is not None
    eventlog = EventLogConfig(
        path=esec.path("path"), checkpoint_every=esec.int_("checkpoint_every", 0, 10**7, 2000)
    )
    esec.done()

    msec = root.sub("mqtt")
    assert msec is not None
    mqtt = _mqtt(msec)

    dsec = root.sub("devices")
    assert dsec is not None
    link_sec = dsec.sub("table")
    assert link_sec is not None
    devices = DevicesConfig(
        table=_table_link(link_sec),
        buttons=_buttons(dsec.sub("buttons", required=False)),
        displays=_displays(dsec.sub("displays", required=False)),
    )
    dsec.done()
    referee = _referee(root.sub("referee", required=False))
    lsec = root.sub("logging", required=False)
    logging = LoggingConfig()
    if lsec is not None:
        logging = LoggingConfig(
            level=lsec.choice("level", LOG_LEVELS, "info"), file=lsec.str_("file", "-")
        )
        lsec.done()
    web = _web(root.sub("web", required=False))
    tiles = None
    if root.has("tiles"):
        root.seen.add("tiles")
        from drivers.tiles.config import parse_tiles_config
        from drivers.tiles.errors import SensorConfigError

        if not isinstance(raw["tiles"], dict):
            raise root.error(f"[tiles] must be a table, got {_kind(raw['tiles'])}")
        try:
            tiles = parse_tiles_config(raw["tiles"])
        except SensorConfigError as exc:
            raise root.error(str(exc)) from None
        if tiles.readers and tiles.enrolment is None:
            raise root.error("tiles: readers need an 'enrolment' file (jantaku tiles enrol)")
    root.done()
    return Config(
        source=file,
        table=TableConfig(id=table_id, ruleset=ruleset),
        eventlog=eventlog,
        mqtt=mqtt,
        devices=devices,
        referee=referee,
        logging=logging,
        tiles=tiles,
        web=web,
    )


def load_config(path: Path | str) -> Config:
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read the config: {exc.strerror}") from None
    return parse_config(text, file)


def check_devices(config: Config) -> None:
    """The devices named in the config exist (run before anything starts).

    ``JANTAKU_DEVICE_ROOT`` (tests, images being prepared) prefixes ``/dev`` paths.
    """
    file = config.source
    link = config.devices.table
    root = os.environ.get("JANTAKU_DEVICE_ROOT", "")
    if link.kind == "serial":
        assert link.path is not None
        dev = Path(root + str(link.path)) if root else link.path
        if not dev.exists():
            raise ConfigError(f"{file}: devices.table.path: no such device {link.path}")
    elif link.kind == "usb":
        import libusb_package

        try:
            found = libusb_package.find(
                idVendor=link.vid, idProduct=link.pid
            )
        except Exception as exc:  # pyusb raises several kinds when libusb is unusable
            raise ConfigError(f"{file}: devices.table: cannot enumerate USB: {exc}") from None
        if found is None:
            raise ConfigError(
                f"{file}: devices.table: no USB device {link.vid:04x}:{link.pid:04x} attached"
            )
    clocks_path = config.devices.displays.clocks_path
    if clocks_path is not None:
        dev = Path(root + str(clocks_path)) if root else clocks_path
        if not dev.exists():
            raise ConfigError(f"{file}: devices.displays.clocks_path: no such device {clocks_path}")
    gpio_needed = link.kind == "gpio" or config.devices.buttons.kind == "gpio"
    if gpio_needed and not os.environ.get("GPIOZERO_PIN_FACTORY"):
        chips = list(Path(root + "/dev").glob("gpiochip*")) if Path(root + "/dev").exists() else []
        if not chips:
            raise ConfigError(
                f"{file}: devices: GPIO pins are configured but there is no /dev/gpiochip*"
            )
    parent = config.eventlog.path.parent
    if not parent.is_dir():
        raise ConfigError(f"{file}: eventlog.path: directory {parent} does not exist")
