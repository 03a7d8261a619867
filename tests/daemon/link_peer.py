"""A table controller written from docs/protocol/table-link.md alone (it imports nothing of
``drivers/``): the tests' outside view of the table link. It speaks the controller side of §2-§7 on
the master end of a pty whose slave end the real ``jantaku run`` opens as its serial port, and it
outlives the daemon (``kill -9``, restart), as a table's board outlives the Pi's process.

What it records is what a table maker's firmware would know: which events were acknowledged (in
order), every ``hello`` it received (boot id, ``rx_boot_id``, ``rx_last``), the commands it
carried out.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import struct
import termios
import tty
from collections import deque
from dataclasses import dataclass, field

# --- §3 CRC-32C (Castagnoli), reflected, init/xorout 0xFFFFFFFF --------------------------------
_CRC_TABLE: list[int] = []
for _n in range(256):
    _c = _n
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _CRC_TABLE.append(_c)


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for b in data:
        crc = (crc >> 8) ^ _CRC_TABLE[(crc ^ b) & 0xFF]
    return crc ^ 0xFFFFFFFF


# --- §2 COBS ------------------------------------------------------------------------------------
def cobs_encode(data: bytes) -> bytes:
    """§2: a block of 254 non-zero bytes is code 0xFF with no implied zero; the data's end closes
    the last block, and after a final full block no further code byte is written."""
    out = bytearray()
    block = bytearray()
    full = False  # the last thing written was a full 0xFF block
    for b in data:
        full = False
        if b == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
            continue
        block.append(b)
        if len(block) == 254:
            out.append(0xFF)
            out += block
            block.clear()
            full = True
    if not full:
        out.append(len(block) + 1)
        out += block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes | None:
    out = bytearray()
    i = 0
    while i < len(data):
        code = data[i]
        if code == 0 or i + code > len(data):
            return None
        out += data[i + 1:i + code]
        i += code
        if code < 255 and i < len(data):
            out.append(0)
    return bytes(out)


# --- §3 frames, §6 type codes -------------------------------------------------------------------
HELLO, WELCOME, HEARTBEAT, ACK, NAK = 0x01, 0x02, 0x03, 0x04, 0x05
START_PRESSED, WALL_RAISED, DICE, FAULT = 0x10, 0x11, 0x12, 0x17
NAK_CORRUPT, NAK_REJECTED = 1, 2
RETRANSMIT = 0x01


def frame(mtype: int, payload: bytes = b"", seq: int = 0, retransmit: bool = False) -> bytes:
    body = bytes([1, RETRANSMIT if retransmit else 0, seq, mtype]) + struct.pack("<H", len(payload))
    body += payload
    body += struct.pack("<I", crc32c(body))
    return b"\x00" + cobs_encode(body) + b"\x00"


@dataclass(frozen=True, slots=True)
class Parsed:
    seq: int
    mtype: int
    payload: bytes
    retransmit: bool


def parse(chunk: bytes) -> Parsed | None:
    """One chunk between delimiters; None if damaged (§4)."""
    body = cobs_decode(chunk)
    if body is None or len(body) < 10:
        return None
    if struct.unpack("<I", body[-4:])[0] != crc32c(body[:-4]):
        return None
    if body[0] != 1:
        return None
    (length,) = struct.unpack("<H", body[4:6])
    if length != len(body) - 10:
        return None
    return Parsed(body[2], body[3], body[6:6 + length], bool(body[1] & RETRANSMIT))


@dataclass(frozen=True, slots=True)
class Hello:
    min_version: int
    max_version: int
    boot_id: int
    rx_boot_id: int | None
    rx_last: int | None


def parse_hello(p: bytes) -> Hello:
    lo, hi, boot, rx_boot, rx_last = struct.unpack("<BBIIH", p)
    return Hello(lo, hi, boot, rx_boot or None, None if rx_last == 0xFFFF else rx_last)


# --- events the tests send ----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Event:
    mtype: int
    payload: bytes

    @staticmethod
    def fault(code: int, seat: int | None = None) -> Event:
        return Event(FAULT, struct.pack("<HB", code, 0xFF if seat is None else seat))

    @staticmethod
    def start_pressed() -> Event:
        return Event(START_PRESSED, b"\xff")

    @staticmethod
    def wall_raised() -> Event:
        return Event(WALL_RAISED, b"")

    @property
    def code(self) -> int | None:
        return struct.unpack("<H", self.payload[:2])[0] if self.mtype == FAULT else None


# --- §7 the controller's link behaviour ---------------------------------------------------------
ACK_TIMEOUT, MAX_RETRIES, HEARTBEAT_S, LINK_TIMEOUT = 0.15, 4, 0.25, 1.0


@dataclass(slots=True)
class _Outstanding:
    event: Event
    seq: int
    sent_at: float
    retries: int = 0


@dataclass
class LinkPeer:
    """The controller on a pty master. ``start()`` it in a running loop; ``send(events)``."""

    master: int
    boot_id: int = field(default_factory=lambda: random.getrandbits(32) or 1)
    capabilities: int = 0
    firmware: str = "link-peer 1.0"
    acked: list[Event] = field(default_factory=list)
    settled_by_hello: int = 0
    hellos: list[Hello] = field(default_factory=list)
    commands: list[tuple[int, bytes]] = field(default_factory=list)
    rejected: list[Event] = field(default_factory=list)
    retransmits: int = 0
    slave: int | None = None  # the pty's other end, held open while no daemon has the port

    @classmethod
    def on_pty(cls) -> tuple[LinkPeer, str]:
        """A started controller on a fresh raw pty, and the path the daemon's config names;
        :meth:`close` stops it and closes both ends."""
        master, slave, path = open_pty()
        peer = cls(master, slave=slave)
        peer.start()
        return peer, path

    def __post_init__(self) -> None:
        self._queue: deque[Event] = deque()
        self._out: _Outstanding | None = None
        self._tx_seq = 0  # §7.2: the first seq after boot is 0
        self._rx_last: int | None = None  # commands: last delivered seq from this host boot
        self._host_boot: int | None = None
        self._connected = False
        self._buf = bytearray()
        self._last_rx = 0.0
        self._last_tx = 0.0
        self._task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()

    # --- API ----------------------------------------------------------------------------------
    def start(self) -> None:
        loop = asyncio.get_running_loop()
        os.set_blocking(self.master, False)
        loop.add_reader(self.master, self._readable)
        self._task = asyncio.create_task(self._ticker())

    async def stop(self) -> None:
        asyncio.get_running_loop().remove_reader(self.master)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def close(self) -> None:
        await self.stop()
        os.close(self.master)
        if self.slave is not None:
            os.close(self.slave)

    def send(self, events: list[Event]) -> None:
        self._queue.extend(events)
        self._pump()

    @property
    def pending(self) -> int:
        return len(self._queue) + (self._out is not None)

    @property
    def connected(self) -> bool:
        return self._connected

    async def wait(self, pred: object, timeout: float = 30.0) -> None:
        assert callable(pred)
        async with asyncio.timeout(timeout):
            while not pred():
                self._changed.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.05):
                        await self._changed.wait()

    # --- I/O ----------------------------------------------------------------------------------
    def _write(self, data: bytes) -> None:
        loop = asyncio.get_running_loop()
        self._last_tx = loop.time()
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self.master, data)

    def _readable(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except (BlockingIOError, OSError):  # EIO: no process has the slave open
            return
        self._buf += data
        while True:
            i = self._buf.find(0)
            if i < 0:
                if len(self._buf) > 1040:
                    self._buf.clear()  # not a frame (§2)
                return
            chunk = bytes(self._buf[:i])
            del self._buf[:i + 1]
            if chunk:
                self._on_chunk(chunk)

    def _on_chunk(self, chunk: bytes) -> None:
        now = asyncio.get_running_loop().time()
        f = parse(chunk)
        if f is None:
            if self._connected:
                self._write(frame(NAK, bytes([NAK_CORRUPT])))
            return
        if f.mtype == HELLO:
            self._on_hello(parse_hello(f.payload), now)
            return
        if not self._connected:
            return  # §7.1: nothing but welcome before a hello
        self._last_rx = now
        if f.mtype == HEARTBEAT:
            return
        if f.mtype == ACK:
            if self._out is not None and f.seq == self._out.seq:
                self._settle()
            return
        if f.mtype == NAK:
            if self._out is None:
                return
            if f.payload[:1] == bytes([NAK_REJECTED]) and f.seq == self._out.seq:
                self.rejected.append(self._out.event)
                self._out = None
                self._pump()
            elif f.payload[:1] == bytes([NAK_CORRUPT]):
                self._resend(now)
            return
        if 0x20 <= f.mtype <= 0x2F:  # a command: carry it out once, acknowledge it
            if f.seq != self._rx_last:
                self._rx_last = f.seq
                self.commands.append((f.mtype, f.payload))
            self._write(frame(ACK, b"", f.seq))
            return
        if f.mtype >= 0x10:
            self._write(frame(NAK, bytes([NAK_REJECTED]), f.seq))

    def _on_hello(self, hello: Hello, now: float) -> None:
        self.hellos.append(hello)
        if hello.boot_id != self._host_boot:
            self._host_boot = hello.boot_id
            self._rx_last = None
        fw = self.firmware.encode()
        welcome = struct.pack("<BHIH", 1, self.capabilities, self.boot_id,
                              0xFFFF if self._rx_last is None else self._rx_last)
        self._write(frame(WELCOME, welcome + bytes([len(fw)]) + fw))
        self._connected = True
        self._last_rx = now
        self._changed.set()
        out = self._out
        if out is not None and hello.rx_boot_id == self.boot_id and hello.rx_last == out.seq:
            self.settled_by_hello += 1
            self._settle()  # the host logged it; only the ack was lost
            return
        if out is not None:
            out.retries = 0
            self._resend(now)
        else:
            self._pump()

    # --- ARQ ----------------------------------------------------------------------------------
    def _settle(self) -> None:
        assert self._out is not None
        self.acked.append(self._out.event)
        self._out = None
        self._changed.set()
        self._pump()

    def _pump(self) -> None:
        if not self._connected or self._out is not None or not self._queue:
            return
        event = self._queue.popleft()
        seq = self._tx_seq
        self._tx_seq = (seq + 1) & 0xFF
        now = asyncio.get_running_loop().time()
        self._out = _Outstanding(event, seq, now)
        self._write(frame(event.mtype, event.payload, seq))

    def _resend(self, now: float) -> None:
        out = self._out
        assert out is not None
        out.sent_at = now
        self.retransmits += 1
        self._write(frame(out.event.mtype, out.event.payload, out.seq, retransmit=True))

    async def _ticker(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(0.01)
            now = loop.time()
            if not self._connected:
                continue
            if now - self._last_rx >= LINK_TIMEOUT:
                self._lost()
                continue
            out = self._out
            if out is not None and now - out.sent_at >= ACK_TIMEOUT:
                if out.retries >= MAX_RETRIES:
                    self._lost()
                    continue
                out.retries += 1
                self._resend(now)
            if now - self._last_tx >= HEARTBEAT_S:
                self._write(frame(HEARTBEAT))

    def _lost(self) -> None:
        self._connected = False  # wait for the host's next hello (§7.5)
        if self._out is not None:
            self._out.retries = 0
        self._changed.set()


def open_pty() -> tuple[int, int, str]:
    """A pty pair in raw mode: (master fd, slave fd kept open by the test, slave path). Holding
    the slave open keeps the master readable while no daemon has the port open."""
    master, slave = os.openpty()
    tty.setraw(slave, termios.TCSANOW)
    return master, slave, os.ttyname(slave)
