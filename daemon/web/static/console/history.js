// The hand history of the game: each hand's result and score changes, with undo and correct.
import { ABORT_WORDS, SEATS } from "./vocabulary.js";
import { $, el } from "./dom.js";
import { plainName } from "./names.js";
import { store } from "./store.js";
import { pickerSig } from "./seatpick.js";
import { openTab, tabAllowed } from "./tabs.js";
import { startPreview } from "./preview.js";

const signed = (d) => (d > 0 ? "+" : "") + d;
function resultText(h) {
  if (!h.ended) return "being played";
  const who = plainName;
  if (h.kind === "win") {
    const paid = h.wins.map((w) => {
      const v = w.value ? `${w.value} points` : w.yakuman ? `${w.yakuman}× yakuman` : `${w.han} han${w.fu && w.han < 5 ? ` ${w.fu} fu` : ""}${w.limit ? ` ${w.limit}` : ""}`;
      return `${who(w.winner)} ${w.loser == null ? "tsumo" : `ron from ${who(w.loser)}`} (${v})`;
    });
    const bumped = h.declared.filter((s) => !h.wins.some((w) => w.winner === s));
    return paid.join("; ") + (bumped.length ? `; head-bumped: ${bumped.map(who).join(", ")}` : "");
  }
  if (h.kind === "exhaustive") return h.tenpai.length ? `draw, tenpai: ${h.tenpai.map(who).join(", ")}` : "draw, all noten";
  if (h.kind === "abortive") return `abortive draw: ${ABORT_WORDS[h.abort] || h.abort || "triple ron"}`;
  if (h.kind === "chombo") return `chombo: ${who(h.offender)}${h.replay ? " (hand replayed)" : ""}`;
  return h.kind || "";
}
export function renderHistory() {
  const t = $("history");
  const rows = store.state.history || [];
  const sig = JSON.stringify(rows) + pickerSig;
  if (t.dataset.sig === sig) return;
  t.dataset.sig = sig;
  t.replaceChildren(el("tr", {}, el("th", { text: "Hand" }), el("th", { text: "Result" }), ...SEATS.map((s) => el("th", { text: plainName(s) }))));
  for (const h of rows) {
    if (!h.ended) continue;
    if (h.kind === "correction") {
      t.append(el("tr", { class: "correction-row" }, el("td", {}), el("td", { class: "result", text: "score correction (referee)" }),
        ...SEATS.map((s) => el("td", { class: h.deltas[s] > 0 ? "plus" : h.deltas[s] < 0 ? "minus" : "", "data-seat": String(s), text: signed(h.deltas[s]) }))));
      continue;
    }
    const riichi = h.riichi.length ? ` · riichi ${h.riichi.map(plainName).join(", ")}` : "";
    t.append(el("tr", { "data-hand": String(h.hand), class: "delta-row" },
      el("td", { text: `${h.label}${h.honba ? `-${h.honba}` : ""}` }),
      el("td", { class: "result", text: resultText(h) + riichi }),
      ...SEATS.map((s) => el("td", { class: h.deltas[s] > 0 ? "plus" : h.deltas[s] < 0 ? "minus" : "", "data-seat": String(s), text: signed(h.deltas[s]) },
        // a chombo's pt penalty (M 7-4-1: −20 pt) moves no points: it is shown beside them
        h.pt && h.pt[s] ? el("span", { class: "pt minus", text: ` ${signed(h.pt[s])} pt` }) : null))));
    t.append(el("tr", { "data-hand": String(h.hand), class: "total-row" },
      el("td", {}), el("td", { class: "hint", text: "scores after" }),
      ...SEATS.map((s) => el("td", { "data-seat": String(s), text: String(h.scores_after[s]) }))));
  }
  const last = store.state.referee_log.length ? store.state.referee_log[store.state.referee_log.length - 1] : null;
  $("h-undo").disabled = !last || !["manual_result", "chombo"].includes(last.action) || !tabAllowed("undo");
}
$("h-undo").addEventListener("click", () => startPreview("Undo the last result", "undo", { reason: "result entered wrongly" }));
$("h-correct").addEventListener("click", () => { openTab("correct"); $("c-scores").scrollIntoView({ block: "nearest" }); });
