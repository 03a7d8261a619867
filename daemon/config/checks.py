"""The devices a config names exist (run before anything starts)."""

from __future__ import annotations

import os
from pathlib import Path

from daemon.config.values import Config
from daemon.errors import ConfigError


def check_devices(config: Config) -> None:
    """The devices named in the config exist (run before anything starts).

    ``JANTAKU_DEVICE_ROOT`` (tests, images being prepared) prefixes ``/dev`` paths.
    """
    file = config.source
    link = config.devices.table
    root = os.environ.get("JANTAKU_DEVICE_ROOT", "")
    if link.kind == "serial":
        assert link.path is not None
        dev = Path(root + str(link.path)) if root else link.path
        if not dev.exists():
            raise ConfigError(f"{file}: devices.table.path: no such device {link.path}")
    elif link.kind == "usb":
        import libusb_package

        try:
            found = libusb_package.find(
                idVendor=link.vid, idProduct=link.pid
            )
        except Exception as exc:  # pyusb raises several kinds when libusb is unusable
            raise ConfigError(f"{file}: devices.table: cannot enumerate USB: {exc}") from None
        if found is None:
            raise ConfigError(
                f"{file}: devices.table: no USB device {link.vid:04x}:{link.pid:04x} attached"
            )
    clocks_path = config.devices.displays.clocks_path
    if clocks_path is not None:
        dev = Path(root + str(clocks_path)) if root else clocks_path
        if not dev.exists():
            raise ConfigError(f"{file}: devices.displays.clocks_path: no such device {clocks_path}")
    gpio_needed = link.kind == "gpio" or config.devices.buttons.kind == "gpio"
    if gpio_needed and not os.environ.get("GPIOZERO_PIN_FACTORY"):
        chips = list(Path(root + "/dev").glob("gpiochip*")) if Path(root + "/dev").exists() else []
        if not chips:
            raise ConfigError(
                f"{file}: devices: GPIO pins are configured but there is no /dev/gpiochip*"
            )
    parent = config.eventlog.path.parent
    if not parent.is_dir():
        raise ConfigError(f"{file}: eventlog.path: directory {parent} does not exist")
