"""The byte pipes of the table link on the Pico: its USB CDC serial port or a UART.

Both are non-blocking: ``read()`` returns what has arrived (``b""`` when nothing), ``write``
queues bytes. The USB CDC port is the one MicroPython's REPL uses: the firmware takes it over
raw (``micropython.kbd_intr(-1)``, so a 0x03 byte inside a frame is data, not Ctrl-C) and then
prints nothing on it (``firmware.pico`` logs to the UART only when the link is on USB).
"""

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython has no typing module
    TYPE_CHECKING = False  # type: ignore[misc,unused-ignore]
if TYPE_CHECKING:
    from typing import Any

MAX_READ = 512  # bytes per read: bounds the time one loop iteration spends on input


class UartTransport:
    name = "uart"

    def __init__(self, machine: "Any", uart_id: int, tx: int, rx: int, baud: int) -> None:
        pin = machine.Pin
        # rxbuf: a 1 KiB wall manifest frame may arrive while the loop is busy elsewhere
        self.uart = machine.UART(uart_id, baudrate=baud, tx=pin(tx), rx=pin(rx), bits=8,
                                 parity=None, stop=1, rxbuf=2048, txbuf=2048, timeout=0)

    def read(self) -> bytes:
        if not self.uart.any():
            return b""
        data = self.uart.read(MAX_READ)
        return bytes(data) if data else b""

    def write(self, data: bytes) -> None:
        self.uart.write(data)


class UsbCdcTransport:
    name = "usb"

    def __init__(self) -> None:
        import select
        import sys

        import micropython

        micropython.kbd_intr(-1)
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)

    def read(self) -> bytes:
        data = bytearray()
        while len(data) < MAX_READ and self._poll.poll(0):
            chunk = self._in.read(1)
            if not chunk:
                break
            data += chunk
        return bytes(data)

    def write(self, data: bytes) -> None:
        self._out.write(data)
