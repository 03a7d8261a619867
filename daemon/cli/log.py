"""``jantaku log``: the event log of a table.

    jantaku log export --db FILE [--game N] [--out FILE]   # inputs as JSON lines
    jantaku log export --db FILE --game N --format mjai|tenhou6 [--out FILE]  # for review tools
    jantaku log games --db FILE                             # games in the log
    jantaku log verify --db FILE                            # chain, mark, replay
    jantaku log accept --config FILE | --db FILE            # accept a log the check refuses
                                                            # (--config: and its broker)

``export`` writes one JSON object per input, in order: ``seq``, ``game``, ``kind`` (``input``:
a rules input; ``timer``: a clock button, pause or resume; ``marker``: a daemon restart or a table
message the rules engine has no input for), ``source`` (``table``, ``button:<seat>``,
``referee:<user>``, ``daemon``), ``mono_ns`` (the daemon's monotonic clock; comparable within one
``boot``), ``wall_ns`` and ``wall`` (UTC), ``boot`` and ``input`` (the logged JSON).

``export --format mjai|tenhou6`` writes game ``N`` as a record for review tools (mjai JSON Lines
or tenhou.net/6 JSON, rules/records/table_game.py): a sensor table's game with every draw,
discard and call, a sensorless one with its results. A hand that has not ended is left out, with
a note on standard error. Exit 1 when the game is not in the log or cannot be written.

``verify`` first checks the whole log, every record against its chain, SQLite's whole
``quick_check`` and the mark (daemon/log_integrity.py; the check at start reads only what came
after the seal): a damaged, missing or rolled-back log is one line and exit 2. ``accept`` is the
operator's decision on such a log, with the daemon stopped (docs/daemon.md, "A damaged log").
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from typing import Any, TextIO


def export(db: str, game: int | None, out: TextIO) -> int:
    from daemon.eventlog import EventLog
    from daemon.table import iso

    log = EventLog(db, "", readonly=True)
    n = 0
    try:
        for rec in log.records(game=game):
            line = {
                "seq": rec.seq,
                "game": rec.game,
                "kind": rec.kind,
                "source": rec.source,
                "mono_ns": rec.mono_ns,
                "wall_ns": rec.wall_ns,
                "wall": iso(rec.wall_ns),
                "boot": rec.boot,
                "input": rec.body,
            }
            out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
            n += 1
    finally:
        log.close()
    return n


def export_record(db: str, game: int, fmt: str, out: TextIO) -> int:
    """Game ``game`` as a mjai / tenhou.net/6 record on ``out``; notes on stderr."""
    from daemon.eventlog import EventLog
    from rules.inputs import InputError, input_from_json
    from rules.records.export import ExportError
    from rules.records.table_game import export_table_game

    log = EventLog(db, "", readonly=True)
    try:
        table = log.table_id
        bodies = [r.body for r in log.records(game=game) if r.kind == "input"]
    finally:
        log.close()
    if not bodies:
        print(f"jantaku log: no game {game} in {db}", file=sys.stderr)
        return 1
    try:
        inputs = [input_from_json(b) for b in bodies]
        done = export_table_game(inputs, "mjai" if fmt == "mjai" else "tenhou6",
                                 title=f"{table} game {game}")
    except (InputError, ExportError) as exc:
        print(f"jantaku log: game {game}: cannot export as {fmt}: {exc}", file=sys.stderr)
        return 1
    for note in done.notes:
        print(f"jantaku log: note: game {game}: {note}", file=sys.stderr)
    out.write(done.text if done.text.endswith("\n") else done.text + "\n")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="jantaku log", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_exp = sub.add_parser("export", help="a game's inputs as JSON lines")
    p_exp.add_argument("--db", required=True)
    p_exp.add_argument("--game", type=int, help="game number (jantaku log games); default all")
    p_exp.add_argument("--out", help="file to write (default stdout)")
    p_exp.add_argument("--format", choices=("mjai", "tenhou6"),
                       help="a record for review tools instead of the inputs (needs --game)")
    p_games = sub.add_parser("games", help="the games in a log")
    p_games.add_argument("--db", required=True)
    p_ver = sub.add_parser("verify", help="replay the log through the rules engine")
    p_ver.add_argument("--db", required=True)
    p_acc = sub.add_parser("accept", help="accept a log the start-up check refuses")
    where = p_acc.add_mutually_exclusive_group(required=True)
    where.add_argument("--config")
    where.add_argument("--db")
    args = parser.parse_args(argv)
    try:
        if args.cmd == "export" and args.format:
            if args.game is None:
                print("jantaku log: --format needs --game N (jantaku log games)", file=sys.stderr)
                return 2
            if args.out:
                with open(args.out, "w", encoding="utf-8") as fh:
                    return export_record(args.db, args.game, args.format, fh)
            return export_record(args.db, args.game, args.format, sys.stdout)
        if args.cmd == "export":
            if args.out:
                with open(args.out, "w", encoding="utf-8") as fh:
                    n = export(args.db, args.game, fh)
            else:
                n = export(args.db, args.game, sys.stdout)
            if n == 0 and args.game is not None:
                print(f"jantaku log: no game {args.game} in {args.db}", file=sys.stderr)
                return 1
            return 0
        if args.cmd == "games":
            from daemon.eventlog import EventLog

            log = EventLog(args.db, "", readonly=True)
            try:
                print(f"table {log.table_id}")
                for game, count, first, last in log.games():
                    label = "before the first game" if game == 0 else f"game {game}"
                    print(f"  {label}: {count} inputs (seq {first}..{last})")
            finally:
                log.close()
            return 0
        if args.cmd == "accept":
            return _accept(args.config, args.db)
        return _verify(args.db)
    except (OSError, sqlite3.Error, ValueError) as exc:  # one line, exit 2 (daemon.cli)
        print(f"jantaku log: {args.db}: {exc}", file=sys.stderr)
        return 2


def _accept(config_file: str | None, db: str | None) -> int:
    import asyncio
    import logging

    from daemon.log_integrity import accept

    config = None
    if config_file is not None:
        from daemon.config import load_config

        config = load_config(config_file)
        db = str(config.eventlog.path)
    assert db is not None
    done = [accept(db)]
    if config is not None:  # the broker's memory of the table, too (daemon/broker_seq.py)
        done.append(asyncio.run(accept_broker(config, _logged_events(db))))
    for line in done:
        logging.getLogger("jantaku.eventlog").warning(line)
        print(f"jantaku log: {line}")
    return 0


def _logged_events(db: str) -> int:
    from pathlib import Path

    from daemon.eventlog import EventLog

    if not Path(db).exists():
        return 0
    log = EventLog(db, "", readonly=True)
    try:
        return log.applied()[1]
    finally:
        log.close()


async def accept_broker(config: Any, logged: int) -> str:
    """Clear the table's retained state on its broker when it names an event the log never
    reached (the daemon holds its events until then: docs/daemon.md, "The broker ahead of the
    log"). One line: what was found and done."""
    import asyncio

    from daemon.errors import BrokerError
    from daemon.mqtt import tls_context
    from daemon.mqtt_wire import Connect

    cfg = config.mqtt
    where = f"broker {cfg.host}:{cfg.port}"
    spec = Connect(host=cfg.host, port=cfg.port, client_id=f"{config.client_id}-accept"[:64],
                   v5=cfg.protocol == "5", username=cfg.username,
                   password=None if cfg.password is None else cfg.password.reveal(),
                   timeout=cfg.connect_timeout, tls=tls_context(cfg))
    for attempt in range(3):
        try:
            seen = await _clear_retained(spec, config.table.id, logged)
            break
        except BrokerError as exc:
            # the broker may give the table's client id back to its daemon (the shipped
            # broker's client id is the username): try again
            if attempt == 2:
                return (f"{where}: not reachable ({exc}); if the daemon says the broker is "
                        "ahead of the log, run this again once the broker is up")
            await asyncio.sleep(0.5)
    if seen <= logged:
        return (f"{where}: remembers event {seen} of table {config.table.id}, the log "
                f"{logged}: nothing to accept there")
    return (f"{where}: its retained state of table {config.table.id} named event {seen}, the "
            f"log ends at event {logged}: cleared; the daemon publishes again, reusing seqs "
            f"{logged + 1}..{seen} (consumers must reset their high-water mark for this table)")


async def _clear_retained(spec: Any, table: str, logged: int) -> int:
    """The seq the broker's retained state names; cleared when beyond ``logged``."""
    from daemon.broker_seq import highest_seq, seq_topics
    from daemon.mqtt_session import MqttSession
    from daemon.topics import Topics

    topics = Topics(table)
    watched = seq_topics(topics)
    got: list[bytes] = []

    def keep(topic: bytes, payload: bytes, retain: bool, props: bytes | None, size: int) -> None:
        if retain and topic.decode("utf-8", "replace") in watched:
            got.append(payload)

    async with MqttSession(spec, keep) as client:
        await client.subscribe([(topic, 1) for topic in watched])
        await client.unsubscribe(list(watched))  # the retained copies came before its answer
        seen = highest_seq(got)
        if seen > logged:
            for topic in (topics.state, topics.private_state, topics.scores):
                await client.publish(topic, b"", qos=1, retain=True)
    return seen


def _verify(db: str) -> int:
    """Replay every input in memory and compare with what the log says was published."""
    import tempfile
    from pathlib import Path

    from daemon.engine import load_engine
    from daemon.eventlog import EventLog
    from daemon.log_chain import Finding
    from daemon.log_integrity import inspect, message
    from daemon.table import TableCore

    found = inspect(db, readonly=True)
    if isinstance(found, Finding):
        print(f"jantaku log: {message(db, found, f'--db {db}')}", file=sys.stderr)
        return 2
    print(f"chain: {found.records} inputs match their chain and the mark")
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "copy.sqlite"
        src = EventLog(db, "", readonly=True)
        table = src.table_id
        applied = src.applied()
        src.backup(copy)  # a consistent copy: the running daemon's log is not touched
        src.close()
        log = EventLog(copy, table)
        core = TableCore(log, load_engine(), table, checkpoint_every=0)
        rec = core.recover()
        log.close()
    print(f"table {table}: {rec.inputs} inputs replayed, {core.state.event_seq} events")
    print(f"log says: inputs applied {applied[0]}, events {applied[1]}")
    if rec.mismatch:
        print(f"MISMATCH: {rec.mismatch}")
        return 1
    print("ok: the replay gives the logged events")
    return 0
