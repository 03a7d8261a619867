// Preview -> confirm: the dry run of a command shown as the score changes, then the command itself.
import { SEATS } from "./vocabulary.js";
import { $, el, say } from "./dom.js";
import { api, newCid } from "./api.js";
import { seatName, splitName } from "./names.js";
import { refresh } from "./session.js";
import { chosen, renderSeatPickers } from "./seatpick.js";
import { renderFu } from "./tilepick.js";

let pending = null;       // {body, cid, digest, title}: the previewed action

export async function startPreview(title, name, args, tiles, extra) {
  const body = { name, args, ...(extra || {}) };
  if (tiles !== undefined) body.tiles = tiles;
  say("", "previewing…");
  const r = await api("preview", body);
  if (r.status !== 200) {
    closePreview();
    return say("error", `Refused: ${r.body.error ? r.body.error.message : r.status}`);
  }
  say("", "");
  pending = { body, cid: newCid(), digest: r.body.digest, title };
  showPreview(title, r.body);
}
function showPreview(title, p) {
  $("preview-title").textContent = `Preview — ${title}`;
  const box = $("preview-body");
  box.replaceChildren();
  if (p.scores_before && p.scores_after && p.scores_after.length) {
    const t = el("table", { class: "deltas", id: "preview-table" },
      el("tr", {}, el("th", { text: "Seat" }), el("th", { text: "Before" }), el("th", { text: "Change" }), el("th", { text: "After" })));
    SEATS.forEach((s) => {
      const before = p.scores_before[s], after = p.scores_after[s];
      const d = before != null && after != null ? after - before : null;
      const who = (p.names_after && p.names_after[s] && splitName(p.names_after[s]).name) || seatName(s);
      t.append(el("tr", { "data-seat": String(s) }, el("td", { text: `${s} ${who}` }),
        el("td", { text: before == null ? "—" : String(before) }),
        el("td", { class: d > 0 ? "plus" : d < 0 ? "minus" : "", text: d == null ? "—" : (d > 0 ? "+" : "") + d }),
        el("td", { text: after == null ? "—" : String(after) })));
    });
    box.append(t);
  }
  const st = p.settlement;
  if (st) {
    for (const w of st.wins || []) {
      // from 5 han the fu do not count (M 6-6-2): "5 han (mangan)", never "5 han 0 fu"
      const v = w.family === "zung_jung" ? `${w.value} points` : w.yakuman ? `${w.yakuman}× yakuman` : `${w.han} han${w.fu && w.han < 5 ? ` ${w.fu} fu` : ""}`;
      box.append(el("p", { text: `${seatName(w.winner)} wins ${w.tsumo ? "by tsumo" : `from ${seatName(w.loser)}`}: ${v}${w.limit ? ` (${w.limit})` : ""} = ${w.points}${w.honba_points ? ` + ${w.honba_points} honba` : ""}${w.deposit_points ? ` + ${w.deposit_points} deposits` : ""}` }));
    }
    if (st.pt_penalties && st.pt_penalties.some((x) => x)) box.append(el("p", { text: `pt penalties: ${st.pt_penalties.join(" / ")}` }));
    if (st.replay) box.append(el("p", { text: "The hand is replayed." }));
    // the settlement's notes name seats by number ("seat 1 loses the ron"): the page uses names
    for (const n of st.notes || []) box.append(el("p", { class: "note", text: n.replace(/\bseat ([0-3])\b/g, (_, s) => seatName(Number(s))) }));
  }
  if (p.valuation && p.valuation.yaku && p.valuation.yaku.length) {
    box.append(el("p", { text: "Yaku: " + p.valuation.yaku.map(([n, h]) => `${n} ${h}`).join(", ") }));
  }
  if (p.valuation && p.valuation.patterns && p.valuation.patterns.length) {
    box.append(el("p", { text: "Patterns: " + p.valuation.patterns.map(([n, h]) => `${n} ${h}`).join(", ") }));
  }
  if (p.standings) box.append(el("p", { text: "The game ends: final standings are computed." }));
  if (!p.events) box.append(el("p", { text: "The clocks change; the scores do not." }));
  $("preview").hidden = false;
  $("preview-confirm").disabled = false;
  $("preview").scrollIntoView({ block: "nearest" });
}
export function closePreview() { $("preview").hidden = true; pending = null; }
$("preview-cancel").addEventListener("click", () => { closePreview(); say("", "cancelled"); });
$("preview-confirm").addEventListener("click", async () => {
  if (!pending) return;
  const p = pending;
  $("preview-confirm").disabled = true;
  const r = await api("command", { ...p.body, cid: p.cid, expect_digest: p.digest });
  if (r.status === 200 && r.body.status === "ok") {
    closePreview();
    delete $("c-scores").dataset.dirty;
    // a result is recorded: the next hand starts with clean forms
    if (["manual_result", "chombo"].includes(p.body.name)) {
      for (const id of ["r-winner", "r-loser", "r-winner2", "r-pao", "p-seat"]) chosen[id] = null;
      // han and fu are the last hand's: they reset with winner and loser
      for (const id of ["r-han", "r-fu", "r-han2", "r-fu2"]) $(id).value = "";
      renderFu();
      chosen["d-tenpai"] = new Set();
      if ($("r-second").checked) { $("r-second").checked = false; $("r-second-row").hidden = true; }
      renderSeatPickers(true);
    }
    say("ok", `Done: ${p.title} (input #${r.body.input_seq}${r.body.repeated ? ", already done" : ""}).`);
  } else {
    $("preview-confirm").disabled = false;
    if (r.body.error && r.body.error.code === "stale_preview") closePreview();
    say("error", `Refused: ${r.body.error ? r.body.error.message : r.status}`);
  }
  refresh();
});
