"""`jantaku log` and `jantaku status` on real logs and a running daemon."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import daemon_kit
from conftest import running_service

from daemon.cli.log import export
from daemon.config import Config
from daemon.devices import NoTable
from daemon.eventlog import EventLog
from daemon.table import TableCore
from hil.kit import commit_one
from rules.inputs import input_from_json


def jantaku(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(daemon_kit.RUN_DAEMON), *args],
        capture_output=True, text=True, timeout=60,
    )


def _two_games(db: Path) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    g1 = daemon_kit.game_inputs(1, seed=4)
    g2 = daemon_kit.game_inputs(1, seed=5)
    log = EventLog(db, "tcli")
    core = TableCore(log, daemon_kit.engine(), "tcli")
    for body in [*g1, {"type": "referee", "action": "end_game", "by": "alice", "args": {}}, *g2]:
        commit_one(core, "input", "table", body, time.monotonic_ns(), time.time_ns(), "boot-1")
    log.close()
    return g1, g2


def test_log_export_a_game_as_json_lines(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    g1, g2 = _two_games(db)
    out = io.StringIO()
    assert export(str(db), 2, out) == len(g2)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line["input"] for line in lines] == g2
    assert all(line["game"] == 2 and line["source"] == "table" for line in lines)
    seqs = [line["seq"] for line in lines]
    assert seqs == list(range(len(g1) + 2, len(g1) + 2 + len(g2)))
    assert all(line["boot"] == "boot-1" and line["wall"].endswith("Z") for line in lines)
    assert [line["mono_ns"] for line in lines] == sorted(line["mono_ns"] for line in lines)
    for line in lines:
        input_from_json(line["input"])  # every line is a valid rules input
    # the CLI prints the same
    result = jantaku("log", "export", "--db", str(db), "--game", "1")
    assert result.returncode == 0, result.stderr
    assert [json.loads(x)["input"] for x in result.stdout.splitlines()][: len(g1)] == g1
    assert jantaku("log", "export", "--db", str(db), "--game", "9").returncode == 1
    games = jantaku("log", "games", "--db", str(db))
    assert "game 1:" in games.stdout and "game 2:" in games.stdout
    verify = jantaku("log", "verify", "--db", str(db))
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "ok: the replay gives the logged events" in verify.stdout


def test_status_from_the_log_and_from_the_running_daemon(
    tmp_path: Path, broker: daemon_kit.Broker, make_config: Callable[..., Config]
) -> None:
    import asyncio

    config = make_config(broker.port)
    cfg = tmp_path / "s.toml"
    cfg.write_text(daemon_kit.config_text(
        table=config.table.id, db=config.eventlog.path, port=broker.port))

    async def scenario() -> tuple[subprocess.CompletedProcess[str], ...]:
        async with running_service(config, drivers=[NoTable()]) as service:
            for body in daemon_kit.game_inputs(1, seed=2)[:20]:
                await service.submit("input", "table", body)
            await asyncio.sleep(1.5)  # a health publication with the broker connected
            live = await asyncio.to_thread(jantaku, "status", "--config", str(cfg), "--json")
            text = await asyncio.to_thread(jantaku, "status", "--config", str(cfg))
        stopped = await asyncio.to_thread(jantaku, "status", "--config", str(cfg), "--json")
        return live, text, stopped

    live, text, stopped = asyncio.run(scenario())
    assert live.returncode == 0, live.stdout + live.stderr
    report = json.loads(live.stdout)
    assert report["log"]["inputs"] == 20
    assert report["broker"]["status"]["state"] == "online"
    assert report["broker"]["health"]["healthy"] is True
    assert report["broker"]["health"]["links"]["table"]["kind"] == "none"
    assert "daemon: online" in text.stdout and "outbox depth" in text.stdout
    assert stopped.returncode == 1  # offline
    assert json.loads(stopped.stdout)["broker"]["status"]["state"] == "offline"
    db_only = jantaku("status", "--db", str(config.eventlog.path))
    assert db_only.returncode == 0 and "inputs 20" in db_only.stdout
    assert jantaku("status", "--db", str(tmp_path / "missing.sqlite")).returncode == 2
