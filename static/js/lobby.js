// The live lobby: keeps the open seeks and the player's challenges in step with the server
// over /ws/lobby/ (a push channel: see docs/lobby-protocol.md), sends the page's forms with
// fetch so the socket stays open, and follows "game_started" to the new game's page.
// Without this script the page still works: forms post normally and the server redirects.
import { byId as $, el } from "./dom.js";
import { csrfToken, postForJson } from "./http.js";
import { ratingBadge } from "./ratings.js";
import { ReconnectingSocket, socketUrl } from "./socket.js";
import { turnEvent, turnsSnapshot } from "./turns.js";

const config = JSON.parse($("lobby-config").textContent);
const you = config.you;
// The viewer's ratings {game: rating} (none yet: the starting rating), for greying the seeks
// whose rating range leaves them out; the server refuses those anyway.
let yourRatings = config.your_ratings || {};
const STARTING_RATING = 1500;
const FRESH_MS = 2500;
const NOTICE_MS = 8000;

const statusLine = $("lobby-status");
const notice = $("lobby-notice");
const newGame = $("new-game");

// -- notices ----------------------------------------------------------------------------------

let noticeTimer = null;

function showNotice(text, kind = "info", sticky = false) {
  if (!notice) return;
  notice.textContent = text;
  notice.className = `lobby-notice message ${kind}`;
  notice.hidden = false;
  clearTimeout(noticeTimer);
  if (!sticky) noticeTimer = setTimeout(() => { notice.hidden = true; }, NOTICE_MS);
}

// -- the lists: open seeks, challenges --------------------------------------------------------

// The page's POST actions, as lobby.js builds them for rows that arrive by the socket (the
// server renders the same forms in templates/lobby/).
function actionForm(url, label, secondary) {
  const button = el("button", { type: "submit", class: secondary ? "button secondary small" : "button small" }, label);
  return el("form", { method: "post", action: url, class: "lobby-action" },
    el("input", { type: "hidden", name: "csrfmiddlewaretoken", value: csrfToken() }), button);
}

// A list the socket keeps current, by id: `build(item)` makes an entry with data-<key>
// (seekId, challengeId) from the server's dict; the `empty` note shows when there is none.
// On a page without the list (the challenges page has no seeks) it does nothing.
class LiveList {
  constructor(list, empty, key, build) {
    this.list = list;
    this.empty = empty;
    this.key = key;
    this.build = build;
  }

  find(id) {
    if (!this.list) return null;
    return [...this.list.children].find((node) => node.dataset[this.key] === String(id)) || null;
  }

  // A new entry catches the eye for a moment (not those of a snapshot).
  add(item, fresh = true) {
    if (!this.list) return;
    const node = this.build(item);
    const old = this.find(item.id);
    if (old) old.replaceWith(node);
    else {
      this.list.append(node);
      if (fresh) flash(node);
    }
    this.countChanged();
  }

  remove(id) {
    const node = this.find(id);
    if (node) node.remove();
    this.countChanged();
  }

  replace(items) {
    if (!this.list) return;
    this.list.replaceChildren(...items.map(this.build));
    this.countChanged();
  }

  countChanged() {
    if (this.list && this.empty) this.empty.hidden = this.list.children.length > 0;
  }
}

function flash(node) {
  node.classList.add("fresh");
  setTimeout(() => node.classList.remove("fresh"), FRESH_MS);
}

// The same rule as lobby.listing.out_of_range.
function outOfRange(seek) {
  if (!you || seek.owner === you || seek.rating_min === null || seek.rating_min === undefined) {
    return false;
  }
  const mine = yourRatings[seek.game] ?? STARTING_RATING;
  return mine < seek.rating_min || mine > seek.rating_max;
}

