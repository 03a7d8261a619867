"""``jantaku log``: the event log of a table.

    jantaku log export --db FILE [--game N] [--out FILE]   # inputs as JSON lines
    jantaku log games --db FILE                             # games in the log
    jantaku log verify --db FILE                            # replay: state, events, outbox

``export`` writes one JSON object per input, in order: ``seq``, ``game``, ``kind`` (``input``:
a rules input; ``timer``: a clock button, pause or resume; ``marker``: a daemon restart or a table
message the rules engine has no input for), ``source`` (``table``, ``button:<seat>``,
``referee:<user>``, ``daemon``), ``mono_ns`` (the daemon's monotonic clock; comparable within one
``boot``), ``wall_ns`` and ``wall`` (UTC), ``boot`` and ``input`` (the logged JSON).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO


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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="jantaku log", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_exp = sub.add_parser("export", help="a game's inputs as JSON lines")
    p_exp.add_argument("--db", required=True)
    p_exp.add_argument("--game", type=int, help="game number (jantaku log games); default all")
    p_exp.add_argument("--out", help="file to write (default stdout)")
    p_games = sub.add_parser("games", help="the games in a log")
    p_games.add_argument("--db", required=True)
    p_ver = sub.add_parser("verify", help="replay the log through the rules engine")
    p_ver.add_argument("--db", required=True)
    args = parser.parse_args(argv)
    try:
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
        return _verify(args.db)
    except OSError as exc:  # a DaemonError: one line, exit 2 (daemon.cli)
        print(f"jantaku log: {exc}", file=sys.stderr)
        return 2


def _verify(db: str) -> int:
    """Replay every input in memory and compare with what the log says was published."""
    import tempfile
    from pathlib import Path

    from daemon.engine import load_engine
    from daemon.eventlog import EventLog
    from daemon.table import TableCore

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
