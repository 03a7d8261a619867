// jantaku referee console (docs/console.md). Plain JS, no dependencies, works offline.
// Every action: form -> POST /console/api/preview (dry run on the table's state) -> Confirm ->
// POST /console/api/command (one signed referee command through the daemon's command path).
"use strict";

(() => {
  const API = "/console/api/";
  const POLL_MS = 1500;
  const SEATS = [0, 1, 2, 3];
  const WIND_NAMES = { E: "East", S: "South", W: "West", N: "North" };
  const SUITS = ["m", "p", "s"];
  const HONORS = ["E", "S", "W", "N", "P", "F", "C"];
  const FLAGS = ["riichi", "double_riichi", "ippatsu", "haitei", "houtei", "rinshan", "chankan", "tenhou", "chiihou"];
  const FU = [20, 25, 30, 40, 50, 60, 70, 80, 90, 100, 110];
  const MELD_SIZE = { chi: 3, pon: 3, daiminkan: 4, ankan: 4, kakan: 4 };
  // where each seat sits at the table, seen from seat 0's side: turn order runs to the right
  // (shimocha), so seat 1 is on the right, seat 2 across, seat 3 on the left
  const POS = ["bottom", "right", "top", "left"];
  // the yaku checklist: [name, han closed, han open (0: closed only)]; yakuman count 13
  const YAKU = [
    ["Riichi", 1, 0], ["Double riichi", 2, 0], ["Ippatsu", 1, 0], ["Menzen tsumo", 1, 0],
    ["Pinfu", 1, 0], ["Iipeikou", 1, 0], ["Tanyao", 1, 1], ["Yakuhai: seat wind", 1, 1],
    ["Yakuhai: round wind", 1, 1], ["Yakuhai: haku", 1, 1], ["Yakuhai: hatsu", 1, 1],
    ["Yakuhai: chun", 1, 1], ["Haitei / houtei", 1, 1], ["Rinshan kaihou", 1, 1],
    ["Chankan", 1, 1], ["Chanta", 2, 1], ["Ittsu", 2, 1], ["Sanshoku doujun", 2, 1],
    ["Sanshoku doukou", 2, 2], ["Toitoi", 2, 2], ["San ankou", 2, 2], ["San kantsu", 2, 2],
    ["Shousangen", 2, 2], ["Honroutou", 2, 2], ["Chiitoitsu", 2, 0], ["Ryanpeikou", 3, 0],
    ["Honitsu", 3, 2], ["Junchan", 3, 2], ["Chinitsu", 6, 5],
    ["Kokushi musou", 13, 0], ["Suu ankou", 13, 0], ["Daisangen", 13, 13],
    ["Shousuushii", 13, 13], ["Daisuushii", 13, 13], ["Tsuuiisou", 13, 13],
    ["Chinroutou", 13, 13], ["Ryuuiisou", 13, 13], ["Chuuren poutou", 13, 0],
    ["Suu kantsu", 13, 13], ["Tenhou", 13, 0], ["Chiihou", 13, 0],
  ];
  const ABORT_WORDS = { nine_terminals: "nine terminals (kyuushu kyuuhai)", four_winds: "four winds (suufon renda)", four_riichi: "four riichi (suucha riichi)", four_kans: "four kans (suukaikan)", triple_ron: "triple ron (sanchahou)" };
  let riichiHand = null;    // the hand the riichi picker belongs to

  let csrf = "";
  let state = null;         // the last /api/state
  let pending = null;       // {body, cid, digest, title}: the previewed action
  let pollTimer = null;
  const picked = { hand: [], win: [], melds: [], dora: [], ura: [], meldBuf: [] };

  const $ = (id) => document.getElementById(id);
  const el = (tag, attrs = {}, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const kid of kids) if (kid != null) e.append(kid);
    return e;
  };
  const newCid = () => {
    const b = new Uint8Array(12);
    crypto.getRandomValues(b);
    return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  };
  // a logged seat name carries the tournament id as "Name #ID" (daemon/web/console_actions.py)
  const splitName = (logged) => {
    const m = /^(.*) #([A-Za-z0-9_.-]{1,32})$/.exec(logged || "");
    return m ? { name: m[1], id: m[2] } : { name: logged || "", id: "" };
  };
  const seatName = (s) => {
    const seat = state && state.snapshot.seats ? state.snapshot.seats[s] : null;
    const wind = seat && seat.wind ? WIND_NAMES[seat.wind] || seat.wind : "";
    const name = seat && seat.name ? splitName(seat.name).name : `Seat ${s}`;
    return wind ? `${name} (${wind})` : name;
  };
  // mjai name ("5m", "5mr", "E") -> tile image (bundled with the overlay: /tiles/)
  const tileImg = (name) => {
    let file;
    if (HONORS.includes(name)) file = `${HONORS.indexOf(name) + 1}z`;
    else if (name.endsWith("r")) file = `0${name[1]}`;
    else file = name;
    return el("img", { src: `/tiles/${file}.svg`, alt: name, title: name, draggable: "false" });
  };

  // physical tile id 0..135 (rules/tiles.py) -> mjai name; red fives are ids 16, 52, 88
  const tileName = (id) => {
    const k = id >> 2;
    if (k >= 27) return HONORS[k - 27];
    return `${(k % 9) + 1}${SUITS[Math.floor(k / 9)]}${[16, 52, 88].includes(id) ? "r" : ""}`;
  };

  // ------------------------------------------------------------------ HTTP
  async function api(path, body) {
    const opts = { method: body === undefined ? "GET" : "POST", credentials: "same-origin", headers: {} };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.headers["X-CSRF-Token"] = csrf;
      opts.body = JSON.stringify(body);
    }
    let resp;
    try {
      resp = await fetch(API + path, opts);
    } catch (err) {
      link(false);
      return { status: 0, body: { status: "error", error: { code: "offline", message: "the table does not answer (network)" } } };
    }
    link(true);
    let data;
    try { data = await resp.json(); } catch (err) { data = { status: "error", error: { code: "http", message: `HTTP ${resp.status}` } }; }
    if (resp.status === 401) showLogin(data.error ? data.error.message : "log in");
    return { status: resp.status, body: data };
  }
  function link(ok) {
    const l = $("bar-link");
    l.textContent = ok ? "● connected" : "● no connection";
    l.className = "link " + (ok ? "ok" : "bad");
  }

  // ------------------------------------------------------------------ login
  function showLogin(message) {
    csrf = "";
    state = null;
    if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
    $("main").hidden = true;
    $("logout").hidden = true;
    $("bar-user").textContent = "";
    $("login").hidden = false;
    $("login-msg").textContent = message || "";
    $("login-password").value = "";
  }
  function loggedIn(info) {
    csrf = info.csrf;
    $("login").hidden = true;
    $("main").hidden = false;
    $("logout").hidden = false;
    $("bar-user").textContent = `${info.user} (${info.role})`;
    $("bar-table").textContent = `table ${info.table}`;
    refresh();
    if (!pollTimer) pollTimer = setInterval(refresh, POLL_MS);
  }
  $("login-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("login-msg").textContent = "checking…";
    $("login-submit").disabled = true;
    const r = await api("login", { user: $("login-user").value.trim(), password: $("login-password").value });
    $("login-submit").disabled = false;
    if (r.status === 200) loggedIn(r.body);
    else {
      $("login-msg").textContent = r.body.error ? r.body.error.message : `login failed (${r.status})`;
      $("login-password").value = "";
    }
  });
  $("logout").addEventListener("click", async () => {
    await api("logout", {});
    showLogin("logged out");
  });

  // ------------------------------------------------------------------ the table
  async function refresh() {
    const r = await api("state");
    if (r.status !== 200) return;
    state = r.body;
    const min = Math.ceil(state.expires_in / 60);
    $("bar-user").textContent = `${state.user} (${state.role}) · logs out in ${min} min`;
    render();
  }
  function fmtClock(ns) {
    if (ns == null) return "";
    const s = Math.max(0, Math.round(ns / 1e9));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }
  function render() {
    const snap = state.snapshot;
    const seats = $("seats");
    seats.replaceChildren();
    const clocks = state.clocks || {};
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
    const round = snap.round_wind ? `${WIND_NAMES[snap.round_wind] || snap.round_wind} ${(snap.hand_in_round || 0) + 1}` : "no game";
    $("round").textContent = snap.game_over ? `${round} — game over` : round;
    $("sticks").textContent = snap.honba == null ? "" : `honba ${snap.honba} · deposits ${snap.deposits}`;
    const dora = $("dora");
    dora.replaceChildren();
    for (const t of snap.dora_indicators || []) if (Number.isInteger(t)) dora.append(tileImg(tileName(t)));
    $("step").textContent = snap.step ? `step: ${snap.step}` : (state.game ? "between hands" : "");
    const k = clocks.phase && clocks.phase !== "none" ? `clocks: ${clocks.phase}${clocks.paused ? " (paused)" : ""}` : "clocks: —";
    $("clock").textContent = k;
    $("k-text").textContent = k;
    const lr = snap.last_result && snap.last_result.settlement;
    $("last-hand").textContent = lr ? `last hand: ${lr.kind} ${lr.deltas.map((d) => (d > 0 ? "+" : "") + d).join(" / ")}` : "";

    const won = snap.step === "won";
    $("pending-win").hidden = !won;
    $("pending-win-text").textContent = won ? "A declared win waits for the referee." : "";
    $("w-text").textContent = won ? "A declared win waits: confirm it (it is settled) or reject it." : "No win is waiting for the referee.";
    const vio = $("violations");
    vio.replaceChildren();
    for (const v of snap.open_violations || []) {
      const who = v.seat == null ? "" : ` — ${seatName(v.seat)}`;
      vio.append(el("div", { class: "violation", "data-violation": String(v.id) },
        el("span", { text: `Violation #${v.id}: ${v.code}${who} (expected ${JSON.stringify(v.expected)}, got ${JSON.stringify(v.actual)})` }),
        state.allowed.includes("accept_violation") ? el("button", { type: "button", text: "Accept…", onclick: () => startPreview("Accept violation", "accept_violation", { id: v.id, reason: "accepted by the referee" }) }) : null));
    }
    const last = state.referee_log.length ? state.referee_log[state.referee_log.length - 1] : null;
    $("u-text").textContent = last ? `Last referee action: ${last.action} by ${last.by} (input ${last.seq}).` : "No referee action to undo.";
    renderRecent();
    // a new hand: the riichi picker starts from what the table saw (nothing, without sensors)
    if (snap.hand !== riichiHand) {
      riichiHand = snap.hand;
      chosen["h-riichi"] = new Set((snap.seats || []).filter((x) => x.riichi === "accepted").map((x) => x.seat));
      pickerSig = "";
    }
    renderSeatPickers();
    renderRules();
    renderHistory();
    if (!$("g-ruleset").options.length) {
      for (const r of state.rulesets) $("g-ruleset").append(el("option", { value: r, text: r }));
      $("g-ruleset").value = state.default_ruleset;
    }
    const cs = $("c-scores");
    // refilled from the table when it changes, unless the referee is editing the numbers
    if (!cs.dataset.dirty && (!cs.dataset.filled || cs.dataset.seq !== String(state.input_seq))) {
      cs.replaceChildren();
      for (const seat of snap.seats || []) {
        cs.append(el("label", {}, seatName(seat.seat), el("input", { type: "number", step: "100", inputmode: "numeric", id: `c-score-${seat.seat}`, value: seat.score == null ? "" : String(seat.score) })));
      }
      cs.dataset.filled = "1";
      cs.dataset.seq = String(state.input_seq);
    }
    for (const b of document.querySelectorAll("#tabs button")) {
      b.disabled = !tabAllowed(b.dataset.tab);
    }
  }
  const TAB_COMMANDS = { result: ["manual_result"], draw: ["manual_result"], penalty: ["chombo", "penalty", "dead_hand"], correct: ["set_scores", "swap_seats"], win: ["confirm_win", "reject_win"], clock: ["pause", "resume"], undo: ["undo"], game: ["new_game", "end_game"] };
  const tabAllowed = (tab) => !state || (TAB_COMMANDS[tab] || []).some((c) => state.allowed.includes(c));

  function describe(rec) {
    const b = rec.body || {};
    if (b.type === "referee") {
      const a = b.args || {};
      const bits = Object.entries(a).filter(([k]) => k !== "reason").map(([k, v]) => `${k}=${JSON.stringify(v)}`);
      return `${b.action} ${bits.join(" ")}${a.reason ? ` — “${a.reason}”` : ""}`;
    }
    if (b.type === "game_start") return `new game: ${b.ruleset}, ${(b.names || []).join(" / ")}`;
    return b.type || rec.kind;
  }
  function renderRecent() {
    const ol = $("recent");
    ol.replaceChildren();
    for (const rec of state.recent) {
      ol.append(el("li", { "data-seq": String(rec.seq) },
        el("span", { text: `#${rec.seq} ${rec.ts.slice(11, 19)} ` }),
        el("span", { class: "who", text: rec.source }),
        el("span", { text: ` ${describe(rec)}` })));
    }
  }

  // ------------------------------------------------------------------ seat pickers
  const chosen = {};  // picker id -> seat or Set of seats
  let pickerSig = "";
  // seats that cannot be picked here given the other pickers (the winner cannot have dealt in)
  const EXCLUDE = { "r-loser": ["r-winner", "r-winner2"], "r-winner": ["r-loser"], "r-winner2": ["r-loser", "r-winner"], "r-pao": ["r-winner"] };
  function renderSeatPickers(force) {
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

  // ------------------------------------------------------------------ tabs
  for (const b of document.querySelectorAll("[data-tab]")) {
    b.addEventListener("click", () => openTab(b.dataset.tab));
  }
  function openTab(tab) {
    for (const p of document.querySelectorAll(".panel")) p.hidden = p.id !== `panel-${tab}`;
    for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("on", b.dataset.tab === tab);
    closePreview();
  }

  // ------------------------------------------------------------------ what the ruleset has
  let rulesSig = "";
  function renderRules() {
    const info = state.ruleset_info;
    const sig = JSON.stringify(info);
    if (sig === rulesSig) return;
    rulesSig = sig;
    if (!$("g-auto-hands").dataset.set) { $("g-auto-hands").checked = !!state.sensorless; $("g-auto-hands").dataset.set = "1"; }
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

  // ------------------------------------------------------------------ hand history
  const signed = (d) => (d > 0 ? "+" : "") + d;
  // the history names players without winds: the winds moved on since
  const plainName = (s) => {
    const seat = state && state.snapshot.seats ? state.snapshot.seats[s] : null;
    return seat && seat.name ? splitName(seat.name).name : `Seat ${s}`;
  };
  function resultText(h) {
    if (!h.ended) return "being played";
    const who = plainName;
    if (h.kind === "win") {
      const paid = h.wins.map((w) => {
        const v = w.value ? `${w.value} points` : w.yakuman ? `${w.yakuman}× yakuman` : `${w.han} han${w.fu ? ` ${w.fu} fu` : ""}`;
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
  function renderHistory() {
    const t = $("history");
    const rows = state.history || [];
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
        ...SEATS.map((s) => el("td", { class: h.deltas[s] > 0 ? "plus" : h.deltas[s] < 0 ? "minus" : "", "data-seat": String(s), text: signed(h.deltas[s]) }))));
      t.append(el("tr", { "data-hand": String(h.hand), class: "total-row" },
        el("td", {}), el("td", { class: "hint", text: "scores after" }),
        ...SEATS.map((s) => el("td", { "data-seat": String(s), text: String(h.scores_after[s]) }))));
    }
    const last = state.referee_log.length ? state.referee_log[state.referee_log.length - 1] : null;
    $("h-undo").disabled = !last || !["manual_result", "chombo"].includes(last.action) || !tabAllowed("undo");
  }
  $("h-undo").addEventListener("click", () => startPreview("Undo the last result", "undo", { reason: "result entered wrongly" }));
  $("h-correct").addEventListener("click", () => { openTab("correct"); $("c-scores").scrollIntoView({ block: "nearest" }); });

  // ------------------------------------------------------------------ the tile picker
  const radio = (name) => { const r = document.querySelector(`input[name="${name}"]:checked`); return r ? r.value : null; };
  function buildPalette() {
    const pal = $("t-palette");
    const names = [];
    for (const s of SUITS) for (let n = 1; n <= 9; n++) names.push(`${n}${s}`);
    names.push(...HONORS, "5mr", "5pr", "5sr");
    for (const n of names) pal.append(el("button", { type: "button", "data-tile": n, onclick: () => addTile(n) }, tileImg(n)));
    for (const f of FLAGS) {
      $("t-flags").append(el("label", { class: "pill" }, el("input", { type: "checkbox", id: `t-flag-${f}` }), f.replace("_", " ")));
    }
    for (const pick of document.querySelectorAll(".fupick")) {
      const target = $(pick.dataset.for);
      const draw = () => {
        pick.replaceChildren();
        for (const fu of FU) {
          pick.append(el("button", { type: "button", class: target.value === String(fu) ? "on" : "", "data-fu": String(fu), text: String(fu), onclick: () => { target.value = String(fu); draw(); } }));
        }
      };
      draw();
    }
    YAKU.forEach(([name, closed, open], i) => {
      $("y-list").append(el("label", { class: "pill", "data-yaku": name }, el("input", { type: "checkbox", id: `y-${i}` }), `${name} `, el("span", { class: "hint", text: closed >= 13 ? "yakuman" : open && open !== closed ? `${closed} (open ${open})` : open ? String(closed) : `${closed}, closed only` })));
    });
    $("y-box").addEventListener("change", yakuHan);
    $("y-box").addEventListener("input", yakuHan);
  }
  // the checklist's count goes into the han (or the yakuman count) field
  function yakuHan() {
    const open = $("y-open").checked;
    let han = 0, yakuman = 0;
    const names = [];
    YAKU.forEach(([name, closed, openHan], i) => {
      const box = $(`y-${i}`);
      const lbl = box.closest("label");
      const allowed = !open || openHan > 0;
      lbl.classList.toggle("barred", !allowed);
      if (!box.checked || !allowed) return;
      names.push(name);
      if (closed >= 13) yakuman += 1;
      else han += open ? openHan : closed;
    });
    const dora = Number.parseInt($("y-dora").value, 10) || 0;
    if (yakuman) {
      $("y-total").textContent = `${names.join(", ")}: ${yakuman}× yakuman`;
      document.querySelector('input[name="r-mode"][value="yakuman"]').checked = true;
      $("r-yakuman").value = String(yakuman);
      for (const m of document.querySelectorAll("#panel-result .mode")) m.hidden = m.dataset.mode !== "yakuman";
      return;
    }
    if (!names.length) { $("y-total").textContent = "No yaku ticked: a hand needs one (dora alone do not count)."; return; }
    $("y-total").textContent = `${names.join(", ")}${dora ? ` + ${dora} dora` : ""} = ${han + dora} han`;
    $("r-han").value = String(han + dora);
  }
  function addTile(name) {
    const target = radio("t-target");
    if (target === "win") picked.win = [name];
    else if (target === "meld") {
      picked.meldBuf.push(name);
      const kind = $("t-meld-kind").value;
      if (picked.meldBuf.length >= MELD_SIZE[kind]) { picked.melds.push({ kind, tiles: picked.meldBuf }); picked.meldBuf = []; }
    } else picked[target].push(name);
    renderPicked();
  }
  function renderPicked() {
    const row = (id, list, key) => {
      const box = $(id);
      box.replaceChildren();
      list.forEach((n, i) => box.append(el("button", { type: "button", title: "remove", onclick: () => { picked[key].splice(i, 1); renderPicked(); } }, tileImg(n))));
    };
    row("t-hand", picked.hand, "hand");
    row("t-win", picked.win, "win");
    row("t-dora", picked.dora, "dora");
    row("t-ura", picked.ura, "ura");
    const m = $("t-melds");
    m.replaceChildren();
    picked.melds.forEach((meld, i) => {
      m.append(el("button", { type: "button", class: "meld", title: `remove ${meld.kind}`, onclick: () => { picked.melds.splice(i, 1); renderPicked(); } }, ...meld.tiles.map(tileImg)));
    });
    if (picked.meldBuf.length) m.append(el("span", { class: "meld" }, ...picked.meldBuf.map(tileImg), el("span", { class: "hint", text: "…" })));
  }
  $("t-clear").addEventListener("click", () => {
    picked.hand = []; picked.win = []; picked.melds = []; picked.dora = []; picked.ura = []; picked.meldBuf = [];
    renderPicked();
  });
  for (const r of document.querySelectorAll('input[name="r-mode"]')) {
    r.addEventListener("change", () => {
      for (const m of document.querySelectorAll("#panel-result .mode")) m.hidden = m.dataset.mode !== radio("r-mode");
    });
  }
  $("r-second").addEventListener("change", () => { $("r-second-row").hidden = !$("r-second").checked; });
  for (const r of document.querySelectorAll('input[name="t-target"]')) {
    r.addEventListener("change", () => { $("t-meld-kind").hidden = radio("t-target") !== "meld"; });
  }
  for (const r of document.querySelectorAll('input[name="r-kind"]')) {
    r.addEventListener("change", () => {
      $("r-loser-row").hidden = radio("r-kind") !== "ron";
      $("r-second-box").classList.toggle("off", radio("r-kind") !== "ron");
    });
  }
  for (const r of document.querySelectorAll('input[name="d-kind"]')) {
    r.addEventListener("change", () => {
      const abortive = radio("d-kind") === "abortive";
      $("d-abort").hidden = !abortive;
      $("d-tenpai-row").hidden = abortive;
    });
  }
  for (const r of document.querySelectorAll('input[name="p-kind"]')) {
    r.addEventListener("change", () => { $("p-amounts").hidden = radio("p-kind") !== "penalty"; });
  }

  // ------------------------------------------------------------------ the forms
  const int = (id) => Number.parseInt($(id).value, 10);
  const say = (cls, text) => { const r = $("reply"); r.className = "reply " + cls; r.textContent = text; };

  const riichiList = () => [...(chosen["h-riichi"] || [])].sort();
  $("panel-result").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const kind = radio("r-kind");
    const mode = radio("r-mode");
    const win = { winner: chosen["r-winner"] };
    if (win.winner == null) return say("error", "Choose the winner.");
    if (kind === "ron") {
      if (chosen["r-loser"] == null) return say("error", "Choose the seat that dealt in.");
      if (chosen["r-loser"] === win.winner) return say("error", "The winner cannot be the seat that dealt in: pick the discarder.");
      win.loser = chosen["r-loser"];
    }
    let tiles;
    if (mode === "hanfu") { win.han = int("r-han"); win.fu = int("r-fu"); }
    else if (mode === "yakuman") {
      win.yakuman = int("r-yakuman");
      if (chosen["r-pao"] != null) win.pao = chosen["r-pao"];  // M 8-1, μ §67
    }
    else if (mode === "points") win.points = int("r-points");
    else {
      if (picked.meldBuf.length) return say("error", "Finish the meld being picked (or clear it).");
      if (picked.win.length !== 1) return say("error", "Pick the winning tile.");
      const flags = {};
      for (const f of FLAGS) if ($(`t-flag-${f}`).checked) flags[f] = true;
      // the riichi list of the hand says whether the winner declared
      if (riichiList().includes(win.winner) && !flags.double_riichi) flags.riichi = true;
      if (!riichiList().includes(win.winner)) { delete flags.riichi; delete flags.double_riichi; delete flags.ippatsu; }
      tiles = { hand: picked.hand, win_tile: picked.win[0], melds: picked.melds, dora: picked.dora, ura: picked.ura, flags };
    }
    const wins = [win];
    if (kind === "ron" && mode === "hanfu" && $("r-second").checked) {
      if (chosen["r-winner2"] == null) return say("error", "Choose the second winner.");
      if (chosen["r-winner2"] === win.winner || chosen["r-winner2"] === win.loser) return say("error", "The second winner must be a third seat: neither the first winner nor the discarder.");
      wins.push({ winner: chosen["r-winner2"], loser: win.loser, han: int("r-han2"), fu: int("r-fu2") });
    }
    for (const w of wins) for (const [k, v] of Object.entries(w)) if (Number.isNaN(v)) return say("error", `${k}: enter a number`);
    const who = wins.map((w) => seatName(w.winner)).join(" + ");
    startPreview(`${kind === "ron" ? "Ron" : "Tsumo"}: ${who}`, "manual_result", { kind, wins, riichi: riichiList(), reason: $("r-reason").value }, tiles);
  });
  $("panel-draw").addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (radio("d-kind") === "abortive") {
      const abort = $("d-abort").value;
      if (!abort) return say("error", "This ruleset has no abortive draws: record an exhaustive draw, or play the hand on.");
      return startPreview(`Abortive draw: ${ABORT_WORDS[abort] || abort}`, "manual_result", { kind: "abortive", abort, riichi: riichiList(), reason: $("d-reason").value });
    }
    const tenpai = [...chosen["d-tenpai"]].sort();
    const noten = riichiList().filter((s) => !tenpai.includes(s));
    if (noten.length) return say("error", `${seatName(noten[0])} declared riichi but is not marked tenpai: mark the seat tenpai, or record the noten riichi as a chombo (Chombo tab).`);
    startPreview("Exhaustive draw", "manual_result", { kind: "exhaustive", tenpai, riichi: riichiList(), reason: $("d-reason").value });
  });
  $("panel-penalty").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const seat = chosen["p-seat"];
    if (seat == null) return say("error", "Choose the seat.");
    const kind = radio("p-kind");
    const reason = $("p-reason").value;
    if (kind === "penalty") {
      const args = { seat, reason };
      const points = int("p-points");
      const pt = Number.parseFloat($("p-pt").value);
      if (points) args.points = points;
      if (pt) args.pt = pt;
      startPreview(`Penalty: ${seatName(seat)}`, "penalty", args);
    } else startPreview(`${kind === "chombo" ? "Chombo" : "Dead hand"}: ${seatName(seat)}`, kind, { seat, reason });
  });
  $("c-scores").addEventListener("input", () => { $("c-scores").dataset.dirty = "1"; });
  $("panel-correct").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const scores = SEATS.map((s) => int(`c-score-${s}`));
    if (scores.some(Number.isNaN)) return say("error", "Enter all four scores.");
    startPreview("Correct scores", "set_scores", { scores, reason: $("c-reason").value });
  });
  $("s-preview").addEventListener("click", () => {
    const a = chosen["s-a"], b = chosen["s-b"];
    if (a == null || b == null) return say("error", "Choose the two seats to swap.");
    startPreview(`Swap ${seatName(a)} ↔ ${seatName(b)}`, "swap_seats", { a, b, reason: $("s-reason").value });
  });
  $("w-confirm").addEventListener("click", () => startPreview("Confirm the declared win", "confirm_win", { reason: $("w-reason").value }));
  $("w-reject").addEventListener("click", () => startPreview("Reject the declared win", "reject_win", { reason: $("w-reason").value || "rejected by the referee", chombo: $("w-chombo").checked }));
  $("k-pause").addEventListener("click", () => startPreview("Pause the clocks", "pause", { reason: $("k-reason").value }));
  $("k-resume").addEventListener("click", () => startPreview("Resume the clocks", "resume", { reason: $("k-reason").value }));
  $("panel-undo").addEventListener("submit", (ev) => {
    ev.preventDefault();
    startPreview("Undo the last referee action", "undo", { reason: $("u-reason").value });
  });
  $("e-preview").addEventListener("click", () => startPreview("End the game now", "end_game", { reason: $("e-reason").value }));

  // new game: players, seat draw or entered seating
  function buildPlayers() {
    const box = $("g-players");
    for (const s of SEATS) {
      box.append(el("div", { class: "player" },
        el("span", { class: "lbl", text: `Seat ${s}` }),
        el("input", { class: "pname", id: `g-name-${s}`, placeholder: "name", maxlength: "40" }),
        el("input", { class: "pid", id: `g-id-${s}`, placeholder: "player id", maxlength: "32", autocapitalize: "none" })));
    }
  }
  $("g-draw").addEventListener("click", async () => {
    const players = SEATS.map((s) => ({ name: $(`g-name-${s}`).value, id: $(`g-id-${s}`).value }));
    const r = await api("seat-draw", { players });
    if (r.status !== 200) return say("error", r.body.error.message);
    r.body.seats.forEach((p, s) => { $(`g-name-${s}`).value = p.name; $(`g-id-${s}`).value = p.id; });
    chosen["g-dealer"] = r.body.first_dealer;
    $("g-seed").textContent = `seat draw seed ${r.body.seed}: first dealer seat ${r.body.first_dealer}`;
    renderSeatPickers(true);
  });
  $("panel-game").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const dealer = chosen["g-dealer"];
    if (dealer == null) return say("error", "Choose the first dealer (or draw the seats).");
    const names = SEATS.map((s) => $(`g-name-${s}`).value.trim());
    const ids = SEATS.map((s) => $(`g-id-${s}`).value.trim());
    const args = { ruleset: $("g-ruleset").value, first_dealer: dealer, names };
    if ($("g-confirm-wins").checked) args.confirm_wins = true;
    args.auto_hands = $("g-auto-hands").checked;
    startPreview("New game", "new_game", args, undefined, { player_ids: ids });
  });

  // ------------------------------------------------------------------ preview -> confirm
  async function startPreview(title, name, args, tiles, extra) {
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
        const v = w.family === "zung_jung" ? `${w.value} points` : w.yakuman ? `${w.yakuman}× yakuman` : `${w.han} han ${w.fu} fu`;
        box.append(el("p", { text: `${seatName(w.winner)} wins ${w.tsumo ? "by tsumo" : `from ${seatName(w.loser)}`}: ${v}${w.limit ? ` (${w.limit})` : ""} = ${w.points}${w.honba_points ? ` + ${w.honba_points} honba` : ""}${w.deposit_points ? ` + ${w.deposit_points} deposits` : ""}` }));
      }
      if (st.pt_penalties && st.pt_penalties.some((x) => x)) box.append(el("p", { text: `pt penalties: ${st.pt_penalties.join(" / ")}` }));
      if (st.replay) box.append(el("p", { text: "The hand is replayed." }));
      for (const n of st.notes || []) box.append(el("p", { text: n }));
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
  function closePreview() { $("preview").hidden = true; pending = null; }
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

  // ------------------------------------------------------------------ start
  buildPalette();
  buildPlayers();
  openTab("result");
  (async () => {
    const r = await api("session");
    if (r.status === 200) loggedIn(r.body);
    else showLogin("");
  })();
})();
