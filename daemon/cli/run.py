"""``jantaku run --config FILE``: the table daemon (systemd runs this, systemd/jantaku.service).

The config is validated completely first (keys, types, devices, and for a ``[tiles.camera]`` the
``camera`` extra; the event log's and the log file's directories can be written and the web port
is free: daemon/preflight.py): any problem is one line on stderr and exit status 2, with nothing
started. Then the event log is checked against its chain and its mark (daemon/log_integrity.py):
a missing, damaged or rolled-back log is refused the same way. ``--check`` stops there (exit 0
when valid).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import socket
import sys
from typing import TYPE_CHECKING

from daemon import event_loop
from daemon.errors import DaemonError
from daemon.event_loop import LOOPS

if TYPE_CHECKING:
    from daemon.log_integrity import Checked


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="jantaku run", description=__doc__)
    parser.add_argument("--config", required=True, help="the table's TOML config")
    parser.add_argument("--check", action="store_true", help="validate the config and exit")
    parser.add_argument("--loop", choices=LOOPS, default=LOOPS[0],
                        help="the event loop (default uvloop; daemon/event_loop.py)")
    args = parser.parse_args(argv)

    from daemon.config import check_devices, load_config

    config = load_config(args.config)  # a ConfigError: one line, exit 2 (daemon.cli)
    check_devices(config)
    camera = None if config.tiles is None else config.tiles.camera
    if camera is not None:
        from drivers.tiles import camera_stack

        try:
            camera_stack.require(camera_stack.camera_modules(camera), "tiles.camera")
        except camera_stack.CameraStackMissing as exc:
            print(f"jantaku run: {config.source}: {exc}", file=sys.stderr)
            return 2
    from daemon import preflight

    preflight.check(config)  # writable log directories (daemon/preflight.py)

    from daemon.log_integrity import check_at_start

    # a missing, damaged or rolled-back log: one line, exit 2, nothing started (LogDamaged)
    checked = check_at_start(config.eventlog.path, f"--config {args.config}",
                             whole_below=config.eventlog.full_check_below)
    if args.check:
        preflight.check_web(config)
        print(f"jantaku run: {args.config}: ok (table {config.table.id})")
        return 0
    # bound before READY, kept by the web task across its restarts
    return event_loop.run(_run(config, preflight.bind_web(config), checked), args.loop)


async def _run(config: object, web_sockets: list[socket.socket], checked: Checked) -> int:
    from daemon import jsonlog
    from daemon.config import Config
    from daemon.devices import build_drivers
    from daemon.engine import load_engine
    from daemon.service import Service

    assert isinstance(config, Config)
    secrets = [u.key.reveal() for u in config.referee.users]
    if config.mqtt.password is not None:
        secrets.append(config.mqtt.password.reveal())
    jsonlog.redact(*secrets)
    try:
        engine = load_engine()
    except ModuleNotFoundError as exc:
        print(f"jantaku run: the rules engine is not installed: {exc}", file=sys.stderr)
        return 2
    service = Service(config, engine, drivers=build_drivers(config), web_sockets=web_sockets)
    jsonlog.setup(config.logging.level, file=config.logging.file, context=service.context)
    service.install_signals()
    logging.getLogger("jantaku.eventlog").info(
        "event log checked at start: %d inputs, %d read against their chain%s, %.3f s",
        checked.records, checked.walked, "" if checked.full else " (after the seal)",
        checked.seconds, extra={"fields": {
            "event": "event_log_checked", "inputs": checked.records, "walked": checked.walked,
            "full": checked.full, "seconds": round(checked.seconds, 3)}})
    loop = type(asyncio.get_running_loop()).__module__.partition(".")[0]  # uvloop, asyncio
    logging.getLogger("jantaku.daemon").info(
        "starting table %s (ruleset %s, log %s, broker %s:%d, event loop %s)",
        config.table.id,
        config.table.ruleset,
        config.eventlog.path,
        config.mqtt.host,
        config.mqtt.port,
        loop,
        extra={"fields": {"event": "starting", "event_loop": loop}},
    )
    frozen = asyncio.create_task(_freeze_when_ready(service.ready), name="gc-freeze")
    try:
        return await service.run()
    except DaemonError as exc:  # e.g. a log with a gap: say why, let systemd retry
        logging.getLogger("jantaku.daemon").error("cannot run: %s", exc)
        print(f"jantaku run: {exc}", file=sys.stderr)
        return 2
    finally:
        frozen.cancel()


async def _freeze_when_ready(ready: asyncio.Event) -> None:
    """What start-up made (modules, rulesets, the restored state) lives as long as the process:
    frozen once the daemon is ready, the collector's full passes never walk it again (their
    pause, a tail of the input path, grew with it). Only here, not in :class:`Service`: a test
    process that runs many services would keep every one's cycles for good."""
    await ready.wait()
    gc.collect()
    gc.freeze()
