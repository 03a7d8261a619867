// The console's fixed words: seats, winds, tiles, scoring flags, fu, the yaku checklist and the
// abortive draws.

export const SEATS = [0, 1, 2, 3];
export const WIND_NAMES = { E: "East", S: "South", W: "West", N: "North" };
export const SUITS = ["m", "p", "s"];
export const HONORS = ["E", "S", "W", "N", "P", "F", "C"];
export const FLAGS = ["riichi", "double_riichi", "ippatsu", "haitei", "houtei", "rinshan", "chankan", "tenhou", "chiihou"];
export const FU = [20, 25, 30, 40, 50, 60, 70, 80, 90, 100, 110];
export const MELD_SIZE = { chi: 3, pon: 3, daiminkan: 4, ankan: 4, kakan: 4 };
// where each seat sits at the table, seen from seat 0's side: turn order runs to the right
// (shimocha), so seat 1 is on the right, seat 2 across, seat 3 on the left
export const POS = ["bottom", "right", "top", "left"];
// the yaku checklist: [name, han closed, han open (0: closed only)]; yakuman count 13
export const YAKU = [
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
// the checklist's yaku by the engine's names (rules/records/tenhou_words.py), which the win
// carries in manual_result wins[].yaku into the records (tenhou.net/6: 立直(1飜)); a function
// for the yaku that depend on the winds or the win
export const ENGINE_YAKU = {
  "Riichi": "Riichi", "Double riichi": "Double Riichi", "Ippatsu": "Ippatsu", "Menzen tsumo": "Menzen Tsumo",
  "Pinfu": "Pinfu", "Iipeikou": "Iipeiko", "Tanyao": "Tanyao",
  "Yakuhai: seat wind": (w) => `Yakuhai (seat wind ${w.seatWind})`,
  "Yakuhai: round wind": (w) => `Yakuhai (round wind ${w.roundWind})`,
  "Yakuhai: haku": "Yakuhai (haku)", "Yakuhai: hatsu": "Yakuhai (hatsu)", "Yakuhai: chun": "Yakuhai (chun)",
  "Haitei / houtei": (w) => (w.tsumo ? "Haitei Raoyue" : "Houtei Raoyui"),
  "Rinshan kaihou": "Rinshan Kaihou", "Chankan": "Chankan", "Chanta": "Chantai", "Ittsu": "Ittsu",
  "Sanshoku doujun": "Sanshoku Doujun", "Sanshoku doukou": "Sanshoku Doukou", "Toitoi": "Toitoi",
  "San ankou": "San Ankou", "San kantsu": "San Kantsu", "Shousangen": "Shou Sangen", "Honroutou": "Honroutou",
  "Chiitoitsu": "Chiitoitsu", "Ryanpeikou": "Ryanpeikou", "Honitsu": "Honitsu", "Junchan": "Junchan",
  "Chinitsu": "Chinitsu", "Kokushi musou": "Kokushi Musou", "Suu ankou": "Suu Ankou", "Daisangen": "Daisangen",
  "Shousuushii": "Shousuushii", "Daisuushii": "Dai Suushii", "Tsuuiisou": "Tsuu Iisou",
  "Chinroutou": "Chinroutou", "Ryuuiisou": "Ryuuiisou", "Chuuren poutou": "Chuuren Poutou",
  "Suu kantsu": "Suu Kantsu", "Tenhou": "Tenhou", "Chiihou": "Chiihou",
};
export const ABORT_WORDS = { nine_terminals: "nine terminals (kyuushu kyuuhai)", four_winds: "four winds (suufon renda)", four_riichi: "four riichi (suucha riichi)", four_kans: "four kans (suukaikan)", triple_ron: "triple ron (sanchahou)" };
