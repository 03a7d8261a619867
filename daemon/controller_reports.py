"""What the table's controller says about itself (docs/protocol/table-link.md §12): it started
afresh and lost the events it had not sent, its queue overflowed, its configuration is wrong.

:class:`ControllerReports` is the table driver's tally of these (``links.table.controller`` in
``health``, the console's notices); :func:`notice` is the one sentence each becomes, in the log,
in health and on the console.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, assert_never

from drivers.link.messages import ConfigFault, ControllerReset, EventsDropped

log = logging.getLogger("jantaku.devices")

ControllerReport = ControllerReset | EventsDropped | ConfigFault

#: how a cause reads in a sentence
CAUSE_WORDS = {"power_on": "power-on", "reset_pin": "reset pin", "watchdog": "watchdog",
               "software": "software reset", "brown_out": "brown-out", "unknown": "unknown cause"}
PROBLEM_WORDS = {"json": "config.json is not a JSON object", "unknown_key": "unknown key",
                 "type": "wrong type", "value": "bad value", "pin_conflict": "pin used twice",
                 "unknown": "unknown problem"}


def notice(report: ControllerReport) -> str:
    """The sentence a report becomes (log, health, console)."""
    match report:
        case ControllerReset():
            lost = "count not known" if report.lost is None else str(report.lost)
            return (f"controller reset ({CAUSE_WORDS[report.name]}): its unsent events were lost"
                    f" ({lost})")
        case EventsDropped():
            return (f"controller queue full: {report.count} events dropped (the host was away "
                    "for longer than the controller's queue holds)")
        case ConfigFault():
            what = PROBLEM_WORDS[report.name]
            if report.pin is not None:
                what = f"pin {report.pin} used twice"
            key = "" if report.key is None else f"key {report.key!r}: "
            return f"controller config.json: {key}{what}; the controller runs the link only"
        case _:
            assert_never(report)


@dataclass
class ControllerReports:
    """The shell's tally (mutable, like the driver's other counters)."""

    resets: int = 0
    last_reset: dict[str, Any] | None = None
    events_dropped: int = 0
    #: the configuration problems of the controller's current boot
    config_faults: list[dict[str, Any]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    def take(self, report: ControllerReport, ts: str) -> None:
        text = notice(report)
        match report:
            case ControllerReset():
                self.resets += 1
                self.last_reset = {"cause": report.name, "lost": report.lost, "at": ts}
                self.config_faults = []  # a new boot checks its configuration afresh
                self.notices = [text]
                level = logging.INFO if report.name == "power_on" else logging.WARNING
            case EventsDropped():
                self.events_dropped += report.count
                self.notices = [*self.notices, text][-4:]
                level = logging.WARNING
            case ConfigFault():
                self.config_faults.append(
                    {"problem": report.name, "key": report.key, "pin": report.pin})
                self.notices = [*self.notices, text][-4:]
                level = logging.ERROR
            case _:
                assert_never(report)
        log.log(level, text, extra={"fields": {"event": report.to_json()["type"],
                                               **report.to_json()}})

    def health(self) -> dict[str, Any]:
        return {"resets": self.resets, "last_reset": self.last_reset,
                "events_dropped": self.events_dropped, "config_faults": self.config_faults,
                "notices": self.notices}
