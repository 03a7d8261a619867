"""Every timing of the table link (docs/protocol/table-link.md §7): one frozen value per link,
checked when it is made, so that tests pass shorter timings instead of patching constants."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from drivers.link.errors import LinkConfigError


@dataclass(frozen=True, slots=True)
class LinkTimings:
    """Every timing of the link, in seconds. Defaults suit 115200 baud (a 150-byte wall manifest
    is 13 ms on the wire); tests pass shorter ones instead of patching constants."""

    heartbeat_interval: float = 0.25
    link_timeout: float = 1.0
    ack_timeout: float = 0.15
    max_retries: int = 4
    hello_interval: float = 0.2
    nak_holdoff: float = 0.02
    backoff_initial: float = 0.05
    backoff_max: float = 0.5

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not value > 0:
                raise LinkConfigError(f"LinkTimings.{f.name} must be > 0, got {value!r}")
        if self.link_timeout < 2 * self.heartbeat_interval:
            raise LinkConfigError(f"link_timeout ({self.link_timeout}) must be at least two "
                             f"heartbeat intervals ({self.heartbeat_interval})")
        if self.backoff_max < self.backoff_initial:
            raise LinkConfigError(f"backoff_max ({self.backoff_max}) < backoff_initial "
                             f"({self.backoff_initial})")

    def scaled(self, factor: float) -> LinkTimings:
        """The waits for the peer ``factor`` times longer (``hello_interval`` and the reopen
        backoffs unchanged: a host still says hello every 0.2 s): for a controller slower than
        real time, such as the emulated RP2040 (docs/firmware.md "On the emulated chip")."""
        return replace(self, heartbeat_interval=self.heartbeat_interval * factor,
                       link_timeout=self.link_timeout * factor,
                       ack_timeout=self.ack_timeout * factor,
                       nak_holdoff=self.nak_holdoff * factor)

    def backoff(self, attempt: int) -> float:
        """Delay before reopening the transport after ``attempt`` failed opens (0-based)."""
        return float(min(self.backoff_max, self.backoff_initial * 2 ** min(attempt, 32)))
