// jantaku overlay: the riichi yaku and limit names in Japanese and Chinese (docs/overlay.md).
// Keys are the engine's names (those of the `mahjong` package, rules/scoring/value.py); ja are
// Tenhou's (rules/records/tenhou_words.py, the names Japanese broadcasts use), zh those of the
// Chinese riichi clients (Mahjong Soul's simplified Chinese). tests/web/test_overlay_words.py
// checks that every name the engine can give has both.
"use strict";

const WINDS_JA = { east: "東", south: "南", west: "西", north: "北" };
const WINDS_ZH = { east: "东", south: "南", west: "西", north: "北" };

function windYaku(winds, seat, round) {
  const out = {};
  for (const [w, name] of Object.entries(winds)) {
    out[`Yakuhai (seat wind ${w})`] = `${seat} ${name}`;
    out[`Yakuhai (round wind ${w})`] = `${round} ${name}`;
  }
  return out;
}

const YAKU_WORDS = {
  ja: {
    "Menzen Tsumo": "門前清自摸和", "Riichi": "立直", "Ippatsu": "一発", "Chankan": "槍槓",
    "Rinshan Kaihou": "嶺上開花", "Haitei Raoyue": "海底摸月", "Houtei Raoyui": "河底撈魚",
    "Pinfu": "平和", "Tanyao": "断幺九", "Iipeiko": "一盃口",
    "Yakuhai (haku)": "役牌 白", "Yakuhai (hatsu)": "役牌 發", "Yakuhai (chun)": "役牌 中",
    ...windYaku(WINDS_JA, "自風", "場風"),
    "Double Riichi": "両立直", "Chiitoitsu": "七対子", "Chantai": "混全帯幺九",
    "Ittsu": "一気通貫", "Sanshoku Doujun": "三色同順", "Sanshoku Doukou": "三色同刻",
    "San Kantsu": "三槓子", "Toitoi": "対々和", "San Ankou": "三暗刻", "Shou Sangen": "小三元",
    "Honroutou": "混老頭", "Ryanpeikou": "二盃口", "Junchan": "純全帯幺九", "Honitsu": "混一色",
    "Chinitsu": "清一色", "Renhou": "人和", "Renhou (yakuman)": "人和", "Tenhou": "天和",
    "Chiihou": "地和", "Daisangen": "大三元", "Suu Ankou": "四暗刻",
    "Suu Ankou Tanki": "四暗刻単騎", "Tsuu Iisou": "字一色", "Ryuuiisou": "緑一色",
    "Chinroutou": "清老頭", "Chuuren Poutou": "九蓮宝燈", "Daburu Chuuren Poutou": "純正九蓮宝燈",
    "Kokushi Musou": "国士無双", "Kokushi Musou Juusanmen Matchi": "国士無双十三面",
    "Dai Suushii": "大四喜", "Shousuushii": "小四喜", "Suu Kantsu": "四槓子",
    "Nagashi Mangan": "流し満貫", "Dora": "ドラ", "Aka Dora": "赤ドラ", "Ura Dora": "裏ドラ",
  },
  zh: {
    "Menzen Tsumo": "门前清自摸和", "Riichi": "立直", "Ippatsu": "一发", "Chankan": "抢杠",
    "Rinshan Kaihou": "岭上开花", "Haitei Raoyue": "海底摸月", "Houtei Raoyui": "河底捞鱼",
    "Pinfu": "平和", "Tanyao": "断幺九", "Iipeiko": "一杯口",
    "Yakuhai (haku)": "役牌 白", "Yakuhai (hatsu)": "役牌 发", "Yakuhai (chun)": "役牌 中",
    ...windYaku(WINDS_ZH, "自风", "场风"),
    "Double Riichi": "两立直", "Chiitoitsu": "七对子", "Chantai": "混全带幺九",
    "Ittsu": "一气通贯", "Sanshoku Doujun": "三色同顺", "Sanshoku Doukou": "三色同刻",
    "San Kantsu": "三杠子", "Toitoi": "对对和", "San Ankou": "三暗刻", "Shou Sangen": "小三元",
    "Honroutou": "混老头", "Ryanpeikou": "二杯口", "Junchan": "纯全带幺九", "Honitsu": "混一色",
    "Chinitsu": "清一色", "Renhou": "人和", "Renhou (yakuman)": "人和", "Tenhou": "天和",
    "Chiihou": "地和", "Daisangen": "大三元", "Suu Ankou": "四暗刻",
    "Suu Ankou Tanki": "四暗刻单骑", "Tsuu Iisou": "字一色", "Ryuuiisou": "绿一色",
    "Chinroutou": "清老头", "Chuuren Poutou": "九莲宝灯", "Daburu Chuuren Poutou": "纯正九莲宝灯",
    "Kokushi Musou": "国士无双", "Kokushi Musou Juusanmen Matchi": "国士无双十三面",
    "Dai Suushii": "大四喜", "Shousuushii": "小四喜", "Suu Kantsu": "四杠子",
    "Nagashi Mangan": "流局满贯", "Dora": "宝牌", "Aka Dora": "赤宝牌", "Ura Dora": "里宝牌",
  },
};

