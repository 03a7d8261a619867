// Seat and player names as the forms, the table and the history show them.
import { WIND_NAMES } from "./vocabulary.js";
import { store } from "./store.js";

// a logged seat name carries the tournament id as "Name #ID" (daemon/web/console_actions.py)
export const splitName = (logged) => {
  const m = /^(.*) #([A-Za-z0-9_.-]{1,32})$/.exec(logged || "");
  return m ? { name: m[1], id: m[2] } : { name: logged || "", id: "" };
};
export const seatName = (s) => {
  const seat = store.state && store.state.snapshot.seats ? store.state.snapshot.seats[s] : null;
  const wind = seat && seat.wind ? WIND_NAMES[seat.wind] || seat.wind : "";
  const name = seat && seat.name ? splitName(seat.name).name : `Seat ${s}`;
  return wind ? `${name} (${wind})` : name;
};
// the history names players without winds: the winds moved on since
export const plainName = (s) => {
  const seat = store.state && store.state.snapshot.seats ? store.state.snapshot.seats[s] : null;
  return seat && seat.name ? splitName(seat.name).name : `Seat ${s}`;
};
