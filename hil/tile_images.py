"""Raster tile images and composed table frames, for the camera emulator, tests and benches.

Tile faces are FluffyStuff's riichi-mahjong-tiles (public domain) as shipped in the
``pymdownx-mahjong`` wheel (``pymdownx_mahjong/assets/light/*.svg``: ``1m``..``9s``, ``0m/0p/0s``
for the red fives, ``1z``..``7z`` for E S W N P F C). The SVGs are faces only, on a transparent
background; they are rendered with CairoSVG (Cairo through cffi: needs the ``libcairo2`` Debian
package, present on Raspberry Pi OS and Debian images) and laid on a drawn tile body — ivory face,
grey border, a darker edge below for the tile's depth — on a table-green background.
"""

from __future__ import annotations

import importlib.util
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Final

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw

from hil.errors import MissingToolError
from rules.tiles import parse_mjai

TABLE_GREEN: Final = (20, 110, 60)
FACE: Final = (245, 240, 235)
BORDER: Final = (160, 160, 160)
SIDE: Final = (208, 204, 200)


def assets_dir() -> Path:
    spec = importlib.util.find_spec("pymdownx_mahjong")
    if spec is None or not spec.submodule_search_locations:
        raise MissingToolError("tile images need the pymdownx-mahjong package (its SVG assets)")
    return Path(next(iter(spec.submodule_search_locations))) / "assets" / "light"


def asset_name(mjai: str) -> str:
    """mjai → the asset's compact name: ``5mr`` → ``0m``, ``E`` → ``1z``, ``C`` → ``7z``."""
    kind, red = parse_mjai(mjai)
    if kind.is_honor:
        return f"{kind.number}z"
    return f"{0 if red else kind.number}{'mps'[kind.suit]}"


@lru_cache(maxsize=512)
def render_face(mjai: str, width: int, height: int) -> Image.Image:
    import cairosvg  # type: ignore[import-untyped]

    png = cairosvg.svg2png(url=str(assets_dir() / f"{asset_name(mjai)}.svg"),
                           output_width=width, output_height=height)
    return Image.open(io.BytesIO(png)).convert("RGBA")


@lru_cache(maxsize=512)
def render_tile(mjai: str, width: int, depth: int | None = None) -> Image.Image:
    """An upright tile ``width`` wide (height 4/3 of it), plus ``depth`` pixels of edge below."""
    height = width * 4 // 3
    depth = max(2, width // 7) if depth is None else depth
    img = Image.new("RGBA", (width, height + depth), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    radius = max(2, width // 9)
    if depth:
        draw.rounded_rectangle((0, depth, width - 1, height - 1 + depth), radius, SIDE, (120,) * 3)
    draw.rounded_rectangle((0, 0, width - 1, height - 1), radius, FACE, BORDER)
    inset = max(2, width // 20)
    face = render_face(mjai, width - 2 * inset, height - 2 * inset)
    img.alpha_composite(face, (inset, inset))
    return img


@dataclass(frozen=True, slots=True)
class Placed:
    """Ground truth of one tile in a composed frame."""

    zone: str
    index: int  # position in its zone, left to right
    mjai: str
    box: tuple[int, int, int, int]  # x1, y1, x2, y2 of the tile's face


@dataclass(frozen=True, slots=True)
class ZoneRect:
    x: int
    y: int
    w: int
    h: int


def tile_width_for(rect: ZoneRect) -> int:
    """Tiles fill the zone's height (face 4:3 plus the edge)."""
    return max(8, int(rect.h * 0.85) * 3 // 4)


def compose(
    size: tuple[int, int],
    zones: Mapping[str, ZoneRect],
    contents: Mapping[str, Sequence[str | None]],
    *,
    gap: int = 2,
    background: tuple[int, int, int] = TABLE_GREEN,
) -> tuple[Image.Image, list[Placed]]:
    """A frame with the tiles of each zone in a row from the zone's left edge (``None`` leaves a
    tile's place empty); returns the image and where every tile is."""
    frame = Image.new("RGB", size, background)
    truth: list[Placed] = []
    for name, tiles in contents.items():
        rect = zones[name]
        w = tile_width_for(rect)
        x, y = rect.x + gap, rect.y + max(0, (rect.h - (w * 4 // 3 + max(2, w // 7))) // 2)
        for i, mjai in enumerate(tiles):
            if mjai is not None:
                tile = render_tile(mjai, w)
                frame.paste(tile, (x, y), tile)
                truth.append(Placed(name, i, mjai, (x, y, x + w, y + w * 4 // 3)))
            x += w + gap
    return frame, truth


def as_array(img: Image.Image) -> NDArray[np.uint8]:
    return np.asarray(img.convert("RGB"), dtype=np.uint8).copy()
