// Tile images and names: mjai names to the bundled SVGs, physical tile ids to mjai names.
import { HONORS, SUITS } from "./vocabulary.js";
import { el } from "./dom.js";

// mjai name ("5m", "5mr", "E") -> tile image (bundled with the overlay: /tiles/)
export const tileImg = (name) => {
  let file;
  if (HONORS.includes(name)) file = `${HONORS.indexOf(name) + 1}z`;
  else if (name.endsWith("r")) file = `0${name[1]}`;
  else file = name;
  return el("img", { src: `/tiles/${file}.svg`, alt: name, title: name, draggable: "false" });
};

// physical tile id 0..135 (rules/tiles.py) -> mjai name; red fives are ids 16, 52, 88
export const tileName = (id) => {
  const k = id >> 2;
  if (k >= 27) return HONORS[k - 27];
  return `${(k % 9) + 1}${SUITS[Math.floor(k / 9)]}${[16, 52, 88].includes(id) ? "r" : ""}`;
};
