"""The HIL command: ``python -m hil.runner`` (scenarios, or one game compared with the simulator;
docs/hil.md). It sits above both :mod:`hil.runner` and :mod:`hil.scenario`, so neither imports
the other back."""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import tempfile
from pathlib import Path

from hil.broker import PrivateBroker
from hil.runner import __doc__ as RUNNER_DOC
from hil.runner.session import run_game
from hil.scenario import load_scenario, run_scenario


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hil.runner", description=RUNNER_DOC,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", nargs="*", help="scenario TOML files (hil/scenarios/)")
    parser.add_argument("--ruleset", default="mleague")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hands", type=int, default=2)
    parser.add_argument("--speed", type=float, default=0.0, help="0: as fast as the stack goes")
    parser.add_argument("--real-table", metavar="DEV", help="the controller emulator on this "
                        "serial port (loopback harness); the daemon opens --daemon-link")
    parser.add_argument("--daemon-link", metavar="DEV", help="the daemon's end of the loopback "
                        "(e.g. /dev/ttyAMA0)")
    parser.add_argument("--real-buttons", metavar="OUT:IN,...", help="clock buttons on real GPIO: "
                        "four BCM pairs, the rig drives OUT, the daemon reads IN (jumpered)")
    parser.add_argument("--reader-port", action="append", default=[], metavar="NAME=RIG:DAEMON",
                        help="a reader over a real serial loopback, e.g. "
                        "seat0-hand=/dev/ttyUSB1:/dev/ttyUSB2 (repeatable)")
    parser.add_argument("--workdir", type=Path, help="keep the rig and the event log here")
    parser.add_argument("--process", action="store_true", help="run the daemon as `jantaku run "
                        "--config` in its own process (needs --mqtt-host or mosquitto)")
    parser.add_argument("--mqtt-host", help="the broker (default: none in-process; a private "
                        "mosquitto with --process)")
    parser.add_argument("--mqtt-port", type=int, default=1883)
    args = parser.parse_args(argv)
    real_buttons = None
    if args.real_buttons:
        try:
            pairs = [tuple(int(x) for x in p.split(":")) for p in args.real_buttons.split(",")]
        except ValueError:
            pairs = []
        if len(pairs) != 4 or any(len(p) != 2 for p in pairs):
            parser.error("--real-buttons: four OUT:IN pairs of BCM pins, e.g. 22:27,23:24,5:6,"
                         "13:19")
        real_buttons = tuple((p[0], p[1]) for p in pairs)
    reader_ports: dict[str, tuple[str, str]] = {}
    for item in args.reader_port:
        name, _, ends = item.partition("=")
        rig_end, _, daemon_end = ends.partition(":")
        if not (name and rig_end and daemon_end):
            parser.error(f"--reader-port {item!r}: expected NAME=RIG_DEVICE:DAEMON_DEVICE")
        reader_ports[name] = (rig_end, daemon_end)
    if args.real_table and not args.daemon_link:
        parser.error("--real-table needs --daemon-link (the other end of the loopback)")
    failures = 0
    if args.scenario:
        for path in args.scenario:
            sc = load_scenario(Path(path))
            report = asyncio.run(run_scenario(sc, workdir=args.workdir))
            print(json.dumps(report.summary(), ensure_ascii=False))
            failures += 0 if report.ok else 1
        return 1 if failures else 0
    work = args.workdir or Path(tempfile.mkdtemp(prefix="jantaku-hil-"))
    broker = None
    try:
        mqtt = None if not args.mqtt_host else (args.mqtt_host, args.mqtt_port)
        if args.process and mqtt is None:
            broker = PrivateBroker(work / "broker").start()
            mqtt = ("127.0.0.1", broker.port)
        result = asyncio.run(run_game(args.ruleset, args.seed, args.hands, workdir=work / "rig",
                                      speed=args.speed, real_table=args.real_table,
                                      link_path=args.daemon_link, real_buttons=real_buttons,
                                      reader_ports=reader_ports or None, mqtt=mqtt,
                                      process=args.process))
    finally:
        if broker is not None:
            broker.stop()
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(result.summary(), ensure_ascii=False))
    return 0 if result.equal and not result.violations else 1


