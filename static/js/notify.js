// Site-wide notifications for a logged-in player: wherever they are (a rules page, a game they
// watch, the archive), a challenge reaches them as a toast they can accept or decline; a
// challenger hears of a decline, the challenged of a withdrawal; and a seek or challenge of
// theirs that someone accepted takes them to the new game. It listens on /ws/notify/, which
// relays the lobby's events for the player's own "user-<id>" group (docs/lobby-protocol.md).
// base.html loads it for logged-in players on every page except the lobby's own pages, where
// lobby.js tells the same news.
//
// While the page shows a live game, nothing here moves the player elsewhere or takes the
// focus: a started game is offered as a link, a challenge waits for a click.

import { el } from "./dom.js";
import { postForJson } from "./http.js";
import { ReconnectingSocket, socketUrl } from "./socket.js";
import { turnEvent, turnsSnapshot } from "./turns.js";

const SOCKET_PATH = "/ws/notify/";
const CHALLENGES_PAGE = "/play/challenges/";
const NOTICE_MS = 8000;
// Challenges already shown as a toast, so each pending one pops up once, not on every page
// the player opens; the header badge keeps pointing at them.
const SHOWN_KEY = "tessera-notified-challenges";

let you = null;
const known = new Map(); // id -> challenge: this player's pending challenges, sent and received
const toasts = new Map(); // key ("challenge-7", "game-12", ...) -> toast element

// -- the shelf and the header badge ------------------------------------------------------------

const shelf = el("section", { class: "notify-shelf", "aria-label": "Notifications" });
document.body.append(shelf);

let badge = null;

function showBadge() {
  const waiting = incoming().length;
  if (!badge) {
    const nav = document.querySelector(".account-nav");
    if (!nav) return;
    badge = el("a", { class: "notify-badge", href: CHALLENGES_PAGE });
    // Beside the phone's menu button rather than in the menu, which is folded there.
    const menu = document.querySelector(".site-header .menu-toggle");
    if (menu) menu.before(badge);
    else nav.prepend(badge);
  }
  badge.hidden = waiting === 0;
  const words = `${waiting} challenge${waiting === 1 ? "" : "s"} waiting`;
  badge.replaceChildren(el("span", { "aria-hidden": "true" }, `⚔ ${waiting}`),
    el("span", { class: "visually-hidden" }, words));
  badge.title = words;
}

// A live game on this page (game.js keeps #game-page's data-status current).
function playingLiveGame() {
  const page = document.getElementById("game-page");
  if (!page) return false;
  if (page.dataset.status) return page.dataset.status === "active";
  try {
    return JSON.parse(document.getElementById("snapshot").textContent).status === "active";
  } catch {
    return false;
  }
}

// -- toasts -------------------------------------------------------------------------------

// `kind`: challenge, success, info or error. Urgent toasts are alerts (announced at once),
// the rest status messages; neither takes the focus.
function toast(key, kind, body, { urgent = false, sticky = false, actions = [] } = {}) {
  dismiss(key);
  const close = el("button", { type: "button", class: "notify-close", "aria-label": "Dismiss" }, "×");
  const node = el("div", { class: `notify-toast ${kind}`, role: urgent ? "alert" : "status" },
    el("div", { class: "notify-body" }, ...body),
    actions.length ? el("div", { class: "notify-actions" }, ...actions) : null,
    close);
  node.dataset.key = key;
  close.addEventListener("click", () => dismiss(key));
  node.addEventListener("keydown", (event) => {
    if (event.key === "Escape") dismiss(key);
  });
  if (!sticky) node.timer = setTimeout(() => dismiss(key), NOTICE_MS);
  toasts.set(key, node);
  shelf.append(node);
  return node;
}

function dismiss(key) {
  const node = toasts.get(key);
  if (!node) return;
  clearTimeout(node.timer);
  node.remove();
  toasts.delete(key);
}

function notice(key, kind, text) {
  toast(key, kind, [el("p", {}, text)]);
}

function button(label, secondary, onClick) {
  const node = el("button", { type: "button", class: secondary ? "button secondary" : "button" }, label);
  node.addEventListener("click", onClick);
  return node;
}

function describe(challenge) {
  return `${challenge.game_title} ${challenge.options_text}, ${challenge.time_control.text}`;
}

// -- challenges ---------------------------------------------------------------------------

function shownBefore() {
  try {
    return new Set(JSON.parse(sessionStorage.getItem(SHOWN_KEY) || "[]"));
  } catch {
    return new Set();
  }
}

function remember(ids) {
  try {
    sessionStorage.setItem(SHOWN_KEY, JSON.stringify([...ids]));
  } catch {
    // Private mode without storage: a challenge may pop up again on the next page.
  }
}

