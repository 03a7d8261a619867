"""Issue 27 item 4, from outside: a login flood against the real ``jantaku run`` (its console on
``[web]``, the referee's key with the default 200,000 PBKDF2 iterations).

Ten addresses (127.0.0.2 .. 127.0.0.11) each send 20 wrong passwords at once; meanwhile the known
referee logs in from 127.0.0.1, next in line: while it waits, the only flood passwords checked are
those being checked as it came (and one in the slot freed beside its own). The excess attempts are
refused before anything is derived: 429 with ``Retry-After``. How long the referee waits is
printed (``-s``), not bounded: bench/web_crowd.py measures it beside the same login on an idle
daemon."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))

import daemon_kit
import hostile_kit

from daemon.auth import DEFAULT_ITERATIONS
from daemon.web.login_gate import GateSettings
from hil.kit import reaped_async

FLOODERS = [f"127.0.0.{i}" for i in range(2, 12)]
TRIES = 20
FLOOD_GEN = Path(__file__).resolve().parents[2] / "bench" / "login_flooder.py"
sys.path.insert(0, str(FLOOD_GEN.parent))

from login_flooder import login_from  # noqa: E402  (the bench's one referee login)


async def _flood(base: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, str(FLOOD_GEN), base, str(TRIES), *FLOODERS,
        stdout=asyncio.subprocess.PIPE)


async def _up(base: str) -> None:
    deadline = time.monotonic() + 30
    async with aiohttp.ClientSession() as http:
        while True:
            try:
                async with http.get(base + "/console/") as r:
                    if r.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            assert time.monotonic() < deadline, "the console never came up"
            await asyncio.sleep(0.2)


@pytest.mark.parametrize("rounds", [2])
async def test_the_referee_logs_in_during_a_login_flood(tmp_path: Path, rounds: int) -> None:
    broker = daemon_kit.Broker(tmp_path / "broker").start()
    web_port = daemon_kit.free_port()
    table = daemon_kit.unique_table("lf")
    cfg = tmp_path / "t.toml"
    cfg.write_text(daemon_kit.config_text(table=table, db=tmp_path / "t.sqlite", port=broker.port,
                                          iterations=DEFAULT_ITERATIONS, web=web_port))
    d = hostile_kit.Daemon(cfg, tmp_path / "daemon.log", table, tmp_path / "t.sqlite").start()
    base = f"http://127.0.0.1:{web_port}"
    try:
        await _up(base)
        results: list[Any] = []
        for n in range(rounds):  # a second round: the flooders' addresses have failures now
            if n:
                await asyncio.sleep(2.5)  # the Retry-After the last flood was given
            flood = await _flood(base)
            async with reaped_async(flood):
                await asyncio.sleep(0.5)  # the flood is on (the process has started sending)
                start = time.monotonic()
                status, _, _ = await login_from("127.0.0.1", base, daemon_kit.REFEREE_PASSWORD)
                done = time.monotonic()
                out, _ = await flood.communicate()
            flooded = json.loads(out)
            assert len(flooded) == len(FLOODERS) * TRIES
            # the flood's passwords checked (401) while the referee's login waited
            checked = sum(1 for s, _, at in flooded if s == 401 and start < at < done)
            results.append((status, done - start, checked, flooded))
        for status, _took, checked, flooded in results:
            assert status == 200, status
            # next in line: not queued behind the flood's waiting attempts (one an address, up to
            # ten), only behind those being checked or answered as it came (in_flight each) and
            # one let into the slot freed beside its own
            assert checked <= 2 * GateSettings().in_flight + 1, checked
            codes = [s for s, *_ in flooded]
            assert set(codes) <= {401, 429}, codes
            refused = [retry for s, retry, _ in flooded if s == 429]
            # most attempts refused before deriving, each told when to come back
            assert len(refused) >= len(flooded) // 2, codes
            assert all(int(retry) >= 1 for retry in refused)
        assert d.alive()
        lines = [r for r in d.lines() if "console login" in str(r.get("msg", ""))]
        assert len(lines) < 40, len(lines)  # sampled: not one line an attempt
        print({"referee_login_s": [round(t, 3) for _, t, _, _ in results],
               "checked_meanwhile": [c for _, _, c, _ in results],
               "refused_429": [sum(s == 429 for s, *_ in f) for *_, f in results]})
    finally:
        d.stop()
        broker.stop()
