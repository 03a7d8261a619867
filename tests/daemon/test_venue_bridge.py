"""A venue's broker bridged to a central broker, and a venue broker restart, from the outside.

Both run ``bench/venue.py`` (issue 20 items 3 and 4): real ``jantaku run`` processes on a venue
Mosquitto configured with the shipped ``systemd/mosquitto/jantaku-bridge.conf`` (only its address
and TLS/account lines replaced for loopback), a central Mosquitto, a TCP proxy between them that
cuts the bridge, and a persistent subscriber at the centre. Every event every table numbered must
reach the centre exactly once after dedupe by ``seq``, in each table's order, and every outbox
must be empty at the end.

The bridge outage: 6 s at 12 inputs a second per table in CI (the cut holds back hundreds of
events and outlasts the bridge's first restart attempts); 30 s at 4 a second with
``JANTAKU_SLOW=1`` (its attempts reach their 10 s cap, ``restart_timeout 1 10``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hil.kit import SLOW

REPO = Path(__file__).resolve().parents[2]
VENUE = REPO / "bench" / "venue.py"

pytestmark = pytest.mark.skipif(
    shutil.which("mosquitto") is None and not Path("/usr/sbin/mosquitto").exists(),
    reason="no mosquitto binary",
)


def venue(*args: str, timeout: float = 400) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, str(VENUE), "--json", *args],
        capture_output=True, text=True, timeout=timeout, check=False,
    )
    assert out.stdout.strip(), out.stderr[-3000:]
    run: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])["runs"][0]
    return run


#: (outage s, inputs/s per table, the cut's start s into the play): the hand at that rate outlasts
#: the cut, so the tables play on through all of it
OUTAGE, RATE, FAULT_AT = (30, 4, 4) if SLOW else (6, 12, 2)


def test_ten_tables_through_a_bridge_outage_lose_nothing_and_keep_order() -> None:
    run = venue("--tables", "10", "--pace", "rate", "--rate", str(RATE), "--fault",
                "bridge-outage", "--fault-at", str(FAULT_AT), "--outage", str(OUTAGE))
    assert run["fault"] == "bridge-outage" and run["outage_s"] == OUTAGE
    # the cut really held events back (the tables played on through it) ...
    assert run["received_during_outage"] == 0
    assert run["held_during_outage"] > 100
    # ... and all of them came through afterwards: none lost, none out of order, outboxes empty
    assert run["events"] > 0 and run["received"] == run["events"]
    assert run["lost"] == 0
    assert run["out_of_order_tables"] == 0, run["order_breaks"]
    assert run["outbox_left"] == 0
    assert run["verified"] is True


def test_a_venue_broker_restart_drains_every_outbox_and_restores_retained_state() -> None:
    run = venue("--tables", "4", "--pace", "rate", "--rate", "10", "--fault", "broker-restart",
                "--fault-at", "3", "--outage", "3")
    assert run["fault"] == "broker-restart"
    assert run["retained_restored"] == 4
    assert run["drained_s"] >= 0
    assert run["lost"] == 0 and run["out_of_order_tables"] == 0
    assert run["outbox_left"] == 0 and run["verified"] is True
