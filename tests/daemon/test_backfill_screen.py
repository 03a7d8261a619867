"""The backfill screen (daemon/backfill.py) in process: each request checked as it is read
(size, the requester's rate, JSON), refusals answered within a reply budget shared by all, the
rest counted, and a few log lines a window. tests/daemon/test_backfill_flood.py floods the real
daemon; this pins what each check does."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest

from daemon import backfill as bf
from daemon.engine import load_engine
from daemon.topics import Topics

TOPICS = Topics("t01")


def _service(tmp_path: Path) -> bf.Backfill:
    return bf.Backfill(TOPICS, tmp_path / "absent.sqlite", load_engine(), lambda: 0)


def _req(rid: str) -> bytes:
    return json.dumps({"schema": "jantaku/backfill-request/1", "id": rid,
                       "from_seq": 1}).encode()


def _topic(client: str) -> str:
    return TOPICS.backfill_request(client, private=False)


async def test_each_check_refuses_and_counts(tmp_path: Path) -> None:
    b = _service(tmp_path)
    assert not b.take("jantaku/v1/t01/events", b"x", retain=False, size=1)  # not a request
    assert b.take(_topic("big"), b"", retain=False, size=5000)  # too long to be buffered
    assert b.take(_topic("big"), b"{" + b" " * 1100 + b"}", retain=False, size=1102)
    assert b.take(_topic("junk"), b"not json", retain=False, size=8)
    assert b.take(_topic("kept"), _req("a"), retain=True, size=60)
    assert b.take(_topic("empty"), b"", retain=False, size=0)
    assert b.take(_topic("ok"), _req("a"), retain=False, size=60)
    assert b.take(_topic("ok"), _req("b"), retain=False, size=60)  # its first still waits
    s = b.health()
    assert s["connection"] == "shared"
    assert s["received"] == 7 and s["queued"] == 1 and s["waiting"] == 1, s
    assert s["refused"] == {"bad_request": 1, "busy": 1, "too_large": 2}, s
    assert s["shed"] == {"empty": 1, "retained": 1}, s
    assert s["answered"] == 4, s


async def test_a_requester_past_its_rate_is_refused_without_starving_others(
    tmp_path: Path,
) -> None:
    b = _service(tmp_path)
    for _ in range(bf.PER_REQUESTER_BURST + 30):
        b.take(_topic("flood"), b"garbage", retain=False, size=7)
    s = b.health()
    assert s["refused"]["rate_limited"] >= 30 - 2, s  # 2 a second come back meanwhile
    assert b.take(_topic("other"), _req("x"), retain=False, size=60)
    assert b.health()["queued"] == 1


async def test_refusals_are_answered_within_the_budget_and_logged_sampled(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    b = _service(tmp_path)
    n = 2000
    with caplog.at_level(logging.WARNING, logger="jantaku.backfill"):
        for i in range(n):  # each from a name of its own: past any requester's rate
            b.take(_topic(f"c{i}"), b"[", retain=False, size=1)
    s = b.health()
    assert s["refused"] == {"bad_request": n}, s
    assert s["answered"] <= bf.REPLIES_BURST + 5, s
    assert s["answered"] + s["shed"]["reply_budget"] + s["shed"].get("replies_waiting", 0) == n
    assert len(caplog.records) <= 5, len(caplog.records)
    assert s["log_suppressed"] == n - len(caplog.records)
    sent: list[str] = []

    async def publish(topic: str, payload: bytes) -> bool:
        sent.append(topic)
        return True

    task = asyncio.create_task(b.run(publish))
    for _ in range(50):
        await asyncio.sleep(0.01)
        if len(sent) >= s["answered"]:
            break
    task.cancel()
    assert len(sent) == s["answered"], (len(sent), s)
