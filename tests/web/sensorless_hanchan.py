"""One M.League hanchan at a table without sensors, as a referee records it, and the same game
computed independently from the rulebook (M.League rules: the score table, M 6-4; riichi
sticks M 4-8; honba M 3-13; noten payments M 3-11-5; head-bump M 5-1-3; chombo M 7-4; uma/oka
M 6-2), for the console and `jantaku referee` tests. Also: a real `jantaku run` with
``kind = "none"``, ``[web]`` and a private Mosquitto.

The game (first dealer seat 0; seats 0..3 = A, B, C, D):

1. E1: B riichi; B rons C, 3 han 30 fu.
2. E2: A and D riichi; exhaustive draw, A and D tenpai (2 tenpai: 1,500 each from the noten).
3. E3-1: A deals in to B (2 han 40 fu) and D (3 han 30 fu): a double ron, head-bump to B.
4. E4: chombo by C (-20 pt, the hand replayed, M 7-4-1/6).
5. E4 again: D (dealer) tsumo 4 han 30 fu.
6. a correction: 1,000 from B to A (set_scores).
7. E4-1: a wrong entry (A rons D, 1 han 30 fu) and its undo; then A rons D, 5 han (fu 40
   given and ignored).
8. S1: B tsumo 2 han 30 fu.  9. S2: exhaustive, only B tenpai (renchan).
10. S2-1: C riichi; C rons D, 3 han 40 fu.  11. S3: exhaustive, all noten.
12. S4-1: A rons B, 1 han 30 fu: the game ends.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))

import daemon_kit

from hil.kit import jantaku

NAMES = ["Aoi", "Ben", "Chie", "Dai"]

# The M.League score table (M 6-4; copied from the standard table, not from the engine):
# (han, fu) -> non-dealer ron, dealer ron, non-dealer tsumo (dealer pays, others pay),
# dealer tsumo (each pays).
RON = {(1, 30): 1000, (2, 40): 2600, (3, 30): 3900, (3, 40): 5200, "mangan": 8000}
# M 6-4-2 kiriage mangan: 4 han 30 fu is a mangan (dealer tsumo 4,000 all, not 3,900)
DEALER_TSUMO_ALL = {(4, 30): 4000}
TSUMO = {(2, 30): (1000, 500)}
HONBA = 300  # M 3-13-3
STICK = 1000  # M 4-8-2
NOTEN = 3000  # M 3-11-5
RETURN, UMA, CHOMBO_PT = 30000, (50, 10, -10, -30), -20.0  # M 6-2-1..3 (oka in the +50), M 7-4-1


@dataclass(frozen=True)
class Step:
    """One referee action: ``name`` is the command, ``args`` its arguments (no ``reason``)."""

    name: str
    args: dict[str, Any]
    undone: bool = False  # entered wrongly and undone at once


STEPS: tuple[Step, ...] = (
    Step("manual_result", {"kind": "ron", "riichi": [1],
                           "wins": [{"winner": 1, "loser": 2, "han": 3, "fu": 30}]}),
    Step("manual_result", {"kind": "exhaustive", "riichi": [0, 3], "tenpai": [0, 3]}),
    Step("manual_result", {"kind": "ron", "wins": [{"winner": 1, "loser": 0, "han": 2, "fu": 40},
                                                   {"winner": 3, "loser": 0, "han": 3, "fu": 30}]}),
    Step("chombo", {"seat": 2}),
    Step("manual_result", {"kind": "tsumo", "wins": [{"winner": 3, "han": 4, "fu": 30}]}),
    Step("set_scores", {"delta": [1000, -1000, 0, 0]}),
    Step("manual_result", {"kind": "ron", "wins": [{"winner": 0, "loser": 3, "han": 1, "fu": 30}]},
         undone=True),
    Step("manual_result", {"kind": "ron", "wins": [{"winner": 0, "loser": 3, "han": 5, "fu": 40}]}),
    Step("manual_result", {"kind": "tsumo", "wins": [{"winner": 1, "han": 2, "fu": 30}]}),
    Step("manual_result", {"kind": "exhaustive", "tenpai": [1]}),
    Step("manual_result", {"kind": "ron", "riichi": [2],
                           "wins": [{"winner": 2, "loser": 3, "han": 3, "fu": 40}]}),
    Step("manual_result", {"kind": "exhaustive", "tenpai": []}),
    Step("manual_result", {"kind": "ron", "wins": [{"winner": 0, "loser": 1, "han": 1, "fu": 30}]}),
)


@dataclass
class Model:
    """The game as the rulebook plays it (independent of the engine)."""

    scores: list[int] = field(default_factory=lambda: [25000] * 4)
    dealer: int = 0
    hand: int = 0  # hands played as the dealer sequence: 0..3 East, 4..7 South
    honba: int = 0
    deposits: int = 0
    pt: list[float] = field(default_factory=lambda: [0.0] * 4)
    over: bool = False

    def _value(self, w: dict[str, Any]) -> int:
        return RON["mangan"] if w["han"] >= 5 else RON[(w["han"], w["fu"])]

    def _pass_deal(self) -> None:
        self.hand += 1
        if self.hand >= 8:
            self.over = True  # M 1-1: East and South
        self.dealer = self.hand % 4

    def apply(self, step: Step) -> None:
        a = step.args
        if step.name == "set_scores":
            self.scores = [s + d for s, d in zip(self.scores, a["delta"], strict=True)]
            return
        if step.name == "chombo":
            self.pt[a["seat"]] += CHOMBO_PT  # M 7-4-1; M 7-4-6: replayed, honba unchanged
            return
        for s in a.get("riichi", []):
            self.scores[s] -= STICK
            self.deposits += 1
        if a["kind"] == "exhaustive":
            tenpai = a["tenpai"]
            if 0 < len(tenpai) < 4:
                for s in range(4):
                    self.scores[s] += (NOTEN // len(tenpai) if s in tenpai
                                       else -NOTEN // (4 - len(tenpai)))
            self.honba += 1  # M 3-13-1
            if self.dealer not in tenpai:
                self._pass_deal()
            return
        wins = a["wins"]
        if a["kind"] == "ron":
            loser = wins[0]["loser"]
            # M 5-1-3: head-bump, the winner nearest the discarder in turn order
            w = min(wins, key=lambda x: (x["winner"] - loser) % 4)
            pay = self._value(w) if w["winner"] != self.dealer else None
            assert pay is not None, "the script has no dealer ron"
            pay += HONBA * self.honba
            self.scores[loser] -= pay
            self.scores[w["winner"]] += pay
        else:
            w = wins[0]
            if w["winner"] == self.dealer:
                each = DEALER_TSUMO_ALL[(w["han"], w["fu"])] + HONBA // 3 * self.honba
                for s in range(4):
                    if s != w["winner"]:
                        self.scores[s] -= each
                        self.scores[w["winner"]] += each
            else:
                from_dealer, from_other = TSUMO[(w["han"], w["fu"])]
                for s in range(4):
                    if s != w["winner"]:
                        base = from_dealer if s == self.dealer else from_other
                        p = base + HONBA // 3 * self.honba
                        self.scores[s] -= p
                        self.scores[w["winner"]] += p
        self.scores[w["winner"]] += STICK * self.deposits  # M 4-8-5
        self.deposits = 0
        if w["winner"] == self.dealer:
            self.honba += 1  # renchan
        else:
            self.honba = 0  # M 3-13-4
            self._pass_deal()

    def standings(self) -> list[dict[str, Any]]:
        order = sorted(range(4), key=lambda s: -self.scores[s])
        out = []
        for s in range(4):
            rank = order.index(s) + 1
            total = (self.scores[s] - RETURN) / 1000 + UMA[rank - 1] + self.pt[s]
            out.append({"seat": s, "points": self.scores[s], "rank": rank,
                        "total_pt": round(total, 3)})
        return out


def expected() -> Model:
    m = Model()
    for step in STEPS:
        if not step.undone:
            m.apply(step)
    return m


# --------------------------------------------------------------------------- a real table


@dataclass
class RealTable:
    table: str
    config: Path
    db: Path
    broker: daemon_kit.Broker
    web_port: int
    proc: subprocess.Popen[bytes]
    log: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"


@contextlib.contextmanager
def real_table(tmp: Path, web: bool) -> Iterator[RealTable]:
    """`jantaku run` with ``kind = "none"`` and a private Mosquitto (and ``[web]``)."""
    broker = daemon_kit.Broker(tmp / "broker").start()
    table = daemon_kit.unique_table("sl")
    db = tmp / f"{table}.sqlite"
    web_port = daemon_kit.free_port()
    text = daemon_kit.config_text(table=table, db=db, port=broker.port)
    if web:
        text += f'\n[web]\nhost = "127.0.0.1"\nport = {web_port}\n'
    config = tmp / "table.toml"
    config.write_text(text)
    log = tmp / "daemon.log"
    proc = subprocess.Popen([jantaku(), "run", "--config", str(config)],
                            stdout=open(log, "ab"), stderr=subprocess.STDOUT)  # noqa: SIM115
    try:
        if web:
            daemon_kit.wait_port(web_port, 30)
        yield RealTable(table, config, db, broker, web_port, proc, log)
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        broker.stop()


def retained(port: int, topic: str, timeout: float = 10.0) -> dict[str, Any]:
    """The retained payload of ``topic`` as a late subscriber gets it."""
    import paho.mqtt.subscribe as sub

    msg = sub.simple(topic, hostname="127.0.0.1", port=port, retained=True,
                     msg_count=1, keepalive=10)
    assert msg is not None and not isinstance(msg, list)
    return dict(json.loads(msg.payload))