function showChallenge(challenge) {
  const key = `challenge-${challenge.id}`;
  const answer = (url, secondary, label) => button(label, secondary,
    () => respond(key, challenge, url));
  const node = toast(key, "challenge", [
    el("p", { class: "notify-title" }, el("strong", {}, challenge.from),
      ` challenges you to ${describe(challenge)}`),
    el("p", { class: "notify-detail" }, `${challenge.side_text}.`),
  ], {
    urgent: !playingLiveGame(),
    sticky: true,
    actions: [answer(challenge.accept_url, false, "Accept"),
      answer(challenge.decline_url, true, "Decline")],
  });
  node.dataset.challengeId = String(challenge.id);
}

function incoming() {
  return [...known.values()].filter((challenge) => challenge.to === you);
}

// Several challenges that arrived while the player was away make one toast, not a wall.
function showWaiting(fresh) {
  if (fresh.length <= 2) {
    fresh.forEach(showChallenge);
    return;
  }
  toast("waiting", "challenge", [
    el("p", { class: "notify-title" }, `${fresh.length} players challenged you while you were away.`),
  ], {
    sticky: true,
    actions: [el("a", { class: "button", href: CHALLENGES_PAGE }, "See the challenges")],
  });
}

// Accept or decline through the lobby's own POST actions (their JSON answers).
async function respond(key, challenge, url) {
  const node = toasts.get(key);
  const buttons = node ? [...node.querySelectorAll(".notify-actions button")] : [];
  buttons.forEach((b) => { b.disabled = true; });
  let data;
  try {
    ({ data } = await postForJson(url));
  } catch {
    buttons.forEach((b) => { b.disabled = false; });
    notice(`${key}-failed`, "error", "The server did not answer: please try again.");
    return;
  }
  if (data.login_url) return window.location.assign(data.login_url);
  known.delete(challenge.id);
  showBadge();
  if (data.ok && data.redirect) {
    toast(key, "success", [el("p", {}, "Game on! Going to the game…")], { sticky: true });
    return window.location.assign(data.redirect);
  }
  notice(key, data.ok ? "info" : "error", data.message);
}

const handlers = {
  snapshot(message) {
    you = message.you;
    known.clear();
    for (const challenge of message.challenges) known.set(challenge.id, challenge);
    // Toasts of challenges answered while the socket was down go; new ones show once.
    for (const [key, node] of toasts) {
      if (node.dataset.challengeId && !known.has(Number(node.dataset.challengeId))) dismiss(key);
    }
    const shown = shownBefore();
    showWaiting(incoming().filter((challenge) => !shown.has(challenge.id)));
    // Every pending one has been shown now, here or before; answered ones drop out.
    remember(incoming().map((challenge) => challenge.id));
    showBadge();
    turnsSnapshot(message.your_turn);
  },
  turn(message) {
    turnEvent(message);
  },
  challenge_added({ challenge }) {
    known.set(challenge.id, challenge);
    if (challenge.to === you) {
      showChallenge(challenge);
      remember(new Set([...shownBefore(), challenge.id]));
    }
    showBadge();
  },
  challenge_removed({ id, reason }) {
    const challenge = known.get(id);
    known.delete(id);
    showBadge();
    if (!challenge) return;
    const key = `challenge-${id}`;
    dismiss(key);
    // Only the other party needs telling: whoever acted already knows.
    if (reason === "declined" && challenge.from === you) {
      notice(key, "info", `${challenge.to} declined your challenge (${describe(challenge)}).`);
    } else if (reason === "withdrawn" && challenge.to === you) {
      notice(key, "info", `${challenge.from} withdrew their challenge (${describe(challenge)}).`);
    }
  },
  game_started({ game_id: id, url, message }) {
    if (window.location.pathname === url) return;
    const key = `game-${id}`;
    if (playingLiveGame()) {
      toast(key, "success", [el("p", { class: "notify-title" }, `${message}.`)], {
        sticky: true,
        actions: [el("a", { class: "button", href: url }, "Go to the game")],
      });
      return;
    }
    toast(key, "success", [el("p", { class: "notify-title" }, `${message}: going to the game…`)],
      { urgent: true, sticky: true });
    window.location.assign(url);
  },
  // An event the player joined was called off (too few players at its start, or by its
  // creator): tournaments.services.call_off.
  tournament_cancelled({ tournament, message }) {
    notice(`tournament-${tournament}`, "info", message);
  },
  pong() {},
  error(message) { console.warn("notify:", message.code, message.message); },
};

const socket = new ReconnectingSocket(socketUrl(SOCKET_PATH), {
  onMessage(message) {
    const handle = handlers[message.type];
    if (handle) handle(message);
  },
  onStatus(status) {
    document.body.dataset.notify = status;
  },
});
socket.connect();
