// jantaku broadcast overlay: renders the daemon's overlay view (docs/overlay.md).
// Transport: the page loads /api/view, then follows /api/stream (Server-Sent Events). Every
// message is the complete view, so a reconnect (EventSource retries by itself) resyncs at once.
// Hooks for tests and integrators: data-role="seat" + data-seat on seat panels, data-role="result"
// on the result card, data-tile="<mjai name>" on every tile.
"use strict";

const params = new URLSearchParams(location.search);
const LAYOUTS = ["full", "strip", "tables"];
const LAYOUT = LAYOUTS.includes(params.get("layout")) ? params.get("layout") : "full";
const LANG = ["en", "ja", "zh"].includes(params.get("lang")) ? params.get("lang") : "en";
const BOTTOM = Number.parseInt(params.get("bottom") || "0", 10) % 4;
const BASE = params.get("base") || "";
// ?feed=spectator: the delayed feed with the players' hands (only where the venue configured a
// broadcast delay; the live feed never carries hands).
const FEED = params.get("feed") === "spectator" ? "/api/spectator" : "/api";

const I18N = {
  en: { winds: ["East", "South", "West", "North"], w: ["E", "S", "W", "N"], honba: "Honba",
        deposits: "Riichi", dora: "Dora", ura: "Ura", wall: "Wall", riichi: "RIICHI", dealer: "Dealer",
        tsumo: "Tsumo", ron: "Ron", draw: "Exhaustive draw", abort: "Abortive draw",
        han: "han", fu: "fu", pts: "pts", standings: "Final standings", turn: "Turn",
        hand: "Hand", tenpai: "Tenpai", noten: "Noten", yakuman: "Yakuman", pt: "pt",
        chombo: "Chombo", from: "from", waits: "Waits", left: "left", up: "to", dead: "Dead hand",
        direct: "direct", round: "Round", seat: "Seat", nagashi: "Nagashi mangan", offline: "offline" },
  ja: { winds: ["東", "南", "西", "北"], w: ["東", "南", "西", "北"], honba: "本場",
        deposits: "供託", dora: "ドラ", ura: "裏ドラ", wall: "残り", riichi: "リーチ", dealer: "親",
        tsumo: "ツモ", ron: "ロン", draw: "流局", abort: "途中流局",
        han: "翻", fu: "符", pts: "点", standings: "最終結果", turn: "持ち時間",
        hand: "合計", tenpai: "聴牌", noten: "不聴", yakuman: "役満", pt: "pt",
        chombo: "チョンボ", from: "放銃", waits: "待ち", left: "残", up: "条件", dead: "和了放棄",
        direct: "直撃", round: "局", seat: "席", nagashi: "流し満貫", offline: "オフライン" },
  zh: { winds: ["东", "南", "西", "北"], w: ["东", "南", "西", "北"], honba: "本场",
        deposits: "供托", dora: "宝牌", ura: "里宝牌", wall: "余牌", riichi: "立直", dealer: "庄",
        tsumo: "自摸", ron: "荣和", draw: "荒牌流局", abort: "途中流局",
        han: "番", fu: "符", pts: "点", standings: "最终排名", turn: "单步",
        hand: "本局", tenpai: "听牌", noten: "未听", yakuman: "役满", pt: "pt",
        chombo: "错和", from: "放铳", waits: "听", left: "余", up: "条件", dead: "死手",
        direct: "直击", round: "局", seat: "座位", nagashi: "流局满贯", offline: "离线" },
};
const T = I18N[LANG];
const POS = ["bottom", "right", "top", "left"];
const ORD = RANK_WORDS[LANG];  // words.js, loaded before this file

