"""The config file: complete validation before anything starts; the example config is valid."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
from pathlib import Path

import daemon_kit
import pytest

from daemon import jsonlog
from daemon.auth import format_key, parse_key
from daemon.config import CommandIntakeConfig, Secret, check_devices, load_config, parse_config
from daemon.errors import ConfigError

EXAMPLE = daemon_kit.REPO / "systemd" / "jantaku.example.toml"


def base(tmp_path: Path) -> str:
    return daemon_kit.config_text(table="t01", db=tmp_path / "t01.sqlite", port=1883)


def run_check(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    cfg = tmp_path / "cfg.toml"
    cfg.write_text(text)
    return subprocess.run(
        [sys.executable, str(daemon_kit.RUN_DAEMON), "run", "--config", str(cfg)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_valid_config_parses(tmp_path: Path) -> None:
    config = parse_config(base(tmp_path), "x.toml")
    assert config.table.id == "t01"
    assert config.mqtt.protocol == "5"
    assert config.client_id == "jantaku-t01"
    assert [u.name for u in config.referee.users] == ["alice", "bob"]
    assert "set_scores" in config.referee.roles["referee"]
    assert "set_scores" not in config.referee.roles["operator"]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace("[eventlog]", "colour = 3\n[eventlog]"), "unknown key 'table.colour'"),
        (lambda t: t.replace('protocol = "5"', 'protocol = "4"'), "mqtt.protocol: expected one"),
        (lambda t: t.replace("port = 1883", 'port = "1883"'), "mqtt.port: expected an integer"),
        (lambda t: t.replace('ruleset = "mleague"', 'ruleset = "nope"'), "table.ruleset"),
        (lambda t: t.replace('id = "t01"', 'id = "T 01"'), "table.id: expected a table id"),
        (lambda t: t.replace("config_version = 1", ""), "missing key 'config_version'"),
        (lambda t: t.replace('role = "operator"', 'role = "boss"'), "role: expected one of"),
        (lambda t: t.replace('key = "pbkdf2', 'key = "md5'), "referee.users[0].key"),
        (lambda t: t + "\n[mqtt.tls]\nca = \"/nonexistent/ca.crt\"\n", "no such file"),
        (lambda t: t.replace("keepalive = 10", "keepalive = 10\npassword = \"x\""), "needs a user"),
    ],
)
def test_bad_config_is_one_clear_error(tmp_path: Path, edit: object, message: str) -> None:
    text = edit(base(tmp_path))  # type: ignore[operator]
    with pytest.raises(ConfigError) as err:
        parse_config(text, "bad.toml")
    assert message in str(err.value)
    assert str(err.value).startswith("bad.toml: ")


def test_missing_device_fails_before_anything_starts(tmp_path: Path) -> None:
    text = base(tmp_path).replace(
        'kind = "none"', 'kind = "serial"\npath = "/dev/serial/by-id/usb-jantaku-nothing"'
    )
    result = run_check(tmp_path, text)
    assert result.returncode == 2
    assert "no such device /dev/serial/by-id/usb-jantaku-nothing" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "t01.sqlite").exists()  # nothing started, no log created
    config = parse_config(text)
    with pytest.raises(ConfigError):
        check_devices(config)
    gpio = base(tmp_path) + "\n[devices.buttons]\nkind = \"gpio\"\nseat_pins = [5, 6, 13, 19]\n"
    with pytest.raises(ConfigError, match="gpiochip"):
        check_devices(parse_config(gpio))


def test_cli_unknown_key_exits_2_with_one_line(tmp_path: Path) -> None:
    result = run_check(tmp_path, base(tmp_path).replace("[logging]", "[logging]\nlevle = 1"))
    assert result.returncode == 2
    assert "unknown key 'logging.levle'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "t01.sqlite").exists()


def test_where_commands_are_read(tmp_path: Path) -> None:
    """[mqtt.commands]: an own connection by default on an anonymous broker; with a table
    account, the table's connection unless a command account of its own is given (a second
    connection of the same account would take the first one's place on the shipped broker)."""
    anonymous = base(tmp_path)
    account = anonymous.replace("keepalive = 10", 'keepalive = 10\nusername = "t01"')

    def commands(text: str) -> object:
        return parse_config(text, "x.toml").mqtt.commands

    assert commands(anonymous) == CommandIntakeConfig("own")
    assert commands(account) == CommandIntakeConfig("shared")
    own = account + '\n[mqtt.commands]\nusername = "cmd.t01"\npassword = "pw"\n'
    assert commands(own) == CommandIntakeConfig("own", "cmd.t01", Secret("pw"))
    assert commands(account + '\n[mqtt.commands]\nconnection = "shared"\n') == \
        CommandIntakeConfig("shared")
    for text, message in [
        (account + "\n[mqtt.commands]\n", "an own connection needs an account of its own"),
        (account + '\n[mqtt.commands]\nusername = "t01"\n', "account of its own"),
        (account + '\n[mqtt.commands]\nconnection = "shared"\nusername = "cmd.t01"\n',
         'username is for connection = "own"'),
        (anonymous + '\n[mqtt.commands]\npassword = "pw"\n', "a password needs a username"),
        (anonymous + '\n[mqtt.commands]\nconnection = "both"\n', "expected one of"),
    ]:
        with pytest.raises(ConfigError, match=r"mqtt\.commands") as err:
            parse_config(text, "bad.toml")
        assert message in str(err.value), err.value


def test_check_flag_and_the_shipped_example(tmp_path: Path) -> None:
    cfg = tmp_path / "ok.toml"
    cfg.write_text(base(tmp_path))
    result = subprocess.run(
        [sys.executable, str(daemon_kit.RUN_DAEMON), "run", "--config", str(cfg), "--check"],
        capture_output=True,
        text=True,
        timeout=60,  # a hang guard: --check must not start the daemon
    )
    assert result.returncode == 0, result.stderr
    # the example parses (its device and secret files are the venue's)
    text = EXAMPLE.read_text()
    (tmp_path / "mqtt.pass").write_text("pw\n")
    (tmp_path / "ca.crt").write_text("x")
    text = text.replace("/etc/jantaku/mqtt.pass", str(tmp_path / "mqtt.pass"))
    text = text.replace("/etc/jantaku/ca.crt", str(tmp_path / "ca.crt"))
    text = text.replace("/etc/jantaku/mqtt-cmd.pass", str(tmp_path / "mqtt.pass"))
    config = parse_config(text, EXAMPLE)
    assert config.devices.table.kind == "serial"
    assert config.mqtt.tls is not None
    assert config.mqtt.commands.connection == "own"
    assert config.mqtt.commands.username == "cmd.t01"


def test_secrets_are_hidden(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path, base(tmp_path)))
    key = config.referee.users[0].key
    assert "pbkdf2" not in repr(config) and "pbkdf2" not in str(key)
    assert parse_key(key.reveal())[0] == 1000
    assert key.reveal() == format_key("alice", daemon_kit.REFEREE_PASSWORD, 1000)
    # a secret that reaches a log line anyway is scrubbed
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    stream = io.StringIO()
    try:
        jsonlog.setup("info", stream=stream)
        jsonlog.redact("hunter2-secret")
        logging.getLogger("jantaku.test").info("connecting with password hunter2-secret")
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
    line = json.loads(stream.getvalue().splitlines()[-1])
    assert line["msg"] == "connecting with password ***"
    assert line["level"] == "info"


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "c.toml"
    p.write_text(text)
    return p
