"""The daemon's own web front end (``[web]``): the overlay view follows the table state as inputs
are applied, the console is served beside it, and the table's physical honba and score displays
(over the table link, to the table-controller emulator) never disagree with the overlay."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))

import daemon_kit

from daemon.config import parse_config
from daemon.devices import build_drivers
from daemon.service import Service
from daemon.tracking.records import KIND_INPUT
from hil.kit import free_port
from hil.simulator import GameSimulator
from hil.table_controller import PtyTableController
from rules.inputs import input_to_json


def _config(tmp_path: Path, web_port: int, tty: Path | None = None) -> Any:
    text = daemon_kit.config_text(
        table=daemon_kit.unique_table("web"), db=tmp_path / "web.sqlite", port=1883
    )
    if tty is not None:  # the emulated table on its pty: a plain serial table to the daemon
        text = text.replace('[devices.table]\nkind = "none"',
                            f'[devices.table]\nkind = "serial"\npath = "{tty}"')
    text += f'\n[web]\nhost = "127.0.0.1"\nport = {web_port}\n'
    return parse_config(text, tmp_path / "jantaku.toml")


async def _view(http: aiohttp.ClientSession, base: str) -> dict[str, Any]:
    async with http.get(f"{base}/api/view") as r:
        assert r.status == 200
        data: dict[str, Any] = await r.json()
        return data


async def test_overlay_and_displays_follow_the_daemon(tmp_path: Path) -> None:
    port = free_port()
    emulator = await PtyTableController(tmp_path / "ttyJANTAKU-SIM").__aenter__()
    config = _config(tmp_path, port, emulator.path)
    drivers = build_drivers(config)
    service = Service(config, daemon_kit.engine(), drivers=drivers, mqtt_backoff=(0.05, 0.5))
    task = asyncio.create_task(service.run())
    base = f"http://127.0.0.1:{port}"
    try:
        await asyncio.wait_for(service.ready.wait(), 15)
        sim = GameSimulator("mleague", seed=5, hands=3)
        async with aiohttp.ClientSession() as http:
            for _ in range(50):
                try:
                    async with http.get(f"{base}/overlay/") as r:
                        if r.status == 200:
                            break
                except aiohttp.ClientConnectionError:
                    await asyncio.sleep(0.1)
            async with http.get(f"{base}/console/") as r:
                assert r.status == 200, "the referee console is served beside the overlay"
            hands_checked = 0
            for step in sim.steps():
                applied = await service.submit(KIND_INPUT, "test", input_to_json(step.input))
                assert applied is not None
                if not any(e.to_json()["type"] == "hand_ended" for e in step.events):
                    continue
                # After each hand: the overlay, the daemon's state and the table displays agree.
                want = service.core.state.event_seq
                for _ in range(100):
                    view = await _view(http, base)
                    if view["seq"] == want:
                        break
                    await asyncio.sleep(0.05)
                assert view["seq"] == want
                assert view["status"] in ("hand_over", "game_over")
                scores = [s["score"] for s in view["seats"]]
                assert scores == list(sim.state.progress.scores)  # type: ignore[union-attr]
                d = emulator.controller.display
                for _ in range(100):
                    if list(d.scores) == scores and d.honba == view["round"]["honba"] \
                            and d.deposits == view["round"]["deposits"]:
                        break
                    await asyncio.sleep(0.05)
                assert list(d.scores) == scores
                assert (d.honba, d.deposits) == (
                    view["round"]["honba"], view["round"]["deposits"])
                hands_checked += 1
            assert hands_checked == 3
    finally:
        service.stop()
        await asyncio.wait_for(task, 20)
        await emulator.__aexit__(None, None, None)


async def test_spectator_feed_shows_hands_only_behind_the_delay(tmp_path: Path) -> None:
    import dataclasses

    port = free_port()
    config = _config(tmp_path, port)
    assert config.web is not None
    # Below the configured minimum on purpose (the parser refuses < 10 s): a short test.
    config = dataclasses.replace(config, web=dataclasses.replace(
        config.web, spectator_delay_seconds=1.0))
    drivers = build_drivers(config)
    service = Service(config, daemon_kit.engine(), drivers=drivers, mqtt_backoff=(0.05, 0.5))
    task = asyncio.create_task(service.run())
    base = f"http://127.0.0.1:{port}"
    try:
        await asyncio.wait_for(service.ready.wait(), 15)
        sim = GameSimulator("mleague", seed=5, hands=1)
        steps = sim.steps()
        for step in steps:
            await service.submit(KIND_INPUT, "test", input_to_json(step.input))
            if type(step.input).__name__ == "DealDone":
                break
        async with aiohttp.ClientSession() as http:
            for _ in range(100):
                try:
                    live = await _view(http, base)
                    break
                except aiohttp.ClientConnectionError:
                    await asyncio.sleep(0.1)
            dealt_seq = service.core.state.event_seq
            assert all(s["hand"] is None for s in live["seats"])
            async with http.get(f"{base}/api/spectator/view") as r:
                early = await r.json()
            assert early["seq"] < dealt_seq or all(s["hand"] is None for s in early["seats"])
            await asyncio.sleep(1.6)
            async with http.get(f"{base}/api/spectator/view") as r:
                late = await r.json()
            assert late["seq"] == dealt_seq
            # M.League deals 13 each; the dealer draws the 14th (M 3-4-4)
            assert [len(s["hand"]) for s in late["seats"]] == [13, 13, 13, 13]
            assert all(s["hand"] is None for s in (await _view(http, base))["seats"])
    finally:
        service.stop()
        await asyncio.wait_for(task, 20)
