// The panels' forms: each checks what the referee entered and asks for the preview of one command.
import { ABORT_WORDS, FLAGS, SEATS } from "./vocabulary.js";
import { $, el, int, radio, say } from "./dom.js";
import { api } from "./api.js";
import { seatName } from "./names.js";
import { chosen, renderSeatPickers, riichiList } from "./seatpick.js";
import { picked, renderFu, tickedYaku } from "./tilepick.js";
import { store } from "./store.js";
import { startPreview } from "./preview.js";

// which fields a choice shows
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
    renderFu();  // the fu a hand can have depend on ron or tsumo
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
  const hanFu = (hanId, fuId, what) => {
    const han = int(hanId);
    if (!(han >= 1)) return `Enter the han${what}.`;
    if (han >= 5) return { han, fu: 0 };  // M 6-6-2: the fu do not count
    const fu = int(fuId);
    return Number.isNaN(fu) ? `Pick the fu${what} (the picker offers the fu a ${kind} of ${han} han can have).` : { han, fu };
  };
  if (mode === "hanfu") {
    const v = hanFu("r-han", "r-fu", "");
    if (typeof v === "string") return say("error", v);
    Object.assign(win, v);
  }
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
  if (mode === "hanfu" || mode === "yakuman") {
    // the yaku ticked on the checklist go into the records when they tell the value entered
    const snap = (store.state && store.state.snapshot) || {};
    const winds = ["east", "south", "west", "north"];
    const roundWind = winds["ESWN".indexOf(snap.round_wind)] || "east";
    const seatWind = winds[(win.winner - (snap.dealer || 0) + 4) % 4];
    const t = tickedYaku({ seatWind, roundWind, tsumo: kind === "tsumo" });
    if (t && (mode === "hanfu" ? t.han === win.han : t.yakuman === win.yakuman)) win.yaku = t.yaku;
  }
  const wins = [win];
  if (kind === "ron" && mode === "hanfu" && $("r-second").checked) {
    if (chosen["r-winner2"] == null) return say("error", "Choose the second winner.");
    if (chosen["r-winner2"] === win.winner || chosen["r-winner2"] === win.loser) return say("error", "The second winner must be a third seat: neither the first winner nor the discarder.");
    const v = hanFu("r-han2", "r-fu2", " of the second winner");
    if (typeof v === "string") return say("error", v);
    wins.push({ winner: chosen["r-winner2"], loser: win.loser, ...v });
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
export function buildPlayers() {
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
