"""The start-up check is bounded by the seal, and the whole log is still read (issue 29, item 4;
daemon/log_integrity.py, daemon/log_audit.py, docs/daemon.md "A damaged log").

A table's log written by the daemon's own code (a legal game through ``TableCore``) and sealed as
the running daemon seals it (its audit read the whole log), then damaged; from outside:

* damage after the seal, a cut, a missing record: the real ``jantaku run`` refuses at start (exit
  2, one line, never READY), whatever the seal says;
* a changed record before the seal of a log of at most ``eventlog.full_check_below`` inputs
  (the default 100,000): refused at start too (the whole log is read);
* a changed record before the seal of a longer log (here ``full_check_below = 0``): ``jantaku run
  --check`` does not read it (that is what makes it bounded), ``jantaku log verify`` does; the
  real ``jantaku run`` starts, and its audit finds it after READY: ``health`` unhealthy with the
  line, an ``event_log_damaged`` log line, the console's alert; stopped, it does not start again
  until the log is accepted.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import aiohttp
import daemon_kit
import pytest
from hostile_kit import Daemon
from test_input_path_kill9 import ALICE
from test_log_integrity import _cli, _refused, _run_never_ready

from daemon.cli.referee import build_command, send
from daemon.eventlog import EventLog
from daemon.log_audit import LogAudit
from daemon.log_mark import mark_path, read_mark
from daemon.table import TableCore
from daemon.topics import Topics
from hil.kit import audit_now, commit_one


def _sealed_log(db: Path, table: str, *, hands: int, tail: int = 0) -> int:
    """A legal game logged as the daemon logs it, the whole log audited and sealed, then ``tail``
    more inputs logged after the seal (a power cut before the next checkpoint). Returns the
    last input's seq."""
    log = EventLog(db, table)
    core = TableCore(log, daemon_kit.engine(), table, checkpoint_every=10)
    core.recover()
    script = daemon_kit.game_inputs(hands, seed=29)
    for body in script[:len(script) - tail]:
        commit_one(core, "input", "table", body, time.monotonic_ns(), time.time_ns(), "b")
    audit = LogAudit(log, "--db x")
    audit_now(audit)
    assert audit.state == "passed", audit.fault
    audit.close()
    for body in script[len(script) - tail:]:
        commit_one(core, "input", "table", body, time.monotonic_ns(), time.time_ns(), "b")
    last = log.last_seq()
    log.close()
    mark = read_mark(mark_path(db))
    assert mark is not None and mark.seq == last and mark.sealed.seq == last - tail
    return last


def _edit(db: Path, sql: str, *args: Any) -> None:
    con = sqlite3.connect(db)
    con.execute(sql, args)
    con.commit()
    con.close()


@pytest.fixture
def table(tmp_path: Path) -> tuple[str, Path, Path]:
    name = daemon_kit.unique_table("la")
    db = tmp_path / "t.sqlite"
    config = tmp_path / "t.toml"
    config.write_text(daemon_kit.config_text(table=name, db=db, port=daemon_kit.free_port()))
    return name, db, config


def test_damage_after_the_seal_is_refused_at_start(table: tuple[str, Path, Path]) -> None:
    name, db, config = table
    last = _sealed_log(db, name, hands=2, tail=12)
    _edit(db, "UPDATE inputs SET body = json_set(body, '$.zz', 1) WHERE seq = ?", last - 5)
    out = _cli("run", "--check", "--config", str(config))
    _refused(out, f"input {last - 5} does not match its chain", "jantaku log accept")
    _run_never_ready(config, f"input {last - 5} does not match its chain")


def test_a_missing_record_before_the_seal_is_refused_at_start(
        table: tuple[str, Path, Path]) -> None:
    name, db, config = table
    _sealed_log(db, name, hands=2)
    _edit(db, "DELETE FROM inputs WHERE seq = 17")  # the count no longer matches the last seq
    _refused(_cli("run", "--check", "--config", str(config)), "input 17 is missing")
    _run_never_ready(config, "input 17 is missing")


