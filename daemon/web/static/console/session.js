// Login, logout and the polled table state (/api/state) every view renders from.
import { $ } from "./dom.js";
import { api } from "./api.js";
import { emit, on, store } from "./store.js";

const POLL_MS = 1500;

let pollTimer = null;

export function showLogin(message) {
  store.csrf = "";
  store.state = null;
  if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
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
  refresh();
  if (!pollTimer) pollTimer = setInterval(refresh, POLL_MS);
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

export async function refresh() {
  const r = await api("state");
  if (r.status !== 200) return;
  store.state = r.body;
  const min = Math.ceil(store.state.expires_in / 60);
  $("bar-user").textContent = `${store.state.user} (${store.state.role}) · logs out in ${min} min`;
  emit("state");
}
