"""A fake pyusb backend: the table controller (``hil.table_controller.TableController``) as a USB
device with one vendor interface and a bulk IN/OUT endpoint pair.

pyusb supports custom backends by subclassing ``usb.backend.IBackend``; ``usb.core.find(...,
backend=FakeUsbBackend(...))`` then enumerates this device, and the real
``drivers.table.usb.UsbTransport`` code runs unchanged against it. A thread ticks the controller
(heartbeats, retransmissions); bulk reads wait on a condition for the controller's output.
``unplug()`` makes the device vanish (transfers fail with ENODEV, enumeration finds nothing) and
``plug()`` brings it back as a new device address.
"""

from __future__ import annotations

import array
import errno
import threading
import time
from dataclasses import dataclass, field

import usb.backend
import usb.core

from hil.errors import UsbLookupError
from hil.table_controller import TableController

BULK = 0x02
EP_OUT = 0x01
EP_IN = 0x81


@dataclass
class _DeviceDescriptor:
    idVendor: int
    idProduct: int
    address: int
    bLength: int = 18
    bDescriptorType: int = 1
    bcdUSB: int = 0x0200
    bDeviceClass: int = 0xFF
    bDeviceSubClass: int = 0
    bDeviceProtocol: int = 0
    bMaxPacketSize0: int = 64
    bcdDevice: int = 0x0100
    iManufacturer: int = 0
    iProduct: int = 0
    iSerialNumber: int = 0
    bNumConfigurations: int = 1
    bus: int = 1
    port_number: int = 1
    port_numbers: tuple[int, ...] = (1,)
    speed: int = 3


@dataclass
class _ConfigDescriptor:
    bLength: int = 9
    bDescriptorType: int = 2
    wTotalLength: int = 32
    bNumInterfaces: int = 1
    bConfigurationValue: int = 1
    iConfiguration: int = 0
    bmAttributes: int = 0x80
    bMaxPower: int = 50
    extra_descriptors: list[int] = field(default_factory=list)
    extra: list[int] = field(default_factory=list)


@dataclass
class _InterfaceDescriptor:
    bLength: int = 9
    bDescriptorType: int = 4
    bInterfaceNumber: int = 0
    bAlternateSetting: int = 0
    bNumEndpoints: int = 2
    bInterfaceClass: int = 0xFF
    bInterfaceSubClass: int = 0
    bInterfaceProtocol: int = 0
    iInterface: int = 0
    extra_descriptors: list[int] = field(default_factory=list)
    extra: list[int] = field(default_factory=list)


@dataclass
class _EndpointDescriptor:
    bEndpointAddress: int
    bLength: int = 7
    bDescriptorType: int = 5
    bmAttributes: int = BULK
    wMaxPacketSize: int = 64
    bInterval: int = 0
    bRefresh: int = 0
    bSynchAddress: int = 0
    extra_descriptors: list[int] = field(default_factory=list)
    extra: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class _Handle:
    address: int


def _gone() -> usb.core.USBError:
    return usb.core.USBError("No such device (it may have been disconnected)", -4, errno.ENODEV)


