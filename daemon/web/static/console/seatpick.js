// The seat pickers (.seatpick): one seat or a set of seats per picker, kept across pushed states.
import { POS, SEATS } from "./vocabulary.js";
import { el } from "./dom.js";
import { seatName } from "./names.js";

export const chosen = {};  // picker id -> seat or Set of seats
export let pickerSig = "";
let riichiHand = null;    // the hand the riichi picker belongs to
// seats that cannot be picked here given the other pickers (the winner cannot have dealt in)
const EXCLUDE = { "r-loser": ["r-winner", "r-winner2"], "r-winner": ["r-loser"], "r-winner2": ["r-loser", "r-winner"], "r-pao": ["r-winner"] };
export function renderSeatPickers(force) {
  const sig = SEATS.map(seatName).join("|") + JSON.stringify(Object.entries(chosen).map(([k, v]) => [k, v instanceof Set ? [...v] : v]));
  if (!force && sig === pickerSig) return;
  pickerSig = sig;
  for (const box of document.querySelectorAll(".seatpick")) {
    const id = box.id;
    const multi = box.classList.contains("multi");
    if (chosen[id] === undefined) chosen[id] = multi ? new Set() : null;
    box.replaceChildren();
    for (const s of SEATS) {
      const on = multi ? chosen[id].has(s) : chosen[id] === s;
      const barred = (EXCLUDE[id] || []).some((other) => chosen[other] === s);
      const attrs = { type: "button", class: `${on ? "on " : ""}pos-${POS[s]}`, "data-seat": String(s), text: seatName(s) };
      if (barred) { attrs.disabled = "disabled"; attrs.title = "already picked as the other side of this win"; }
      box.append(el("button", { ...attrs, onclick: () => {
        if (multi) { if (chosen[id].has(s)) chosen[id].delete(s); else chosen[id].add(s); }
        else chosen[id] = chosen[id] === s ? null : s;
        renderSeatPickers(true);
      } }));
    }
  }
}

// a new hand: the riichi picker starts from what the table saw (nothing, without sensors)
export function followHand(snap) {
  if (snap.hand !== riichiHand) {
    riichiHand = snap.hand;
    chosen["h-riichi"] = new Set((snap.seats || []).filter((x) => x.riichi === "accepted").map((x) => x.seat));
    pickerSig = "";
  }
}
export const riichiList = () => [...(chosen["h-riichi"] || [])].sort();
