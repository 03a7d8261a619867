"""Power cuts, simulated for real (issue 29, item 5): the table's log, its mark and the broker's
persistence file on a FUSE file system that drops every write not yet fsync'ed
(tests/chaos/lazyfs.py).

* The log and the core (as tests/chaos/test_chaos_kill9.py forks them, plus the WAL checkpoints,
  the seal and the mark's fsync) killed with SIGKILL at a random moment and the power cut at
  once; then, from what survived: every input the table acknowledged is in the log exactly once,
  the log's events are those of the uninterrupted game, and the log passes its chain and its mark
  (daemon/log_integrity.py), in full and as the start-up check reads it. 100 cuts in CI, 1,000
  with JANTAKU_SLOW=1.
* The real ``jantaku run`` and the real Mosquitto cut together during link bursts and referee
  commands, both started again from what survived, and ``jantaku follow`` checked: 8 cuts in CI,
  100 with JANTAKU_SLOW=1.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sys
import time
from pathlib import Path

import chaos_kit
import daemon_kit
import lazyfs
import powercut_child
import pytest
import test_daemon_kill9 as harness

from daemon.log_integrity import Checked, inspect
from hil.kit import bounded

CUTS = bounded(100, 1000)

pytestmark = pytest.mark.skipif(lazyfs.available() is not None, reason=str(lazyfs.available()))


def _fork(db: Path, script_file: Path, seed: int) -> tuple[int, int]:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            sys.stdout = os.fdopen(w, "w", buffering=1)
            powercut_child.main(str(db), str(script_file), seed)
        finally:
            os._exit(0)
    os.close(w)
    return pid, r


def _acked(text: str) -> tuple[int, bool]:
    acked, done = 0, False
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in ("A", "R") and parts[1].isdigit():
            acked = max(acked, int(parts[1]))
        done = done or parts == ["DONE"]
    return acked, done


def _cut_once(rng: random.Random, fs: lazyfs.Mount, db: Path, script_file: Path,
              acked: int) -> tuple[int, int]:
    """One run of the writer, killed and the power cut: (acknowledged, pages dropped)."""
    pid, fd = _fork(db, script_file, rng.randrange(10**6))
    reader = os.fdopen(fd, "r")
    if rng.random() < 0.1:
        time.sleep(rng.uniform(0.0, 0.05))  # during recovery
    else:
        target = acked + rng.randint(1, 8)
        while line := reader.readline():
            a, done = _acked(line)
            acked = max(acked, a)
            if acked >= target or done:
                break
        time.sleep(rng.uniform(0.0, 0.003))  # inside the next commit
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    acked = max(acked, _acked(reader.read())[0])
    reader.close()
    pages, _ = fs.cut()
    return acked, pages


@pytest.mark.slow
def test_power_cuts_lose_nothing_acknowledged(tmp_path: Path) -> None:
    rng = random.Random(int(os.environ.get("JANTAKU_SEED", "29")))
    backing = Path("/dev/shm") if os.access("/dev/shm", os.W_OK) else tmp_path
    backing = Path(os.environ.get("JANTAKU_POWERCUT_DIR", str(backing))) / f"pc-{os.getpid()}"
    cuts = games = dropped = sealed = 0
    start = time.monotonic()
    with lazyfs.Mount(backing, tmp_path / "mnt") as fs:
        while cuts < CUTS:
            games += 1
            work = tmp_path / f"game{games}"
            work.mkdir()
            body = daemon_kit.game_inputs(2, seed=rng.randrange(10_000))
            script_file = work / "script.json"
            script_file.write_text(json.dumps(body))
            snaps, counts, events = harness.reference(work, body)
            db = Path(fs.mount) / f"game{games}.sqlite"
            acked = 0
            while cuts < CUTS:
                acked, pages = _cut_once(rng, fs, db, script_file, acked)
                cuts += 1
                dropped += pages
                found = inspect(db)  # the chain and the mark, before anything opens the log
                assert isinstance(found, Checked), found
                assert found.last.seq >= acked
                bounded = inspect(db, full=False)  # the start-up check: after the seal only
                assert isinstance(bounded, Checked) and bounded.last == found.last, bounded
                sealed += not bounded.full
                if harness.check(db, acked, snaps, counts, events) == len(snaps) - 1:
                    break
    took = time.monotonic() - start
    print(f"{cuts} power cuts over {games} games, {dropped} unsynced pages dropped, "
          f"{sealed} logs sealed, {took:.0f} s")
    assert dropped > 0  # the cuts did drop writes: the test can see a missing fsync
    assert sealed > cuts // 2  # the seal survived the cuts (the start-up check read little)


DAEMON_CUTS = bounded(8, 100)


def _onlines(sub: daemon_kit.Collector) -> int:
    """The daemon's connections the broker saw: distinct ``online`` statuses (a broker restored
    from its persistence file hands the last one out again, retained)."""
    return len({p.get("since") for p in sub.payloads("/status") if p.get("state") == "online"})


@pytest.mark.slow
async def test_power_cuts_of_the_table_and_its_broker_during_link_bursts_and_commands(
        tmp_path: Path) -> None:
    """The real ``jantaku run`` and the real Mosquitto (the shipped persistence settings), the
    event log, its mark and the broker's persistence file on lazyfs (the broker's directory with
    synchronous entries, as docs/install.md sets it), a table controller on a pty sending bursts
    (tests/daemon/link_peer.py) and a referee's penalty in flight: SIGKILL of both and the power
    cut at random moments, then both started again from what survived. Every event the
    controller saw ACKed and every command answered is in the log exactly once, the log passes
    its chain and mark (the full check and the start-up check) after every cut, and ``jantaku
    follow`` -- one running on another machine across every cut, one started afresh at the end --
    prints every logged event exactly once, as the log folds it."""
    import link_peer
    import outside
    import test_input_path_kill9 as k9
    from test_chaos_follow import Follow

    from daemon.cli.referee import build_command, send
    from daemon.disclosure import public_event
    from daemon.eventlog import EventLog
    from daemon.topics import Topics

    rng = random.Random(int(os.environ.get("JANTAKU_SEED", "30")))
    peer, tty = link_peer.LinkPeer.on_pty()
    table = daemon_kit.unique_table("pc")
    backing = Path("/dev/shm") if os.access("/dev/shm", os.W_OK) else tmp_path
    fs = lazyfs.Mount(backing / f"pcd-{os.getpid()}", tmp_path / "mnt")
    broker = daemon_kit.Broker(tmp_path / "broker")
    sent: list[link_peer.Event] = []
    code, saves = 1, 0
    referee = k9.Referee(broker.port, table, rng)
    followers: list[Follow] = []
    try:
        with fs:
            store = Path(fs.mount) / "mosquitto"
            store.mkdir()
            fs.dirsync(store)
            broker.conf = (f"listener {broker.port} 127.0.0.1\nallow_anonymous true\n"
                           + chaos_kit.shipped_broker_settings(store))
            broker.start()
            db = Path(fs.mount) / "table.sqlite"
            cfg = tmp_path / "table.toml"
            cfg.write_text(outside.serial_config(table=table, db=db, port=broker.port, tty=tty))
            daemon = outside.Daemon(cfg, tmp_path / "daemon.log")
            async with daemon_kit.Collector(broker.port, [Topics(table).status],
                                            identifier=f"sub-{table}") as sub:
                daemon.start()
                followers.append(Follow(broker.port, table))  # elsewhere: never cut
                game = {"ruleset": "mleague", "first_dealer": 0, "names": ["a", "b", "c", "d"]}
                topic, payload = build_command(table, "new_game", "alice", k9.ALICE, game,
                                               cid="g1")
                for _ in range(60):
                    if await send("127.0.0.1", broker.port, table, topic, payload, timeout=1.0):
                        break
                for k in range(DAEMON_CUTS):
                    if k:
                        hellos, onlines = len(peer.hellos), _onlines(sub)
                        broker.start()  # from what survived on the mount
                        daemon.start()
                        await peer.wait(lambda n=hellos: len(peer.hellos) > n and peer.connected,
                                        60)
                        await sub.wait_for(lambda n=onlines: _onlines(sub) > n, 60)
                        await referee.retry_unanswered()
                    burst = k9._burst(rng, code, rng.randint(30, 150))
                    code += len(burst)
                    sent.extend(burst)
                    peer.send(burst)
                    in_flight = asyncio.create_task(referee.send(referee.new(k), 2.0))
                    await asyncio.sleep(rng.uniform(0.05, 0.6))
                    # the power cut: the table's machine and the broker's at once
                    daemon.kill9()
                    assert broker.proc is not None
                    broker.proc.send_signal(signal.SIGKILL)
                    broker.proc.wait()
                    in_flight.cancel()
                    saves += (store / "mosquitto.db").exists()
                    fs.cut()
                    assert daemon.log.exists()
                    for full in (True, False):  # the audit's check and the start-up check
                        found = inspect(db, full=full)
                        assert isinstance(found, Checked), found
                    logged = outside.table_events(db)
                    acked = len(peer.acked)
                    assert logged == outside.expected(sent[: len(logged)])
                    assert acked <= len(logged), (acked, len(logged))
                # the last run: everything the controller still holds arrives
                onlines = _onlines(sub)
                broker.start()
                daemon.start()
                await peer.wait(lambda: peer.pending == 0 and peer.connected, 120)
                await sub.wait_for(lambda: _onlines(sub) > onlines, 60)
                for _ in range(20):
                    await referee.retry_unanswered()
                    if not referee.unanswered:
                        break
                last = _logged_events(db)
                followers.append(Follow(broker.port, table, "--until-seq", str(last)))
                assert followers[1].proc.wait(120) == 0, followers[1].err
                await daemon_kit.until(lambda: followers[0].seqs()[-1:] == [last], 120)
                assert daemon.terminate() == 0
                assert not [ln for ln in daemon.log.read_text().splitlines()
                            if "broker_ahead" in ln], "the broker was ahead of the log"
            assert outside.table_events(db) == outside.expected(sent)
            log = EventLog(db, "", readonly=True)
            try:
                penalties = [r.body["args"]["reason"] for r in log.records()
                             if r.body.get("type") == "referee"
                             and r.body.get("action") == "penalty"]
            finally:
                log.close()
            assert len(penalties) == len(set(penalties)), "a command applied twice"
            answered = {cid for cid, replies in referee.replies.items()
                        if any("input_seq" in r for r in replies)}
            assert answered <= set(penalties), "an answered command is not in the log"
            assert isinstance(inspect(db), Checked)
            ref = chaos_kit.reference(db, table, tmp_path)
    finally:
        for f in followers:
            f.stop()
        if "daemon" in locals() and daemon.alive:
            daemon.kill9()
        await peer.close()
        broker.stop()
    expect = [public_event(e) for e in ref.envelopes[:last]]
    for f in followers:  # every logged event exactly once, in seq order, as the log folds it
        assert f.seqs() == list(range(1, last + 1))
        assert [json.loads(x) for x in f.lines] == expect
    print(f"{DAEMON_CUTS} power cuts of the table and its broker, {len(sent)} link events, "
          f"{len(referee.commands)} referee commands, {last} events followed; the broker's "
          f"persistence file was there at {saves} of the cuts")


def _logged_events(db: Path) -> int:
    from daemon.eventlog import EventLog

    log = EventLog(db, "", readonly=True)
    try:
        return log.applied()[1]
    finally:
        log.close()
