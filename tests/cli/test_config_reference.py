"""Issue 13 item 5: docs/daemon.md's configuration reference names every key the config parser
accepts, ``[tiles]`` included.

The keys are not listed by hand here: the parser itself says which it reads. Configs that use
every section and every variant (each table-link kind, password and password file, key and key
file, evdev and serial readers, a camera with a model) are parsed while the readers of
``daemon/config/reading.py`` (``Section.get``/``sub``) and ``drivers/tiles/config.py``
(``_get``) record each key they look at; every one of them must appear in the reference, in
backticks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import drivers.tiles.config as tiles_config
from daemon import config as daemon_config
from daemon.auth import format_key
from daemon.config import reading as config_reading

REPO = Path(__file__).resolve().parents[2]


def reference() -> str:
    text = (REPO / "docs" / "daemon.md").read_text(encoding="utf-8")
    return text.split("## Configuration", 1)[1].split("\n## ", 1)[0]


def variants(tmp: Path) -> Iterator[str]:
    for name in ("pw", "ca.crt", "t.crt", "t.key", "web.crt", "web.key", "model.onnx"):
        (tmp / name).write_text("x\n")
    (tmp / "bob.key").write_text(format_key("bob", "pw-bob-123456", 1000) + "\n")
    alice = format_key("alice", "pw-alice-123456", 1000)
    head = 'config_version = 1\n[table]\nid = "t01"\nruleset = "mleague"\n'
    log = f'[eventlog]\npath = "{tmp / "t.sqlite"}"\ncheckpoint_every = 100\n'
    full = f"""{head}{log}
