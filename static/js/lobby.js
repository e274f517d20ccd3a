// The live lobby: keeps the open seeks and the player's challenges in step with the server
// over /ws/lobby/ (a push channel: see docs/lobby-protocol.md), sends the page's forms with
// fetch so the socket stays open, and follows "game_started" to the new game's page.
// Without this script the page still works: forms post normally and the server redirects.

const config = JSON.parse(document.getElementById("lobby-config").textContent);
const you = config.you;
const PING_MS = 25_000;
const MAX_BACKOFF_MS = 15_000;

const seekList = document.getElementById("seek-list");
const seekEmpty = document.getElementById("seek-empty");
const challengeList = document.getElementById("challenge-list");
const challengeEmpty = document.getElementById("challenge-empty");
const statusLine = document.getElementById("lobby-status");
const notice = document.getElementById("lobby-notice");
const newGame = document.getElementById("new-game");

// -- small DOM helpers ------------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

function csrfToken() {
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  if (input) return input.value;
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

function actionForm(url, label, secondary) {
  const button = el("button", { type: "submit", class: secondary ? "button secondary small" : "button small" }, label);
  return el("form", { method: "post", action: url, class: "lobby-action" },
    el("input", { type: "hidden", name: "csrfmiddlewaretoken", value: csrfToken() }), button);
}

let noticeTimer = null;

function showNotice(text, kind = "info", sticky = false) {
  if (!notice) return;
  notice.textContent = text;
  notice.className = `lobby-notice message ${kind}`;
  notice.hidden = false;
  clearTimeout(noticeTimer);
  if (!sticky) noticeTimer = setTimeout(() => { notice.hidden = true; }, 8000);
}

// -- seeks --------------------------------------------------------------------------------------

function seekRow(seek) {
  const mine = seek.owner === you;
  let act;
  if (!you) act = el("a", { href: config.login_url }, "Log in to accept");
  else if (mine) act = actionForm(seek.cancel_url, "Cancel", true);
  else act = actionForm(seek.accept_url, "Accept", false);
  return el("tr", { class: mine ? "seek mine" : "seek", dataset: { seekId: String(seek.id) } },
    el("td", { class: "seek-owner" }, seek.owner),
    el("td", { class: "seek-game" }, el("strong", {}, seek.game_title), " ",
      el("span", { class: "muted" }, seek.options_text)),
    el("td", { class: "seek-time" },
      el("span", { class: `tc tc-${seek.time_control.kind}` }, seek.time_control.text)),
    el("td", { class: "seek-side" }, seek.side_text),
    el("td", { class: "seek-act" }, act));
}

function findSeek(id) {
  return seekList && seekList.querySelector(`tr[data-seek-id="${Number(id)}"]`);
}

function addSeek(seek, fresh = true) {
  if (!seekList) return;
  const row = seekRow(seek);
  const old = findSeek(seek.id);
  if (old) old.replaceWith(row);
  else {
    seekList.append(row);
    if (fresh) flash(row);
  }
  seekCountChanged();
}

function removeSeek(id) {
  const row = findSeek(id);
  if (row) row.remove();
  seekCountChanged();
}

function seekCountChanged() {
  if (seekEmpty) seekEmpty.hidden = seekList.children.length > 0;
}

function flash(node) {
  node.classList.add("fresh");
  setTimeout(() => node.classList.remove("fresh"), 2500);
}

// -- challenges -----------------------------------------------------------------------------

function challengeItem(challenge) {
  const incoming = challenge.to === you;
  const text = el("p", { class: "challenge-text" });
  if (incoming) text.append(el("strong", {}, challenge.from), " challenges you: ");
  else text.append("You challenged ", el("strong", {}, challenge.to), ": ");
  text.append(`${challenge.game_title} `, el("span", { class: "muted" }, challenge.options_text),
    `, ${challenge.time_control.text}, ${challenge.side_text}.`);
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

function findChallenge(id) {
  return challengeList && challengeList.querySelector(`li[data-challenge-id="${Number(id)}"]`);
}

function addChallenge(challenge, fresh = true) {
  if (!challengeList) return;
  const item = challengeItem(challenge);
  const old = findChallenge(challenge.id);
  if (old) old.replaceWith(item);
  else {
    challengeList.append(item);
    if (fresh) flash(item);
  }
  challengeCountChanged();
}

function removeChallenge(id) {
  const item = findChallenge(id);
  if (item) item.remove();
  challengeCountChanged();
}

function challengeCountChanged() {
  if (challengeEmpty) challengeEmpty.hidden = challengeList.children.length > 0;
}

// -- the socket -------------------------------------------------------------------------------

const handlers = {
  snapshot(message) {
    if (seekList) {
      seekList.replaceChildren();
      for (const seek of message.seeks) addSeek(seek, false);
      seekCountChanged();
    }
    if (challengeList) {
      challengeList.replaceChildren();
      for (const challenge of message.challenges) addChallenge(challenge, false);
      challengeCountChanged();
    }
  },
  seek_added(message) { addSeek(message.seek); },
  seek_removed(message) { removeSeek(message.id); },
  challenge_added(message) {
    const fresh = !findChallenge(message.challenge.id);
    addChallenge(message.challenge);
    if (fresh && message.challenge.to === you) {
      const c = message.challenge;
      showNotice(`${c.from} challenges you to ${c.game_title} (${c.options_text}, ${c.time_control.text}).`, "info", true);
    }
  },
  challenge_removed(message) {
    const item = findChallenge(message.id);
    const incoming = item && item.classList.contains("incoming");
    removeChallenge(message.id);
    // Tell the other party what happened; the one who acted already knows.
    if (item && message.reason === "declined" && !incoming) {
      showNotice(`${item.querySelector("strong").textContent} declined your challenge.`, "info");
    } else if (item && message.reason === "withdrawn" && incoming) {
      showNotice(`${item.querySelector("strong").textContent} withdrew their challenge.`, "info");
    }
  },
  game_started(message) {
    showNotice(`${message.message}: to the game!`, "success", true);
    window.location.assign(message.url);
  },
  pong() {},
  error(message) { console.warn("lobby:", message.code, message.message); },
};

let socket = null;
let backoff = 1000;
let pingTimer = null;

function setStatus(state, text) {
  if (!statusLine) return;
  statusLine.dataset.state = state;
  statusLine.textContent = text;
}

function connect() {
  if (!socket) setStatus("offline", "Connecting…");
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${window.location.host}${config.socket}`);
  socket.addEventListener("open", () => {
    backoff = 1000;
    setStatus("live", "Live: seeks and challenges update by themselves.");
    clearInterval(pingTimer);
    pingTimer = setInterval(() => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "ping" }));
    }, PING_MS);
  });
  socket.addEventListener("message", (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    const handle = handlers[message.type];
    if (handle) handle(message);
  });
  socket.addEventListener("close", () => {
    clearInterval(pingTimer);
    setStatus("offline", "Reconnecting…");
    setTimeout(connect, backoff);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  });
}

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
  let response, data;
  try {
    response = await fetch(url, {
      method: "POST",
      body: new FormData(form),
      headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
      credentials: "same-origin",
    });
    data = await response.json();
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
  if (data.seek) addSeek(data.seek);
  if (data.challenge) addChallenge(data.challenge);
  if (form === newGame) {
    form.querySelector("[name=opponent]").value = "";
    updateChallengeButton();
  } else {
    dropItemOf(form);
  }
}

function dropItemOf(form) {
  const row = form.closest("[data-seek-id]");
  if (row) removeSeek(row.dataset.seekId);
  const item = form.closest("[data-challenge-id]");
  if (item) removeChallenge(item.dataset.challengeId);
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
  const button = document.getElementById("challenge-button");
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
      document.getElementById("challenge-button").click();
    }
  });
  showChosen();
  updateChallengeButton();
}

connect();
