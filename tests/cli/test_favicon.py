"""Issue 13 item 5: the overlay and the referee console have a favicon (a 中 tile), served by the
real ``jantaku run`` with a ``[web]`` section and named by both pages."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from hil.kit import free_port, reaped

JANTAKU = str(Path(sys.executable).with_name("jantaku"))
STATIC = Path(__file__).resolve().parents[2] / "daemon" / "web" / "static"


def get(url: str) -> tuple[int, str, bytes]:
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read()


def test_both_pages_name_and_get_their_favicon(tmp_path: Path) -> None:
    port = free_port()
    table = f"fav{os.getpid() % 10000}"
    cfg = tmp_path / "t.toml"
    cfg.write_text(f'config_version = 1\n[table]\nid = "{table}"\nruleset = "mleague"\n'
                   f'[eventlog]\npath = "{tmp_path / "t.sqlite"}"\n[mqtt]\nhost = "127.0.0.1"\n'
                   f'[devices.table]\nkind = "none"\n[web]\nhost = "127.0.0.1"\nport = {port}\n')
    proc = subprocess.Popen([JANTAKU, "run", "--config", str(cfg)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    with reaped(proc):  # gone even if the body or its clean-exit check fails
        try:
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 30
            while True:
                try:
                    get(base + "/overlay/")
                    break
                except OSError:
                    assert proc.poll() is None and time.monotonic() < deadline
                    time.sleep(0.2)
            for page in ("/overlay/", "/console/"):
                status, _, html = get(base + page)
                assert status == 200
                m = re.search(rb'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', html)
                assert m, page
                href = m.group(1).decode()
                url = base + (href if href.startswith("/") else page + href)
                status, ctype, body = get(url)
                assert status == 200 and ctype.startswith("image/svg+xml"), (url, ctype)
                assert body == (STATIC / "overlay" / "favicon.svg").read_bytes()
        finally:
            proc.terminate()
            assert proc.wait(30) == 0
    # one icon: the console's copy is the overlay's
    assert (STATIC / "console" / "favicon.svg").read_bytes() == \
        (STATIC / "overlay" / "favicon.svg").read_bytes()