const HONOR = { E: "1z", S: "2z", W: "3z", N: "4z", P: "5z", F: "6z", C: "7z" };
function tileFile(name) {
  if (HONOR[name]) return HONOR[name];
  if (name.length === 3 && name.endsWith("r")) return "0" + name[1];
  return name;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function tileEl(name, opts = {}) {
  const t = el("span", "tile");
  if (!name || name === "?") {
    t.classList.add("back");
    t.dataset.tile = "?";
  } else {
    const img = document.createElement("img");
    img.src = `${BASE}/tiles/${tileFile(name)}.svg`;
    img.alt = name;
    t.appendChild(img);
    t.dataset.tile = name;
  }
  if (opts.sideways) t.classList.add("sideways");
  if (opts.called) t.classList.add("called");
  if (opts.tsumogiri) t.classList.add("tsumogiri");
  if (opts.win) { t.classList.add("winning"); t.dataset.win = "true"; }
  return t;
}

function meldEl(m) {
  const g = el("span", "meld");
  g.dataset.kind = m.kind;
  m.tiles.forEach((t, i) => {
    const hidden = m.kind === "ankan" && (i === 0 || i === 3);
    g.appendChild(tileEl(hidden ? "?" : t, { sideways: m.called_index === i }));
  });
  return g;
}

function fmtScore(n) { return n === null || n === undefined ? "" : n.toLocaleString("en-US"); }
function fmtDiff(n) { return (n > 0 ? "+" : "") + n.toLocaleString("en-US"); }
function fmtSec(s) {
  if (s === null || s === undefined) return "";
  const neg = s < 0; s = Math.abs(s);
  const m = Math.floor(s / 60), r = s - m * 60;
  return (neg ? "-" : "") + (m > 0 ? `${m}:${r.toFixed(1).padStart(4, "0")}` : r.toFixed(1));
}

function roundLabel(r) {
  if (!r) return "";
  const wind = T.winds[r.wind_index] || r.wind;
  return LANG === "en" ? `${wind} ${r.number}` : `${wind}${r.number}局`;
}

function condText(c) {
  // c: {target, target_rank, ron, tsumo, direct}: each {han, fu, limit, points, label} or null
  const parts = [];
  if (c.ron) parts.push(`${T.ron} ${needLabel(LANG, c.ron.label)}`);
  if (c.tsumo) parts.push(`${T.tsumo} ${needLabel(LANG, c.tsumo.label)}`);
  if (c.direct) parts.push(`${T.direct} ${needLabel(LANG, c.direct.label)}`);
  return parts.length ? `${T.up} ${ORD[c.target_rank - 1] || c.target_rank}: ${parts.join(" · ")}` : "";
}

function renderSeat(box, s, view) {
  box.replaceChildren();
  box.dataset.seat = s.seat;
  box.dataset.role = "seat";
  box.classList.toggle("turn", view.turn === s.seat);
  const head = el("div", "head");
  head.appendChild(el("span", "wind", T.w[s.wind_index] ?? s.wind));
  if (s.dealer) head.appendChild(el("span", "dealer", T.dealer));
  head.appendChild(el("span", "name", s.name || seatName(s.seat)));
  if (s.riichi) head.appendChild(el("span", "riichi-stick"));
  if (s.dead) head.appendChild(el("span", "dead", T.dead));
  head.appendChild(el("span", "score", fmtScore(s.score)));
  box.appendChild(head);
  const diffs = el("div", "diffs");
  for (const o of view.seats) {
    if (o.seat === s.seat) continue;
    const n = s.score - o.score;
    const d = el("span", "diff " + (n > 0 ? "pos" : n < 0 ? "neg" : ""), `${T.w[o.wind_index] ?? o.wind} ${fmtDiff(n)}`);
    d.dataset.other = o.seat;
    diffs.appendChild(d);
  }
  box.appendChild(diffs);
  if (s.conditions) box.appendChild(el("div", "conditions", condText(s.conditions)));
  const river = el("div", "river");
  for (let i = 0; i < s.river.length; i += 6) {
    const row = el("div", "row");
    for (const d of s.river.slice(i, i + 6)) {
      row.appendChild(tileEl(d.tile, { sideways: d.riichi, called: d.called, tsumogiri: d.tsumogiri }));
    }
    river.appendChild(row);
  }
  box.appendChild(river);
  if (s.melds.length) {
    const melds = el("div", "melds");
    for (const m of s.melds) melds.appendChild(meldEl(m));
    box.appendChild(melds);
  }
  if (s.hand) {
    const hand = el("div", "hand");
    for (const t of s.hand) hand.appendChild(tileEl(t));
    box.appendChild(hand);
  }
  if (s.waits && s.waits.length) {
    box.appendChild(el("div", "waits",
      `${T.waits}: ${s.waits.map((w) => `${w.tile} (${T.left} ${w.unseen})`).join("  ")}`));
  }
  if (s.clock) {
    const c = s.clock;
    const clock = el("div", "clock");
    clock.classList.toggle("warning", !!c.warning);
    clock.classList.toggle("over", c.turn_remaining !== null && c.turn_remaining < 0);
    const hand = el("span", "hand", `${T.hand} ${fmtSec(c.hand_remaining)}`);
    hand.classList.toggle("over", c.hand_remaining !== null && c.hand_remaining < 0);
    if (c.running && c.turn_remaining !== null && c.turn_remaining !== undefined) {
      clock.append(el("span", "turn running", `${T.turn} ${fmtSec(c.turn_remaining)}`));
    }
    clock.append(hand);
    if (c.penalty_points) clock.appendChild(el("span", "penalty", `−${c.penalty_points}`));
    box.appendChild(clock);
  }
}

function renderStrip(view) {
  const strip = document.getElementById("strip");
  strip.replaceChildren();
  const r = view.round;
  const info = el("div", "info", roundLabel(r));
  info.appendChild(el("small", null,
    `${T.honba} ${r ? r.honba : 0} · ${T.deposits} ${r ? r.deposits : 0}` +
    (view.wall_remaining !== null && view.wall_remaining !== undefined ? ` · ${T.wall} ${view.wall_remaining}` : "")));
  strip.appendChild(info);
  for (const s of view.seats) {
    const b = el("div", "s");
    b.dataset.seat = s.seat;
    b.dataset.role = "seat";
    b.classList.toggle("riichi", !!s.riichi);
    b.classList.toggle("turn", view.turn === s.seat);
    b.append(el("span", "wind", T.w[s.wind_index] ?? s.wind), el("span", "name", s.name || seatName(s.seat)),
             el("span", "score", fmtScore(s.score)));
    if (s.riichi) b.appendChild(el("span", "riichi-mark", T.riichi));
    if (s.clock && s.clock.running) b.appendChild(el("span", "clock-mini", fmtSec(s.clock.turn_remaining)));
    strip.appendChild(b);
  }
  const dora = el("div", "dora");
  dora.dataset.role = "dora";
  dora.appendChild(el("span", "label", T.dora));
  for (const d of view.dora_indicators || []) dora.appendChild(tileEl(d));
  strip.appendChild(dora);
}

// a seat without a player name (not in a real game: names are entered at its start)
function seatName(seat) { return LANG === "en" ? `${T.seat} ${seat}` : `${T.seat}${seat}`; }

function nameOf(view, seat) {
  const s = view.seats.find((x) => x.seat === seat);
  return s ? (s.name || seatName(seat)) : seatName(seat);
}

function indicatorsEl(label, tiles, role) {
  const row = el("div", "indicators");
  row.dataset.role = role;
  row.appendChild(el("span", "label", label));
  for (const t of tiles) row.appendChild(tileEl(t));
  return row;
}

function paymentsEl(view, deltas, cls) {
  const table = el("table", cls);
  for (const s of view.seats) {
    const d = deltas ? deltas[s.seat] : 0;
    const tr = el("tr");
    tr.dataset.seat = s.seat;
    tr.append(el("td", null, `${T.w[s.wind_index] ?? s.wind} ${s.name || seatName(s.seat)}`),
              el("td", "num " + (d > 0 ? "pos" : d < 0 ? "neg" : ""), fmtDiff(d)));
    table.appendChild(tr);
  }
  return table;
}

function winValue(w) {
  if (w.nagashi) return `${T.nagashi} — ${fmtScore(w.points)}`;
  if (w.patterns && w.patterns.length) return `${w.value} ${T.pts}`;
  if (w.yakuman) return `${T.yakuman}${w.yakuman > 1 ? " ×" + w.yakuman : ""} — ${fmtScore(w.points)}`;
  const limit = w.limit ? " " + limitWord(LANG, w.limit) : "";
  return `${w.han} ${T.han} ${w.fu} ${T.fu}${limit} — ${fmtScore(w.points)}`;
}

function renderStandings(card, view) {
  card.dataset.kind = "standings";
  card.appendChild(el("h2", null, T.standings));
  const table = el("table", "standings");
  for (const r of view.standings) {
    const tr = el("tr");
    tr.dataset.seat = r.seat;
    tr.append(el("td", null, r.rank), el("td", null, r.name || seatName(r.seat)),
              el("td", "num", fmtScore(r.points)),
              el("td", "num " + (r.pt >= 0 ? "pos" : "neg"), `${r.pt > 0 ? "+" : ""}${r.pt.toFixed(1)} ${T.pt}`));
    table.appendChild(tr);
  }
  card.appendChild(table);
}

function renderWin(card, view, w, multi) {
  const box = el("div", "win");
  box.dataset.winner = w.winner;
  const how = w.tsumo ? T.tsumo : `${T.ron} (${T.from} ${nameOf(view, w.loser)})`;
  box.appendChild(el("h2", null, `${nameOf(view, w.winner)} — ${how}`));
  const shown = el("div", "shown");
  shown.dataset.role = "winning-hand";
  for (const t of w.hand || []) shown.appendChild(tileEl(t));
  for (const m of w.melds || []) shown.appendChild(meldEl(m));
  if (w.win_tile) shown.appendChild(tileEl(w.win_tile, { win: true }));
  box.appendChild(shown);
  const cols = el("div", "cols");
  const yaku = el("div", "yaku");
  for (const [name, v] of (w.patterns && w.patterns.length ? w.patterns : w.yaku || [])) {
    yaku.append(el("span", null, yakuWord(LANG, name)), el("span", null, v));
  }
  const right = el("div", "right");
  right.appendChild(el("div", "value", winValue(w)));
  if (w.payments && multi) right.appendChild(paymentsEl(view, w.payments, "win-payments"));
  cols.append(yaku, right);
  box.appendChild(cols);
  card.appendChild(box);
}

function renderCard(view) {
  const card = document.getElementById("card");
  const root = document.getElementById("root");
  card.replaceChildren();
  card.dataset.role = "result";
  const standings = view.standings && view.standings.length && LAYOUT === "full";
  const r = view.result;
  const result = r && view.status === "hand_over" && LAYOUT === "full";
  if (!standings && !result) {
    card.hidden = true; card.dataset.kind = ""; root.dataset.card = "hidden"; return;
  }
  card.hidden = false;
  root.dataset.card = "shown";
  if (standings) { renderStandings(card, view); return; }
  card.dataset.kind = r.kind;
  if (r.wins && r.wins.length) {
    for (const w of r.wins) renderWin(card, view, w, r.wins.length > 1);
  } else {
    card.appendChild(el("h2", null, r.kind === "exhaustive" ? T.draw : r.kind === "chombo" ? T.chombo : T.abort));
    for (const th of r.tenpai_hands || []) {
      const row = el("div", "tenpai-hand");
      row.dataset.seat = th.seat;
      row.appendChild(el("span", "label", `${nameOf(view, th.seat)} ${T.tenpai}`));
      const shown = el("span", "shown");
      for (const t of th.hand) shown.appendChild(tileEl(t));
      for (const m of th.melds || []) shown.appendChild(meldEl(m));
      row.appendChild(shown);
      card.appendChild(row);
    }
    if (r.kind === "exhaustive") {
      card.appendChild(el("div", "yaku", view.seats.map((s) =>
        `${s.name || seatName(s.seat)}: ${(r.tenpai || []).includes(s.seat) ? T.tenpai : T.noten}`).join(" · ")));
    }
  }
  if ((r.dora_indicators || []).length) card.appendChild(indicatorsEl(T.dora, r.dora_indicators, "dora"));
  if ((r.ura_indicators || []).length) card.appendChild(indicatorsEl(T.ura, r.ura_indicators, "ura"));
  card.appendChild(paymentsEl(view, r.deltas, "payments"));
}

// --- multi-table scoreboard (?layout=tables): /api/tables/stream, one row per table ----------
function renderTables(board) {
  const box = document.getElementById("tables");
  box.replaceChildren();
  for (const t of board.tables || []) {
    const row = el("div", "t");
    row.dataset.role = "table";
    row.dataset.table = t.table;
    row.dataset.online = t.online === false ? "false" : "true";
    row.appendChild(el("span", "id", t.table));
    const best = Math.max(...(t.scores || []).filter((x) => x !== null));
    (t.names || ["", "", "", ""]).forEach((name, i) => {
      const score = t.scores ? t.scores[i] : null;
      const p = el("span", "p" + (score === best ? " first" : ""));
      p.dataset.seat = i;
      p.append(el("span", "name", name || seatName(i)), el("span", "score", fmtScore(score)));
      row.appendChild(p);
    });
    // the hand within the round tells E1 from E4 (hand_in_round from 0, as in hand_started)
    const wind = ["E", "S", "W", "N"].indexOf(t.round_wind);
    const hand = t.hand_in_round === null || t.hand_in_round === undefined ? null
      : roundLabel({ wind_index: wind, wind: t.round_wind, number: t.hand_in_round + 1 });
    const info = t.round_wind ? `${hand ?? (T.winds[wind] || t.round_wind)}` +
      ` · ${T.honba} ${t.honba ?? 0}` : (t.online === false ? T.offline : "");
    row.appendChild(el("span", "round", info));
    box.appendChild(row);
  }
  window.__jantakuTables = board;
}

let lastView = null;
function render(view) {
  lastView = view;
  const root = document.getElementById("root");
  root.className = `layout-${LAYOUT}`;
  root.dataset.status = view.status;
  root.dataset.seq = view.seq ?? "";
  document.getElementById("round").textContent = roundLabel(view.round);
  document.getElementById("honba").textContent = `${T.honba} ${view.round ? view.round.honba : 0}`;
  document.getElementById("deposits").textContent = `${T.deposits} ${view.round ? view.round.deposits : 0}`;
  document.getElementById("wall").textContent =
    view.wall_remaining === null || view.wall_remaining === undefined ? "" : `${T.wall} ${view.wall_remaining}`;
  document.querySelector("#dora .label").textContent = T.dora;
  const dora = document.querySelector("#dora .tiles");
  dora.replaceChildren(...(view.dora_indicators || []).map((d) => tileEl(d)));
  const boxes = document.querySelectorAll("#table .seat");
  for (const s of view.seats) {
    const pos = POS[(s.seat - BOTTOM + 4) % 4];
    const box = [...boxes].find((b) => b.dataset.pos === pos);
    if (box) renderSeat(box, s, view);
  }
  renderStrip(view);
  renderCard(view);
  window.__jantakuView = view;  // for tests and debugging
}

function fit() {
  // The page is laid out at 1920x1080 (the broadcast frame) and scaled to the window.
  const k = Math.min(window.innerWidth / 1920, window.innerHeight / 1080);
  document.getElementById("root").style.transform = k < 0.999 || k > 1.001 ? `scale(${k})` : "";
}

function connected(ok) {
  document.getElementById("root").dataset.connected = ok ? "true" : "false";
}

async function start() {
  fit();
  window.addEventListener("resize", fit);
  document.getElementById("root").className = `layout-${LAYOUT}`;
  if (LAYOUT === "tables") {
    const es = new EventSource(`${BASE}/api/tables/stream`);
    es.addEventListener("view", (ev) => { connected(true); renderTables(JSON.parse(ev.data)); });
    es.onerror = () => connected(false);
    return;
  }
  try {
    const r = await fetch(`${BASE}${FEED}/view`, { cache: "no-store" });
    if (r.ok) render(await r.json());
  } catch (e) { /* the stream below retries */ }
  const es = new EventSource(`${BASE}${FEED}/stream`);
  es.addEventListener("view", (ev) => { connected(true); render(JSON.parse(ev.data)); });
  es.onopen = () => connected(true);
  es.onerror = () => connected(false);
}
start();
