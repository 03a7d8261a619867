"""A login flood from outside (issue 27 item 4): ``python bench/login_flooder.py BASE TRIES
ADDR...`` sends TRIES wrong passwords for ``alice`` at once from each address (a connection
each), then prints one JSON line: ``[[status, retry_after or null, answered], ...]``
(``answered``: the system's monotonic clock when the answer came, comparable with the caller's
``time.monotonic()``).
A process of its own, so the referee's client shares no event loop with the flood; run by
bench/web_crowd.py and tests/web/test_login_flood.py."""

from __future__ import annotations

import asyncio
import json
import sys
import time

import aiohttp


async def login_from(address: str, base: str, password: str) -> tuple[int, str | None, float]:
    """One login as alice from ``address``: its status, Retry-After and the monotonic time it
    was answered (also bench/web_crowd.py's referee)."""
    conn = aiohttp.TCPConnector(local_addr=(address, 0), force_close=True)
    async with aiohttp.ClientSession(connector=conn) as http, http.post(
        base + "/console/api/login", json={"user": "alice", "password": password},
        timeout=aiohttp.ClientTimeout(total=120),
    ) as r:
        await r.read()
        return r.status, r.headers.get("Retry-After"), time.monotonic()


async def main() -> None:
    base, tries, addresses = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    got = await asyncio.gather(*(login_from(a, base, f"wrong {i}")
                                 for a in addresses for i in range(tries)))
    print(json.dumps(got))


if __name__ == "__main__":
    asyncio.run(main())
