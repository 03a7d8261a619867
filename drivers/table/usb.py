"""USB bulk transport (pyusb) for controllers with a vendor-class USB interface.

The first interface of the active configuration must have one bulk IN and one bulk OUT endpoint;
the link's byte stream (docs/protocol/table-link.md §2) runs over them unchanged, so a USB packet
boundary means nothing to the decoder. pyusb is blocking, so each transfer runs in a worker thread
(``asyncio.to_thread``) with a short timeout; a read that times out is simply retried, which also
bounds how long ``close`` waits for an in-flight read. The backend is libusb-1.0 from
``libusb_package`` (bundled, so the Pi needs no system libusb); tests pass
``hil.usb_backend.FakeUsbBackend`` instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

import usb.core
import usb.util

from drivers.table.transport import TransportError

#: pid.codes test VID; the production VID:PID is set in the daemon config
DEFAULT_VID = 0x1209
DEFAULT_PID = 0x4A54


def _default_backend() -> Any:
    import libusb_package

    return libusb_package.get_libusb1_backend()


class UsbTransport:
    def __init__(
        self,
        vid: int = DEFAULT_VID,
        pid: int = DEFAULT_PID,
        *,
        backend: Any = None,
        read_timeout_ms: int = 50,
        write_timeout_ms: int = 500,
        packet_size: int = 512,
    ) -> None:
        self.vid, self.pid = vid, pid
        self._backend = backend
        self.read_timeout_ms = read_timeout_ms
        self.write_timeout_ms = write_timeout_ms
        self.packet_size = packet_size
        self._device: Any = None
        self._ep_in = 0
        self._ep_out = 0
        self._closed = threading.Event()

    def __repr__(self) -> str:
        state = "open" if self._device is not None else "closed"
        return f"<UsbTransport {self.vid:04x}:{self.pid:04x} {state}>"

    @property
    def name(self) -> str:
        return f"usb:{self.vid:04x}:{self.pid:04x}"

    async def open(self) -> None:
        if self._device is not None:
            return
        self._device = await asyncio.to_thread(self._open_sync)
        self._closed.clear()

    def _open_sync(self) -> Any:
        backend = self._backend if self._backend is not None else _default_backend()
        if backend is None:
            raise TransportError("no libusb-1.0 backend available")
        try:
            device = usb.core.find(idVendor=self.vid, idProduct=self.pid, backend=backend)
            if device is None:
                raise TransportError(f"no USB device {self.vid:04x}:{self.pid:04x}")
            device.set_configuration()
            interface = device.get_active_configuration()[(0, 0)]
            endpoints = {usb.util.endpoint_direction(ep.bEndpointAddress): ep.bEndpointAddress
                         for ep in interface
                         if usb.util.endpoint_type(ep.bmAttributes) == usb.util.ENDPOINT_TYPE_BULK}
            if set(endpoints) != {usb.util.ENDPOINT_IN, usb.util.ENDPOINT_OUT}:
                raise TransportError(f"USB device {self.vid:04x}:{self.pid:04x} has no bulk "
                                     f"IN/OUT endpoint pair on interface 0")
            usb.util.claim_interface(device, interface.bInterfaceNumber)
        except usb.core.USBError as exc:
            raise TransportError(f"cannot open USB device {self.vid:04x}:{self.pid:04x}: "
                                 f"{exc}") from exc
        self._ep_in = endpoints[usb.util.ENDPOINT_IN]
        self._ep_out = endpoints[usb.util.ENDPOINT_OUT]
        return device

    def _read_sync(self, device: Any) -> bytes:
        while not self._closed.is_set():
            try:
                data = device.read(self._ep_in, self.packet_size, self.read_timeout_ms)
            except usb.core.USBTimeoutError:
                continue
            except usb.core.USBError as exc:
                raise TransportError(f"USB device {self.vid:04x}:{self.pid:04x} went away: "
                                     f"{exc}") from exc
            if len(data):
                return bytes(data)
        raise TransportError(f"USB device {self.vid:04x}:{self.pid:04x} is closed")

    async def read(self) -> bytes:
        device = self._device
        if device is None:
            raise TransportError(f"USB device {self.vid:04x}:{self.pid:04x} is closed")
        return await asyncio.to_thread(self._read_sync, device)

    async def write(self, data: bytes) -> None:
        device = self._device
        if device is None:
            raise TransportError(f"USB device {self.vid:04x}:{self.pid:04x} is closed")
        try:
            await asyncio.to_thread(device.write, self._ep_out, data, self.write_timeout_ms)
        except usb.core.USBError as exc:
            raise TransportError(f"write to USB device {self.vid:04x}:{self.pid:04x} failed: "
                                 f"{exc}") from exc

    async def close(self) -> None:
        device, self._device = self._device, None
        self._closed.set()
        if device is None:
            return
        with contextlib.suppress(usb.core.USBError):  # a vanished device has nothing to release
            await asyncio.to_thread(usb.util.dispose_resources, device)
