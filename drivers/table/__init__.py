"""Table drivers: one :class:`TableLink` interface over the table-link protocol (serial or USB
transport, :class:`drivers.table.session.LinkSession`) or over plain GPIO
(:class:`drivers.table.gpio.GpioTableLink`). :func:`open_table_link` builds one from a URL, by
default from the ``JANTAKU_TABLE`` environment variable:

* ``serial:///dev/serial/by-id/usb-jantaku-ctl?baud=115200``
* ``usb://1209:4a54``
* ``gpio://?relay=17&wall=27``
"""

from __future__ import annotations

import os
from urllib.parse import parse_qs, urlsplit

from drivers.link.errors import LinkConfigError
from drivers.link.reports import RxPosition
from drivers.link.timings import LinkTimings
from drivers.table.link import Delivery, LinkChange, LinkState, LinkStatus, TableLink

__all__ = ["Delivery", "LinkChange", "LinkState", "LinkStatus", "RxPosition", "TableLink",
           "open_table_link"]

ENV_VAR = "JANTAKU_TABLE"


def open_table_link(
    url: str | None = None, *, timings: LinkTimings | None = None,
    resume: RxPosition | None = None,
) -> TableLink:
    """A not-yet-entered TableLink for ``url`` (use ``async with``); ``resume``: what an earlier
    process made durable of the table's events (its ``hello`` reports it). Raises ValueError
    naming the URL and the accepted forms."""
    url = url if url is not None else os.environ.get(ENV_VAR, "")
    parts = urlsplit(url)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    forms = "serial:///dev/ttyX?baud=N, usb://VID:PID or gpio://?relay=PIN&wall=PIN"
    try:
        if parts.scheme == "serial" and parts.path:
            from drivers.table.serial import SerialTransport
            from drivers.table.session import LinkSession

            return LinkSession(SerialTransport(parts.path, int(query.get("baud", "115200"))),
                               timings=timings, resume=resume)
        if parts.scheme == "usb" and parts.netloc:
            from drivers.table.session import LinkSession
            from drivers.table.usb import UsbTransport

            vid, pid = (int(x, 16) for x in parts.netloc.split(":"))
            return LinkSession(UsbTransport(vid, pid), timings=timings, resume=resume)
        if parts.scheme == "gpio" and {"relay", "wall"} <= set(query):
            from drivers.table.gpio import GpioTableLink

            return GpioTableLink(relay_pin=int(query["relay"]), wall_pin=int(query["wall"]))
    except ValueError as exc:
        raise LinkConfigError(f"bad table link URL {url!r}: {exc}; expected {forms}") from None
    raise LinkConfigError(f"bad table link URL {url!r}; expected {forms}")
