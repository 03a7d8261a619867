// jantaku broadcast overlay: renders the daemon's overlay view (docs/overlay.md).
// Transport: the page loads /api/view, then follows /api/stream (Server-Sent Events). Every
// message is the complete view, so a reconnect (EventSource retries by itself) resyncs at once.
"use strict";

const params = new URLSearchParams(location.search);
const LAYOUT = params.get("layout") === "strip" ? "strip" : "full";
const LANG = ["en", "ja", "zh"].includes(params.get("lang")) ? params.get("lang") : "en";
const BOTTOM = Number.parseInt(params.get("bottom") || "0", 10) % 4;
const BASE = params.get("base") || "";
// ?feed=spectator: the delayed feed with the players' hands (only where the venue configured a
// broadcast delay; the live feed never carries hands).
const FEED = params.get("feed") === "spectator" ? "/api/spectator" : "/api";

const I18N = {
  en: { winds: ["East", "South", "West", "North"], w: ["E", "S", "W", "N"], honba: "Honba",
        deposits: "Riichi", dora: "Dora", wall: "Wall", riichi: "RIICHI", dealer: "Dealer",
        tsumo: "Tsumo", ron: "Ron", draw: "Exhaustive draw", abort: "Abortive draw",
        han: "han", fu: "fu", pts: "pts", standings: "Final standings", turn: "Turn",
        hand: "Hand", tenpai: "Tenpai", noten: "Noten", yakuman: "Yakuman", pt: "pt",
        chombo: "Chombo", from: "from" },
  ja: { winds: ["東", "南", "西", "北"], w: ["東", "南", "西", "北"], honba: "本場",
        deposits: "供託", dora: "ドラ", wall: "残り", riichi: "リーチ", dealer: "親",
        tsumo: "ツモ", ron: "ロン", draw: "流局", abort: "途中流局",
        han: "翻", fu: "符", pts: "点", standings: "最終結果", turn: "持ち時間",
        hand: "合計", tenpai: "聴牌", noten: "不聴", yakuman: "役満", pt: "pt",
        chombo: "チョンボ", from: "放銃" },
  zh: { winds: ["东", "南", "西", "北"], w: ["东", "南", "西", "北"], honba: "本场",
        deposits: "供托", dora: "宝牌", wall: "余牌", riichi: "立直", dealer: "庄",
        tsumo: "自摸", ron: "荣和", draw: "荒牌流局", abort: "途中流局",
        han: "番", fu: "符", pts: "点", standings: "最终排名", turn: "单步",
        hand: "本局", tenpai: "听牌", noten: "未听", yakuman: "役满", pt: "pt",
        chombo: "错和", from: "放铳" },
};
const T = I18N[LANG];
const POS = ["bottom", "right", "top", "left"];

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
  return t;
}

function fmtScore(n) { return n.toLocaleString("en-US"); }
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

function renderSeat(box, s, view, scores) {
  box.replaceChildren();
  box.dataset.seat = s.seat;
  box.classList.toggle("turn", view.turn === s.seat);
  const head = el("div", "head");
  head.appendChild(el("span", "wind", T.w[s.wind_index] ?? s.wind));
  if (s.dealer) head.appendChild(el("span", "dealer", T.dealer));
  head.appendChild(el("span", "name", s.name || `Seat ${s.seat}`));
  if (s.riichi) {
    head.appendChild(el("span", "riichi-stick"));
  }
  head.appendChild(el("span", "score", fmtScore(s.score)));
  box.appendChild(head);
  const diffs = el("div", "diffs");
  for (const o of view.seats) {
    if (o.seat === s.seat) continue;
    const d = el("span", "diff", `${T.w[o.wind_index] ?? o.wind} ${fmtDiff(s.score - o.score)}`);
    d.dataset.other = o.seat;
    diffs.appendChild(d);
  }
  box.appendChild(diffs);
  const river = el("div", "river tiles-small");
  for (const d of s.river) {
    river.appendChild(tileEl(d.tile, { sideways: d.riichi, called: d.called, tsumogiri: d.tsumogiri }));
  }
  box.appendChild(river);
  if (s.melds.length) {
    const melds = el("div", "melds tiles-small");
    for (const m of s.melds) {
      const g = el("span", "meld");
      g.dataset.kind = m.kind;
      m.tiles.forEach((t, i) => {
        const hidden = m.kind === "ankan" && (i === 0 || i === 3);
        g.appendChild(tileEl(hidden ? "?" : t, { sideways: m.called_index === i }));
      });
      melds.appendChild(g);
    }
    box.appendChild(melds);
  }
  if (s.hand) {
    const hand = el("div", "hand tiles-small");
    for (const t of s.hand) hand.appendChild(tileEl(t));
    box.appendChild(hand);
  }
  if (s.clock) {
    const c = s.clock;
    const clock = el("div", "clock");
    clock.classList.toggle("warning", !!c.warning);
    clock.classList.toggle("over", c.turn_remaining !== null && c.turn_remaining < 0);
    const hand = el("span", "hand", `${T.hand} ${fmtSec(c.hand_remaining)}`);
    hand.classList.toggle("over", c.hand_remaining !== null && c.hand_remaining < 0);
    if (c.running && c.turn_remaining !== null && c.turn_remaining !== undefined) {
      const turn = el("span", "turn running", `${T.turn} ${fmtSec(c.turn_remaining)}`);
      clock.append(turn);
    }
    clock.append(hand);
    if (c.penalty_points) clock.appendChild(el("span", "penalty", `−${c.penalty_points}`));
    box.appendChild(clock);
  }
}

