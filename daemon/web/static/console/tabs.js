// The panel tabs: one panel open at a time, a tab disabled where the role may do none of its commands.
import { closePreview } from "./preview.js";
import { store } from "./store.js";

for (const b of document.querySelectorAll("[data-tab]")) {
  b.addEventListener("click", () => openTab(b.dataset.tab));
}
export function openTab(tab) {
  for (const p of document.querySelectorAll(".panel")) p.hidden = p.id !== `panel-${tab}`;
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("on", b.dataset.tab === tab);
  closePreview();
}
export const TAB_COMMANDS = { result: ["manual_result"], draw: ["manual_result"], penalty: ["chombo", "penalty", "dead_hand"], correct: ["set_scores", "swap_seats"], win: ["confirm_win", "reject_win"], clock: ["pause", "resume"], undo: ["undo"], game: ["new_game", "end_game"] };
export const tabAllowed = (tab) => !store.state || (TAB_COMMANDS[tab] || []).some((c) => store.state.allowed.includes(c));
