"""The ``[tiles]`` section of the daemon's config: readers, enrolment, camera (docs/tiles.md).

Validated into frozen dataclasses with messages that name the key and what was expected; the
daemon builds its readers and camera pipeline from these (:func:`build_readers`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from drivers.tiles.camera import CameraZone
from drivers.tiles.errors import SensorConfigError
from drivers.tiles.evdev_reader import EvdevTagReader
from drivers.tiles.places import Place
from drivers.tiles.serial_reader import SerialTagReader
from drivers.tiles.voting import VoteRule

ReaderKind = Literal["evdev", "serial"]


@dataclass(frozen=True, slots=True)
class ReaderConfig:
    name: str
    kind: ReaderKind
    path: str
    place: Place
    baud: int = 9600
    grab: bool = True


@dataclass(frozen=True, slots=True)
class CameraConfig:
    source: str  # "picamera2", "opencv:0", "opencv:/dev/video0", "opencv:file.mp4"
    width: int
    height: int
    model: Path | None
    classes: tuple[str, ...] | None
    rule: VoteRule
    zones: tuple[CameraZone, ...]


@dataclass(frozen=True, slots=True)
class TilesConfig:
    enrolment: Path | None
    debounce_ms: int
    readers: tuple[ReaderConfig, ...]
    camera: CameraConfig | None

    def places(self) -> dict[str, Place]:
        return {r.name: r.place for r in self.readers}


_MISSING = object()


def _get(d: Mapping[str, object], key: str, typ: type, where: str, default: object) -> object:
    if key not in d:
        if default is _MISSING:
            raise SensorConfigError(f"{where}: missing {key!r}")
        return default
    value = d[key]
    if typ is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, typ) or (typ is not bool and isinstance(value, bool)):
        raise SensorConfigError(f"{where}.{key}: expected {typ.__name__}, got {value!r}")
    return value


#: every key of each table of ``[tiles]`` (docs/daemon.md): anything else is a typo, refused
_KEYS: dict[str, frozenset[str]] = {
    "tiles": frozenset({"enrolment", "debounce_ms", "readers", "camera"}),
    "reader": frozenset({"name", "kind", "path", "seat", "zone", "baud", "grab"}),
    "camera": frozenset({"source", "width", "height", "threshold", "need", "window", "model",
                         "classes", "zones"}),
    "zone": frozenset({"name", "seat", "zone", "rect"}),
}


def _known(d: Mapping[str, object], table: str, where: str) -> None:
    """A misspelt key (``debounce = 1500``) would be ignored silently: refuse it by name."""
    unknown = sorted(set(d) - _KEYS[table])
    if unknown:
        raise SensorConfigError(
            f"{where}: unknown key {unknown[0]!r} (known here: {sorted(_KEYS[table])})"
        )


def _str(d: Mapping[str, object], key: str, where: str, default: object = _MISSING) -> str:
    return str(_get(d, key, str, where, default))


def _opt_str(d: Mapping[str, object], key: str, where: str) -> str | None:
    value = _get(d, key, str, where, None)
    return None if value is None else str(value)


def _int(d: Mapping[str, object], key: str, where: str, default: object = _MISSING) -> int:
    value = _get(d, key, int, where, default)
    assert isinstance(value, int)
    return value


def _float(d: Mapping[str, object], key: str, where: str, default: float) -> float:
    value = _get(d, key, float, where, default)
    assert isinstance(value, float)
    return value


def _list(
    d: Mapping[str, object], key: str, where: str, default: object = _MISSING
) -> list[object]:
    value = _get(d, key, list, where, default)
    assert isinstance(value, list)
    return value


def _place(d: Mapping[str, object], where: str) -> Place:
    zone = _str(d, "zone", where)
    seat = _get(d, "seat", int, where, None)
    try:
        return Place.parse(zone, seat if isinstance(seat, int) else None)
    except ValueError as exc:
        raise SensorConfigError(f"{where}: {exc}") from None


def _reader(d: object, i: int) -> ReaderConfig:
    where = f"tiles.readers[{i}]"
    if not isinstance(d, Mapping):
        raise SensorConfigError(f"{where}: expected a table")
    _known(d, "reader", where)
    kind = _str(d, "kind", where)
    if kind not in ("evdev", "serial"):
        raise SensorConfigError(f"{where}.kind: expected 'evdev' or 'serial', got {kind!r}")
    path = _str(d, "path", where)
    if kind == "evdev" and "/by-path/" not in path and "/by-id/" not in path:
        raise SensorConfigError(
            f"{where}.path: {path!r} — name evdev readers by /dev/input/by-path (stable across "
            f"re-plugs and reboots), not /dev/input/eventN"
        )
    return ReaderConfig(
        name=_str(d, "name", where),
        kind="evdev" if kind == "evdev" else "serial",
        path=path,
        place=_place(d, where),
        baud=_int(d, "baud", where, 9600),
        grab=bool(_get(d, "grab", bool, where, True)),
    )


def _zone(d: object, i: int) -> CameraZone:
    where = f"tiles.camera.zones[{i}]"
    if not isinstance(d, Mapping):
        raise SensorConfigError(f"{where}: expected a table")
    _known(d, "zone", where)
    rect = _list(d, "rect", where)
    if len(rect) != 4 or not all(isinstance(v, int) and not isinstance(v, bool) for v in rect):
        raise SensorConfigError(f"{where}.rect: expected [x, y, width, height], got {rect!r}")
    x, y, w, h = (int(v) for v in rect if isinstance(v, int))
    try:
        return CameraZone(_str(d, "name", where), _place(d, where), (x, y, w, h))
    except SensorConfigError as exc:
        raise SensorConfigError(f"{where}: {exc}") from None


def _camera(d: object) -> CameraConfig:
    where = "tiles.camera"
    if not isinstance(d, Mapping):
        raise SensorConfigError(f"{where}: expected a table")
    _known(d, "camera", where)
    model = _opt_str(d, "model", where)
    classes = d.get("classes")
    if classes is not None and (
        not isinstance(classes, list) or not all(isinstance(c, str) for c in classes)
    ):
        raise SensorConfigError(f"{where}.classes: expected a list of mjai names, got {classes!r}")
    if model is not None and classes is None:
        raise SensorConfigError(f"{where}: a 'model' needs its 'classes' (mjai, output order)")
    zones_raw = _list(d, "zones", where)
    try:
        rule = VoteRule(_int(d, "need", where, 3), _int(d, "window", where, 5),
                        _float(d, "threshold", where, 0.5))
    except ValueError as exc:
        raise SensorConfigError(f"{where}: {exc}") from None
    zones = tuple(_zone(z, i) for i, z in enumerate(zones_raw))
    names = [z.name for z in zones]
    if len(set(names)) != len(names):
        raise SensorConfigError(f"{where}.zones: names must be unique, got {names}")
    source = _str(d, "source", where, "picamera2")
    if source != "picamera2" and not (source.startswith("opencv:") and len(source) > 7):
        raise SensorConfigError(
            f"{where}.source: expected 'picamera2', 'opencv:INDEX' or 'opencv:PATH', got {source!r}"
        )
    return CameraConfig(
        source=source,
        width=_int(d, "width", where, 1280),
        height=_int(d, "height", where, 720),
        model=None if model is None else Path(model),
        classes=None if classes is None else tuple(str(c) for c in classes),
        rule=rule,
        zones=zones,
    )


def parse_tiles_config(section: Mapping[str, object]) -> TilesConfig:
    where = "tiles"
    _known(section, "tiles", where)
    readers_raw = _list(section, "readers", where, [])
    readers = tuple(_reader(r, i) for i, r in enumerate(readers_raw))
    for key in ("name", "path"):
        values = [getattr(r, key) for r in readers]
        dupes = sorted({v for v in values if values.count(v) > 1})
        if dupes:
            raise SensorConfigError(f"tiles.readers: {key} must be unique, repeated: {dupes}")
    enrolment = _opt_str(section, "enrolment", where)
    camera = section.get("camera")
    return TilesConfig(
        enrolment=None if enrolment is None else Path(enrolment),
        debounce_ms=_int(section, "debounce_ms", where, 1500),
        readers=readers,
        camera=None if camera is None else _camera(camera),
    )


def build_readers(config: TilesConfig) -> Sequence[EvdevTagReader | SerialTagReader]:
    out: list[EvdevTagReader | SerialTagReader] = []
    for r in config.readers:
        if r.kind == "evdev":
            out.append(EvdevTagReader(r.name, r.path, grab=r.grab))
        else:
            out.append(SerialTagReader(r.name, r.path, baudrate=r.baud))
    return out
