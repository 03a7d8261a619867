"""What bench/venue.py and bench/venue_run.py share: the broker binary, free ports, the
simulated games and their timing, each table's config, CPU/RSS accounting, and waiting for the
tables to come online. A module of its own so that neither script imports the other."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import random
import shutil
import socket
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hil.kit import daemon_config  # noqa: E402

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), 0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


#: the inputs that set a hand up: on a real table they arrive as one burst (the controller
#: reports the raised wall, the dice and the break at once; the sensors read the deal together)
SETUP = frozenset({"hand_start", "wall_raised", "dice", "break_opened", "indicator", "deal_done"})


def game_script(
    seed: int, hands: int, pace: str = "play", rate: float = 5.0, ruleset: str = "mleague"
) -> list[list[Any]]:
    """A game as ``[[at_seconds, input], ...]``. ``pace="play"``: at the speed of play -- each
    input at the time the simulator's players took it (hil/simulator.py: human-like thinking,
    log-normal around 1.5 s a decision, about 0.7 inputs/s over a hand), with each hand's
    set-up sent as one burst; ``pace="rate"``: ``rate`` inputs per second, evenly."""
    from hil.simulator import GameSimulator
    from rules.inputs import input_to_json

    out: list[list[Any]] = []
    shift = 0.0  # the set-up gaps taken out so far (the burst)
    prev = 0.0
    for i, step in enumerate(GameSimulator(ruleset, seed, hands=hands).steps()):
        body = input_to_json(step.input)
        if pace == "rate":
            out.append([i / rate if rate > 0 else 0.0, body])
            continue
        if body["type"] in SETUP and body["type"] != "hand_start":
            shift += step.t - prev
        prev = step.t
        out.append([round(step.t - shift, 3), body])
    return out


def hand_seconds(script: list[list[Any]]) -> float:
    """How long the first hand of a script lasts: its ``hand_start`` to the next one's, or to
    the last input when the game has one hand."""
    starts = [at for at, body in script if body["type"] == "hand_start"]
    if not starts:
        return 0.0
    end = starts[1] if len(starts) > 1 else script[-1][0]
    return max(0.0, float(end) - float(starts[0]))


def start_offsets(hand_s: Sequence[float], start: str, seed: int) -> list[float]:
    """Each table's start after ``go``: ``together`` all 0; ``spread`` uniform over one hand of
    the table's own game (``hand_s[i]``), from one seeded stream, so a run is repeatable."""
    if start == "together":
        return [0.0 for _ in hand_s]
    rng = random.Random(seed)
    return [round(rng.uniform(0.0, d), 3) for d in hand_s]


def table_config(table: str, db: Path, port: int) -> str:
    return daemon_config(table, db, port, sections={
        "eventlog": {"checkpoint_every": 500},
        "mqtt": {"protocol": "5", "keepalive": 30, "health_interval": 10.0},
        "logging": {"level": "warning"},
    })


def normal_priority() -> None:
    os.setpriority(os.PRIO_PROCESS, 0, 0)


class Usage:
    """CPU seconds and RSS of a process, from psutil if installed, else /proc."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        psutil = _psutil()
        self._ps: Any = None if psutil is None else psutil.Process(pid)

    def cpu_s(self) -> float:
        try:
            if self._ps is not None:
                t = self._ps.cpu_times()
                return float(t.user + t.system)
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except Exception:
            return 0.0

    def rss_mb(self) -> float:
        try:
            if self._ps is not None:
                return float(self._ps.memory_info().rss) / 2**20
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except Exception:
            pass
        return 0.0


def _psutil() -> Any:
    try:
        return importlib.import_module("psutil")  # optional (dev dependency)
    except ImportError:
        return None


def usage_source() -> str:
    psutil = _psutil()
    return "/proc" if psutil is None else f"psutil {psutil.__version__}"


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


async def wait_online(port: int, tables: list[str], timeout: float) -> None:
    import aiomqtt

    want = set(tables)
    online: set[str] = set()
    deadline = time.monotonic() + timeout
    async with aiomqtt.Client("127.0.0.1", port) as client:
        await client.subscribe("jantaku/v1/+/status", qos=1)

        async def watch() -> None:
            async for m in client.messages:
                body = json.loads(bytes(m.payload))  # type: ignore[arg-type,unused-ignore]
                if body.get("state") == "online":
                    online.add(body["table"])
                    if online >= want:
                        return

        await asyncio.wait_for(watch(), max(1.0, deadline - time.monotonic()))
