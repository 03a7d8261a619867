"""The maintenance jumper (``Config.maintenance_pin`` to GND at power-up: do not run, leave the
USB REPL to ``mpremote``; docs/firmware.md). Read by ``main.py`` before the watchdog is armed (an
armed RP2040 watchdog cannot be stopped), so this module stays small and never raises."""

import machine

DEFAULT_PIN = 15


def configured_pin(path: str = "/config.json") -> int | None:
    """The jumper's pin: config.json's ``maintenance_pin`` when it is a pin number or null, else
    the default (a broken config.json is reported later, with the link up)."""
    try:
        import json

        with open(path) as f:
            value = json.load(f).get("maintenance_pin", DEFAULT_PIN)
    except Exception:
        return DEFAULT_PIN
    if value is None:
        return None
    return value if isinstance(value, int) and 0 <= value <= 29 else DEFAULT_PIN


def maintenance(path: str = "/config.json") -> bool:
    pin = configured_pin(path)
    return pin is not None and machine.Pin(pin, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0