function renderStrip(view) {
  const strip = document.getElementById("strip");
  strip.replaceChildren();
  const info = el("div", "info", roundLabel(view.round));
  info.appendChild(el("small", null,
    `${T.honba} ${view.round ? view.round.honba : 0} · ${T.deposits} ${view.round ? view.round.deposits : 0}` +
    (view.wall_remaining !== null && view.wall_remaining !== undefined ? ` · ${T.wall} ${view.wall_remaining}` : "")));
  strip.appendChild(info);
  for (const s of view.seats) {
    const b = el("div", "s");
    b.dataset.seat = s.seat;
    b.classList.toggle("riichi", !!s.riichi);
    b.classList.toggle("turn", view.turn === s.seat);
    b.append(el("span", "wind", T.w[s.wind_index] ?? s.wind), el("span", "name", s.name || `Seat ${s.seat}`),
             el("span", "score", fmtScore(s.score)));
    if (s.clock) b.appendChild(el("span", "clock-mini", fmtSec(s.clock.turn_remaining)));
    strip.appendChild(b);
  }
  const dora = el("div", "dora tiles-small");
  for (const d of view.dora_indicators || []) dora.appendChild(tileEl(d));
  strip.appendChild(dora);
}

function nameOf(view, seat) {
  const s = view.seats.find((x) => x.seat === seat);
  return s ? (s.name || `Seat ${seat}`) : `Seat ${seat}`;
}

function renderCard(view) {
  const card = document.getElementById("card");
  card.replaceChildren();
  if (view.standings && view.standings.length) {
    card.hidden = false;
    card.dataset.kind = "standings";
    card.appendChild(el("h2", null, T.standings));
    const table = el("table");
    for (const r of view.standings) {
      const tr = el("tr");
      tr.append(el("td", null, r.rank), el("td", null, r.name || `Seat ${r.seat}`),
                el("td", "num", fmtScore(r.points)), el("td", "num " + (r.pt >= 0 ? "pos" : "neg"), `${r.pt > 0 ? "+" : ""}${r.pt.toFixed(1)} ${T.pt}`));
      table.appendChild(tr);
    }
    card.appendChild(table);
    return;
  }
  const r = view.result;
  if (!r || view.status !== "hand_over") { card.hidden = true; card.dataset.kind = ""; return; }
  card.hidden = false;
  card.dataset.kind = r.kind;
  if (r.kind === "win") {
    for (const w of r.wins) {
      const box = el("div", "win");
      const how = w.loser === null || w.loser === undefined ? T.tsumo : `${T.ron} (${T.from} ${nameOf(view, w.loser)})`;
      box.appendChild(el("h2", null, `${nameOf(view, w.winner)} — ${how}`));
      const yaku = el("div", "yaku");
      for (const [name, v] of (w.patterns && w.patterns.length ? w.patterns : w.yaku || [])) {
        yaku.append(el("span", null, name), el("span", null, v));
      }
      box.appendChild(yaku);
      let value;
      if (w.patterns && w.patterns.length) value = `${w.value} ${T.pts}`;
      else if (w.yakuman) value = `${T.yakuman}${w.yakuman > 1 ? " ×" + w.yakuman : ""} — ${fmtScore(w.points)}`;
      else value = `${w.han} ${T.han} ${w.fu} ${T.fu}${w.limit ? " " + w.limit : ""} — ${fmtScore(w.points)}`;
      box.appendChild(el("div", "value", value));
      card.appendChild(box);
    }
  } else {
    card.appendChild(el("h2", null, r.kind === "exhaustive" ? T.draw : r.kind === "chombo" ? T.chombo : T.abort));
    if (r.tenpai) {
      card.appendChild(el("div", "yaku", view.seats.map((s) =>
        `${s.name || "Seat " + s.seat}: ${r.tenpai.includes(s.seat) ? T.tenpai : T.noten}`).join(" · ")));
    }
  }
  const table = el("table", "payments");
  view.seats.forEach((s, i) => {
    const d = r.deltas ? r.deltas[s.seat] : 0;
    const tr = el("tr");
    tr.append(el("td", null, s.name || `Seat ${s.seat}`), el("td", "num " + (d > 0 ? "pos" : d < 0 ? "neg" : ""), fmtDiff(d)));
    table.appendChild(tr);
  });
  card.appendChild(table);
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

function connected(ok) {
  document.getElementById("root").dataset.connected = ok ? "true" : "false";
}

async function start() {
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