// rules/scoring/limits.py:basic_points names ("2x yakuman" for a multiple)
const LIMIT_WORDS = {
  ja: { mangan: "満貫", haneman: "跳満", baiman: "倍満", sanbaiman: "三倍満", yakuman: "役満",
        "kazoe yakuman": "数え役満", multiple: (n) => `${n}倍役満` },
  zh: { mangan: "满贯", haneman: "跳满", baiman: "倍满", sanbaiman: "三倍满", yakuman: "役满",
        "kazoe yakuman": "累计役满", multiple: (n) => `${n}倍役满` },
};

// The ordinal of a rank ("3rd"), and the tsumo label of rules/conditions.py:_label
// ("2,000 all" from a dealer, "1,000-2,000" otherwise: unchanged, digits only).
const RANK_WORDS = { en: ["1st", "2nd", "3rd", "4th"], ja: ["1位", "2位", "3位", "4位"],
                     zh: ["第1名", "第2名", "第3名", "第4名"] };
const ALL_WORDS = { en: (n) => `${n} all`, ja: (n) => `${n}オール`, zh: (n) => `各家${n}` };

// Zung Jung patterns (rules/scoring/zung_jung_patterns.py: the key the engine puts on the card
// and its Chinese name, which Japanese and Chinese broadcasts both write; kept in step by
// tests/web/test_overlay_words.py)
const ZJ_WORDS = {
  all_sequences: "平和", concealed_hand: "門前清", no_terminals: "斷么九", mixed_one_suit: "混一色",
  pure_one_suit: "清一色", nine_gates: "九蓮寶燈", value_honor: "番牌", small_three_dragons: "小三元",
  big_three_dragons: "大三元", small_three_winds: "小三風", big_three_winds: "大三風",
  small_four_winds: "小四喜", big_four_winds: "大四喜", all_honors: "字一色", all_triplets: "對對和",
  two_concealed_triplets: "二暗刻", three_concealed_triplets: "三暗刻", four_concealed_triplets: "四暗刻",
  one_kong: "一槓", two_kongs: "二槓", three_kongs: "三槓", four_kongs: "四槓",
  two_identical_sequences: "一般高", two_identical_sequences_twice: "兩般高",
  three_identical_sequences: "一色三同順", four_identical_sequences: "一色四同順",
  three_similar_sequences: "三色同順", small_three_similar_triplets: "三色小同刻",
  three_similar_triplets: "三色同刻", nine_tile_straight: "一氣通貫", three_consecutive_triplets: "三連刻",
  four_consecutive_triplets: "四連刻", mixed_lesser_terminals: "混全帶么",
  pure_lesser_terminals: "純全帶么", mixed_greater_terminals: "混么九", pure_greater_terminals: "清么九",
  final_draw: "海底撈月", final_discard: "河底撈魚", win_on_kong: "嶺上開花", robbing_a_kong: "搶槓",
  blessing_of_heaven: "天和", blessing_of_earth: "地和", thirteen_terminals: "十三么九",
  seven_pairs: "七對子"
};

function yakuWord(lang, name) {
  const words = YAKU_WORDS[lang];
  return words ? words[name] || ZJ_WORDS[name] || name : name;
}

function limitWord(lang, limit) {
  const words = LIMIT_WORDS[lang];
  if (!words || !limit) return limit;
  const multiple = /^(\d+)x yakuman$/.exec(limit);
  if (multiple) return words.multiple(Number(multiple[1]));
  return words[limit] || limit;
}

function needLabel(lang, label) {
  const all = / all$/.exec(label) ? label.slice(0, -4) : null;
  return all === null ? label : ALL_WORDS[lang](all);
}
