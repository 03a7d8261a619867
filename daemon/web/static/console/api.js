// The transport: every call to /console/api/, with the CSRF token on a POST, and the link light.
import { $ } from "./dom.js";
import { emit, store } from "./store.js";

export const API = "/console/api/";
export const newCid = () => {
  const b = new Uint8Array(12);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
};

export async function api(path, body) {
  const opts = { method: body === undefined ? "GET" : "POST", credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.headers["X-CSRF-Token"] = store.csrf;
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
  if (resp.status === 401) emit("unauthorized", data.error ? data.error.message : "log in");
  return { status: resp.status, body: data };
}
export function link(ok) {
  const l = $("bar-link");
  l.textContent = ok ? "● connected" : "● no connection";
  l.className = "link " + (ok ? "ok" : "bad");
}
