"""The [tiles] config section (drivers/tiles/config.py): readers by stable path, camera zones."""

from __future__ import annotations

import tomllib

import pytest

from drivers.tiles.config import build_readers, parse_tiles_config
from drivers.tiles.errors import SensorConfigError
from drivers.tiles.evdev_reader import EvdevTagReader
from drivers.tiles.places import Place, Zone
from drivers.tiles.serial_reader import SerialTagReader
from rules.seats import Seat

EXAMPLE = """
enrolment = "/var/lib/jantaku/tiles-set-a.json"
debounce_ms = 1200

[[readers]]
name = "s0-hand"
kind = "evdev"
path = "/dev/input/by-path/platform-fd500000.pcie-pci-0000:01:00.0-usb-0:1.1:1.0-event-kbd"
seat = 0
zone = "hand"

[[readers]]
name = "dora"
kind = "serial"
path = "/dev/serial/by-path/platform-fd500000.pcie-pci-0000:01:00.0-usb-0:1.4:1.0-port0"
zone = "dora"
baud = 9600

[camera]
source = "picamera2"
threshold = 0.6
need = 3
window = 5

[[camera.zones]]
name = "river0"
seat = 0
zone = "river"
rect = [340, 560, 600, 80]

[[camera.zones]]
name = "dora"
zone = "dora"
rect = [1040, 300, 120, 80]
"""


def test_the_documented_example_parses() -> None:
    cfg = parse_tiles_config(tomllib.loads(EXAMPLE))
    assert cfg.debounce_ms == 1200 and str(cfg.enrolment).endswith("tiles-set-a.json")
    assert cfg.places() == {"s0-hand": Place(Zone.HAND, Seat(0)), "dora": Place(Zone.DORA)}
    readers = build_readers(cfg)
    assert isinstance(readers[0], EvdevTagReader) and readers[0].grab
    assert isinstance(readers[1], SerialTagReader) and readers[1].baudrate == 9600
    assert cfg.camera is not None and cfg.camera.rule.threshold == 0.6
    assert [z.rect for z in cfg.camera.zones] == [(340, 560, 600, 80), (1040, 300, 120, 80)]
    assert cfg.camera.model is None and cfg.camera.classes is None


def mutate(old: str, new: str) -> dict[str, object]:
    assert old in EXAMPLE
    return tomllib.loads(EXAMPLE.replace(old, new, 1))


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        ("-event-kbd", "", "by-path"),  # fine: still by-path; see next for eventN
        ("/dev/input/by-path/platform-fd500000.pcie-pci-0000:01:00.0-usb-0:1.1:1.0-event-kbd",
         "/dev/input/event3", "name evdev readers by /dev/input/by-path"),
        ('kind = "serial"', 'kind = "usb"', "expected 'evdev' or 'serial'"),
        ('zone = "hand"', 'zone = "lap"', "unknown zone 'lap'"),
        ('zone = "dora"\nbaud', 'zone = "dora"\nseat = 1\nbaud', "belongs to no seat"),
        ("seat = 0\nzone = \"hand\"", 'zone = "hand"', "needs a seat"),
        ('name = "dora"\nkind', 'name = "s0-hand"\nkind', "name must be unique"),
        ("baud = 9600", 'baud = "fast"', "readers[1].baud: expected int"),
        ("need = 3", "need = 7", "need must be 1..window"),
        ("rect = [340, 560, 600, 80]", "rect = [340, 560, 600]", "expected [x, y, width, height]"),
        ("rect = [340, 560, 600, 80]", "rect = [340, 560, 0, 80]", "bad rectangle"),
        ('source = "picamera2"', 'source = "picamera2"\nmodel = "venue.onnx"',
         "needs its 'classes'"),
        ('source = "picamera2"', 'source = "webcam"', "expected 'picamera2', 'opencv:INDEX'"),
    ],
)
def test_bad_configs_are_refused_precisely(old: str, new: str, why: str) -> None:
    doc = mutate(old, new)
    if old == "-event-kbd":
        parse_tiles_config(doc)  # a by-path name need not end in -event-kbd
        return
    with pytest.raises(SensorConfigError) as exc:
        parse_tiles_config(doc)
    assert why in str(exc.value)