[mqtt]
host = "127.0.0.1"
port = 8883
protocol = "5"
client_id = "jantaku-t01"
keepalive = 30
username = "t01"
password_file = "{tmp / "pw"}"
health_interval = 10.0
[mqtt.tls]
ca = "{tmp / "ca.crt"}"
cert = "{tmp / "t.crt"}"
key = "{tmp / "t.key"}"
insecure = false
[mqtt.commands]
connection = "own"
username = "cmd.t01"
password_file = "{tmp / "pw"}"
per_user_per_second = 5.0
per_user_burst = 20
replies_per_second = 20.0
replies_burst = 100
queue = 64
[devices.table]
kind = "serial"
path = "/dev/jantaku-table"
baud = 115200
[devices.buttons]
kind = "gpio"
seat_pins = [5, 6, 13, 19]
referee_pin = 26
led_pins = [12, 16, 20, 21]
buzzer_pin = 24
[devices.displays]
honba = "table"
scores = "table"
buzzer = "none"
clocks_path = "/dev/ttyUSB3"
clocks_baud = 9600
[referee]
max_skew_seconds = 120
[referee.roles]
referee = ["new_game", "pause"]
operator = ["pause"]
[[referee.users]]
name = "alice"
role = "referee"
key = "{alice}"
[[referee.users]]
name = "bob"
role = "operator"
key_file = "{tmp / "bob.key"}"
[logging]
level = "info"
file = "-"
[web]
host = "127.0.0.1"
port = 8080
tls_cert = "{tmp / "web.crt"}"
tls_key = "{tmp / "web.key"}"
session_idle_seconds = 1800
session_absolute_seconds = 28800
max_login_failures = 5
lockout_seconds = 300
spectator_delay_seconds = 30
[tiles]
enrolment = "{tmp / "set.json"}"
debounce_ms = 1500
[[tiles.readers]]
name = "s0-hand"
kind = "evdev"
path = "/dev/input/by-path/platform-usb-0:1.1:1.0-event-kbd"
seat = 0
zone = "hand"
grab = true
[[tiles.readers]]
name = "dora"
kind = "serial"
path = "/dev/ttyUSB1"
baud = 9600
zone = "dora"
[tiles.camera]
source = "opencv:0"
width = 1280
height = 720
threshold = 0.5
need = 3
window = 5
model = "{tmp / "model.onnx"}"
classes = ["1m", "2m"]
[[tiles.camera.zones]]
name = "river0"
seat = 0
zone = "river"
rect = [340, 560, 600, 80]
"""
    yield full
    mqtt = ('[mqtt]\nhost = "127.0.0.1"\nusername = "t01"\npassword = "secret"\n'
            '[mqtt.commands]\nusername = "cmd.t01"\npassword = "secret"\n')
    yield f'{head}{log}{mqtt}[devices.table]\nkind = "usb"\nvid = "0x1209"\npid = "0x4a55"\n'
    yield (f'{head}{log}{mqtt}[devices.table]\nkind = "gpio"\n'
           '[devices.table.pins]\nrelay = 17\nwall = 27\n')


def normalise(key: str) -> str:
    key = re.sub(r"\[\d+\]", "[]", key)
    return re.sub(r"^referee\.roles\.(?!<)\w+$", "referee.roles.<role>", key)


@pytest.fixture
def read_keys(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    seen: set[str] = set()
    get, sub, tget = config_reading.Section.get, config_reading.Section.sub, tiles_config._get

    def record_get(self: config_reading.Section, key: str, *a: object, **k: object) -> object:
        seen.add(self._key(key))
        return get(self, key, *a, **k)  # type: ignore[arg-type]

    def record_sub(self: config_reading.Section, key: str, required: bool = True) -> object:
        seen.add(self._key(key))
        return sub(self, key, required)

    def record_tget(d: object, key: str, typ: type, where: str, default: object) -> object:
        seen.add(f"{where}.{key}")
        return tget(d, key, typ, where, default)  # type: ignore[arg-type]

    monkeypatch.setattr(config_reading.Section, "get", record_get)
    monkeypatch.setattr(config_reading.Section, "sub", record_sub)
    monkeypatch.setattr(tiles_config, "_get", record_tget)
    return seen


def test_every_key_the_parser_reads_is_in_the_reference(
    read_keys: set[str], tmp_path: Path
) -> None:
    for text in variants(tmp_path):
        daemon_config.parse_config(text, str(tmp_path / "t.toml"))
    # tiles.camera.classes is read with a plain dict lookup (its list type is checked by hand)
    keys = {normalise(k) for k in read_keys} | {"tiles.camera.classes"}
    # the recorder saw the whole parser: every section and the [tiles] subsections
    assert {"tiles.readers[].grab", "tiles.camera.zones[].rect", "devices.table.pins.wall",
            "referee.users[].key_file", "web.spectator_delay_seconds"} <= keys
    doc = reference()
    documented = set(re.findall(r"`([a-z_]+(?:\[\])?(?:\.[a-z_<>]+(?:\[\])?)*)`", doc))
    sections = {k for k in keys if any(d.startswith((k + ".", k + "[].")) for d in keys)}
    missing = sorted(k for k in keys - sections if k not in documented)
    assert not missing, f"docs/daemon.md's configuration reference lacks {missing}"


@pytest.mark.parametrize(("table", "typo", "where"), [
    ("[tiles]", "debounce = 1500", "tiles: unknown key 'debounce'"),
    ("[[tiles.readers]]", "grabbed = false", "tiles.readers[0]: unknown key 'grabbed'"),
    ("[tiles.camera]", "treshold = 0.6", "tiles.camera: unknown key 'treshold'"),
    ("[[tiles.camera.zones]]", "sear = 1", "tiles.camera.zones[0]: unknown key 'sear'"),
])
def test_a_misspelt_tiles_key_is_refused_by_jantaku_run_check(
    tmp_path: Path, table: str, typo: str, where: str
) -> None:
    import subprocess
    import sys

    full = next(variants(tmp_path))
    # the typo goes right under its table's header (the first one of that name)
    text = full.replace(f"\n{table}\n", f"\n{table}\n{typo}\n", 1)
    assert text != full
    cfg = tmp_path / "typo.toml"
    cfg.write_text(text)
    jantaku = str(Path(sys.executable).with_name("jantaku"))
    res = subprocess.run([jantaku, "run", "--config", str(cfg), "--check"], capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 2
    [line] = res.stderr.splitlines()
    assert where in line, line
