// The table: seats, round, dora, clocks, violations, the recent inputs; each state renders it all.
import { POS, WIND_NAMES } from "./vocabulary.js";
import { $, el } from "./dom.js";
import { tileImg, tileName } from "./tiles.js";
import { seatName, splitName } from "./names.js";
import { store } from "./store.js";
import { followHand, renderSeatPickers } from "./seatpick.js";
import { renderRules } from "./rules.js";
import { renderHistory } from "./history.js";
import { tabAllowed } from "./tabs.js";
import { startPreview } from "./preview.js";

function fmtClock(ns) {
  if (ns == null) return "";
  const s = Math.max(0, Math.round(ns / 1e9));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
export function render() {
  const alerts = store.state.alerts || [];
  $("alerts").hidden = !alerts.length;
  $("alerts").textContent = alerts.join(" — ");
  const snap = store.state.snapshot;
  const clocks = store.state.clocks || {};
  renderSeats(snap, clocks);
  const round = snap.round_wind ? `${WIND_NAMES[snap.round_wind] || snap.round_wind} ${(snap.hand_in_round || 0) + 1}` : "no game";
  $("round").textContent = snap.game_over ? `${round} — game over` : round;
  $("sticks").textContent = snap.honba == null ? "" : `honba ${snap.honba} · deposits ${snap.deposits}`;
  const dora = $("dora");
  dora.replaceChildren();
  for (const t of snap.dora_indicators || []) if (Number.isInteger(t)) dora.append(tileImg(tileName(t)));
  $("step").textContent = snap.step ? `step: ${snap.step}` : (store.state.game ? "between hands" : "");
  const k = clocks.phase && clocks.phase !== "none" ? `clocks: ${clocks.phase}${clocks.paused ? " (paused)" : ""}` : "clocks: —";
  $("clock").textContent = k;
  $("k-text").textContent = k;
  const lr = snap.last_result && snap.last_result.settlement;
  $("last-hand").textContent = lr ? `last hand: ${lr.kind} ${lr.deltas.map((d) => (d > 0 ? "+" : "") + d).join(" / ")}` : "";

  const won = snap.step === "won";
  $("pending-win").hidden = !won;
  $("pending-win-text").textContent = won ? "A declared win waits for the referee." : "";
  $("w-text").textContent = won ? "A declared win waits: confirm it (it is settled) or reject it." : "No win is waiting for the referee.";
  renderViolations(snap);
  const last = store.state.referee_log.length ? store.state.referee_log[store.state.referee_log.length - 1] : null;
  $("u-text").textContent = last ? `Last referee action: ${last.action} by ${last.by} (input ${last.seq}).` : "No referee action to undo.";
  renderRecent();
  renderController();
  followHand(snap);
  renderSeatPickers();
  renderRules();
  renderHistory();
  renderFinal();
  if (!$("g-ruleset").options.length) {
    for (const r of store.state.rulesets) $("g-ruleset").append(el("option", { value: r, text: r }));
    $("g-ruleset").value = store.state.default_ruleset;
  }
  const cs = $("c-scores");
  // refilled from the table when it changes, unless the referee is editing the numbers
  if (!cs.dataset.dirty && (!cs.dataset.filled || cs.dataset.seq !== String(store.state.input_seq))) {
    cs.replaceChildren();
    for (const seat of snap.seats || []) {
      cs.append(el("label", {}, seatName(seat.seat), el("input", { type: "number", step: "100", inputmode: "numeric", id: `c-score-${seat.seat}`, value: seat.score == null ? "" : String(seat.score) })));
    }
    cs.dataset.filled = "1";
    cs.dataset.seq = String(store.state.input_seq);
  }
  for (const b of document.querySelectorAll("#tabs button")) {
    b.disabled = !tabAllowed(b.dataset.tab);
  }
}
function renderSeats(snap, clocks) {
  const seats = $("seats");
  seats.replaceChildren();
  for (const seat of snap.seats || []) {
    const c = clocks.seats ? clocks.seats[seat.seat] : null;
    const badges = el("div", {});
    if (seat.riichi && seat.riichi !== "none") badges.append(el("span", { class: "badge riichi", text: seat.riichi === "accepted" ? "riichi" : "riichi?" }));
    if (seat.dead) badges.append(el("span", { class: "badge dead", text: `dead: ${seat.dead}` }));
    if (c && c.hand_remaining_ns != null) {
      badges.append(el("span", { class: "badge clock" + (c.warning && c.warning !== "none" ? " warn" : ""), text: `⏱ ${fmtClock(c.hand_remaining_ns)}${c.running ? " ▶" : ""}` }));
    }
    seats.append(el("div", { class: `seat pos-${POS[seat.seat]}` + (snap.dealer === seat.seat ? " dealer" : ""), "data-seat": String(seat.seat) },
      el("div", { class: "top" }, el("span", { text: `seat ${seat.seat}` }), el("span", { class: "wind", text: seat.wind ? WIND_NAMES[seat.wind] || seat.wind : "" })),
      el("div", { class: "name", text: splitName(seat.name).name || "—" }, splitName(seat.name).id ? el("span", { class: "pid", text: ` #${splitName(seat.name).id}` }) : null),
      el("div", { class: "score", text: seat.score == null ? "—" : seat.score.toLocaleString("en-US") }),
      badges));
  }
}
function renderViolations(snap) {
  const vio = $("violations");
  vio.replaceChildren();
  for (const v of snap.open_violations || []) {
    const who = v.seat == null ? "" : ` — ${seatName(v.seat)}`;
    vio.append(el("div", { class: "violation", "data-violation": String(v.id) },
      el("span", { text: `Violation #${v.id}: ${v.code}${who} (expected ${JSON.stringify(v.expected)}, got ${JSON.stringify(v.actual)})` }),
      store.state.allowed.includes("accept_violation") ? el("button", { type: "button", text: "Accept…", onclick: () => startPreview("Accept violation", "accept_violation", { id: v.id, reason: "accepted by the referee" }) }) : null));
  }
}

function describe(rec) {
  const b = rec.body || {};
  if (b.type === "referee") {
    const a = b.args || {};
    const bits = Object.entries(a).filter(([k]) => k !== "reason").map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    return `${b.action} ${bits.join(" ")}${a.reason ? ` — “${a.reason}”` : ""}`;
  }
  if (b.type === "game_start") return `new game: ${b.ruleset}, ${(b.names || []).join(" / ")}`;
  if (b.type === "table_controller_reset") return `controller reset (${b.name}): ${b.lost == null ? "unsent events lost, count not known" : `${b.lost} unsent events lost`}`;
  if (b.type === "table_config_fault") return `controller config.json: ${b.name}${b.key ? ` (${b.key})` : ""}`;
  if (b.type === "table_events_dropped") return `controller queue full: ${b.count} events dropped`;
  return b.type || rec.kind;
}
// What the table's controller said about itself (a reset and the events it lost, a bad
// config.json): the newest in the bar, all of them in its tooltip.
function renderController() {
  const notes = store.state.controller || [];
  const bar = $("bar-controller");
  bar.hidden = !notes.length;
  bar.textContent = notes.length ? `⚠ ${notes[notes.length - 1]}` : "";
  bar.title = notes.join("\n");
}
function renderRecent() {
  const ol = $("recent");
  ol.replaceChildren();
  for (const rec of store.state.recent) {
    ol.append(el("li", { "data-seq": String(rec.seq) },
      el("span", { text: `#${rec.seq} ${rec.ts.slice(11, 19)} ` }),
      el("span", { class: "who", text: rec.source }),
      el("span", { text: ` ${describe(rec)}` })));
  }
}

// Game over: the final standings with pt (rules/standings.py via /api/state "final"), and the
// result forms and the riichi picker closed (the engine would refuse with game_over).
function renderFinal() {
  const f = store.state.final;
  const over = !!store.state.snapshot.game_over;
  for (const id of ["r-fields", "d-fields", "h-fields"]) $(id).disabled = over;
  $("final-box").hidden = !f;
  if (!f) return;
  const sig = JSON.stringify(f);
  const t = $("final");
  if (t.dataset.sig === sig) return;
  t.dataset.sig = sig;
  const pt = (x) => (x > 0 ? "+" : "") + x.toFixed(1);
  t.replaceChildren(el("tr", {}, ...["Rank", "Player", "Points", "Score pt", "Uma", "Penalty", "Total pt"].map((h) => el("th", { text: h }))));
  for (const r of f.standings) {
    t.append(el("tr", { "data-seat": String(r.seat), "data-rank": String(r.rank) },
      el("td", { text: String(r.rank) }), el("td", { text: r.name || `Seat ${r.seat}` }),
      el("td", { text: r.points.toLocaleString("en-US") }), el("td", { text: pt(r.score_pt) }),
      el("td", { text: pt(r.uma_pt) }), el("td", { class: r.penalty_pt < 0 ? "minus" : "", text: r.penalty_pt ? pt(r.penalty_pt) : "" }),
      el("td", { class: "total", text: pt(r.total_pt) })));
  }
}
