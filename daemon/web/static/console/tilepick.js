// The tile picker of a hand by its tiles (palette, melds, dora, flags), the fu picker and the yaku
// checklist that counts the han.
import { ENGINE_YAKU, FLAGS, FU, HONORS, MELD_SIZE, SUITS, YAKU } from "./vocabulary.js";
import { $, el, radio } from "./dom.js";
import { tileImg } from "./tiles.js";

export const picked = { hand: [], win: [], melds: [], dora: [], ura: [], meldBuf: [] };

export function buildPalette() {
  const pal = $("t-palette");
  const names = [];
  for (const s of SUITS) for (let n = 1; n <= 9; n++) names.push(`${n}${s}`);
  names.push(...HONORS, "5mr", "5pr", "5sr");
  for (const n of names) pal.append(el("button", { type: "button", "data-tile": n, onclick: () => addTile(n) }, tileImg(n)));
  for (const f of FLAGS) {
    $("t-flags").append(el("label", { class: "pill" }, el("input", { type: "checkbox", id: `t-flag-${f}` }), f.replace("_", " ")));
  }
  for (const pick of document.querySelectorAll(".fupick")) $(pick.dataset.han).addEventListener("input", renderFu);
  renderFu();
  YAKU.forEach(([name, closed, open], i) => {
    $("y-list").append(el("label", { class: "pill", "data-yaku": name }, el("input", { type: "checkbox", id: `y-${i}` }), `${name} `, el("span", { class: "hint", text: closed >= 13 ? "yakuman" : open && open !== closed ? `${closed} (open ${open})` : open ? String(closed) : `${closed}, closed only` })));
  });
  $("y-box").addEventListener("change", yakuHan);
  $("y-box").addEventListener("input", yakuHan);
}
// The fu picker offers only the fu a hand of the entered han can have for the win kind: the
// ruleset's table (rules/scoring/hand_values.py, /api/state ruleset_info.fu), e.g. no 20 fu on a
// ron or at 1 han, 25 fu from 2 han (chiitoitsu). From 5 han the fu do not count (M 6-6-2).
let fuTable = null;
export function setFuTable(table) { fuTable = table || null; renderFu(); }
export function fuOffered(kind, han) {
  if (!Number.isInteger(han) || han < 1) return [];
  if (!fuTable) return FU;
  if (han >= fuTable.mangan_han) return [];
  return fuTable[kind][han - 1].filter((f) => FU.includes(f));
}
export function renderFu() {
  for (const pick of document.querySelectorAll(".fupick")) {
    const target = $(pick.dataset.for);
    const han = Number.parseInt($(pick.dataset.han).value, 10);
    const kind = pick.id === "r-fu2-pick" ? "ron" : (radio("r-kind") || "ron");
    const offered = fuOffered(kind, han);
    if (!offered.includes(Number.parseInt(target.value, 10))) target.value = "";
    pick.replaceChildren();
    for (const fu of offered) {
      pick.append(el("button", { type: "button", class: target.value === String(fu) ? "on" : "", "data-fu": String(fu), text: String(fu), onclick: () => { target.value = String(fu); renderFu(); } }));
    }
    if (!offered.length) pick.append(el("span", { class: "hint", text: han >= 5 ? "fu do not count from 5 han" : "enter the han first" }));
  }
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
  renderFu();
}
// The ticked yaku as manual_result wins[].yaku ([engine name, han] pairs, the dora as "Dora"),
// with the han (or yakuman count) they add up to; null when nothing is ticked. `w`: the win's
// seatWind / roundWind (east ... north) and tsumo.
export function tickedYaku(w) {
  const open = $("y-open").checked;
  const yaku = [];
  let han = 0, yakuman = 0;
  YAKU.forEach(([name, closed, openHan], i) => {
    if (!$(`y-${i}`).checked || (open && !openHan)) return;
    const engine = ENGINE_YAKU[name];
    const value = closed >= 13 ? 13 : open ? openHan : closed;
    yaku.push([typeof engine === "function" ? engine(w) : engine, value]);
    if (closed >= 13) yakuman += 1; else han += value;
  });
  if (!yaku.length) return null;
  const dora = Number.parseInt($("y-dora").value, 10) || 0;
  if (yakuman) return { yakuman, yaku: yaku.filter(([, v]) => v >= 13) };
  if (dora > 0) yaku.push(["Dora", dora]);
  return { han: han + dora, yaku };
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
