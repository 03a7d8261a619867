"""The MQTT topic tree of one table, and the schema id of each payload (docs/mqtt.md).

Fixed points (tools outside the project rely on them): everything is under
``jantaku/v1/<table_id>/``; ``events`` (every event, QoS 1, not retained), ``state`` (retained
view model), ``status`` (retained availability, the Last Will), ``cmd/<name>`` (referee commands).
``events`` and ``state`` are public projections (daemon/disclosure.py); ``private/events`` and
``private/state`` carry the concealed facts too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

ROOT: Final = "jantaku/v1"

#: payload schema ids (``"schema"`` in every payload), one JSON Schema file each in daemon/schemas
SCHEMA_EVENT: Final = "jantaku/event/1"
SCHEMA_STATE: Final = "jantaku/state/1"
SCHEMA_STATUS: Final = "jantaku/status/1"
SCHEMA_SCORES: Final = "jantaku/scores/1"
SCHEMA_TIMERS: Final = "jantaku/timers/1"
SCHEMA_LINKS: Final = "jantaku/links/1"
SCHEMA_HEALTH: Final = "jantaku/health/1"
SCHEMA_COMMAND: Final = "jantaku/command/1"
SCHEMA_REPLY: Final = "jantaku/reply/1"
SCHEMA_BACKFILL_REQUEST: Final = "jantaku/backfill-request/1"
SCHEMA_BACKFILL: Final = "jantaku/backfill/1"


@dataclass(frozen=True, slots=True)
class Topics:
    table: str

    @property
    def base(self) -> str:
        return f"{ROOT}/{self.table}"

    @property
    def events(self) -> str:
        return f"{self.base}/events"

    @property
    def state(self) -> str:
        return f"{self.base}/state"

    @property
    def status(self) -> str:
        return f"{self.base}/status"

    @property
    def scores(self) -> str:
        return f"{self.base}/state/scores"

    @property
    def timers(self) -> str:
        return f"{self.base}/state/timers"

    @property
    def links(self) -> str:
        return f"{self.base}/state/links"

    @property
    def private_events(self) -> str:
        """Every event in full (same ``seq``): referee and broadcast-delay roles only."""
        return f"{self.base}/private/events"

    @property
    def private_state(self) -> str:
        """The retained view model in full: referee and broadcast-delay roles only."""
        return f"{self.base}/private/state"

    @property
    def health(self) -> str:
        return f"{self.base}/health"

    @property
    def cmd_filter(self) -> str:
        return f"{self.base}/cmd/+"

    def cmd(self, name: str) -> str:
        return f"{self.base}/cmd/{name}"

    def reply(self, client: str) -> str:
        """Where a v3.1.1 client gets its replies (a v5 client names its own response topic)."""
        return f"{self.base}/reply/{client}"

    def command_name(self, topic: str) -> str | None:
        prefix = f"{self.base}/cmd/"
        if not topic.startswith(prefix):
            return None
        name = topic[len(prefix) :]
        return name if name and "/" not in name else None

    # ------------------------------------------------------------------ backfill (docs/mqtt.md)
    def backfill_request(self, client: str, *, private: bool) -> str:
        """Where ``client`` asks for past events: under ``private/`` for the full stream (only
        the private readers may write there, systemd/mosquitto/jantaku.acl)."""
        return f"{self.base}/{'private/' if private else ''}backfill/request/{client}"

    def backfill_reply(self, client: str, *, private: bool) -> str:
        """Where the answer to ``client`` goes: under the tree its request came from."""
        return f"{self.base}/{'private/' if private else ''}backfill/reply/{client}"

    @property
    def backfill_filters(self) -> tuple[str, str]:
        return (self.backfill_request("+", private=False),
                self.backfill_request("+", private=True))

    def backfill_requester(self, topic: str) -> tuple[str, bool] | None:
        """``(client, private)`` of a request topic, ``None`` for any other topic."""
        for private in (False, True):
            prefix = self.backfill_request("", private=private)
            if topic.startswith(prefix):
                client = topic[len(prefix):]
                return (client, private) if client and "/" not in client else None
        return None
