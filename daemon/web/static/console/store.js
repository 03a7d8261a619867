// The console's shared state, and the events that tell the views about it. Imports nothing:
// every module may import it without an import cycle (tests/web/test_console_imports.py).
// session.js writes the state; table.js's render follows it through on("state", render),
// registered by console.js, so the session does not import the views.

export const store = {
  csrf: "",     // the session's CSRF token (sent by api.js with every POST)
  state: null,  // the last state (pushed on /api/stream, or one /api/state)
};

const listeners = { state: [], unauthorized: [] };

// "state": a new state is in store.state; "unauthorized": the server answered 401
// (the argument is its message).
export function on(event, fn) { listeners[event].push(fn); }
export function emit(event, ...args) { for (const fn of listeners[event]) fn(...args); }
