"""The real ``jantaku run`` with a table controller on a pty (tests/daemon/link_peer.py, written
from docs/protocol/table-link.md): a seat's clock key (``seat_button`` 0x16, key 0, §6.2) is
logged as exactly the record a GPIO clock button's press makes -- the pure fold's
``SeatPress`` translation -- and the other keys mean their label (no hand yet: refused, never a
clock press).

GPIO pins cannot be pressed from outside another process (gpiozero's mock pins live inside it),
so the GPIO side of the comparison is the fold itself here, and the service with gpiozero's
MockFactory in tests/daemon/test_daemon_devices.py.
"""

from __future__ import annotations

from pathlib import Path

import daemon_kit
import link_peer
import outside

from daemon.eventlog import EventLog
from daemon.tracking.held import Held
from daemon.tracking.track import track
from drivers.presses import SeatPress
from rules.seats import SEATS

SEAT_BUTTON = 0x16  # docs/protocol/table-link.md §6.2: 0:1 seat, 1:1 button
CLOCK, TSUMO = 0, 2


def _key(seat: int, button: int) -> link_peer.Event:
    return link_peer.Event(SEAT_BUTTON, bytes((seat, button)))


async def test_the_link_clock_key_is_the_gpio_clock_press_in_the_real_daemon(
    tmp_path: Path, broker: daemon_kit.Broker
) -> None:
    peer, tty = link_peer.LinkPeer.on_pty()
    cfg, db = tmp_path / "table.toml", tmp_path / "table.sqlite"
    cfg.write_text(outside.serial_config(table=daemon_kit.unique_table("key"), db=db,
                                         port=broker.port, tty=tty))
    daemon = outside.Daemon(cfg, tmp_path / "daemon.log")
    events = [_key(int(s), CLOCK) for s in SEATS] + [_key(1, TSUMO)]
    try:
        daemon.start()
        await peer.wait(lambda: peer.connected, 60)
        peer.send(events)
        await peer.wait(lambda: len(peer.acked) == len(events), 60)
        assert daemon.terminate() == 0
    finally:
        if daemon.alive:
            daemon.kill9()
        await peer.close()
    log = EventLog(db, "", readonly=True)
    try:
        records = [(r.kind, r.source, r.body) for r in log.records()
                   if r.source != "daemon"]
    finally:
        log.close()
    gpio = [track(Held(), None, SeatPress(0, s)).entries[0] for s in SEATS]
    assert records[:4] == [(e.kind, e.source, e.as_json()) for e in gpio]
    assert records[:4] == [("timer", f"button:{int(s)}", {"type": "button", "seat": int(s)})
                           for s in SEATS]
    kind, source, body = records[4]
    assert (kind, source, body["type"], body["reason"]) == (
        "marker", "tracker", "tile_rejected", "no_hand")
    assert len(records) == 5
