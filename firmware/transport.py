"""The byte pipes of the table link on the Pico: its USB CDC serial port or a UART.

Neither blocks the main loop. ``read()`` fills the transport's preallocated ``buf`` with what has
arrived and returns how many bytes (0: nothing); ``write(link)`` writes what the link has in its
``tx`` buffer as far as the port takes it now and leaves the rest for the next turn
(``link.consume``). The USB CDC port is the one MicroPython's REPL uses: the firmware takes it
over raw (``micropython.kbd_intr(-1)``, so a 0x03 byte inside a frame is data, not Ctrl-C) and
prints nothing on it.

A USB write blocks in MicroPython for up to 500 ms while the CDC FIFO is full (the host holds the
port open without reading), and ``select.poll`` says only that one byte fits; so the USB
transport writes one byte per poll that says the port takes one (docs/firmware.md "Memory and
timing"). Reads go a byte at a time too: the port reads block until their buffer is full.
"""

import time

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython has no typing module
    TYPE_CHECKING = False  # type: ignore[misc,unused-ignore]
if TYPE_CHECKING:
    from typing import Any

    from firmware.link import Link

#: bytes per read: bounds the time one loop turn spends on input, because the table's inputs are
#: polled between turns. A USB byte costs 50-130 us of the chip's time to read (a poll and a
#: one-byte read, measured on the emulated RP2040) and decoding ~15 us more, so 512 bytes a turn
#: held the inputs unpolled for up to 120 ms under a flood of input, and a 120 ms press was
#: missed; 64 bytes keep a turn's input under ~10 ms (docs/firmware.md "Memory and timing")
MAX_READ = 64
MAX_WRITE = 128  # bytes per turn


class UartTransport:
    name = "uart"

    def __init__(self, machine: "Any", uart_id: int, tx: int, rx: int, baud: int) -> None:
        pin = machine.Pin
        # rxbuf: a 1 KiB wall manifest frame may arrive while the loop is busy elsewhere;
        # txbuf: the link's whole tx buffer, so a write lands in it at once
        self.uart = machine.UART(uart_id, baudrate=baud, tx=pin(tx), rx=pin(rx), bits=8,
                                 parity=None, stop=1, rxbuf=2048, txbuf=2048, timeout=0)
        self.buf = bytearray(MAX_READ)
        self._mv: memoryview | None = None

    def wait(self, ms: int) -> None:
        """Idle up to ``ms`` (the UART's ring buffer keeps what arrives meanwhile)."""
        time.sleep_ms(ms)

    def read(self) -> int:
        if not self.uart.any():
            return 0
        got = self.uart.readinto(self.buf)
        return got or 0

    def discard(self, limit: int) -> int:
        """Drop what is waiting, at most ``limit`` bytes; returns how many."""
        n = 0
        while n < limit and self.uart.any():
            n += self.uart.readinto(self.buf) or 0
        return n

    def write(self, link: "Link") -> None:
        if not link.tx_len or not self.uart.txdone():
            return  # the last write is still going out: the ring buffer has room for this one
        if self._mv is None:
            self._mv = memoryview(link.tx)
        n = link.tx_len
        self.uart.write(self._mv[:n])
        link.consume(n)


class UsbCdcTransport:
    name = "usb"

    def __init__(self) -> None:
        import select
        import sys

        import micropython

        micropython.kbd_intr(-1)
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._read = select.poll()
        self._read.register(sys.stdin, select.POLLIN)
        self._write = select.poll()
        self._write.register(sys.stdout, select.POLLOUT)
        # MicroPython's ipoll reuses one result tuple (poll would allocate a list per call); the
        # host's simulation (CPython) has only poll
        self._ipoll = hasattr(self._read, "ipoll")
        self.buf = bytearray(MAX_READ)
        self._one = bytearray(1)

    def _ready(self, poller: "Any") -> bool:
        if self._ipoll:
            for _ in poller.ipoll(0):
                return True
            return False
        return bool(poller.poll(0))

    def wait(self, ms: int) -> None:
        """Idle until input arrives, at most ``ms``."""
        if self._ipoll:
            for _ in self._read.ipoll(ms):
                return
        else:
            self._read.poll(ms)

    def read(self) -> int:
        n = 0
        one = self._one
        buf = self.buf
        while n < MAX_READ and self._ready(self._read):
            if not self._in.readinto(one):
                break
            buf[n] = one[0]
            n += 1
        return n

    def discard(self, limit: int) -> int:
        """Drop what is waiting, at most ``limit`` bytes; returns how many."""
        n = 0
        while n < limit and self._ready(self._read):
            if not self._in.readinto(self._one):
                break
            n += 1
        return n

    def write(self, link: "Link") -> None:
        total = link.tx_len
        if not total:
            return
        tx = link.tx
        one = self._one
        sent = 0
        while sent < total and sent < MAX_WRITE and self._ready(self._write):
            one[0] = tx[sent]
            self._out.write(one)
            sent += 1
        if sent:
            link.consume(sent)
