// The live game page: one websocket (protocol: docs/protocol.md), the board module for the
// game's board kind, and the panels around it (players and clocks, prompt, move list, colour
// chooser and group scores for Colorful, Swap for Tripen, resign/abort/rematch, end banner).
// The engine's to_dict() is the only source of truth about the position: the page decides no
// rules, it shows what the server sends and sends what the player picks.
import { ReconnectingSocket } from "./socket.js";
import { Clocks, formatClock, formatSpan, formatDate } from "./clock.js";
import { renderMoveList, bothActed } from "./movelist.js";
import { createReplay } from "./replay.js";

const $ = (id) => document.getElementById(id);
const root = $("game-page");
const svg = $("board");

let game = JSON.parse($("snapshot").textContent);
let board = null;
let replay = null; // the replay bar: stepping back through the moves, exploring
let boardKind = null;
const ui = {
  colour: null, // Colorful: colour of the next stone
  highlight: [], // Colorful: cells of the hovered group
  pending: null, // {ply, action} sent and not yet answered
  confirmResign: false,
  withdrawing: false, // our own rematch offer is being withdrawn (not declined)
};
const COUNT_NOUN = { copolymer: "cells", hadron: "tiles" };
const COLOUR_NAME = { R: "red", P: "pink", B: "blue", G: "green" };
const REASON_TEXT = { resign: "by resignation", time: "on time", abort: "game aborted" };

// ---------------------------------------------------------------- who is who

function sideOfPlayer(i) {
  return game.swapped ? 1 - i : i;
}

function playerOfSide(side) {
  return game.swapped ? 1 - side : side;
}

function isLive() {
  return game.status === "active" && !game.state.is_over;
}

function myTurn() {
  return isLive() && game.you !== null && game.you !== undefined
    && game.state.to_move === sideOfPlayer(game.you);
}

// ---------------------------------------------------------------- socket

const socket = new ReconnectingSocket(socketUrl(), {
  onMessage: receive,
  onStatus: showConnection,
});

function socketUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws/game/${game.id}/`;
}

const handlers = {
  snapshot(message) {
    game = message.game;
    ui.pending = null;
    renderAll();
  },
  action(message) {
    const expected = game.state.ply;
    if (message.ply < expected) return; // already applied (e.g. seen in a snapshot)
    if (message.ply > expected) {
      // A gap: some action never reached us. Ask for the whole position again.
      socket.send({ type: "snapshot" });
      return;
    }
    applyAction(message);
  },
  end(message) {
    game.state = withStaticBoard(message.state);
    game.result = message.result;
    game.clocks = message.clocks;
    game.status = message.result && message.result.reason === "abort" ? "aborted" : "finished";
    ui.pending = null;
    renderAll();
  },
  repeat() {
    ui.pending = null;
  },
  error(message) {
    ui.pending = null;
    clearPendingMarks();
    notify(message.message || message.code, message.code === "illegal" ? "illegal" : "error");
  },
  presence(message) {
    game.presence = { players_online: message.players_online, watchers: message.watchers };
    renderPlayers();
    renderInfo();
  },
  rematch(message) {
    const before = game.rematch ? game.rematch.offered_by : null;
    game.rematch = { ...game.rematch, offered_by: message.offered_by };
    const withdrawn = ui.withdrawing;
    ui.withdrawing = false;
    if (message.offered_by === null && before === game.you && before !== null && !withdrawn) {
      notify("Your rematch offer was declined.", "info");
    }
    renderControls();
  },
  rematch_started(message) {
    location.assign(message.url);
  },
  pong() {},
};

function receive(message) {
  const handler = handlers[message.type];
  if (handler) handler(message);
}

// Messages after an action leave out board data that never changes (Tripen's pose polygons):
// keep it from the snapshot.
function withStaticBoard(state) {
  const board = { ...game.state.board };
  Object.assign(board, state.board);
  return { ...state, board };
}

function applyAction(message) {
  const moverSide = game.state.to_move;
  game.state = withStaticBoard(message.state);
  game.actions = message.state.actions;
  game.clocks = message.clocks;
  if (typeof message.swapped === "boolean") game.swapped = message.swapped;
  else if (message.action === "swap") game.swapped = !game.swapped;
  if (message.result) {
    game.result = message.result;
    game.status = "finished";
  }
  if (ui.pending && ui.pending.ply === message.ply) ui.pending = null;
  $("notice").hidden = true; // whatever it said was about the previous position
  renderAll();
  announceContinuation(message, moverSide);
}

// Copolymer's forced claims and Colorful's second stone: the same side acts again.
function announceContinuation(message, moverSide) {
  const state = game.state;
  if (!isLive() || message.action === "swap" || state.to_move !== moverSide) return;
  const prompt = $("prompt");
  prompt.classList.remove("again");
  void prompt.offsetWidth; // restart the flash animation
  prompt.classList.add("again");
  if (myTurn() && game.game === "copolymer") notify(state.prompt, "info");
}

function send(message) {
  if (socket.send(message)) return true;
  notify("Not connected: reconnecting, try again in a moment.", "error");
  return false;
}

function play(action) {
  if (!myTurn()) return;
  const ply = game.state.ply;
  if (ui.pending && ui.pending.ply === ply) return; // one action per ply in flight
  if (!send({ type: "play", ply, action })) return;
  ui.pending = { ply, action };
  if (game.state.legal.includes(action)) markPending(action);
}

function markPending(action) {
  const cell = action.split("@").pop();
  const node = svg.querySelector(`[data-action="${CSS.escape(action)}"]`)
    || svg.querySelector(`[data-cell="${CSS.escape(cell)}"]`);
  if (node) node.classList.add("pending");
}

function clearPendingMarks() {
  for (const node of svg.querySelectorAll(".pending")) node.classList.remove("pending");
}

// ---------------------------------------------------------------- board

// Loads the board module once per board kind. Called at every render: a render that comes
// while the module is still loading must not start a second board on the same SVG.
function mountBoard() {
  const kind = game.state.board.kind;
  if (boardKind === kind) return;
  if (board) board.destroy();
  board = null;
  boardKind = kind;
  import(new URL(`./boards/${kind}.js`, import.meta.url).href)
    .then((module) => {
      if (boardKind !== kind) return;
      // A pick on a past or explored position is the replay's; otherwise a move in the game.
      const onAction = (action) => (replay && replay.action(action)) || play(action);
      board = module.createBoard(svg, { onAction, game: game.game });
      renderBoard();
    })
    .catch((error) => notify(`The ${kind} board could not be drawn: ${error.message}`, "error"));
}

function renderBoard() {
  if (!board) return;
  clearPendingMarks();
  const shown = replay && replay.shown();
  board.render(shown ? shown.state : game.state, shown ? shown.view : {
    interactive: myTurn(),
    colour: game.game === "colorful" ? ui.colour : null,
    highlight: ui.highlight,
  });
  fitFrame();
  if (!shown && ui.pending && ui.pending.ply === game.state.ply) markPending(ui.pending.action);
}

// The board keeps its proportions and grows to the width (or the window's height) it has.
function fitFrame() {
  const box = svg.viewBox && svg.viewBox.baseVal;
  const [, , vw, vh] = box && box.width ? [0, 0, box.width, box.height] : game.state.board.viewbox;
  root.style.setProperty("--board-aspect", `${vw} / ${vh}`);
  root.style.setProperty("--board-ratio", String(vw / vh));
}

// Colorful: hovering a stone highlights its group, as hovering the group's row does.
svg.addEventListener("pointerover", (event) => {
  if (game.game !== "colorful") return;
  const node = event.target.closest("[data-cell]");
  const group = node && groupOf(node.dataset.cell);
  setHighlight(group ? group.cells : []);
});
svg.addEventListener("pointerleave", () => setHighlight([]));

function groupOf(cell) {
  return (game.state.board.groups || []).find((group) => group.cells.includes(cell)) || null;
}

function setHighlight(cells) {
  if (cells.join() === ui.highlight.join()) return;
  ui.highlight = cells;
  renderBoard();
  for (const row of document.querySelectorAll("#groups [data-cells]")) {
    row.classList.toggle("hot", cells.length > 0 && row.dataset.cells === cells.join(" "));
  }
}

// ---------------------------------------------------------------- panels

function renderAll() {
  if (replay) replay.update();
  chooseColour();
  mountBoard();
  renderBoard();
  renderBanner();
  renderPrompt();
  renderPlayers();
  renderInfo();
  renderChooser();
  renderGroups();
  renderControls();
  renderMoveList($("moves"), game.state);
  clocks.update(isLive() ? game.clocks : { ...game.clocks, running: null });
  document.title = `${myTurn() ? "● Your move · " : ""}${root.dataset.title}`;
  // For scripts and tests that follow the page: the ply shown and the game's status.
  root.dataset.ply = String(game.state.ply);
  root.dataset.status = game.status;
  root.classList.toggle("my-turn", myTurn());
  root.classList.toggle("over", !isLive());
}

function renderPrompt() {
  const prompt = $("prompt");
  const state = game.state;
  let text = state.prompt;
  // Once over, the banner says who won; the prompt keeps the engine's account of the end.
  if (!isLive()) text = state.result || (game.result && game.result.text) || "Game over";
  prompt.textContent = text;
  prompt.classList.toggle("yours", myTurn());
  // The end banner takes over from the prompt.
  $("prompt-bar").hidden = !isLive();
  const who = $("prompt-who");
  if (myTurn()) who.textContent = "Your move";
  else if (isLive() && game.you !== null && game.you !== undefined) who.textContent = "Waiting";
  else who.textContent = isLive() ? "Live" : "Finished";
  who.className = `who ${myTurn() ? "yours" : ""}`;
}

function renderBanner() {
  const banner = $("banner");
  if (isLive()) {
    banner.hidden = true;
    return;
  }
  $("notice").hidden = true;
  const result = game.result || { winner: game.state.winner, reason: "normal", text: game.state.result };
  const mine = game.you !== null && game.you !== undefined;
  let tone = "draw";
  if (result.reason === "abort") tone = "aborted";
  else if (result.winner !== null && result.winner !== undefined) {
    tone = mine ? (result.winner === game.you ? "won" : "lost") : "decided";
  }
  banner.className = `game-banner ${tone}`;
  $("banner-title").textContent = result.text || "Game over";
  $("banner-reason").textContent = reasonText(result);
  banner.hidden = false;
}

function reasonText(result) {
  if (result.reason === "normal") {
    const engine = game.state.result || "";
    return result.text && result.text.includes(engine) ? "" : engine;
  }
  return REASON_TEXT[result.reason] || "";
}

function renderPlayers() {
  const online = (game.presence && game.presence.players_online) || [];
  for (const node of document.querySelectorAll("#players .player")) {
    const i = Number(node.dataset.player);
    const side = sideOfPlayer(i);
    const player = game.players[i];
    node.querySelector(".name").textContent = player.username;
    node.querySelector(".you").hidden = game.you !== i;
    const chip = node.querySelector(".chip");
    chip.className = `chip side-${side}`;
    node.querySelector(".side-name").textContent = game.state.sides[side];
    node.classList.toggle("to-move", isLive() && game.state.to_move === side);
    node.classList.toggle("offline", online[i] === false);
    node.querySelector(".presence").title = online[i] === false ? "offline" : "online";
    node.querySelector(".gone").hidden = !(online[i] === false && isLive());
    node.querySelector(".extra").textContent = playerExtra(side);
  }
  // The viewer's own card goes last (nearest the controls); spectators see players[0] first.
  const list = $("players");
  const mine = list.querySelector(`.player[data-player="${game.you}"]`);
  if (mine && list.lastElementChild !== mine) list.append(mine);
}

// Copolymer's and Hadron's counts, Colorful's sorted group scores.
function playerExtra(side) {
  const b = game.state.board;
  if (b.counts) return `${b.counts[side]} ${COUNT_NOUN[game.game] || ""}`.trim();
  if (b.scores) return b.scores[side].length ? `scores ${b.scores[side].join(" · ")}` : "";
  return "";
}

const clocks = new Clocks(renderClocks);

function renderClocks() {
  const deadline = clocks.untilDeadline();
  for (const node of document.querySelectorAll("#players .player")) {
    const i = Number(node.dataset.player);
    const clock = node.querySelector(".clock");
    const ms = clocks.remaining(i);
    const running = clocks.running === i;
    let text = "";
    if (ms !== null) text = formatClock(ms);
    else if (deadline !== null && running) text = formatSpan(deadline);
    if (clock.textContent !== text) clock.textContent = text;
    clock.hidden = text === "";
    clock.classList.toggle("running", running);
    clock.classList.toggle("low", running && ms !== null && ms < 20000);
  }
}

function renderInfo() {
  const watchers = (game.presence && game.presence.watchers) || 0;
  $("watchers").textContent = `${watchers} watching`;
  const deadline = $("deadline");
  const running = game.clocks && game.clocks.running;
  if (isLive() && game.clocks && game.clocks.deadline && running !== null && running !== undefined) {
    deadline.textContent = `${game.players[running].username} to move by ${formatDate(game.clocks.deadline)}`;
    deadline.hidden = false;
  } else {
    deadline.hidden = true;
  }
}

function showConnection(status, delay) {
  const node = $("connection");
  const texts = {
    connecting: "Connecting…",
    open: "Live",
    waiting: `Reconnecting in ${Math.ceil(delay / 1000)} s…`,
    offline: "Offline: waiting for the network",
    closed: "Disconnected",
  };
  node.textContent = texts[status] || status;
  node.className = `connection ${status}`;
  root.classList.toggle("disconnected", status !== "open");
}

// ---------------------------------------------------------------- Colorful

function owedColours() {
  return (game.state.board && game.state.board.owed) || [];
}

function chooseColour() {
  if (game.game !== "colorful") return;
  const owed = owedColours();
  if (!owed.includes(ui.colour)) ui.colour = owed[0] || null;
}

function renderChooser() {
  const chooser = $("chooser");
  if (game.game !== "colorful" || !myTurn()) {
    chooser.hidden = true;
    return;
  }
  chooser.hidden = false;
  const buttons = $("chooser-buttons");
  buttons.replaceChildren(...owedColours().map((colour) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `colour-button colour-${colour}`;
    button.dataset.colour = colour;
    button.setAttribute("aria-pressed", String(colour === ui.colour));
    button.innerHTML = `<span class="swatch"></span>${COLOUR_NAME[colour]}`;
    button.addEventListener("click", () => pickColour(colour));
    return button;
  }));
  const owed = owedColours();
  const note = $("chooser-note");
  note.textContent = owed.length === 1
    ? `The other stone of your turn is ${COLOUR_NAME[owed[0]]}. `
    : "Colour of your next stone. ";
  if (owed.length > 1) {
    const keys = document.createElement("span");
    keys.className = "keys";
    keys.append("Keys: ", ...owed.flatMap((c, i) => [i ? " / " : "", kbd(c)]));
    note.append(keys);
  }
}

function kbd(text) {
  const key = document.createElement("kbd");
  key.textContent = text;
  return key;
}

function pickColour(colour) {
  if (!owedColours().includes(colour)) return;
  ui.colour = colour;
  renderChooser();
  renderBoard();
}

document.addEventListener("keydown", (event) => {
  if (game.game !== "colorful" || !myTurn() || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest && event.target.closest("input, textarea")) return;
  const colour = event.key.toUpperCase();
  if (COLOUR_NAME[colour]) pickColour(colour);
});

function renderGroups() {
  const panel = $("groups");
  if (game.game !== "colorful") {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const groups = game.state.board.groups || [];
  for (const side of [0, 1]) {
    const list = $(`groups-${side}`);
    const scoring = groups
      .filter((group) => group.score !== null && sideOfColour(group.colour) === side)
      .sort((a, b) => b.score - a.score || b.cells.length - a.cells.length);
    list.replaceChildren(...scoring.map(groupRow));
    if (!scoring.length) list.append(emptyRow());
    const heading = $(`groups-${side}-name`);
    const scorer = side === 0 ? "red" : "green";
    heading.textContent = `${game.players[playerOfSide(side)].username} `;
    const muted = document.createElement("span");
    muted.className = "muted";
    muted.textContent = `· ${scorer} groups`;
    heading.append(muted);
  }
}

function sideOfColour(colour) {
  return colour === "R" || colour === "P" ? 0 : 1;
}

function groupRow(group) {
  const row = document.createElement("li");
  row.className = `group colour-${group.colour}`;
  row.tabIndex = 0;
  row.dataset.cells = group.cells.join(" ");
  const size = group.cells.length;
  row.innerHTML = `<span class="swatch"></span><strong class="score"></strong>
    <span class="detail"></span>`;
  row.querySelector(".score").textContent = group.score;
  row.querySelector(".detail").textContent = `${size} stone${size > 1 ? "s" : ""} · `
    + `${group.touching} enemy + ${group.sides} side${group.sides === 1 ? "" : "s"}`;
  row.title = group.cells.join(" ");
  const on = () => setHighlight(group.cells);
  const off = () => setHighlight([]);
  row.addEventListener("pointerenter", on);
  row.addEventListener("pointerleave", off);
  row.addEventListener("focus", on);
  row.addEventListener("blur", off);
  return row;
}

function emptyRow() {
  const row = document.createElement("li");
  row.className = "group none";
  row.textContent = "no scoring group yet";
  return row;
}

// ---------------------------------------------------------------- controls

function renderControls() {
  const player = game.you !== null && game.you !== undefined;
  const live = isLive();
  show("swap", myTurn() && game.state.legal.includes("swap"));
  show("resign", player && live && !ui.confirmResign);
  show("resign-confirm", player && live && ui.confirmResign);
  show("abort", player && live && !bothActed(game.state));
  renderRematch(player && !live);
  show("watching", !player);
}

function renderRematch(visible) {
  const offeredBy = game.rematch ? game.rematch.offered_by : null;
  const started = game.rematch && game.rematch.url;
  const offered = offeredBy !== null && offeredBy !== undefined;
  const mine = offered && offeredBy === game.you;
  const theirs = offered && !mine;
  show("rematch-box", visible || Boolean(started));
  show("rematch-link", Boolean(started));
  if (started) $("rematch-link").href = started;
  visible = visible && !started;
  show("rematch", visible && !offered);
  show("rematch-accept", visible && theirs);
  show("rematch-decline", visible && theirs);
  show("rematch-withdraw", visible && mine);
  let note = "";
  if (theirs) note = `${game.players[offeredBy].username} offers a rematch.`;
  else if (mine) note = "Rematch offered: waiting for an answer.";
  $("rematch-note").textContent = note;
}

function show(id, visible) {
  $(id).hidden = !visible;
}

function onClick(id, handler) {
  $(id).addEventListener("click", handler);
}

onClick("swap", () => play("swap"));
onClick("resign", () => {
  ui.confirmResign = true;
  renderControls();
  $("resign-yes").focus();
});
onClick("resign-yes", () => {
  ui.confirmResign = false;
  send({ type: "resign", ply: game.state.ply });
  renderControls();
});
onClick("resign-no", () => {
  ui.confirmResign = false;
  renderControls();
});
onClick("abort", () => send({ type: "abort", ply: game.state.ply }));
onClick("rematch", () => send({ type: "rematch" }));
onClick("rematch-accept", () => send({ type: "rematch" }));
onClick("rematch-decline", () => send({ type: "decline_rematch" }));
onClick("rematch-withdraw", () => {
  ui.withdrawing = send({ type: "decline_rematch" });
});

// ---------------------------------------------------------------- notices

let noticeTimer = null;

function notify(text, kind = "info") {
  const notice = $("notice");
  notice.textContent = text;
  notice.className = `notice ${kind}`;
  notice.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => {
    notice.hidden = true;
  }, kind === "info" ? 3500 : 5000);
}

// ---------------------------------------------------------------- start

replay = createReplay({
  game: () => game, controls: $("replay"), moveList: $("moves"), render: renderBoard,
});
renderAll();
socket.connect();
