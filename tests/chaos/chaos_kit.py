"""The chaos suite's tools: a controllable TCP proxy, a fed daemon, and the fault-free reference.

Everything real: a private Mosquitto (tests/daemon/daemon_kit.Broker), the real daemon
(:class:`daemon.service.Service` with its SQLite log and MQTT link), the real reducer. The
reference is the same logged inputs (bodies *and* timestamps, read back from the daemon's log)
folded through a fresh :class:`daemon.table.TableCore` with no fault at all: the events it numbers
are byte-for-byte what the subscriber must have seen, and its state is what the daemon must hold.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "daemon"))

import daemon_kit

from daemon.config import Config, parse_config
from daemon.disclosure import public_event
from daemon.eventlog import EventLog
from daemon.service import Service
from daemon.table import TableCore
from daemon.tracking.records import KIND_INPUT
from hil.kit import commit_one
from hil.netfault import TcpProxy as TcpProxy  # the chaos tests' network faults (moved to hil/)


@pytest.fixture
def logdir(tmp_path: Path) -> Iterator[Path]:
    """Where the tests' event logs live: a directory on /dev/shm (tmpfs) when there is one.

    A process killed with SIGKILL, a broker or network fault, a clock jump: none of them loses
    the page cache, so what these tests check is the same on tmpfs, where an fsync costs
    nothing -- the suite is 3x faster. The fsync path itself is exercised on a real disk by
    tests/daemon and bench/venue.py, and the disk-full test uses a tmpfs of its own."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    path = Path(tempfile.mkdtemp(prefix="jantaku-chaos-", dir=shm))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


# --------------------------------------------------------------------------- the network
# --------------------------------------------------------------------------- the daemon
def make_config(tmp: Path, port: int, table: str, db: Path | None = None, **kw: Any) -> Config:
    db = db or tmp / f"{table}.sqlite"
    return parse_config(daemon_kit.config_text(table=table, db=db, port=port, **kw))


@contextlib.asynccontextmanager
async def running(config: Config, **kw: Any) -> AsyncIterator[Service]:
    """A real daemon in this event loop; stopped cleanly at the end (unless it ended itself)."""
    service = Service(config, daemon_kit.engine(), mqtt_backoff=(0.05, 0.5), **kw)
    task = asyncio.create_task(service.run())
    ready = asyncio.create_task(service.ready.wait())
    done, _ = await asyncio.wait([task, ready], timeout=15, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        ready.cancel()
        raise AssertionError(f"the daemon ended at start: {task.result()}")
    try:
        yield service
    finally:
        service.stop()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 20)


def script(hands: int = 2, seed: int = 3) -> list[dict[str, Any]]:
    return daemon_kit.game_inputs(hands, seed=seed)


async def feed(service: Service, bodies: list[dict[str, Any]]) -> None:
    for body in bodies:
        await service.submit(KIND_INPUT, "table", body)


def event_collector(port: int, table: str, **kw: Any) -> daemon_kit.Collector:
    """The public feed and the full one (``private/events``, same seq)."""
    base = f"jantaku/v1/{table}"
    return daemon_kit.Collector(port, [f"{base}/events", f"{base}/private/events"], **kw)


# --------------------------------------------------------------------------- the reference
@dataclass
class Reference:
    inputs: list[dict[str, Any]]  # the logged input bodies (kind "input"), in order
    view: dict[str, Any]  # the view model after the last input
    envelopes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def last_seq(self) -> int:
        return len(self.envelopes)


def reference(db: Path, table: str, work: Path) -> Reference:
    """Fold the daemon's logged records (bodies and timestamps) with no fault at all."""
    src = EventLog(db, table, readonly=True)
    ref_db = work / f"reference-{table}-{os.getpid()}.sqlite"
    with contextlib.suppress(FileNotFoundError):
        ref_db.unlink()
    out = EventLog(ref_db, table)
    core = TableCore(out, daemon_kit.engine(), table, checkpoint_every=0)
    inputs, envelopes = [], []
    try:
        for rec in src.records():
            applied = commit_one(
                core, rec.kind, rec.source, rec.body, rec.mono_ns, rec.wall_ns, rec.boot
            )
            if rec.kind == KIND_INPUT:
                inputs.append(rec.body)
            envelopes.extend(applied.events)
        return Reference(inputs, core.view(), envelopes)
    finally:
        src.close()
        out.close()


def delivered(collector: daemon_kit.Collector) -> tuple[list[dict[str, Any]], int]:
    """The events a subscriber got, deduplicated by ``seq`` (first copy kept), and how many
    copies were dropped."""
    seen: dict[int, dict[str, Any]] = {}
    order: list[int] = []
    dups = 0
    for body in collector.payloads("/private/events"):
        seq = int(body["seq"])
        if seq in seen:
            dups += 1
            assert seen[seq] == body, f"two different events numbered {seq}"
            continue
        seen[seq] = body
        order.append(seq)
    # the public feed is the projection of the full one, seq for seq (daemon/disclosure.py)
    for body in collector.payloads("/events"):
        full = seen.get(int(body["seq"]))
        assert full is None or body == public_event(full), f"public event {body['seq']} differs"
    return [seen[s] for s in order], dups


def assert_consistent(
    got: list[dict[str, Any]], ref: Reference, expected_inputs: list[dict[str, Any]]
) -> None:
    """Nothing lost, nothing duplicated (after dedupe), order kept, same bytes as fault-free."""
    if ref.inputs != expected_inputs:
        i = next(
            (i for i, (a, b) in enumerate(zip(ref.inputs, expected_inputs)) if a != b),
            min(len(ref.inputs), len(expected_inputs)),
        )
        raise AssertionError(
            f"the log does not hold exactly the inputs fed, in order: {len(ref.inputs)} logged,"
            f" {len(expected_inputs)} fed, first difference at input {i}:"
            f" {ref.inputs[i:i + 1]} != {expected_inputs[i:i + 1]}"
        )
    seqs = [e["seq"] for e in got]
    missing = sorted(set(range(1, ref.last_seq + 1)) - set(seqs))
    assert not missing, f"{len(missing)} events never arrived: {missing[:20]}"
    assert seqs == sorted(seqs), "events arrived out of seq order"
    assert got == ref.envelopes, "the delivered events differ from the fault-free run"


# --------------------------------------------------------------------------- the shipped broker
SHIPPED_CONF = Path(__file__).resolve().parents[2] / "systemd" / "mosquitto" / "jantaku.conf"
#: the options of the shipped jantaku.conf that decide what a crash loses
PERSISTENCE_KEYS = ("set_tcp_nodelay", "persistence", "autosave_on_changes", "autosave_interval",
                    "max_inflight_messages", "max_queued_messages")


def shipped_broker_settings(workdir: Path) -> str:
    """The shipped broker's global settings, word for word from systemd/mosquitto/jantaku.conf
    (everything before its first listener), with the persistence location the stock
    mosquitto.conf would give (here: ``workdir``): what a test broker needs to lose exactly
    what a venue broker loses."""
    lines = []
    for line in SHIPPED_CONF.read_text().splitlines():
        if line.startswith("listener "):
            break
        if line.split(" ", 1)[0] in PERSISTENCE_KEYS:
            lines.append(line)
    assert {x.split(" ", 1)[0] for x in lines} == set(PERSISTENCE_KEYS), lines
    return "\n".join([*lines, f"persistence_location {workdir}/", ""])