function seekRow(seek) {
  const mine = seek.owner === you;
  const barred = outOfRange(seek);
  let act;
  if (!you) act = el("a", { href: config.login_url }, "Log in to accept");
  else if (mine) act = actionForm(seek.cancel_url, "Cancel", true);
  else act = actionForm(seek.accept_url, "Accept", false);
  if (barred) {
    const button = act.querySelector("button");
    button.disabled = true;
    button.title = "Your rating is outside this seek's range";
  }
  const range = seek.rating_range
    ? el("span", { class: "seek-range" }, `rated ${seek.rating_min}–${seek.rating_max}`) : null;
  let rowClass = mine ? "seek mine" : "seek";
  if (barred) rowClass += " out-of-range";
  return el("tr", { class: rowClass, dataset: { seekId: String(seek.id) } },
    el("td", { class: "seek-owner" }, seek.owner, " ", ratingBadge(seek.owner_rating)),
    el("td", { class: "seek-game" }, el("strong", {}, seek.game_title), " ",
      el("span", { class: "muted" }, seek.options_text), " ",
      el("span", { class: `mode mode-${seek.mode_text}` }, seek.mode_text)),
    el("td", { class: "seek-time" },
      el("span", { class: `tc tc-${seek.time_control.kind}` }, seek.time_control.text)),
    el("td", { class: "seek-side" }, seek.side_text, range),
    el("td", { class: "seek-act" }, act));
}

function challengeItem(challenge) {
  const incoming = challenge.to === you;
  const text = el("p", { class: "challenge-text" });
  if (incoming) {
    text.append(el("strong", {}, challenge.from), " ", ratingBadge(challenge.from_rating) || "",
      " challenges you: ");
  } else {
    text.append("You challenged ", el("strong", {}, challenge.to), " ",
      ratingBadge(challenge.to_rating) || "", ": ");
  }
  text.append(`${challenge.game_title} `, el("span", { class: "muted" }, challenge.options_text),
    `, ${challenge.time_control.text}, ${challenge.mode_text}, ${challenge.side_text}.`);
  const act = el("div", { class: "challenge-act" });
  if (incoming) {
    act.append(actionForm(challenge.accept_url, "Accept", false), " ",
      actionForm(challenge.decline_url, "Decline", true));
  } else {
    act.append(actionForm(challenge.withdraw_url, "Withdraw", true));
  }
  return el("li", { class: `challenge ${incoming ? "incoming" : "outgoing"}`,
    dataset: { challengeId: String(challenge.id) } }, text, act);
}

const seeks = new LiveList($("seek-list"), $("seek-empty"), "seekId", seekRow);
const challenges = new LiveList($("challenge-list"), $("challenge-empty"), "challengeId", challengeItem);

// -- the socket -------------------------------------------------------------------------------

const handlers = {
  snapshot(message) {
    if (message.your_ratings) yourRatings = message.your_ratings;
    seeks.replace(message.seeks || []);
    challenges.replace(message.challenges || []);
    turnsSnapshot(message.your_turn);
  },
  turn(message) {
    turnEvent(message);
  },
  seek_added(message) { seeks.add(message.seek); },
  seek_removed(message) { seeks.remove(message.id); },
  challenge_added({ challenge }) {
    const fresh = !challenges.find(challenge.id);
    challenges.add(challenge);
    if (fresh && challenge.to === you) {
      showNotice(`${challenge.from} challenges you to ${challenge.game_title} `
        + `(${challenge.options_text}, ${challenge.time_control.text}).`, "info", true);
    }
  },
  challenge_removed(message) {
    const item = challenges.find(message.id);
    challenges.remove(message.id);
    if (!item) return;
    // Tell the other party what happened; the one who acted already knows.
    const incoming = item.classList.contains("incoming");
    const name = item.querySelector("strong").textContent;
    if (message.reason === "declined" && !incoming) {
      showNotice(`${name} declined your challenge.`, "info");
    } else if (message.reason === "withdrawn" && incoming) {
      showNotice(`${name} withdrew their challenge.`, "info");
    }
  },
  game_started(message) {
    showNotice(`${message.message}: to the game!`, "success", true);
    window.location.assign(message.url);
  },
  pong() {},
  error(message) { console.warn("lobby:", message.code, message.message); },
};

let everOpen = false;

function showStatus(status) {
  if (!statusLine) return;
  if (status === "open") everOpen = true;
  statusLine.dataset.state = status === "open" ? "live" : "offline";
  if (status === "open") statusLine.textContent = "Live: seeks and challenges update by themselves.";
  else statusLine.textContent = everOpen ? "Reconnecting…" : "Connecting…";
}

const socket = new ReconnectingSocket(socketUrl(config.socket), {
  onMessage(message) {
    const handle = handlers[message.type];
    if (handle) handle(message);
  },
  onStatus: showStatus,
});

// -- actions: every form on the page posts with fetch -------------------------------------------

