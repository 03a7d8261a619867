"""The console page in headless Chromium follows the pushed state (docs/console.md "Live state"):
logged in and left alone it asks nothing and the table builds no state; a command from elsewhere
(another referee's, not this page's) appears on the page by itself."""

from __future__ import annotations

import secrets
import time
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from test_console_browser import Page, chromium
from test_console_kit import REFEREE_PASSWORD, TableThread

from daemon.web.console import Console

pytestmark = pytest.mark.skipif(
    not (Path("/usr/bin/chromium").exists() and Path("/usr/bin/chromedriver").exists()),
    reason="Debian's chromium and chromium-driver are needed",
)

NEW_GAME = {"ruleset": "mleague", "first_dealer": 0, "names": ["Ai", "Bo", "Cy", "Di"]}


def test_the_page_follows_pushed_states_and_asks_nothing_while_idle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    builds: list[int] = []
    state = Console.state

    async def counted(self: Console, *args: Any) -> dict[str, Any]:
        builds.append(1)
        return await state(self, *args)

    monkeypatch.setattr(Console, "state", counted)
    th = TableThread(tmp_path)
    with th as t, chromium(tmp_path) as d:
        p = Page(d, th, t)
        d.get(t.base + "/console/")
        p.type("#login-user", "alice")
        p.type("#login-password", REFEREE_PASSWORD)
        p.click("#login-submit")
        p.wait(lambda d: "logs out in" in d.find_element(By.ID, "bar-user").text)
        idle = len(builds)
        time.sleep(3.0)  # the polling page asked twice meanwhile
        # (a poll of /api/state or a stream's push builds one: the page asked nothing)
        assert len(builds) == idle, "an idle table builds no state for the page"
        # another referee starts a game: the page shows it without a request of its own
        other = t.console.sessions.create("alice", "referee")
        reply = th.run(t.console.submit(other, "new_game", NEW_GAME, "c-" + secrets.token_hex(8)))
        assert reply["status"] == "ok", reply
        p.wait(lambda d: "Ai" in d.find_element(By.ID, "seats").text)
        assert len(builds) == idle + 1, "one state pushed for the one command"
