"""docs/console.md, TLS option 1, from the outside: ``jantaku run`` with ``[web] tls_cert`` and
``tls_key`` serves the console over HTTPS only; a login there sets a ``Secure`` cookie, and plain
HTTP on the same port gets no page."""

from __future__ import annotations

import asyncio
import ssl
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))

import daemon_kit
import hostile_kit


async def test_jantaku_run_serves_the_console_over_tls(tmp_path: Path) -> None:
    cert, key = tmp_path / "web.crt", tmp_path / "web.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
         "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    port = daemon_kit.free_port()
    web = f'\n[web]\nhost = "127.0.0.1"\nport = {port}\ntls_cert = "{cert}"\ntls_key = "{key}"\n'
    broker = daemon_kit.Broker(tmp_path / "broker").start()
    table = daemon_kit.unique_table("tls")
    cfg = tmp_path / "t.toml"
    cfg.write_text(daemon_kit.config_text(table=table, db=tmp_path / "t.sqlite",
                                          port=broker.port) + web)
    d = hostile_kit.Daemon(cfg, tmp_path / "d.log", table, tmp_path / "t.sqlite").start()
    ctx = ssl.create_default_context(cafile=str(cert))
    url = f"https://127.0.0.1:{port}/console/api/login"
    try:
        daemon_kit.wait_port(port, 30)
        async with aiohttp.ClientSession() as http:
            for _ in range(100):  # the port is bound before the app is ready
                try:
                    async with http.post(url, ssl=ctx, json={
                        "user": "alice", "password": daemon_kit.REFEREE_PASSWORD,
                    }) as r:
                        status, cookie = r.status, r.headers.get("Set-Cookie", "")
                    break
                except aiohttp.ClientConnectionError:
                    await asyncio.sleep(0.1)
            assert status == 200
            assert "Secure" in cookie and "HttpOnly" in cookie
            with pytest.raises(aiohttp.ClientError):
                async with http.get(f"http://127.0.0.1:{port}/console/") as r:
                    assert r.status != 200
                    raise aiohttp.ClientError("an HTTP answer, but not the page")
        assert d.alive()
    finally:
        d.stop()
        broker.stop()