class FakeUsbBackend(usb.backend.IBackend):  # type: ignore[misc]
    def __init__(self, controller: TableController, *, vid: int = 0x1209, pid: int = 0x4A54,
                 tick: float = 0.005) -> None:
        super().__init__()
        self.controller = controller
        self.vid, self.pid = vid, pid
        self._tick = tick
        self._cond = threading.Condition()
        self._to_host = bytearray()
        self._address = 0
        self._plugged = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        controller.on_output = self._pull

    # --- emulator control ----------------------------------------------------------------------

    def start(self) -> FakeUsbBackend:
        self.plug()
        self._thread = threading.Thread(target=self._run, name="fake-usb-table", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.unplug()

    def plug(self) -> None:
        with self._cond:
            if self._plugged:
                return
            self._address += 1
            self._plugged = True
            self._to_host.clear()
        self.controller.attach()

    def unplug(self) -> None:
        with self._cond:
            if not self._plugged:
                return
            self._plugged = False
            self._to_host.clear()
            self._cond.notify_all()
        self.controller.detach()

    def _run(self) -> None:
        while not self._stop.wait(self._tick):
            with self._cond:
                plugged = self._plugged
            if plugged:
                self.controller.tick()

    def _pull(self) -> None:
        data = self.controller.take_output()
        with self._cond:
            if self._plugged and data:
                self._to_host += data
                self._cond.notify_all()

    def _check(self, handle: _Handle) -> None:
        if not self._plugged or handle.address != self._address:
            raise _gone()

    # --- usb.backend.IBackend ------------------------------------------------------------------

    def enumerate_devices(self) -> list[int]:
        with self._cond:
            return [self._address] if self._plugged else []

    def get_parent(self, dev: int) -> None:
        return None

    def get_device_descriptor(self, dev: int) -> _DeviceDescriptor:
        return _DeviceDescriptor(self.vid, self.pid, dev)

    def get_configuration_descriptor(self, dev: int, config: int) -> _ConfigDescriptor:
        if config != 0:
            raise UsbLookupError(f"configuration {config} does not exist")
        return _ConfigDescriptor()

    def get_interface_descriptor(self, dev: int, intf: int, alt: int,
                                 config: int) -> _InterfaceDescriptor:
        if intf != 0 or alt != 0 or config != 0:
            raise UsbLookupError(f"interface {intf} alt {alt} does not exist")
        return _InterfaceDescriptor()

    def get_endpoint_descriptor(self, dev: int, ep: int, intf: int, alt: int,
                                config: int) -> _EndpointDescriptor:
        if ep not in (0, 1) or intf != 0 or alt != 0 or config != 0:
            raise UsbLookupError(f"endpoint {ep} does not exist")
        return _EndpointDescriptor(EP_OUT if ep == 0 else EP_IN)

    def open_device(self, dev: int) -> _Handle:
        with self._cond:
            if not self._plugged or dev != self._address:
                raise _gone()
            return _Handle(dev)

    def close_device(self, dev_handle: _Handle) -> None:
        return None

    def set_configuration(self, dev_handle: _Handle, config_value: int) -> None:
        with self._cond:
            self._check(dev_handle)

    def get_configuration(self, dev_handle: _Handle) -> int:
        with self._cond:
            self._check(dev_handle)
        return 1

    def set_interface_altsetting(self, dev_handle: _Handle, intf: int, altsetting: int) -> None:
        return None

    def claim_interface(self, dev_handle: _Handle, intf: int) -> None:
        with self._cond:
            self._check(dev_handle)

    def release_interface(self, dev_handle: _Handle, intf: int) -> None:
        return None

    def bulk_write(self, dev_handle: _Handle, ep: int, intf: int, data: array.array[int],
                   timeout: int) -> int:
        with self._cond:
            self._check(dev_handle)
        if ep != EP_OUT:
            raise usb.core.USBError(f"endpoint {ep:#x} is not the bulk OUT endpoint", -2)
        self.controller.receive(bytes(data))
        return len(data)

    def bulk_read(self, dev_handle: _Handle, ep: int, intf: int, buff: array.array[int],
                  timeout: int) -> int:
        if ep != EP_IN:
            raise usb.core.USBError(f"endpoint {ep:#x} is not the bulk IN endpoint", -2)
        deadline = time.monotonic() + timeout / 1000
        with self._cond:
            while True:
                self._check(dev_handle)
                if self._to_host:
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    raise usb.core.USBTimeoutError("Operation timed out", -7, errno.ETIMEDOUT)
                self._cond.wait(left)
            n = min(len(buff), len(self._to_host))
            buff[:n] = array.array("B", self._to_host[:n])
            del self._to_host[:n]
            return n

    def clear_halt(self, dev_handle: _Handle, ep: int) -> None:
        return None
