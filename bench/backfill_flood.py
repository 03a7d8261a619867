"""A backfill-request flood against the real ``jantaku run`` on the shipped broker files.

    python bench/backfill_flood.py [--rate 10000] [--seconds 20] [--flooders 4]
                                   [--connection own|shared] [--qos 0|1] [--json]

The venue and the daemon of bench/command_flood.py (Mosquitto on ``systemd/mosquitto`` as
shipped; ``--connection own``: the table reads commands and backfill requests on its command
account ``cmd.t01``, ``shared``: both on its main connection). ``--flooders`` processes
(bench/command_flooder.py ``--kind backfill``) send backfill requests in their own names at
``--rate`` a second in all for ``--seconds``: well-formed ones, garbage, too large. Meanwhile the
real ``referee.alice`` asks for a backfill and sends a valid signed ``set_scores``, each every
second, and times the answers. Reported: the rate achieved, what the daemon read
(``health.backfill.received``), each answer's time, the daemon's RSS and CPU, Mosquitto's
"Outgoing messages are being dropped" lines, the daemon's log lines and ``health.backfill``.

tests/daemon/test_backfill_flood.py runs this with the bound (4 s of flood in CI, 20 s with
``JANTAKU_SLOW=1``); docs/performance.md "Backfill requests under a flood" has the figures.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import command_flood as cf

from hil.kit import until


@dataclass
class Result:
    rate: float
    seconds: float
    sent: int = 0
    achieved: float = 0.0
    read: int = 0  # health.backfill.received during the run
    asked: int = 0  # backfills the legitimate requester asked for during the run
    backfills: list[float] = field(default_factory=list)  # seconds to the final chunk
    commands: list[tuple[float, str]] = field(default_factory=list)  # (seconds, status)
    unanswered: int = 0  # backfills and commands without an answer within 10 s
    rss_idle: float = 0.0
    rss_max: float = 0.0
    cpu: float = 0.0
    drops: list[str] = field(default_factory=list)
    backfill: dict[str, Any] = field(default_factory=dict)
    log_lines: int = 0

    def summary(self) -> dict[str, Any]:
        return {
            "target_rate": self.rate, "seconds": self.seconds, "sent": self.sent,
            "achieved_rate": round(self.achieved), "daemon_read": self.read,
            "backfill_s": [round(s, 3) for s in self.backfills],
            "command_s": [round(s, 3) for s, _ in self.commands],
            "command_status": sorted({st for _, st in self.commands}),
            "unanswered": self.unanswered,
            "rss_idle_mb": round(self.rss_idle, 1), "rss_max_mb": round(self.rss_max, 1),
            "daemon_cpu_s": round(self.cpu, 2),
            "cpu_us_per_message": round(1e6 * self.cpu / max(1, self.read, self.sent), 1),
            "broker_drop_lines": len(self.drops), "daemon_log_lines": self.log_lines,
            "backfill": self.backfill,
        }


async def _ask(ref: cf.Referee, rid: str) -> float:
    topic = f"jantaku/v1/{cf.TABLE}/backfill/request/{cf.REFEREE}"
    body = {"schema": "jantaku/backfill-request/1", "id": rid, "from_seq": 1}
    sent = time.monotonic()
    await ref.client.publish(topic, json.dumps(body).encode(), qos=1)
    return sent


def _final(ref: cf.Referee, rid: str) -> bool:
    got = ref.replies.get(rid)
    return got is not None and got[1].get("final") is True


async def run(v: cf.Venue, pid: int, rate: float, seconds: float, n: int,
              qos: int = 0) -> Result:
    res = Result(rate, seconds)
    log = v.work / "daemon.log"
    async with cf.referee(v) as ref, contextlib.AsyncExitStack() as stack:
        await ref.client.subscribe(f"jantaku/v1/{cf.TABLE}/backfill/reply/{cf.REFEREE}", qos=1)
        await until(lambda: "backfill" in ref.health, 30)
        start = await ref.command("new_game", {
            "ruleset": "mleague", "first_dealer": 0, "names": ["A", "B", "C", "D"]}, "start")
        del start
        await until(lambda: "start" in ref.replies, 10)
        await _ask(ref, "b0")
        await until(lambda: _final(ref, "b0"), 10)  # the table answers backfills before
        samples = []
        for _ in range(10):
            samples.append(cf.rss_mb(pid))
            await asyncio.sleep(0.1)
        res.rss_idle = max(samples)
        read_before = ref.health["backfill"]["received"]
        log_before = log.stat().st_size if log.exists() else 0
        cpu0 = cf.cpu_s(pid)
        asked: dict[str, float] = {}
        commands: dict[str, float] = {}
        procs = cf.flooders(stack, v, rate, seconds, n, kind="backfill", qos=qos)
        t0 = time.monotonic()
        k = 0
        while any(p.poll() is None for p in procs) or time.monotonic() < t0 + seconds + 2:
            now = time.monotonic()
            if now - t0 >= 0.5 + k and now < t0 + seconds:
                k += 1
                asked[f"b{k}"] = await _ask(ref, f"b{k}")
                args = {"scores": [25000 + 100 * k, 25000 - 100 * k, 25000, 25000],
                        "reason": f"backfill flood check {k}"}
                commands[f"v{k}"] = await ref.command("set_scores", args, f"v{k}")
            res.rss_max = max(res.rss_max, cf.rss_mb(pid))
            await asyncio.sleep(0.05)
        res.cpu = cf.cpu_s(pid) - cpu0
        res.asked = len(asked)
        for p in procs:
            out = json.loads(p.communicate()[0])
            res.sent += out["sent"]
            res.achieved += out["sent"] / out["seconds"]
        with contextlib.suppress(TimeoutError):
            await until(lambda: all(_final(ref, b) for b in asked)
                        and all(c in ref.replies for c in commands), 10)
        done = time.monotonic()
        await until(lambda: ref.health_at > done + 0.1, 10)  # a health from after the flood
        res.backfill = ref.health["backfill"]
        res.read = res.backfill["received"] - read_before
        with open(log, "rb") as f:
            f.seek(log_before)
            res.log_lines = f.read().count(b"\n")
        for rid, at in asked.items():
            if _final(ref, rid):
                res.backfills.append(ref.replies[rid][0] - at)
            else:
                res.unanswered += 1
        for cid, at in commands.items():
            got = ref.replies.get(cid)
            if got is None:
                res.unanswered += 1
            else:
                res.commands.append((got[0] - at, str(got[1].get("status"))))
    res.drops = v.drops()
    return res


def main() -> int:
    ap = cf.flood_parser(__doc__)
    ap.add_argument("--qos", type=int, choices=(0, 1), default=0, help="the flooders' QoS")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="jantaku-backfill-flood-") as tmp:
        work = Path(tmp)
        with cf.venue(work, a.flooders) as v, \
                cf.daemon(work, cf.table_config(work, v, connection=a.connection)) as proc:
            res = asyncio.run(run(v, proc.pid, a.rate, a.seconds, a.flooders, a.qos))
            out = {"connection": a.connection, "qos": a.qos, **res.summary()}
    cf.print_summary(out, a.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
