"""``jantaku demo``: watch a table play -- four bots on an emulated sensor table, the real daemon.

Everything a venue table has, emulated, driving the production daemon through its real drivers
(``hil/``, docs/hil.md): the automatic table on a serial pty, thirteen RFID readers, the seat
panels, the clock buttons on gpiozero mock pins. Nothing external is needed:

* MQTT: without ``--mqtt-host`` a private ``mosquitto`` is started on a free port when the binary
  exists; otherwise the daemon runs without a broker (it plays on and queues every event), and the
  screen says so;
* the overlay is served by the daemon side (``daemon/web``): the URL is printed at start;
  ``?layout=tables`` shows the multi-table scoreboard of the demo's table, followed on the broker
  as a venue's is (daemon/web/scoreboard.py), or built from the daemon's own scores without one;
* ``--headless``: no terminal view, JSON lines only (logs on stderr, progress on stdout);
* stdout not a terminal (``make demo | tee log``): no live view, one progress line per hand.

With ``--hands N`` it stops after N hands with a summary (exit 0 when the daemon's events equal
the simulator's and no violation occurred); without, it plays game after game until Ctrl-C.
Ctrl-C (or SIGTERM) stops everything it started: the game, the daemon, the readers, the broker.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from daemon import event_loop
from daemon.event_loop import LOOPS

TABLE_ID_HELP = "the table id (MQTT topics jantaku/v1/<id>/...): 1..32 of a-z 0-9 _ -"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="jantaku demo", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ruleset", default="mleague", help="ruleset name (jantaku rulesets)")
    p.add_argument("--seed", type=int, default=1, help="seed of the first game (then +1 a game)")
    p.add_argument("--hands", type=int, default=None, help="stop after N hands")
    p.add_argument("--speed", type=float, default=2.0,
                   help="1 = human pace; large values play as fast as the stack allows")
    p.add_argument("--headless", action="store_true", help="no terminal view, JSON lines only")
    p.add_argument("--loop", choices=LOOPS, default=LOOPS[0],
                   help="the event loop (default uvloop; daemon/event_loop.py)")
    p.add_argument("--table-id", default="demo", help=TABLE_ID_HELP)
    p.add_argument("--mqtt-host", help="use this broker instead of a private mosquitto")
    p.add_argument("--mqtt-port", type=int, default=1883)
    p.add_argument("--http-port", type=int, default=8080, help="overlay port (0 = a free port)")
    return p


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.hands is not None and args.hands < 1:
        print("jantaku demo: --hands must be at least 1", file=sys.stderr)
        return 2
    if args.speed <= 0:
        print("jantaku demo: --speed must be positive", file=sys.stderr)
        return 2
    from daemon.config import TABLE_ID

    if not TABLE_ID.fullmatch(args.table_id):
        print(f"jantaku demo: --table-id {args.table_id!r}: {TABLE_ID_HELP}", file=sys.stderr)
        return 2
    from rules.ruleset import RulesetError, load_ruleset

    try:
        load_ruleset(args.ruleset)
    except (RulesetError, OSError) as exc:
        print(f"jantaku demo: --ruleset: {exc}", file=sys.stderr)
        return 2
    try:
        return event_loop.run(_demo(args), args.loop)
    except KeyboardInterrupt:  # a second Ctrl-C during shutdown
        return 130
    except _PortBusy as exc:
        print(f"jantaku demo: --http-port {exc}: in use (--http-port 0 picks a free one)",
              file=sys.stderr)
        return 2


class _PortBusy(Exception):
    pass


class _Out:
    """Progress on stdout: JSON lines (headless), plain lines (stdout is no terminal: a pipe, a
    file, CI), or nothing but the live view (a terminal)."""

    def __init__(self, headless: bool, terminal: bool) -> None:
        self.headless = headless
        self.lines = not headless and not terminal
        self.live = not headless and terminal

    def emit(self, event: str, **fields: Any) -> None:
        if self.headless:
            print(json.dumps({"event": event, **fields}, ensure_ascii=False), flush=True)

    def say(self, line: str) -> None:
        if not self.headless:
            print(line, flush=True)


async def _demo(args: argparse.Namespace) -> int:
    from daemon import clocks as dc
    from daemon import jsonlog
    from daemon.config import MqttConfig
    from daemon.demo_view import DemoView, hand_line
    from daemon.web.hub import ViewHub
    from daemon.web.scoreboard import SCHEMA as SCOREBOARD
    from daemon.web.scoreboard import follow
    from daemon.web.server import serve
    from daemon.web.view import overlay_view
    from hil.broker import PrivateBroker, mosquitto_binary
    from hil.kit import free_port

    out = _Out(args.headless, sys.stdout.isatty())
    work = Path(tempfile.mkdtemp(prefix="jantaku-demo-"))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    if args.headless:
        jsonlog.setup("info", stream=sys.stderr)
    else:  # the live view owns the terminal: logs go to a file
        jsonlog.setup("info", file=str(work / "daemon.log"))
    broker: PrivateBroker | None = None
    status = 0
    try:
        if args.mqtt_host:
            mqtt = (args.mqtt_host, args.mqtt_port)
            broker_note = f"{args.mqtt_host}:{args.mqtt_port}"
        elif mosquitto_binary() is not None:
            broker = PrivateBroker(work / "broker").start()
            mqtt = ("127.0.0.1", broker.port)
            broker_note = f"private mosquitto 127.0.0.1:{broker.port}"
        else:
            mqtt = ("127.0.0.1", free_port())  # nothing listens: the daemon queues its events
            broker_note = "none (no mosquitto here): the daemon plays on and queues every event"
        hub = ViewHub()
        tables = ViewHub({"schema": SCOREBOARD, "tables": []})
        try:
            server = serve(hub, "127.0.0.1", args.http_port, tables=tables)
            port = await server.__aenter__()
        except OSError:
            raise _PortBusy(str(args.http_port)) from None
        try:
            url = f"http://127.0.0.1:{port}/overlay/"
            view = DemoView(args.table_id, url, broker_note)
            session_ref: dict[str, Any] = {}
            dirty = asyncio.Event()

            def on_events(board: dict[str, Any], events: Any) -> None:
                view.pending.extend(events)
                first = view.hands + 1
                for n, d in enumerate(view.count(events), first):
                    out.emit("hand_ended", hand=d.get("hand"), scores=d.get("scores"),
                             outcome=(d.get("outcome") or {}).get("kind"))
                    if out.lines:
                        out.say(hand_line(n, d))
                dirty.set()

            async def publisher() -> None:
                while True:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(dirty.wait(), 0.25)
                    dirty.clear()
                    session = session_ref.get("session")
                    if session is None or session.daemon is None:
                        continue
                    service = session.daemon.service
                    clocks = dc.view_json(service.core.state.clocks, time.monotonic_ns())
                    v = overlay_view(service.core.view(), table=args.table_id,
                                     clocks=clocks, seq=service.core.state.event_seq)
                    pending, view.pending = view.pending, []
                    view.update(v, pending)
                    await hub.publish(v)
                    if board_task is None:  # no broker to follow: the board from the daemon
                        await tables.publish(_own_board(args.table_id, service))

            out.emit("demo_started", overlay=url, broker=broker_note, table=args.table_id,
                     ruleset=args.ruleset, seed=args.seed, hands=args.hands, speed=args.speed)
            out.say(f"jantaku demo: overlay {url}   broker {broker_note}")
            # the board follows the broker as a venue's does (the demo's own table only)
            board_task = None if broker is None and not args.mqtt_host else asyncio.create_task(
                follow(MqttConfig(host=mqtt[0], port=mqtt[1]), tables, (args.table_id,),
                       f"jantaku-demo-{args.table_id}-scoreboard"), name="scoreboard")
            pub = asyncio.create_task(publisher(), name="overlay publisher")
            try:
                status = await _play(args, work, mqtt, on_events, session_ref, stop, out, view)
            finally:
                for task in (pub, board_task):
                    if task is not None:
                        task.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await task
        finally:
            await server.__aexit__(None, None, None)
    finally:
        if broker is not None:
            broker.stop()
        logging.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    return status


def _own_board(table: str, service: Any) -> dict[str, Any]:
    """The multi-table scoreboard of the demo's one table when there is no broker to follow
    (``?layout=tables`` then still shows the table): the board built from what the daemon
    would publish on its retained ``state/scores``."""
    from daemon.topics import ROOT
    from daemon.web.scoreboard import board

    cs = service.core.state
    scores = {"game": cs.game or None, "hand": cs.hand, **service.retained.scoreboard()}
    return board({f"{ROOT}/{table}/state/scores": scores,
                  f"{ROOT}/{table}/status": {"state": "online"}}, (table,))


async def _play(args: argparse.Namespace, work: Path, mqtt: tuple[str, int], on_events: Any,
                session_ref: dict[str, Any], stop: asyncio.Event, out: _Out, view: Any) -> int:
    from daemon.demo_view import scores_label
    from hil.runner.session import HilSession

    live: Any = contextlib.nullcontext()
    if out.live:
        from rich.live import Live

        live = Live(view, refresh_per_second=8, screen=False, transient=False)
    results = []
    hands_left = args.hands
    async with HilSession(args.ruleset, workdir=work / "table", table_id=args.table_id,
                          mqtt=mqtt, on_events=on_events) as session:
        session_ref["session"] = session
        with live:
            game = 0
            while not stop.is_set():
                play = asyncio.create_task(session.play(args.seed + game, hands_left,
                                                        speed=args.speed))
                halt = asyncio.create_task(stop.wait())
                done, _ = await asyncio.wait([play, halt], return_when=asyncio.FIRST_COMPLETED)
                halt.cancel()
                if play not in done:
                    play.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await play
                    break
                res = play.result()
                results.append(res)
                out.emit("game_done", game=game + 1, seed=res.seed, hands=res.hands,
                         seconds=round(res.seconds, 2), equal=res.equal,
                         violations=[v.get("code") for v in res.violations],
                         scores=res.final_scores)
                if hands_left is not None:
                    hands_left -= res.hands
                    if hands_left <= 0:
                        break
                game += 1
        await asyncio.sleep(0.3)  # the last view reaches the overlay
    hands = view.hands  # the footer's count: every hand that ended, complete game or not
    ok = all(r.equal and not r.violations for r in results)
    summary = {"games": len(results), "hands": hands, "equal": ok,
               "scores": results[-1].final_scores if results else None,
               "seconds": round(sum(r.seconds for r in results), 2),
               "interrupted": stop.is_set()}
    out.emit("summary", **summary)
    how = "stopped by Ctrl-C; " if stop.is_set() else ""
    # a game cut short by --hands (or Ctrl-C) is played, not complete: no game_ended for it
    complete = sum(1 for r in results
                   if any(e.get("type") == "game_ended" for e in r.daemon_events))
    short = len(results) - complete
    games = f"{complete} complete game(s)" + (f", {short} cut short" if short else "")
    out.say(f"jantaku demo: {how}{hands} hands played, {games}; daemon =="
            f" simulator: {'yes' if ok else 'NO'}; scores {scores_label(summary['scores'])}")
    if stop.is_set():
        return 0
    return 0 if ok else 1
