"""``jantaku status``: a table's health: links, broker, outbox depth, last event.

    jantaku status --config /etc/jantaku/t01.toml   # the log, and the daemon's retained health
    jantaku status --db /var/lib/jantaku/t01.sqlite # the log only (works with the daemon stopped)
    jantaku status --config ... --json              # one JSON object

With ``--config`` it also reads the table's retained ``status`` and ``health`` from the broker
(what the running daemon last published). Exit status: 0 healthy (or log only and readable),
1 the daemon reports a problem or is offline, 2 the log or config cannot be read, or the log is
missing, damaged or behind its mark (daemon/log_integrity.py's start-up check, bounded by the
seal: one line naming what and the command that accepts it; ``jantaku log verify`` reads all of
the log, and so does the running daemon's audit, shown here from its ``health``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
from typing import Any


def log_status(db: str, accept: str) -> dict[str, Any]:
    from daemon.eventlog import EventLog
    from daemon.log_chain import Finding
    from daemon.log_integrity import LogDamaged, inspect, message
    from daemon.table import iso

    found = inspect(db, readonly=True, full=False)  # bounded: the audit and verify read all
    if isinstance(found, Finding):  # one line, exit 2
        raise LogDamaged(message(db, found, accept))
    log = EventLog(db, "", readonly=True)
    try:
        last = log.last_record()
        applied_in, applied_ev = log.applied()
        outbox = log.outbox(limit=1)
        return {
            "table": log.table_id,
            "db": str(db),
            "inputs": log.last_seq(),
            "inputs_applied": applied_in,
            "event_seq": applied_ev,
            "outbox_depth": log.outbox_depth(),
            "oldest_unacked": outbox[0].seq if outbox else None,
            "games": len([g for g in log.games() if g[0] > 0]),
            "last_input": None
            if last is None
            else {
                "seq": last.seq,
                "type": last.body.get("type"),
                "source": last.source,
                "wall": iso(last.wall_ns),
            },
        }
    finally:
        log.close()


async def broker_status(config: Any, timeout: float = 3.0) -> dict[str, Any]:
    """The retained status and health of the table, read from its broker."""
    import aiomqtt

    from daemon.mqtt import tls_context
    from daemon.topics import Topics

    topics = Topics(config.table.id)
    cfg = config.mqtt
    out: dict[str, Any] = {"reachable": False, "status": None, "health": None}
    try:
        async with aiomqtt.Client(
            cfg.host,
            cfg.port,
            username=cfg.username,
            password=None if cfg.password is None else cfg.password.reveal(),
            tls_context=tls_context(cfg),
            timeout=timeout,
            identifier=f"{config.client_id}-status"[:64],
        ) as client:
            out["reachable"] = True
            await client.subscribe(topics.status, qos=1)
            await client.subscribe(topics.health, qos=1)
            try:
                async with asyncio.timeout(timeout):
                    async for m in client.messages:
                        body = json.loads(m.payload) if isinstance(m.payload, bytes) else None
                        key = "status" if str(m.topic) == topics.status else "health"
                        out[key] = body
                        if out["status"] is not None and out["health"] is not None:
                            break
            except TimeoutError:
                pass
    except aiomqtt.MqttError as exc:
        out["error"] = str(exc)
    return out


def _print(report: dict[str, Any]) -> None:
    lg = report.get("log")
    if lg:
        print(f"table {lg['table']}  log {lg['db']}")
        print(f"  inputs {lg['inputs']} (applied {lg['inputs_applied']}), games {lg['games']}")
        print(f"  events {lg['event_seq']}, outbox depth {lg['outbox_depth']}", end="")
        if lg["oldest_unacked"] is not None:
            print(f" (oldest unacknowledged: {lg['oldest_unacked']})", end="")
        print()
        last = lg["last_input"]
        if last:
            print(f"  last input #{last['seq']} {last['type']} from {last['source']} at "
                  f"{last['wall']}")
    br = report.get("broker")
    if br is not None:
        if not br["reachable"]:
            print(f"  broker: not reachable ({br.get('error')})")
            return
        status = (br.get("status") or {}).get("state", "unknown")
        print(f"  daemon: {status}")
        health = br.get("health")
        if health:
            b = health["broker"]
            print(f"  healthy: {health['healthy']}" +
                  (f" ({health['problem']})" if health.get("problem") else ""))
            elog = health.get("eventlog") or {}
            if elog.get("writable") is False:
                print(f"  event log NOT WRITABLE since {elog.get('since')}: {elog.get('error')};"
                      f" {elog.get('waiting')} inputs held, {elog.get('retries')} retries")
            audit = elog.get("audit")
            if audit:  # the daemon's reading of its whole log (daemon/log_audit.py)
                print(f"  event log audit: {audit['state']}, {audit['inputs']} inputs read, "
                      f"sealed at input {audit['sealed']}")
            print(f"  broker: {'connected' if b['connected'] else 'disconnected'} "
                  f"{b['host']}:{b['port']} v{b['protocol']}, {b['connects']} connects, "
                  f"{b['published']} published")
            for name, link in health["links"].items():
                extra = ", ".join(f"{k}={v}" for k, v in link.items() if k not in ("kind",))
                print(f"  link {name}: {extra}")
            last = health.get("last_event")
            if last:
                print(f"  last event #{last['seq']} {last['type']} at {last['ts']}")
            print(f"  health published {health['ts']} (uptime {health['uptime_s']} s)")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="jantaku status", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--config")
    group.add_argument("--db")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--timeout", type=float, default=3.0)
    args = parser.parse_args(argv)
    report: dict[str, Any] = {}
    code = 0
    try:
        if args.config:
            from daemon.config import load_config

            config = load_config(args.config)
            db = str(config.eventlog.path)
            report["log"] = log_status(db, f"--config {args.config}")
            report["broker"] = asyncio.run(broker_status(config, args.timeout))
            br = report["broker"]
            online = (br.get("status") or {}).get("state") == "online"
            healthy = bool((br.get("health") or {}).get("healthy"))
            code = 0 if online and healthy else 1
        else:
            report["log"] = log_status(args.db, f"--db {args.db}")
    except (OSError, RuntimeError, sqlite3.Error) as exc:  # one line, exit 2 (daemon.cli)
        print(f"jantaku status: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        _print(report)
    return code
