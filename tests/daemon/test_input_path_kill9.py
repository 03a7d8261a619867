"""``kill -9`` of the real ``jantaku run`` at random moments while a table controller (written from
docs/protocol/table-link.md alone: tests/daemon/link_peer.py) sends bursts of events at full link
speed over a pty; the controller outlives every kill, as a table's board does.

After every kill, from the outside: the table events in the log are exactly a prefix of what the
controller sent, in order, none twice, and include every event the controller saw acknowledged
(ack after commit, docs/daemon.md "The input path"); the restarted daemon's first ``hello`` names
the controller's boot id and the seq of the last logged event (§7.7). At the end every event is
logged once, acknowledged once, and every event the log numbered reached the broker (dedupe by
``seq``).

The same kills hit a referee too: a penalty command (new id each round) is in flight at every
kill, and a command left without a reply is sent again (same id, same signature) after the
restart: each is applied exactly once (the scores show each penalty once), and every answer for an
id names the same input (``"repeated": true`` after the first).

CI: 40 kills; ``JANTAKU_SLOW=1``: 1,000 (``JANTAKU_KILLS=N``: N). Which kills land during start-up
and recovery, and after which a client resends a command it lost the reply of, is drawn up front
(one in ten each, at least two of each): the bounded form always has both. When within a run each
kill lands is left to chance and the daemon's timing.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
from pathlib import Path

import daemon_kit
import link_peer
import outside
import pytest

from daemon import auth
from daemon.cli.referee import build_command, send
from daemon.eventlog import EventLog
from daemon.topics import Topics
from hil.kit import bounded

ALICE = auth.derive_key("alice", daemon_kit.REFEREE_PASSWORD, 1000)

KILLS = int(os.environ.get("JANTAKU_KILLS", bounded(40, 1000)))


def _plan(kills: int) -> tuple[list[bool], list[bool]]:
    """For each kill: whether it lands during start-up and recovery, and whether a client first
    resends a command it lost the reply of (one kill in ten each; a draw with fewer than two of
    either is redrawn, so that a short run has both)."""
    for seed in itertools.count():
        plan = random.Random(seed)
        early = [plan.random() < 0.1 for _ in range(kills)]
        resend = [not e and plan.random() < 0.1 for e in early]
        if min(sum(early), sum(resend)) >= min(2, kills // 10):
            return early, resend
    raise AssertionError("unreachable")


def _burst(rng: random.Random, first_code: int, n: int) -> list[link_peer.Event]:
    """Faults with consecutive codes (each one identifiable in the log) and a start press now and
    then (a rules input: its violation event goes to the broker)."""
    out = []
    for code in range(first_code, first_code + n):
        out.append(link_peer.Event.start_pressed() if rng.random() < 0.2
                   else link_peer.Event.fault((code - 1) % 65535 + 1))
    return out


def _onlines(sub: daemon_kit.Collector) -> int:
    return sum(1 for p in sub.payloads("/status") if p.get("state") == "online")


class Referee:
    """Penalty commands, each retried with its first signature until it is answered."""

    def __init__(self, port: int, table: str, rng: random.Random) -> None:
        self.port, self.table, self.rng = port, table, rng
        self.commands: dict[str, tuple[str, dict[str, object], int, int]] = {}
        self.replies: dict[str, list[dict[str, object]]] = {}
        self.unanswered: list[str] = []
        self.retries = 0

    def new(self, n: int) -> str:
        cid = f"pen{n:05d}"
        seat, points = self.rng.randrange(4), -100 * self.rng.randint(1, 5)
        args = {"seat": seat, "points": points, "reason": cid}
        topic, payload = build_command(self.table, "penalty", "alice", ALICE, args, cid=cid)
        self.commands[cid] = (topic, payload, seat, points)
        self.unanswered.append(cid)
        return cid

    async def send(self, cid: str, timeout: float) -> bool:
        topic, payload, _, _ = self.commands[cid]
        try:
            reply = await send("127.0.0.1", self.port, self.table, topic, payload,
                               timeout=timeout)
        except Exception:  # the daemon is being killed: no reply
            return False
        if reply is None:
            return False
        self.replies.setdefault(cid, []).append(reply)
        if cid in self.unanswered:
            self.unanswered.remove(cid)
        return True

    async def retry_unanswered(self) -> None:
        for cid in list(self.unanswered):
            self.retries += 1
            await self.send(cid, 3.0)


@pytest.mark.slow
async def test_acknowledged_table_events_survive_kill9(
    tmp_path: Path, broker: daemon_kit.Broker
) -> None:
    rng = random.Random(14)
    peer, tty = link_peer.LinkPeer.on_pty()
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
    referee = Referee(broker.port, table, rng)
    early, resend = _plan(KILLS)
    resent = 0  # kills after which a client resent a command it had the answer to
    try:
        async with daemon_kit.Collector(broker.port, [topics.events, topics.status],
                                        **sub_kw) as sub:
            daemon.start()
            game = {"ruleset": "mleague", "first_dealer": 0, "names": ["a", "b", "c", "d"]}
            topic, payload = build_command(table, "new_game", "alice", ALICE, game, cid="g1")
            for _ in range(60):
                if await send("127.0.0.1", broker.port, table, topic, payload, timeout=1.0):
                    break
            daemon.kill9()
            for k in range(KILLS):
                hellos = len(peer.hellos)
                onlines = _onlines(sub)
                logged_before = outside.table_events(db) if db.exists() else []
                daemon.start()
                if early[k]:  # during start-up and recovery
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
                    # the daemon answers commands once it is online on the broker
                    await sub.wait_for(lambda n=onlines: _onlines(sub) > n, 60)
                    await referee.retry_unanswered()
                    if resend[k] and referee.replies:  # a client that lost the reply
                        await referee.send(rng.choice(sorted(referee.replies)), 3.0)
                        resent += 1
                    in_flight = asyncio.create_task(referee.send(referee.new(k), 2.0))
                    await asyncio.sleep(rng.uniform(0.0, 0.3))
                    if not in_flight.done():
                        in_flight.cancel()
                daemon.kill9()
                acked = len(peer.acked)
                kill_points.append(acked)
                logged = outside.table_events(db) if db.exists() else []
                # exactly once, in order, nothing acknowledged missing
                assert logged == outside.expected(sent[: len(logged)])
                assert peer.acked == sent[:acked]
                assert acked <= len(logged) <= acked + 1, (acked, len(logged))
            # the last run: everything still queued in the controller arrives
            onlines = _onlines(sub)
            daemon.start()
            await peer.wait(lambda: peer.pending == 0 and peer.connected, 120)
            await sub.wait_for(lambda: _onlines(sub) > onlines, 60)
            for _ in range(20):
                await referee.retry_unanswered()
                if not referee.unanswered:
                    break
            assert referee.unanswered == []
            log = EventLog(db, "", readonly=True)
            try:
                last_event = log.applied()[1]
                records = list(log.records())
                hand_starts = [r.seq for r in records if r.body["type"] == "hand_start"]
                penalties = [r for r in records if r.body.get("type") == "referee"
                             and r.body.get("action") == "penalty"]
                from daemon.table import TableCore

                core = TableCore(log, daemon_kit.engine(), table, checkpoint_every=0)
                core.recover()
                scores = [s["score"] for s in core.view()["seats"]]
            finally:
                log.close()
            everything = set(range(1, last_event + 1))
            await sub.wait_for(lambda: {e["seq"] for e in sub.payloads("/events")} >= everything,
                               60)
            assert daemon.terminate() == 0
    finally:
        if daemon.alive:
            daemon.kill9()
        await peer.close()
    assert outside.table_events(db) == outside.expected(sent)
    assert peer.acked == sent and peer.rejected == []
    by_seq = {e["seq"]: e for e in sub.payloads("/events")}
    assert sorted(by_seq) == list(range(1, last_event + 1))
    # every start press went through the rules engine and what it said reached the broker
    judged = {e["input_seq"] for e in by_seq.values()}
    assert judged >= set(hand_starts)
    # every referee command applied at most once, and once if it was ever answered "ok"; after
    # its first answer naming an input, every answer names that input with "repeated": true
    # (a command the rules engine refuses is not logged: its answer names no input, issue 15)
    reasons = [r.body["args"]["reason"] for r in penalties]
    assert len(reasons) == len(set(reasons)), "a command applied twice"
    seq_of = {r.body["args"]["reason"]: r.seq for r in penalties}
    refused = 0
    for cid, replies in referee.replies.items():
        named = [i for i, r in enumerate(replies) if "input_seq" in r]
        if cid not in seq_of:
            assert named == [], replies
            refused += 1
            continue
        assert named, replies
        # (a resend signed longer ago than referee.max_skew_seconds is refused as stale: the
        # replay protection that lets the seen ids be pruned)
        assert all((r.get("input_seq") == seq_of[cid] and r.get("repeated") is True)
                   or (r.get("error") or {}).get("code") == "stale"
                   for r in replies[named[0] + 1:]), json.dumps(replies)
        assert replies[named[0]]["input_seq"] == seq_of[cid]
    assert set(seq_of) <= set(referee.replies)
    want = [25000, 25000, 25000, 25000]
    for cid, (_, _, seat, points) in referee.commands.items():
        if cid in seq_of:
            want[seat] += points
    assert scores == want
    mid_burst = sum(1 for a, b in itertools.pairwise(kill_points) if b > a)
    print(f"{KILLS} kills ({sum(early)} during start-up), {len(sent)} events, "
          f"{mid_burst} kills with events flowing, {resent} resends of an answered command, "
          f"{peer.settled_by_hello} settled by hello, {peer.retransmits} retransmits, "
          f"{last_event} broker events; {len(referee.commands)} referee commands, "
          f"{referee.retries} retries, {refused} refused by the rules engine")
