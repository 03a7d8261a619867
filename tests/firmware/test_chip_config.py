"""A wrong ``config.json`` never kills the board (on the emulated RP2040, against the real
``jantaku run``): the board brings its link up anyway, answers ``welcome`` (announcing nothing),
drives no table pin, refuses every command, and reports each problem as a ``config_fault`` naming
the key, which the daemon's health, log and referee console show."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
from chip_kit import BUZZER, FIRMWARE, RELAY, START, Chip, chip, needs_rp2040js, until
from chip_kit import daemon_kit as kit

from hil.kit import bounded

pytestmark = needs_rp2040js

#: the venue's config.json: seat 3's button on the buzzer's pin, a string where a number goes
BAD = {"seat_buttons": [[0, 0, 5], [1, 0, 6], [2, 0, 7], [3, 0, 22]], "debounce_ms": "20"}
#: more wrong files, each its own boot (the first in CI, all with JANTAKU_SLOW=1)
MORE: list[tuple[bytes, dict[str, Any]]] = [
    (b'{"dice": "lines",', {"problem": "json", "key": None, "pin": None}),
    (b'{"stuk_ms": 500}', {"problem": "unknown_key", "key": "stuk_ms", "pin": None}),
    (b'{"buzzer": 40}', {"problem": "value", "key": "buzzer", "pin": None}),
]


async def console_state(c: Chip) -> dict[str, Any]:
    base = f"http://127.0.0.1:{c.web_port}/console/api"
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        async with http.post(base + "/login", json={"user": "alice",
                                                     "password": kit.REFEREE_PASSWORD}) as r:
            assert r.status == 200, await r.text()
        async with http.get(base + "/state") as r:
            assert r.status == 200
            body: dict[str, Any] = await r.json()
            return body


async def reports_its_config(c: Chip, faults: list[dict[str, Any]]) -> None:
    await c.port()
    c.start()
    await c.up_again(0)
    await until(lambda: c.health().get("controller", {}).get("config_faults") == faults, 60,
                f"health: {faults}")
    health = c.health()
    assert health["firmware"] == FIRMWARE and health["capabilities"] == []
    assert [r.type for r in c.rows()] == ["table_controller_reset"] + ["table_config_fault"] * \
        len(faults)


@needs_rp2040js
async def test_a_wrong_config_json_brings_the_link_up_and_names_the_key(tmp_path: Path) -> None:
    async with chip(tmp_path, BAD, web=True) as c:
        await reports_its_config(c, [
            {"problem": "type", "key": "debounce_ms", "pin": None},
            {"problem": "pin_conflict", "key": "seat_buttons", "pin": 22}])
        notices = c.health()["controller"]["notices"]
        assert "controller config.json: key 'seat_buttons': pin 22 used twice; the controller " \
            "runs the link only" in notices, notices
        assert "controller config.json: key 'debounce_ms': wrong type" in c.log_text()
        kit.wait_port(c.web_port or 0, 30)
        state = await console_state(c)
        assert any("debounce_ms" in n for n in state["controller"]), state["controller"]
        # nothing of the table is wired: a press is no event, no relay or buzzer is driven
        await c.press(START)
        await asyncio.sleep(2)
        assert [r.type for r in c.rows() if r.source == "table"] == [
            "table_controller_reset", "table_config_fault", "table_config_fault"]
        assert all(p not in (RELAY, BUZZER) for p, _level, _t in c.board.outputs.changes)
        # the venue fixes nothing but breaks the file further, and switches the board off and
        # on: each boot reports what is wrong now
        for text, fault in MORE[:bounded(1, len(MORE))]:
            reported = len([r for r in c.rows() if r.type == "table_controller_reset"])
            ups = c.connections()
            c.board.reflash(text)
            await c.up_again(ups)
            await until(lambda n=reported: len(
                [r for r in c.rows() if r.type == "table_controller_reset"]) > n, 60, "reset")
            await until(lambda f=fault: c.health().get("controller", {}).get(
                "config_faults") == [f], 60, f"health: {fault}")
            assert c.health()["capabilities"] == []
