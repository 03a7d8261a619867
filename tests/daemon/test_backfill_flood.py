"""A flood of backfill requests (anyone may send them) against the real ``jantaku run`` on the
shipped broker files (bench/backfill_flood.py, on bench/command_flood.py's venue and daemon).

10,000 requests a second (four flooding processes, raw sockets, each in its own name: well-formed
requests, garbage, too large; the achieved rate is measured and must be there) for 4 s (20 s with
``JANTAKU_SLOW=1``), the table reading them on its command account (``[mqtt.commands]``): a
backfill asked every second meanwhile is answered (its final chunk within 1 s) and so is a valid
signed command, the daemon's RSS stays within 50 MB of idle, Mosquitto drops nothing bound for
the table, the daemon read every request, and ``health.backfill`` accounts for each: refused by
code, answered within the reply budget, the rest shed; a few log lines a window."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import backfill_flood as bf  # noqa: E402
import command_flood as cf  # noqa: E402

from hil.kit import bounded, until  # noqa: E402

RATE = 10_000
SECONDS = bounded(4, 20)
FLOODERS = 4
RSS_BOUND_MB = 50.0
ANSWER_BOUND_S = 1.0


async def test_a_flood_of_backfill_requests_leaves_the_table_bounded_and_answering(
    tmp_path: Path,
) -> None:
    with cf.venue(tmp_path, FLOODERS) as v, \
            cf.daemon(tmp_path, cf.table_config(tmp_path, v, connection="own")) as proc:
        res = await bf.run(v, proc.pid, RATE, SECONDS, FLOODERS)
        assert proc.poll() is None, "the daemon ended"
    summary = json.dumps(res.summary())
    # the flood was real, and every request reached the table
    assert res.achieved >= 0.9 * RATE, summary
    assert res.read == res.sent + res.asked, summary
    assert res.drops == [], res.drops[:3]
    # the legitimate requester and the referee are answered within the bound
    assert res.unanswered == 0, summary
    assert len(res.backfills) >= SECONDS - 1, summary
    assert max(res.backfills) <= ANSWER_BOUND_S, summary
    assert [s for _, s in res.commands] == ["ok"] * len(res.commands), summary
    assert max(s for s, _ in res.commands) <= ANSWER_BOUND_S, summary
    # memory
    assert res.rss_max - res.rss_idle <= RSS_BOUND_MB, summary
    # health accounts for the flood: read off the main connection, each request counted once
    b = res.backfill
    assert b["connection"] == "own", b
    assert b["received"] == b["queued"] + sum(b["refused"].values()) + sum(
        n for why, n in b["shed"].items() if why in ("retained", "empty")), b
    assert b["served"] == b["queued"] and b["waiting"] == 0, b
    refusals = sum(b["refused"].values())
    assert refusals >= 0.9 * res.sent, b
    assert b["refused"]["rate_limited"] > 0.5 * res.sent, b
    assert b["refused"]["too_large"] > 0, b
    assert refusals == b["answered"] + b["shed"].get("reply_budget", 0) + b["shed"].get(
        "replies_waiting", 0), b
    assert b["answered"] <= 50 + 20 * (SECONDS + 30), b  # the reply budget since the start
    lines = [line for line in (tmp_path / "daemon.log").read_text().splitlines()
             if "backfill request refused" in line]
    assert len(lines) <= 5 * (SECONDS // 10 + 3), len(lines)
    assert res.log_lines <= 50 + 10 * SECONDS, res.log_lines


def _without_backfill_reads(acl: str) -> str:
    """The shipped ACL as it was before the command account read backfill requests."""
    kept = [line for line in acl.splitlines()
            if not (line.startswith("topic read jantaku/v1/t01/") and "backfill" in line)]
    assert len(kept) == len(acl.splitlines()) - 2
    return "\n".join(kept) + "\n"


async def test_a_command_account_that_may_not_read_backfill_requests_still_reads_commands(
    tmp_path: Path,
) -> None:
    """An older ACL (no backfill lines for ``cmd.t01``): Mosquitto grants the subscription and
    delivers nothing; commands are read and answered, and the table's probe never coming back,
    ``health.backfill.connection`` says ``"none"`` (and the log says why, once)."""
    with cf.venue(tmp_path, 0, edit_acl=_without_backfill_reads) as v, \
            cf.daemon(tmp_path, cf.table_config(tmp_path, v, connection="own")) as proc, \
            contextlib.suppress(asyncio.CancelledError):
        async with cf.referee(v) as ref:
            await until(lambda: "backfill" in ref.health
                        and ref.health["commands"]["intake"].get("connected") is True, 30)
            await ref.command("new_game", {"ruleset": "mleague", "first_dealer": 0,
                                           "names": ["A", "B", "C", "D"]}, "start")
            await until(lambda: "start" in ref.replies, 10)
            assert ref.replies["start"][1]["status"] == "ok", ref.replies["start"]
            await until(lambda: ref.health["backfill"]["connection"] == "none", 30)
        assert proc.poll() is None, "the daemon ended"
    text = (tmp_path / "daemon.log").read_text()
    assert text.count("reads no backfill requests") == 1, text[-2000:]
