"""``kill -9`` of the real ``jantaku run`` at random moments while a table controller (written from
docs/protocol/table-link.md alone: tests/daemon/link_peer.py) sends bursts of events at full link
speed over a pty; the controller outlives every kill, as a table's board does.

After every kill, from the outside: the table events in the log are exactly a prefix of what the
controller sent, in order, none twice, and include every event the controller saw acknowledged
(ack after commit, docs/daemon.md "The input path"); the restarted daemon's first ``hello`` names
the controller's boot id and the seq of the last logged event (§7.7). At the end every event is
logged once, acknowledged once, and every event the log numbered reached the broker (dedupe by
``seq``). CI: 200 kills; ``JANTAKU_SLOW=1``: 1,000.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
from pathlib import Path

import daemon_kit
import link_peer
import outside
import pytest

from daemon.eventlog import EventLog
from daemon.topics import Topics

SLOW = os.environ.get("JANTAKU_SLOW") == "1"
KILLS = 1000 if SLOW else int(os.environ.get("JANTAKU_KILLS", "200"))


def _burst(rng: random.Random, first_code: int, n: int) -> list[link_peer.Event]:
    """Faults with consecutive codes (each one identifiable in the log) and a start press now and
    then (a rules input: its violation event goes to the broker)."""
    out = []
    for code in range(first_code, first_code + n):
        out.append(link_peer.Event.start_pressed() if rng.random() < 0.2
                   else link_peer.Event.fault(code % 65536))
    return out


@pytest.mark.slow
async def test_acknowledged_table_events_survive_kill9(
    tmp_path: Path, broker: daemon_kit.Broker
) -> None:
    rng = random.Random(14)
    master, slave, tty = link_peer.open_pty()
    peer = link_peer.LinkPeer(master)
    peer.start()
    table = daemon_kit.unique_table("k9")
    db = tmp_path / "table.sqlite"
    cfg = tmp_path / "table.toml"
    cfg.write_text(outside.serial_config(table=table, db=db, port=broker.port, tty=tty))
    daemon = outside.Daemon(cfg, tmp_path / "daemon.log")
    sent: list[link_peer.Event] = []
    code = 1
    kill_points: list[int] = []  # acknowledged events at each kill
    sub_kw = {"identifier": f"sub-{table}", "clean_session": False}
    topics = Topics(table)
    try:
        async with daemon_kit.Collector(broker.port, [topics.events], **sub_kw) as sub:
            for _ in range(KILLS):
                hellos = len(peer.hellos)
                logged_before = outside.table_events(db) if db.exists() else []
                daemon.start()
                if rng.random() < 0.1:  # during start-up and recovery
                    await asyncio.sleep(rng.uniform(0.0, 0.5))
                else:
                    await peer.wait(lambda n=hellos: len(peer.hellos) > n and peer.connected, 60)
                    hello = peer.hellos[hellos]
                    if logged_before:  # the restarted daemon says what it has (§7.1, §7.7)
                        assert hello.rx_boot_id == peer.boot_id
                        assert hello.rx_last == (len(logged_before) - 1) % 256
                    if peer.pending < 30:
                        burst = _burst(rng, code, rng.randint(30, 200))
                        code += len(burst)
                        sent.extend(burst)
                        peer.send(burst)
                    await asyncio.sleep(rng.uniform(0.0, 0.3))
                daemon.kill9()
                acked = len(peer.acked)
                kill_points.append(acked)
                logged = outside.table_events(db) if db.exists() else []
                # exactly once, in order, nothing acknowledged missing
                assert logged == outside.expected(sent[: len(logged)])
                assert peer.acked == sent[:acked]
                assert acked <= len(logged) <= acked + 1, (acked, len(logged))
            # the last run: everything still queued in the controller arrives
            daemon.start()
            await peer.wait(lambda: peer.pending == 0 and peer.connected, 120)
            log = EventLog(db, "", readonly=True)
            try:
                last_event = log.applied()[1]
                hand_starts = [r.seq for r in log.records() if r.body["type"] == "hand_start"]
            finally:
                log.close()
            everything = set(range(1, last_event + 1))
            await sub.wait_for(lambda: {e["seq"] for e in sub.payloads("/events")} >= everything,
                               60)
            assert daemon.terminate() == 0
    finally:
        if daemon.alive:
            daemon.kill9()
        await peer.stop()
        os.close(master)
        os.close(slave)
    assert outside.table_events(db) == outside.expected(sent)
    assert peer.acked == sent and peer.rejected == []
    by_seq = {e["seq"]: e for e in sub.payloads("/events")}
    assert sorted(by_seq) == list(range(1, last_event + 1))
    # every start press was judged by the rules engine and its verdict reached the broker
    judged = {e["input_seq"] for e in by_seq.values() if e["type"] == "violation"}
    assert judged == set(hand_starts)
    mid_burst = sum(1 for a, b in itertools.pairwise(kill_points) if b > a)
    print(f"{KILLS} kills, {len(sent)} events, {mid_burst} kills with events flowing, "
          f"{peer.settled_by_hello} settled by hello, {peer.retransmits} retransmits, "
          f"{last_event} broker events")
