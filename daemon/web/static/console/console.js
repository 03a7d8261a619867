// jantaku referee console (docs/console.md). Plain JS, no dependencies, works offline.
// Every action: form -> POST /console/api/preview (dry run on the table's state) -> Confirm ->
// POST /console/api/command (one signed referee command through the daemon's command path).
// The entry module (index.html): each concern is a module beside it.
import { buildPalette } from "./tilepick.js";
import { buildPlayers } from "./forms.js";
import { openTab } from "./tabs.js";
import { api } from "./api.js";
import { loggedIn, showLogin } from "./session.js";
import { on } from "./store.js";
import { render } from "./table.js";

on("state", render);  // every state the server pushes is drawn (store.js, session.js)
buildPalette();
buildPlayers();
openTab("result");
(async () => {
  const r = await api("session");
  if (r.status === 200) loggedIn(r.body);
  else showLogin("");
})();
