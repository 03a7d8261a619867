"""Table drivers: one :class:`TableLink` interface over the table-link protocol (serial or USB
transport, :class:`drivers.table.session.LinkSession`) or over plain GPIO
(:class:`drivers.table.gpio.GpioTableLink`). :func:`open_table_link` builds one from a
:data:`LinkSpec` value (what the daemon's config holds), or from a URL, by default from the
``JANTAKU_TABLE`` environment variable (:func:`parse_table_link`):

* ``serial:///dev/serial/by-id/usb-jantaku-ctl?baud=115200``
* ``usb://1209:4a54``
* ``gpio://?relay=17&wall=27``
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TypeAlias, assert_never
from urllib.parse import parse_qs, urlsplit

from drivers.link.errors import LinkConfigError
from drivers.link.reports import RxPosition
from drivers.link.timings import LinkTimings
from drivers.table.link import Delivery, LinkChange, LinkState, LinkStatus, TableLink

__all__ = ["Delivery", "GpioLink", "LinkChange", "LinkSpec", "LinkState", "LinkStatus",
           "RxPosition", "SerialLink", "TableLink", "UsbLink", "open_table_link",
           "parse_table_link"]

ENV_VAR = "JANTAKU_TABLE"

_FORMS = "serial:///dev/ttyX?baud=N, usb://VID:PID or gpio://?relay=PIN&wall=PIN"


@dataclass(frozen=True, slots=True)
class SerialLink:
    """The table-link protocol over a serial port."""

    path: str
    baud: int = 115200


@dataclass(frozen=True, slots=True)
class UsbLink:
    """The table-link protocol over USB bulk endpoints (vendor, product id)."""

    vid: int
    pid: int


@dataclass(frozen=True, slots=True)
class GpioLink:
    """A table without a data link: a relay starts it, a contact reports the wall raised."""

    relay: int
    wall: int


LinkSpec: TypeAlias = SerialLink | UsbLink | GpioLink


def parse_table_link(url: str) -> LinkSpec:
    """The link a URL names. Raises ValueError naming the URL and the accepted forms."""
    parts = urlsplit(url)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    try:
        if parts.scheme == "serial" and parts.path:
            return SerialLink(parts.path, int(query.get("baud", "115200")))
        if parts.scheme == "usb" and parts.netloc:
            vid, pid = (int(x, 16) for x in parts.netloc.split(":"))
            return UsbLink(vid, pid)
        if parts.scheme == "gpio" and {"relay", "wall"} <= set(query):
            return GpioLink(int(query["relay"]), int(query["wall"]))
    except ValueError as exc:
        raise LinkConfigError(f"bad table link URL {url!r}: {exc}; expected {_FORMS}") from None
    raise LinkConfigError(f"bad table link URL {url!r}; expected {_FORMS}")


def open_table_link(
    spec: LinkSpec | str | None = None, *, timings: LinkTimings | None = None,
    resume: RxPosition | None = None,
) -> TableLink:
    """A not-yet-entered TableLink for ``spec`` (a URL: :func:`parse_table_link`; None: the
    ``JANTAKU_TABLE`` URL); use ``async with``. ``resume``: what an earlier process made durable
    of the table's events (its ``hello`` reports it)."""
    if spec is None:
        spec = os.environ.get(ENV_VAR, "")
    if isinstance(spec, str):
        spec = parse_table_link(spec)
    match spec:
        case SerialLink():
            from drivers.table.serial import SerialTransport
            from drivers.table.session import LinkSession

            return LinkSession(SerialTransport(spec.path, spec.baud), timings=timings,
                               resume=resume)
        case UsbLink():
            from drivers.table.session import LinkSession
            from drivers.table.usb import UsbTransport

            return LinkSession(UsbTransport(spec.vid, spec.pid), timings=timings, resume=resume)
        case GpioLink():
            from drivers.table.gpio import GpioTableLink

            return GpioTableLink(relay_pin=spec.relay, wall_pin=spec.wall)
        case _:
            assert_never(spec)