def test_a_cut_sealed_log_is_refused_at_start(table: tuple[str, Path, Path]) -> None:
    name, db, config = table
    last = _sealed_log(db, name, hands=3)
    con = sqlite3.connect(db)  # the tail cut off as a torn WAL or an old copy would
    con.execute("DELETE FROM inputs WHERE seq > ?", (last - 30,))
    con.commit()
    con.execute("VACUUM")
    con.close()
    _refused(_cli("run", "--check", "--config", str(config)), f"its mark says {last}",
             "inputs lost")
    # and a database file cut in half: SQLite's own size check, at open
    os.truncate(db, db.stat().st_size // 2)
    _refused(_cli("run", "--check", "--config", str(config)), "event log")


async def _health(port: int, table: str, want: str, timeout: float) -> dict[str, Any]:
    async with daemon_kit.Collector(port, [Topics(table).health]) as sub:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for body in reversed(sub.payloads(Topics(table).health)):
                if want in str(body.get("problem")):
                    return dict(body)
            await asyncio.sleep(0.2)
    raise AssertionError(f"no health with {want!r} within {timeout} s")


async def _console_alerts(base: str) -> list[str]:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        for _ in range(100):
            try:
                async with http.post(base + "/console/api/login", json={
                        "user": "alice", "password": daemon_kit.REFEREE_PASSWORD}) as r:
                    assert r.status == 200, await r.text()
                    break
            except aiohttp.ClientConnectionError:
                await asyncio.sleep(0.2)
        async with http.get(base + "/console/api/state") as r:
            assert r.status == 200, await r.text()
            return list((await r.json())["alerts"])


def test_damage_before_the_seal_of_a_small_log_is_refused_at_start(
        table: tuple[str, Path, Path]) -> None:
    """Up to ``eventlog.full_check_below`` inputs the start-up check reads the whole log: a
    changed byte in a sealed record is refused before READY, like one after the seal."""
    name, db, config = table
    _sealed_log(db, name, hands=2)
    _edit(db, "UPDATE inputs SET body = json_set(body, '$.zz', 1) WHERE seq = 9")
    line = "input 9 does not match its chain"
    _refused(_cli("run", "--check", "--config", str(config)), line, "jantaku log accept")
    _run_never_ready(config, line)


async def test_damage_before_the_seal_is_found_by_the_audit_after_ready(
        tmp_path: Path) -> None:
    broker = daemon_kit.Broker(tmp_path / "broker").start()
    name, db = daemon_kit.unique_table("la"), tmp_path / "t.sqlite"
    web = daemon_kit.free_port()
    config = tmp_path / "t.toml"
    # a long log's start-up check stops at the seal: ``full_check_below = 0`` makes this one long
    config.write_text(daemon_kit.config_text(table=name, db=db, port=broker.port,
                                             full_check_below=0)
                      + f'\n[web]\nhost = "127.0.0.1"\nport = {web}\n')
    _sealed_log(db, name, hands=3)
    # a changed byte in an early record: SQLite does not see it, the start-up check does not
    # read it (it is before the seal), the full check does
    _edit(db, "UPDATE inputs SET body = json_set(body, '$.zz', 1) WHERE seq = 9")
    line = "input 9 does not match its chain"
    assert _cli("run", "--check", "--config", str(config)).returncode == 0
    _refused(_cli("log", "verify", "--db", str(db)), line)
    daemon = Daemon(config, tmp_path / "daemon.log", name, db).start()
    try:
        health = await _health(broker.port, name, line, 60)
        assert health["healthy"] is False
        assert health["eventlog"]["audit"]["state"] == "failed"
        assert line in health["eventlog"]["audit"]["fault"]
        assert "jantaku log accept --config" in health["problem"]
        assert daemon.alive()  # the table plays on
        logged = [r for r in daemon.lines() if r.get("event") == "event_log_damaged"]
        assert len(logged) == 1 and logged[0]["level"] == "error" and line in logged[0]["msg"]
        alerts = await _console_alerts(f"http://127.0.0.1:{web}")
        assert len(alerts) == 1 and line in alerts[0]
    finally:
        assert daemon.stop() == 0
        broker.stop()
    mark = read_mark(mark_path(db))
    assert mark is not None and mark.sealed.seq == 0  # the seal was dropped, durably
    # the next start reads the whole log and refuses it, until the operator decides
    _refused(_cli("run", "--check", "--config", str(config)), line, "jantaku log accept")
    assert _cli("log", "accept", "--config", str(config)).returncode == 0
    assert _cli("run", "--check", "--config", str(config)).returncode == 0


async def test_a_sound_log_is_audited_and_sealed_to_its_end(tmp_path: Path) -> None:
    """The audit passes, the checkpointer seals what is logged after it, and a clean stop
    leaves the seal at the last input: the next start reads no record against its chain."""
    broker = daemon_kit.Broker(tmp_path / "broker").start()
    name, db = daemon_kit.unique_table("la"), tmp_path / "t.sqlite"
    config = tmp_path / "t.toml"
    # the bounded start-up check (a long log's): ``full_check_below = 0``
    config.write_text(daemon_kit.config_text(table=name, db=db, port=broker.port,
                                             full_check_below=0))
    daemon = Daemon(config, tmp_path / "daemon.log", name, db).start()
    try:
        await daemon_kit.until(
            lambda: any(r.get("event") == "event_log_audited" for r in daemon.lines()), 60)
        game = {"ruleset": "mleague", "first_dealer": 0, "names": ["a", "b", "c", "d"]}
        topic, payload = build_command(name, "new_game", "alice", ALICE, game, cid="g1")
        for _ in range(60):
            if await send("127.0.0.1", broker.port, name, topic, payload, timeout=1.0):
                break
        else:
            raise AssertionError("the new game was never answered")
    finally:
        assert daemon.stop() == 0
        broker.stop()
    mark = read_mark(mark_path(db))
    assert mark is not None and mark.seq > 0 and mark.sealed == mark.last
    # started again: the start-up check reads no record against its chain (all sealed)
    again = Daemon(config, tmp_path / "again.log", name, db).start()
    try:
        await daemon_kit.until(
            lambda: any(r.get("event") == "event_log_checked" for r in again.lines()), 30)
    finally:
        assert again.stop() == 0
    [checked] = [r for r in again.lines() if r.get("event") == "event_log_checked"]
    assert checked["inputs"] == mark.seq and checked["walked"] == 0 and not checked["full"]
    out = _cli("status", "--db", str(db), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["log"]["inputs"] == mark.seq
