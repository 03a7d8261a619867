"""The daemon's configuration: one TOML file, validated completely before anything starts.

An unknown key, a wrong type, a missing value or a missing device fails with one
:class:`~daemon.errors.ConfigError` naming the file and the key (docs/daemon.md lists every key;
``systemd/jantaku.example.toml`` is a complete example). Secrets (the MQTT password, referee keys)
are held in :class:`Secret`, whose repr and str never show the value.
"""

from __future__ import annotations

from daemon.config.checks import check_devices
from daemon.config.reading import MIN_SPECTATOR_DELAY_S, load_config, parse_config
from daemon.config.values import (
    COMMANDS,
    CONFIG_VERSION,
    DEFAULT_ROLES,
    LOG_LEVELS,
    TABLE_ID,
    ButtonsConfig,
    CommandIntakeConfig,
    Config,
    DevicesConfig,
    DisplaysConfig,
    EventLogConfig,
    LoggingConfig,
    MqttConfig,
    RefereeConfig,
    RefereeUser,
    Secret,
    TableConfig,
    TableLinkConfig,
    TlsConfig,
    WebConfig,
    WebLimits,
)

__all__ = [
    "COMMANDS",
    "CONFIG_VERSION",
    "DEFAULT_ROLES",
    "LOG_LEVELS",
    "MIN_SPECTATOR_DELAY_S",
    "TABLE_ID",
    "ButtonsConfig",
    "CommandIntakeConfig",
    "Config",
    "DevicesConfig",
    "DisplaysConfig",
    "EventLogConfig",
    "LoggingConfig",
    "MqttConfig",
    "RefereeConfig",
    "RefereeUser",
    "Secret",
    "TableConfig",
    "TableLinkConfig",
    "TlsConfig",
    "WebConfig",
    "WebLimits",
    "check_devices",
    "load_config",
    "parse_config",
]
