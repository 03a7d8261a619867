"""Fuzzing of every parser that takes bytes from outside, and of the reducer.

    .venv/bin/python bench/fuzz.py [--n 1000000] [--targets link,rfid,records,commands,reducer]
                                   [--seed 1] [--workers 2] [--json]

A mutation fuzzer on top of ``random`` and the project's real corpora (seeded, reproducible: a
crash prints the seed and index that replays it). Per target: inputs, accepted, rejected by reason,
crashes (an exception the parser's contract does not allow). ``tests/fuzz`` runs the same targets
bounded (about 10^4 inputs each) in CI.

Targets and their contracts:

* ``link``: the table-link ``Decoder`` (drivers/link/frame.py) never raises; every chunk is a
  ``Frame`` or an ``ErrorSpan`` with an ``ErrorReason``. Inputs: valid frames of every message
  type, the same bit-flipped / truncated / spliced / padded, frames *forged with a correct CRC*
  around random or mutated payloads (to reach the payload checks), random bytes.
* ``rfid``: the serial RFID ``FrameDecoder`` (drivers/tiles/serial_frame.py) never raises; each
  event is a tag read or a ``ReaderFault`` with a kind and a detail. Inputs: valid frames of random
  UIDs, mutated, with noise, wrong checksums, lower case, doubled STX, random bytes.
* ``records``: ``rules.records.import_record`` accepts a record or raises ``RecordError`` (a
  ``ValueError``) with a message; anything else is a crash. Inputs: every shared tenhou.net/6 and
  mjai record, mutated as text (flips, cuts, duplicated spans) and as JSON (a random node replaced
  by a random value of another type, deleted, duplicated).
* ``commands``: ``daemon.commands.parse`` returns a command or raises ``CommandError`` with a code;
  an accepted command's input must decode (``rules.inputs.input_from_json``) or be refused with
  ``InputError`` -- what the daemon does before logging. Inputs: commands generated from the
  command JSON schema with correct HMACs (so the argument checks are reached), then mutated
  before or after signing, and raw byte mutations.
* ``reducer``: ``rules.reducer.reduce`` never raises and never corrupts the state. Streams: bot
  games from ``hil.simulator`` with random inputs of every type (random fields) inserted, inputs
  dropped, duplicated or with a field changed. After each input: no tile id in two places (hands,
  melds, rivers, indicators); a seat's known concealed tiles match its count; hand size + melds is
  13 or 14 once dealt; scores + deposits x 1000 unchanged by any input other than a game/hand start
  or a referee override; a rejected input leaves the state equal (but for the input counter and
  the open-violations list; a won hand the input settled before it was refused excepted). A
  caught engine exception (``internal_error``) counts as a crash.
  An invariant broken by an input the engine accepted *with* a violation event (it took a
  physical fact it judged wrong, and told the referee) is counted apart as ``flagged``: reported,
  not a crash; the same break without a violation is a crash.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import struct
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

DATA = REPO / "tests" / "data"
#: the folders of game records under tests/data (it also holds other data: link test vectors)
RECORD_DIRS = ("game-logs", "mjai")


@dataclass
class Counts:
    target: str
    inputs: int = 0
    accepted: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    crashes: list[str] = field(default_factory=list)
    crash_count: int = 0
    sites: Counter[str] = field(default_factory=Counter)
    #: invariant broken by an input the engine accepted *with* a violation event (reducer only)
    flagged: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def crash(self, where: str, exc: BaseException) -> None:
        self.crash_count += 1
        tb = exc.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        site = "?" if tb is None else f"{Path(tb.tb_frame.f_code.co_filename).name}:{tb.tb_lineno}"
        self.sites[f"{type(exc).__name__} at {site}"] += 1
        if len(self.crashes) < 5:
            text = "".join(traceback.format_exception(exc, limit=-4))
            self.crashes.append(f"{where}: {text}")

    def merge(self, other: Counts) -> None:
        self.inputs += other.inputs
        self.accepted += other.accepted
        self.rejected.update(other.rejected)
        self.crash_count += other.crash_count
        self.sites.update(other.sites)
        self.flagged.update(other.flagged)
        self.crashes.extend(other.crashes[: max(0, 5 - len(self.crashes))])
        self.seconds = max(self.seconds, other.seconds)

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "inputs": self.inputs,
            "accepted": self.accepted,
            "rejected": sum(self.rejected.values()),
            "rejected_by_reason": dict(self.rejected.most_common()),
            "crashes": self.crash_count,
            "crash_sites": dict(self.sites.most_common()),
            "flagged_inconsistent": dict(self.flagged.most_common()),
            "crash_samples": self.crashes,
            "seconds": round(self.seconds, 1),
        }


# --------------------------------------------------------------------------- byte mutations
def mutate_bytes(rng: random.Random, data: bytes, rounds: int | None = None) -> bytes:
    buf = bytearray(data)
    for _ in range(rounds if rounds is not None else rng.randint(1, 4)):
        op = rng.randrange(8)
        if not buf:
            buf.extend(rng.randbytes(rng.randint(1, 8)))
            continue
        i = rng.randrange(len(buf))
        if op == 0:
            buf[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            buf[i] = rng.randrange(256)
        elif op == 2:
            del buf[i : i + rng.randint(1, 8)]
        elif op == 3:
            buf[i:i] = rng.randbytes(rng.randint(1, 8))
        elif op == 4:
            j = rng.randrange(len(buf))
            buf[i:i] = buf[j : j + rng.randint(1, 16)]
        elif op == 5:
            del buf[i:]
        elif op == 6:
            buf[i] = rng.choice(b"\x00\x01\x02\x03\xff\x7f\x80{}[]\",:0-9eE")
        else:
            buf[i:i] = rng.choice(
                [b"\x00", b"\xff\xff", b"null", b"-1", b"1e999", b'"', b"\\u0000"]
            )
    return bytes(buf)


def reason_of(message: str) -> str:
    """A rejection message reduced to its kind: digits, quoted values and tails dropped."""
    import re

    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", message)
    text = re.sub(r"\d+", "N", text)
    return text[:90]


# --------------------------------------------------------------------------- link
class LinkTarget:
    name = "link"

    def __init__(self) -> None:
        from drivers.link.frame import encode_frame, frame_body
        from drivers.link.messages import examples

        self.examples = examples()
        self.frames = [encode_frame(m, i % 256) for i, m in enumerate(self.examples)]
        self.bodies = [frame_body(m, i % 256) for i, m in enumerate(self.examples)]

    def forge(self, rng: random.Random) -> bytes:
        from drivers.link.cobs import cobs_encode
        from drivers.link.crc import crc32c_of
        from drivers.link.frame import HEADER

        if rng.random() < 0.6:
            body = bytearray(rng.choice(self.bodies)[:-4])
            head, payload = bytes(body[:6]), mutate_bytes(rng, bytes(body[6:]))
            version, flags, seq, mtype, _ = HEADER.unpack(head)
            # mostly an honest length, so that the payload parser is reached
            length = len(payload) if rng.random() < 0.5 else rng.randrange(65536)
            if rng.random() < 0.1:
                mtype = rng.randrange(256)
            if rng.random() < 0.05:
                version = rng.randrange(256)
        else:
            version, flags, seq = 1, rng.randrange(2), rng.randrange(256)
            mtype = rng.randrange(256) if rng.random() < 0.3 else rng.randrange(1, 40)
            payload = rng.randbytes(rng.randint(0, 40))
            length = len(payload)
        b = HEADER.pack(version, flags, seq, mtype, length) + payload
        b += struct.pack("<I", crc32c_of(bytes(b)))
        return b"\x00" + cobs_encode(b) + b"\x00"

    def generate(self, rng: random.Random) -> bytes:
        r = rng.random()
        if r < 0.15:
            return rng.choice(self.frames)
        if r < 0.45:
            return mutate_bytes(rng, rng.choice(self.frames))
        if r < 0.85:
            return self.forge(rng)
        if r < 0.95:
            return rng.choice(self.frames)[: rng.randint(1, 20)] + rng.choice(self.frames)
        return rng.randbytes(rng.randint(0, 64))

    def check(self, data: bytes, counts: Counts) -> None:
        from drivers.link.frame import Decoder, ErrorReason, ErrorSpan, Frame

        dec = Decoder()
        items = dec.feed(data) + dec.flush()
        ok = True
        for item in items:
            if isinstance(item, Frame):
                continue
            if not isinstance(item, ErrorSpan) or not isinstance(item.reason, ErrorReason):
                raise AssertionError(f"decoder returned {item!r}")
            ok = False
            counts.rejected[item.reason.value] += 1
        if ok and items:
            counts.accepted += 1
        elif not items:
            counts.rejected["idle (delimiters only)"] += 1


# --------------------------------------------------------------------------- rfid
class RfidTarget:
    name = "rfid"

    def generate(self, rng: random.Random) -> bytes:
        from drivers.tiles.serial_frame import MAX_UID_BYTES, MIN_UID_BYTES, encode_frame

        uid = rng.randbytes(rng.randint(MIN_UID_BYTES, MAX_UID_BYTES))
        frame = encode_frame(uid.hex().upper())
        r = rng.random()
        if r < 0.3:
            return frame
        if r < 0.4:
            return frame.lower() if rng.random() < 0.5 else b"\r\n" + frame + b"\r\n"
        if r < 0.9:
            return mutate_bytes(rng, frame)
        return rng.randbytes(rng.randint(0, 30))

    def check(self, data: bytes, counts: Counts) -> None:
        from drivers.tiles.events import ReaderFault
        from drivers.tiles.serial_frame import FrameDecoder

        dec = FrameDecoder("fuzz")
        events = dec.feed(data, 1_000_000) + dec.flush(10**12, force=True)
        ok = True
        for ev in events:
            if isinstance(ev, ReaderFault):
                if not ev.detail:
                    raise AssertionError(f"a fault without a detail: {ev!r}")
                counts.rejected[str(getattr(ev.kind, "value", ev.kind))] += 1
                ok = False
        if ok and events:
            counts.accepted += 1
        elif not events:
            counts.rejected["nothing (line noise only)"] += 1


# --------------------------------------------------------------------------- JSON mutations
def random_json(rng: random.Random, depth: int = 0) -> Any:
    r = rng.randrange(9 if depth < 2 else 6)
    if r == 0:
        return None
    if r == 1:
        return rng.choice([True, False])
    if r == 2:
        return rng.choice([0, -1, 1, 3, 4, 13, 34, 135, 136, 255, 2**31, -(2**63), 10**30])
    if r == 3:
        return rng.choice([0.5, -0.0, 1e308, float("inf"), float("nan")])
    if r == 4:
        return rng.choice(["", "1m", "5mr", "0z", "E", "ron", "x" * 300, "\u0000", "東", "?"])
    if r == 5:
        return rng.randrange(-5, 140)
    if r in (6, 7):
        return [random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["type", "seat", "tile", "actor", "pai", "a", "args"]):
            random_json(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def _paths(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, (*path, i))


def mutate_json(rng: random.Random, obj: Any, rounds: int | None = None) -> Any:
    import copy

    obj = copy.deepcopy(obj)
    for _ in range(rounds if rounds is not None else rng.randint(1, 3)):
        paths = [p for p in _paths(obj) if p]
        if not paths:
            return random_json(rng)
        path = rng.choice(paths)
        parent = obj
        for k in path[:-1]:
            parent = parent[k]
        key = path[-1]
        op = rng.randrange(5)
        if op <= 1:
            parent[key] = random_json(rng)
        elif op == 2:
            v = parent[key]
            if isinstance(v, int) and not isinstance(v, bool):
                parent[key] = v + rng.choice([-1, 1, 4, -4, 100, 136])
            elif isinstance(v, str) and v:
                parent[key] = v[::-1] if rng.random() < 0.5 else v[:-1]
            else:
                parent[key] = random_json(rng)
        elif op == 3:
            if isinstance(parent, dict):
                del parent[key]
            else:
                del parent[key]
        else:
            if isinstance(parent, list):
                parent.insert(key, parent[key])
            else:
                parent[rng.choice(["extra", "type", "seat"])] = parent[key]
    return obj


# --------------------------------------------------------------------------- records
class RecordsTarget:
    name = "records"

    def __init__(self) -> None:
        from rules.ruleset import load_ruleset

        self.ruleset = load_ruleset("tenhou")
        paths = sorted(p for d in RECORD_DIRS for p in (DATA / d).rglob("*")
                       if p.suffix in (".json", ".jsonl"))
        # whole records, and each hand of them as a record of its own (cheaper inputs: the
        # mutations reach the same code at a tenth of the cost)
        self.texts = []
        for p in paths:
            text = p.read_text(encoding="utf-8")
            self.texts.append(text)
            self.texts.extend(split_record(text))
        self.parsed: list[tuple[str, Any]] = []
        for t in self.texts:
            try:
                self.parsed.append(("json", json.loads(t)))
            except ValueError:
                lines = [json.loads(line) for line in t.splitlines() if line.strip()]
                self.parsed.append(("jsonl", lines))

    def generate(self, rng: random.Random) -> bytes:
        r = rng.random()
        if r < 0.05:
            return rng.choice(self.texts).encode()
        if r < 0.35:
            return mutate_bytes(rng, rng.choice(self.texts).encode())
        kind, obj = rng.choice(self.parsed)
        out = mutate_json(rng, obj)
        if kind == "jsonl" and isinstance(out, list):
            return "\n".join(json.dumps(x) for x in out).encode()
        return json.dumps(out).encode()

    def check(self, data: bytes, counts: Counts) -> None:
        from rules.records import RecordError, import_record

        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            counts.rejected["not UTF-8 (caller's decode)"] += 1
            return
        try:
            import_record(text, self.ruleset)
        except RecordError as exc:
            if not str(exc):
                raise AssertionError("a RecordError without a message") from exc
            counts.rejected[reason_of(str(exc))] += 1
            return
        counts.accepted += 1


def split_record(text: str) -> list[str]:
    """One record per hand: tenhou.net/6 ``log`` entries, or mjai ``start_kyoku..end_kyoku``."""
    try:
        obj = json.loads(text)
    except ValueError:
        obj = None
    if isinstance(obj, dict) and isinstance(obj.get("log"), list):
        return [json.dumps({**obj, "log": [hand]}) for hand in obj["log"]]
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    head = [e for e in lines[:1] if e.get("type") == "start_game"]
    out, cur = [], []
    for e in lines:
        if e.get("type") == "start_kyoku":
            cur = [e]
        elif cur:
            cur.append(e)
            if e.get("type") == "end_kyoku":
                body = [*head, *cur, {"type": "end_game"}]
                out.append("\n".join(json.dumps(x) for x in body))
                cur = []
    return out


# --------------------------------------------------------------------------- commands
PASSWORD = "fuzz password"


def schema_value(rng: random.Random, node: dict[str, Any], defs: dict[str, Any]) -> Any:
    """A value for a JSON-schema node, valid most of the time."""
    if "$ref" in node:
        node = defs[node["$ref"].rsplit("/", 1)[1]]
    if rng.random() < 0.08:
        return random_json(rng)
    if "const" in node:
        return node["const"]
    if "enum" in node:
        return rng.choice(node["enum"])
    if "oneOf" in node or "anyOf" in node:
        return schema_value(rng, rng.choice(node.get("oneOf") or node["anyOf"]), defs)
    t = node.get("type")
    if isinstance(t, list):
        t = rng.choice(t)
    if t == "object":
        props = node.get("properties", {})
        req = set(node.get("required", []))
        return {k: schema_value(rng, v, defs) for k, v in props.items()
                if k in req or rng.random() < 0.5}
    if t == "array":
        lo, hi = node.get("minItems", 0), node.get("maxItems", 6)
        return [schema_value(rng, node.get("items", {}), defs) for _ in range(rng.randint(lo, hi))]
    if t == "integer":
        lo, hi = node.get("minimum", -100000), node.get("maximum", 100000)
        return rng.randint(lo, hi) if rng.random() < 0.7 else rng.choice([lo, hi, 0, 1, 20, 30])
    if t == "number":
        return rng.uniform(-1e6, 1e6)
    if t == "boolean":
        return rng.random() < 0.5
    if t == "string":
        if "pattern" in node:
            return rng.choice(["a", "abc-1", "x" * 64, "tenhou", "mleague"])
        return rng.choice(["", "reason", "mleague", "tenhou", "nope", "x" * 70, "東"])
    return random_json(rng)


def commands_config() -> str:
    """The commands target's table: a referee and an operator; no broker, no event log (the
    target checks commands, it runs no daemon)."""
    from daemon.auth import format_key
    from hil.kit import daemon_config

    return daemon_config("fz", "/nonexistent/fz.sqlite", None, sections={"referee": {"users": [
        {"name": "alice", "role": "referee", "key": format_key("alice", PASSWORD, 1000)},
        {"name": "bob", "role": "operator", "key": format_key("bob", PASSWORD, 1000)}]}})


class CommandsTarget:
    name = "commands"

    def __init__(self) -> None:
        from daemon.auth import derive_key
        from daemon.config import COMMANDS, parse_config
        from daemon.schema import load

        self.config = parse_config(commands_config())
        self.keys = {u: derive_key(u, PASSWORD, 1000) for u in ("alice", "bob")}
        self.schema = load("command")
        self.defs = self.schema["$defs"]
        self.commands = list(COMMANDS)
        self.now = 1_800_000_000.0

    def generate(self, rng: random.Random) -> tuple[str, str, bytes]:
        from daemon.auth import sign

        name = rng.choice(self.commands) if rng.random() < 0.95 else rng.choice(["x", "", "cmd"])
        topic = f"jantaku/v1/fz/cmd/{name}"
        user = rng.choice(["alice", "alice", "bob", "mallory"])
        args_def = self.defs.get(f"args_{name}", {"type": "object"})
        payload: dict[str, Any] = {
            "schema": "jantaku/command/1",
            "id": f"c{rng.randrange(10**9)}",
            "user": user,
            "ts": self.now + rng.choice([0.0, 1.5, -30.0, 500.0, -1e9]),
            "args": schema_value(rng, args_def, self.defs),
        }
        if rng.random() < 0.2:
            payload["client"] = "overlay-1"
        r = rng.random()
        if r < 0.15:
            payload = mutate_json(rng, payload)
        key = self.keys.get(user, self.keys["alice"])
        signed = sign(key, topic, payload) if isinstance(payload, dict) else payload
        if r > 0.9:
            signed = mutate_json(rng, signed)
        raw = json.dumps(signed).encode()
        if rng.random() < 0.05:
            raw = mutate_bytes(rng, raw)
        return name, topic, raw

    def check(self, item: tuple[str, str, bytes], counts: Counts) -> None:
        from daemon.commands import action, parse
        from daemon.errors import CommandError
        from rules.inputs import InputError, input_from_json

        name, topic, raw = item
        try:
            cmd = parse(name, topic, raw, self.config.referee, self.now)
        except CommandError as exc:
            if not exc.code or not str(exc):
                raise AssertionError(f"a refusal without a code/message: {exc!r}") from exc
            counts.rejected[exc.code] += 1
            return
        act = action(cmd)
        if act.kind == "input":
            try:
                input_from_json(act.body)
            except InputError as exc:
                counts.rejected[f"bad_args (input: {reason_of(str(exc))[:50]})"] += 1
                return
        counts.accepted += 1


# --------------------------------------------------------------------------- reducer
class ReducerTarget:
    """Inputs are counted one by one; a stream is a mutated bot game."""

    name = "reducer"

    def __init__(self) -> None:
        from hil.simulator import GameSimulator
        from rules.inputs import input_from_json, input_to_json
        from rules.records import import_record
        from rules.ruleset import load_ruleset

        # real games: every shared record (riichi, calls, kans, multiple wins, aborts) ...
        self.games: list[list[Any]] = []
        tenhou = load_ruleset("tenhou")
        for p in sorted(p for d in RECORD_DIRS for p in (DATA / d).rglob("*")
                       if p.suffix in (".json", ".jsonl")):
            rec = import_record(p.read_text(encoding="utf-8"), tenhou)
            self.games.append([input_to_json(i) for i in rec.inputs])
        # ... and a table's own game (wall raised, dice, break, indicators, deal) from the bots
        steps = GameSimulator("mleague", 1, hands=2).steps()
        self.games.append([input_to_json(s.input) for s in steps])
        self.samples = [b for g in self.games for b in g]
        self.by_type: dict[str, list[dict[str, Any]]] = {}
        for b in self.samples:
            self.by_type.setdefault(b["type"], []).append(b)
        extra: dict[str, dict[str, Any]] = {
            "ura": {"type": "ura", "tiles": [1, 2]},
            "win_shown": {"type": "win_shown", "seat": 0, "hand": list(range(13)), "win_tile": 20},
            "abortive_draw": {"type": "abortive_draw", "kind": "four_winds"},
            "referee": {"type": "referee", "action": "undo_last", "by": "r", "args": {}},
        }
        for t, body in extra.items():
            self.by_type.setdefault(t, []).append(body)
        self.decode = input_from_json

    def random_input(self, rng: random.Random) -> Any:
        from rules.inputs import InputError

        for _ in range(20):
            body = dict(rng.choice(self.by_type[rng.choice(list(self.by_type))]))
            for _ in range(rng.randint(0, 2)):
                key = rng.choice([*body, "seat", "tile", "riichi"])
                if key == "type":
                    continue
                body[key] = rng.choice([rng.randrange(4), rng.randrange(136), None, True,
                                        [rng.randrange(136) for _ in range(rng.randint(0, 4))],
                                        random_json(rng)])
            if body.get("type") == "referee" and rng.random() < 0.7:
                body["action"] = rng.choice(["undo_last", "dead_hand", "set_scores", "chombo",
                                             "penalty", "end_game", "swap_seats", "x"])
                body["args"] = mutate_json(rng, {"seat": 1, "scores": [1, 2, 3, 4],
                                                 "points": 1000, "reason": "r"})
            try:
                return self.decode(body)
            except InputError:
                continue
        return None

    def streams(self, rng: random.Random) -> Iterator[list[Any]]:
        while True:
            game = rng.choice(self.games)
            bodies = list(game)
            out: list[Any] = []
            i = 0
            rate = rng.choice([0.01, 0.05, 0.2])
            while i < len(bodies):
                r = rng.random()
                if r < rate:
                    inp = self.random_input(rng)
                    if inp is not None:
                        out.append(inp)
                    continue
                if r < rate * 1.3:
                    i += 1  # dropped
                    continue
                if r < rate * 1.5 and out:
                    out.append(out[-1])  # duplicated
                out.append(self.decode(bodies[i]))
                i += 1
            yield out

    def run(self, rng: random.Random, n: int, counts: Counts) -> None:
        from rules.reducer import new_table, reduce

        streams = self.streams(rng)
        while counts.inputs < n:
            stream = next(streams)
            state = new_table()
            for inp in stream:
                if counts.inputs >= n:
                    break
                counts.inputs += 1
                try:
                    new, events = reduce(state, inp)
                except Exception as exc:  # the contract: never raises
                    counts.crash(f"reduce({inp!r})", exc)
                    break
                types = [e.to_json() for e in events]
                rejected = [e for e in types if e.get("type") == "violation"
                            and e.get("sanction") == "rejected"]
                internal = [e for e in types if e.get("type") == "violation"
                            and e.get("code") == "internal_error"]
                flagged = [str(e.get("code")) for e in types if e.get("type") == "violation"]
                try:
                    if internal:
                        raise AssertionError(f"engine exception caught: {internal[0]}")
                    try:
                        check_state(new)
                    except AssertionError as exc:
                        if not flagged or rejected:
                            raise
                        # the reducer took a physical fact it judged wrong and said so (a
                        # violation event for the referee): counted, reported, not a crash
                        key = f"{reason_of(str(exc))[:40]} after violation {flagged[0]}"
                        counts.flagged[key] += 1
                        break
                    # a won hand is settled by the next input that is not a ron / shown hand /
                    # ura (the reducer's design): that settlement stands even when the input
                    # itself is then refused, so the state may differ by it
                    sealed = state.hand is not None and state.hand.step == "won"
                    # what the offence costs beyond the refusal, as the ruleset says
                    # (rules/reducer/sanctions.py): a minor-chombo pt deduction (S §54-3/4) or a
                    # chombo that ends the hand (M 7-2-1, μ §70, S §55-1(4))
                    sanctioned = any(
                        (e.get("type") == "scores_corrected" and e.get("by") == "rules")
                        or (e.get("type") == "hand_ended"
                            and (e.get("outcome") or {}).get("kind") == "chombo")
                        for e in types)
                    if rejected:
                        same = replace(new, seq=state.seq, open_violations=state.open_violations)
                        if same != state and not sealed and not sanctioned:
                            raise AssertionError("a rejected input changed the state")
                        counts.rejected[str(rejected[0].get("code"))] += 1
                    else:
                        check_conserved(state, new, inp)
                        counts.accepted += 1
                except AssertionError as exc:
                    counts.crash(f"after {type(inp).__name__} {inp!r}", exc)
                    break
                state = new


def check_state(t: Any) -> None:
    h = t.hand
    if h is None:
        return
    seen: dict[int, str] = {}

    def put(tile: Any, where: str) -> None:
        if tile is None:
            return
        key = tile.id
        if key in seen:
            raise AssertionError(f"tile {key} in {seen[key]} and in {where}")
        seen[key] = where

    for s, seat in enumerate(h.seats):
        if seat.concealed is not None:
            if len(seat.concealed) != seat.count:
                known = len(seat.concealed)
                raise AssertionError(f"seat {s}: {known} tiles known, count {seat.count}")
            for tile in seat.concealed:
                put(tile, f"hand {s}")
        for m in seat.melds:
            for tile in getattr(m, "tiles", ()) or ():
                put(tile, f"melds {s}")
        for r in seat.river:
            if not r.called:
                put(r.tile, f"river {s}")
        if h.dealt and seat.dead is None and h.step not in ("setup", "ended", "won", "drawn"):
            size = seat.count + 3 * len(seat.melds)
            if size not in (13, 14):
                raise AssertionError(f"seat {s}: {seat.count} tiles + {len(seat.melds)} melds")
    for ind in h.indicators:
        put(ind.tile, "indicators")


def check_conserved(before: Any, after: Any, inp: Any) -> None:
    from rules.inputs import GameStart, HandStart, RefereeOverride

    if isinstance(inp, GameStart | HandStart | RefereeOverride):
        return
    b, a = before.hand, after.hand
    if b is None or a is None or a.number != b.number:
        return
    tb = sum(b.scores) + 1000 * b.deposits
    ta = sum(a.scores) + 1000 * a.deposits
    if tb != ta:
        raise AssertionError(f"points not conserved: {tb} -> {ta} by {type(inp).__name__}")


# --------------------------------------------------------------------------- driver
TARGETS: dict[str, Callable[[], Any]] = {
    "link": LinkTarget,
    "rfid": RfidTarget,
    "records": RecordsTarget,
    "commands": CommandsTarget,
    "reducer": ReducerTarget,
}


def run_target(name: str, n: int, seed: int) -> Counts:
    """``n`` inputs of one target (deterministic for a seed)."""
    target = TARGETS[name]()
    counts = Counts(name)
    rng = random.Random(f"{name}:{seed}")
    t0 = time.perf_counter()
    if hasattr(target, "run"):
        target.run(rng, n, counts)
    else:
        for i in range(n):
            item = target.generate(rng)
            counts.inputs += 1
            try:
                target.check(item, counts)
            except Exception as exc:
                counts.crash(f"seed {seed} input {i}: {item!r}"[:400], exc)
    counts.seconds = time.perf_counter() - t0
    return counts


def _job(args: tuple[str, int, int]) -> Counts:
    return run_target(*args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--n", type=int, default=1_000_000, help="inputs per target")
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    names = [t for t in args.targets.split(",") if t]
    results: list[dict[str, Any]] = []
    chunks = max(1, args.workers)
    t_all = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        for name in names:
            t0 = time.perf_counter()
            per = [args.n // chunks + (1 if i < args.n % chunks else 0) for i in range(chunks)]
            jobs = [(name, k, args.seed * 1000 + i) for i, k in enumerate(per) if k]
            total = Counts(name)
            for c in pool.map(_job, jobs):
                total.merge(c)
            total.seconds = time.perf_counter() - t0
            body = total.to_json()
            results.append(body)
            if not args.json:
                reasons = list(body["rejected_by_reason"].items())[:8]
                top = ", ".join(f"{k}: {v}" for k, v in reasons)
                print(f"{name:<9} {body['inputs']:>9,} inputs  {body['accepted']:>9,} accepted  "
                      f"{body['rejected']:>9,} rejected  {body['crashes']} crashes  "
                      f"({body['seconds']} s)", flush=True)
                print(f"          rejected by reason (top 8 of {len(body['rejected_by_reason'])}):"
                      f" {top}", flush=True)
                for what, k in body["flagged_inconsistent"].items():
                    print(f"  FLAGGED {k} x {what}", flush=True)
                for site, k in body["crash_sites"].items():
                    print(f"  CRASH {k} x {site}", flush=True)
                if os.environ.get("JANTAKU_FUZZ_VERBOSE"):
                    for c in body["crash_samples"]:
                        print("  CRASH", c, flush=True)
    crashes = sum(r["crashes"] for r in results)
    if args.json:
        print(json.dumps({"bench": "fuzz", "n": args.n, "seed": args.seed, "targets": results,
                          "crashes": crashes, "seconds": round(time.perf_counter() - t_all, 1)}))
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
