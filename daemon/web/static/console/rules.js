// What the forms offer follows the game's ruleset (abortive draws, riichi, pao, multiple ron).
import { ABORT_WORDS } from "./vocabulary.js";
import { $, el } from "./dom.js";
import { store } from "./store.js";
import { setFuTable } from "./tilepick.js";

let rulesSig = "";
export function renderRules() {
  const info = store.state.ruleset_info;
  const sig = JSON.stringify(info);
  if (sig === rulesSig) return;
  rulesSig = sig;
  setFuTable(info ? info.fu : null);
  // hand values as the family counts them: han/fu and yakuman, or Zung Jung points
  const zj = !!info && info.family === "zung_jung";
  for (const m of ["hanfu", "yakuman"]) document.querySelector(`input[name="r-mode"][value="${m}"]`).closest("label").classList.toggle("off", zj);
  document.querySelector('input[name="r-mode"][value="points"]').closest("label").classList.toggle("off", !!info && !zj);
  const mode = zj ? "points" : "hanfu";
  if (info) {
    document.querySelector(`input[name="r-mode"][value="${mode}"]`).checked = true;
    for (const m of document.querySelectorAll("#panel-result .mode")) m.hidden = m.dataset.mode !== mode;
  }
  if (!$("g-auto-hands").dataset.set) { $("g-auto-hands").checked = !!store.state.sensorless; $("g-auto-hands").dataset.set = "1"; }
  const sel = $("d-abort");
  sel.replaceChildren();
  const kinds = info ? info.abortive : [];
  for (const k of kinds) sel.append(el("option", { value: k, text: ABORT_WORDS[k] || k }));
  $("d-abort-pill").classList.toggle("off", !kinds.length);
  $("d-abort-hint").textContent = info && !kinds.length ? `${info.name} has no abortive draws.` : "";
  $("hand-box").hidden = !!info && !info.riichi;
  // pao only where the ruleset has it (M 8-1: daisangen, daisuushii, suukantsu)
  $("r-pao-row").classList.toggle("off", !info || !info.pao.length);
  $("r-pao-hint").textContent = info && info.pao.length ? `the seat that fed the last set of ${info.pao.join(", ")}` : "";
  $("r-multi-hint").textContent = !info ? "" : info.multiple_ron === "head_bump"
    ? `${info.name}: head-bump — only the winner nearest the discarder in turn order is paid.`
    : `${info.name}: every ron is paid.`;
}
