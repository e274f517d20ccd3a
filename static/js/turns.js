// Whose move it is, across a player's games: the count in the header ("2 to move", a link to
// the home page's "Your games"), the tab title's "(2) " prefix, the home page's rows, and an
// optional desktop notification when one becomes theirs. Fed by the `snapshot` (its
// `your_turn` list of game ids) and `turn` messages of the lobby and notification sockets
// (docs/lobby-protocol.md); notify.js and lobby.js both hand them here.
import { el } from "./dom.js";

export const DESKTOP_KEY = "tessera-desktop-notify";
const TITLE_PREFIX = /^\(\d+\) /;

const waiting = new Set(); // ids of the games awaiting the player's move
let badge = null;
let known = false;

export function desktopWanted() {
  try {
    return localStorage.getItem(DESKTOP_KEY) === "on"
      && "Notification" in window && Notification.permission === "granted";
  } catch {
    return false;
  }
}

export function turnsSnapshot(ids) {
  if (!Array.isArray(ids)) return;
  waiting.clear();
  for (const id of ids) waiting.add(id);
  known = true;
  render();
}

export function turnEvent(message) {
  const fresh = message.your_turn && !waiting.has(message.game_id);
  if (message.your_turn) waiting.add(message.game_id);
  else waiting.delete(message.game_id);
  known = true;
  render();
  markRow(message);
  if (fresh) notifyDesktop(message);
}

function render() {
  showBadge();
  applyTitle();
  const count = document.getElementById("glance-count");
  if (count && known) {
    count.replaceChildren(...(waiting.size
      ? [el("strong", {}, String(waiting.size)),
        ` await${waiting.size === 1 ? "s" : ""} your move`]
      : ["Nothing awaits your move."]));
  }
}

// In the header's bar itself, before the menu button: on a phone the account links fold into
// the menu, and the count must stay in sight on every width.
function showBadge() {
  if (!badge) {
    const nav = document.querySelector(".account-nav");
    if (!nav) return;
    badge = el("a", { class: "turn-badge", href: "/#your-games" });
    (document.getElementById("menu-toggle") || nav).before(badge);
  }
  const n = waiting.size;
  badge.hidden = n === 0;
  badge.dataset.count = String(n);
  badge.textContent = `${n} to move`;
  badge.title = `${n} game${n === 1 ? "" : "s"} await${n === 1 ? "s" : ""} your move`;
}

// The tab shows the count too; pages that set their own title (the game page) keep theirs,
// with the prefix put back.
function applyTitle() {
  const bare = document.title.replace(TITLE_PREFIX, "");
  const wanted = waiting.size ? `(${waiting.size}) ${bare}` : bare;
  if (document.title !== wanted) document.title = wanted;
}

const titleNode = document.querySelector("title");
if (titleNode) new MutationObserver(applyTitle).observe(titleNode, { childList: true });

// The home page's row of that game, if it shows one.
function markRow(message) {
  const row = document.querySelector(`.glance-game[data-game-id="${message.game_id}"]`);
  if (!row) return;
  if (message.over) {
    row.classList.remove("your-turn");
    row.classList.add("over");
    return;
  }
  row.classList.toggle("your-turn", message.your_turn);
  const turn = row.querySelector(".turn");
  if (turn) turn.textContent = message.your_turn ? turn.dataset.yours : turn.dataset.theirs;
}

function notifyDesktop(message) {
  if (!desktopWanted()) return;
  // Looking at that very game already: nothing to tell.
  if (!document.hidden && window.location.pathname === message.url) return;
  const note = new Notification(`Your move: ${message.title}`, {
    body: `against ${message.opponent}`, tag: `turn-${message.game_id}`,
  });
  note.addEventListener("click", () => {
    window.focus();
    window.location.assign(message.url);
    note.close();
  });
}
