"""Issue 15 item 1 for the console's HTTP API: bodies are read within the MQTT commands' bounds
(daemon/bounded_json.py): deep nesting, NaN, lone surrogates and oversized bodies are refused
with a reason; the table is unchanged and keeps serving."""

from __future__ import annotations

from pathlib import Path

from test_console_api import Client, _session
from test_console_kit import running_table

BODIES = [
    b"[" * 5000 + b"]" * 5000,
    b'{"name": "chombo", "args": {"seat": NaN, "reason": "x"}}',
    b'{"name": "chombo", "args": {"seat": 1, "reason": "\\ud800"}}',
    b'{"name": "chombo", "args": {"seat": 1, "reason": "' + b"x" * 70000 + b'"}}',
    b'{"user": {"a": ' * 40 + b"1" + b"}" * 40,
]


async def test_hostile_bodies_are_refused_and_change_nothing(tmp_path: Path) -> None:
    async with running_table(tmp_path) as t, _session(t) as http:
        c = Client(http, t)
        assert (await c.login())[0] == 200
        before = len(t.inputs())
        for path in ("/console/api/command", "/console/api/preview", "/console/api/login"):
            for body in BODIES:
                async with http.post(t.base + path, data=body, headers={
                    "X-CSRF-Token": c.csrf, "Content-Type": "application/json",
                }) as r:
                    assert 400 <= r.status < 500, (path, body[:40], r.status)
                    assert (await r.json())["status"] == "error"
        assert len(t.inputs()) == before
        assert (await c.get("/console/api/state"))[0] == 200  # still serving