function clearErrors(form) {
  for (const list of form.querySelectorAll(".errorlist")) {
    list.replaceChildren();
    list.hidden = true;
  }
  for (const field of form.querySelectorAll(".has-error")) field.classList.remove("has-error");
}

function showErrors(form, errors) {
  for (const [name, messages] of Object.entries(errors)) {
    const field = form.querySelector(`[data-field="${name}"]`);
    const list = field ? field.querySelector(".errorlist") : form.querySelector(".errorlist.nonfield");
    if (!list) continue;
    if (field) field.classList.add("has-error");
    list.replaceChildren(...messages.map((text) => el("li", {}, text)));
    list.hidden = false;
  }
}

async function submit(form, submitter) {
  const url = (submitter && submitter.getAttribute("formaction")) || form.getAttribute("action");
  const buttons = form.querySelectorAll("button");
  buttons.forEach((b) => { b.disabled = true; });
  let response;
  let data;
  try {
    ({ response, data } = await postForJson(url, new FormData(form)));
  } catch {
    showNotice("The server did not answer: please try again.", "error");
    return;
  } finally {
    buttons.forEach((b) => { b.disabled = false; });
  }
  if (form === newGame) clearErrors(form);
  if (data.ok) return succeeded(form, data);
  if (data.login_url) return window.location.assign(data.login_url);
  if (data.errors && form === newGame) showErrors(form, data.errors);
  showNotice(data.message, "error");
  // A seek or challenge that is gone leaves the list (its removal may not have reached us).
  if (response.status === 404 || response.status === 409) dropItemOf(form);
}

function succeeded(form, data) {
  if (data.redirect) return window.location.assign(data.redirect);
  showNotice(data.message, "success");
  if (data.seek) seeks.add(data.seek);
  if (data.challenge) challenges.add(data.challenge);
  if (form === newGame) {
    form.querySelector("[name=opponent]").value = "";
    updateChallengeButton();
  } else {
    dropItemOf(form);
  }
}

function dropItemOf(form) {
  const row = form.closest("[data-seek-id]");
  if (row) seeks.remove(row.dataset.seekId);
  const item = form.closest("[data-challenge-id]");
  if (item) challenges.remove(item.dataset.challengeId);
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!form.matches(".lobby-action, .lobby-form")) return;
  event.preventDefault();
  submit(form, event.submitter);
});

// -- the new-game form: show the chosen game's options and time control only ------------------

function selectedGame() {
  return newGame.querySelector("[name=game]").value;
}

function showChosen() {
  const game = selectedGame();
  for (const fieldset of newGame.querySelectorAll(".game-options")) {
    fieldset.hidden = fieldset.dataset.game !== game;
  }
  const kind = (newGame.querySelector("[name=time_kind]:checked") || {}).value;
  for (const part of newGame.querySelectorAll("[data-kind]")) {
    part.hidden = part.dataset.kind !== kind;
  }
  restrictOptions(game);
}

// Colorful's long board takes fewer sizes than hexhex: disable the sizes the engine would
// refuse for the chosen board (config.valid_options lists every accepted combination).
function restrictOptions(game) {
  const fields = config.option_fields[game] || [];
  if (fields.length < 2) return;
  const valid = config.valid_options[game];
  const selects = fields.map((name) => newGame.querySelector(`[name="${name}"]`));
  const option = (name) => name.slice(game.length + 1);
  const [first, ...rest] = selects;
  for (const select of rest) {
    const allowed = new Set(valid
      .filter((combo) => String(combo[option(first.name)]) === first.value)
      .map((combo) => String(combo[option(select.name)])));
    for (const choice of select.options) choice.disabled = !allowed.has(choice.value);
    if (select.selectedOptions[0] && select.selectedOptions[0].disabled) {
      const fallback = [...select.options].find((choice) => !choice.disabled);
      if (fallback) select.value = fallback.value;
    }
  }
}

function updateChallengeButton() {
  const button = $("challenge-button");
  const name = newGame.querySelector("[name=opponent]").value.trim();
  button.textContent = name ? `Challenge ${name}` : "Challenge";
}

if (newGame) {
  newGame.addEventListener("change", showChosen);
  newGame.querySelector("[name=opponent]").addEventListener("input", updateChallengeButton);
  // Enter in the opponent box means "challenge", not "post a seek" (the form's first button).
  newGame.querySelector("[name=opponent]").addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      $("challenge-button").click();
    }
  });
  showChosen();
  updateChallengeButton();
}

socket.connect();
