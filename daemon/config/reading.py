"""Reading the TOML file into :class:`~daemon.config.values.Config`: one section reader each, and
:class:`Section`, whose :meth:`~Section.done` refuses every key nobody read."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from daemon.config.values import (
    COMMANDS,
    CONFIG_VERSION,
    DEFAULT_ROLES,
    LOG_LEVELS,
    TABLE_ID,
    ButtonsConfig,
    CommandIntakeConfig,
    Config,
    DevicesConfig,
    DisplaysConfig,
    EventLogConfig,
    LoggingConfig,
    MqttConfig,
    RefereeConfig,
    RefereeUser,
    Secret,
    TableConfig,
    TableLinkConfig,
    TlsConfig,
    WebConfig,
)
from daemon.config.web_limits import read_web_limits
from daemon.errors import ConfigError


class Section:
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

    def sub(self, key: str, required: bool = True) -> Section | None:
        self.seen.add(key)
        if key not in self.table:
            if required:
                raise self.error(f"missing table [{self._key(key)}]")
            return None
        return Section(self.file, self._key(key), self.table[key])

    def done(self) -> None:
        unknown = sorted(set(self.table) - self.seen)
        if unknown:
            raise self.error(
                f"unknown key {self._key(unknown[0])!r} (known here: {sorted(self.seen)})"
            )


def _kind(value: Any) -> str:
    return type(value).__name__


def _secret_file(sec: Section, key: str) -> Secret:
    path = sec.path(key)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise sec.error(f"{sec._key(key)}: cannot read {path}: {exc.strerror}") from None
    value = text.strip()
    if not value:
        raise sec.error(f"{sec._key(key)}: {path} is empty")
    return Secret(value)


def _mqtt(sec: Section) -> MqttConfig:
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
    commands = _commands(sec.sub("commands", required=False), username)
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
        commands=commands,
    )


def _commands(sec: Section | None, table_user: str | None) -> CommandIntakeConfig:
    """``[mqtt.commands]``. Absent: an own connection where the table connects anonymously, the
    table's connection where it logs in (a second connection of the table's own account would
    take the first one's place on a broker with ``use_username_as_clientid``)."""
    if sec is None:
        return CommandIntakeConfig("own" if table_user is None else "shared")
    d = CommandIntakeConfig()
    bounds = {
        "per_user_per_second": sec.float_("per_user_per_second", 0.1, 10_000.0,
                                           d.per_user_per_second),
        "per_user_burst": sec.int_("per_user_burst", 1, 1_000_000, d.per_user_burst),
        "replies_per_second": sec.float_("replies_per_second", 0.0, 1_000_000.0,
                                          d.replies_per_second),
        "replies_burst": sec.int_("replies_burst", 0, 1_000_000, d.replies_burst),
        "queue": sec.int_("queue", 1, 1_000_000, d.queue),
    }
    connection = sec.choice("connection", ("own", "shared"), "own")
    username = sec.str_("username", None)
    password: Secret | None = None
    if sec.has("password") and sec.has("password_file"):
        raise sec.error("mqtt.commands: give either password or password_file, not both")
    if sec.has("password"):
        password = Secret(sec.str_("password"))
    elif sec.has("password_file"):
        password = _secret_file(sec, "password_file")
    sec.done()
    if password is not None and username is None:
        raise sec.error("mqtt.commands: a password needs a username")
    if connection == "own" and table_user is not None and username in (None, table_user):
        raise sec.error(
            "mqtt.commands: an own connection needs an account of its own (username, e.g."
            f" 'cmd.{table_user}'): on a broker that makes the client id the username, a second"
            " connection of the table's account takes the first one's place (docs/install.md)")
    if connection == "shared" and username is not None:
        raise sec.error("mqtt.commands: username is for connection = \"own\"")
    return CommandIntakeConfig(connection, username, password, **bounds)


def _hex16(sec: Section, key: str) -> int:
    value = sec.get(
        key,
        lambda v: (isinstance(v, str) and re.fullmatch(r"(0x)?[0-9a-fA-F]{4}", v) is not None)
        or (isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 0xFFFF),
        'a 16-bit id ("0x1d50" or 7504)',
    )
    return value if isinstance(value, int) else int(value, 16)


def _is_pin(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 27


def _table_link(sec: Section) -> TableLinkConfig:
    # no "simulator": the demo and the HIL rig run the emulator on a pty and name it as "serial"
    kind = sec.choice("kind", ("serial", "usb", "gpio", "none"))
    if kind == "serial":
        path = sec.path("path")
        baud = sec.int_("baud", 1200, 4_000_000, 115200)
        scale = sec.float_("timing_scale", 1.0, 100.0, 1.0)
        sec.done()
        return TableLinkConfig(kind="serial", path=path, baud=baud, timing_scale=scale)
    if kind == "usb":
        vid, pid = _hex16(sec, "vid"), _hex16(sec, "pid")
        scale = sec.float_("timing_scale", 1.0, 100.0, 1.0)
        sec.done()
        return TableLinkConfig(kind="usb", vid=vid, pid=pid, timing_scale=scale)
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


def _buttons(sec: Section | None) -> ButtonsConfig:
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


def _displays(sec: Section | None) -> DisplaysConfig:
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


def _referee(sec: Section | None) -> RefereeConfig:
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
        usec = Section(sec.file, f"referee.users[{i}]", raw)
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


def _table_ids(sec: Section, key: str) -> tuple[str, ...]:
    raw = sec.get(
        key,
        lambda v: isinstance(v, list)
        and all(isinstance(x, str) and TABLE_ID.fullmatch(x) for x in v),
        "a list of table ids (1..32 of a-z 0-9 _ -)",
        [],
    )
    return tuple(raw)


def _web(sec: Section | None) -> WebConfig | None:
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
        limits=read_web_limits(sec),
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
    root = Section(file, "", raw)
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
        path=esec.path("path"), checkpoint_every=esec.int_("checkpoint_every", 0, 10**7, 2000),
        full_check_below=esec.int_("full_check_below", 0, 10**9, 100_000),
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
