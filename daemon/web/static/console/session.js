// Login, logout and the table state every view renders from: pushed by the server on
// /console/api/stream (server-sent events) when the table moves, never polled.
import { $ } from "./dom.js";
import { API, api, link } from "./api.js";
import { emit, on, store } from "./store.js";

// after the server refused the stream (EventSource gives up on a non-200 answer): try again
const REOPEN_MS = 3000;
// the "logs out in N min" countdown, redrawn locally (no request)
const BAR_MS = 30000;

let stream = null;
let barTimer = null;
let expiresAt = 0;

function follow() {
  if (stream || !store.csrf) return;
  stream = new EventSource(API + "stream");
  stream.addEventListener("state", (ev) => { link(true); take(JSON.parse(ev.data)); });
  stream.addEventListener("logout", (ev) => {
    const data = JSON.parse(ev.data);
    showLogin(data.error ? data.error.message : "log in");
  });
  stream.addEventListener("error", () => {
    link(false);
    // a dropped connection: EventSource reconnects by itself (readyState CONNECTING). CLOSED:
    // the server answered something else than a stream, such as the 401 of an expired login,
    // which an EventSource cannot read; one plain request tells which (api.js shows the login
    // on a 401), and a stream is opened again if the login still holds.
    if (stream && stream.readyState === EventSource.CLOSED) {
      stream = null;
      refresh().then(() => setTimeout(follow, REOPEN_MS));
    }
  });
}
function unfollow() {
  if (stream) { stream.close(); stream = null; }
  if (barTimer) { clearInterval(barTimer); barTimer = null; }
}
function take(state) {
  store.state = state;
  expiresAt = Date.now() + state.expires_in * 1000;
  bar();
  emit("state");
}
function bar() {
  if (!store.state) return;
  const min = Math.max(0, Math.ceil((expiresAt - Date.now()) / 60000));
  $("bar-user").textContent = `${store.state.user} (${store.state.role}) · logs out in ${min} min`;
}

export function showLogin(message) {
  store.csrf = "";
  store.state = null;
  unfollow();
  $("main").hidden = true;
  $("logout").hidden = true;
  $("bar-user").textContent = "";
  $("login").hidden = false;
  $("login-msg").textContent = message || "";
  $("login-password").value = "";
}
export function loggedIn(info) {
  store.csrf = info.csrf;
  $("login").hidden = true;
  $("main").hidden = false;
  $("logout").hidden = false;
  $("bar-user").textContent = `${info.user} (${info.role})`;
  $("bar-table").textContent = `table ${info.table}`;
  follow();  // its first message is the whole state
  if (!barTimer) barTimer = setInterval(bar, BAR_MS);
}
on("unauthorized", showLogin);
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

// One plain /api/state (after a command, whose push may come a moment later, and to tell why a
// stream was refused); the stream does the rest.
export async function refresh() {
  const r = await api("state");
  if (r.status === 200) take(r.body);
}
