// The game page: one websocket (protocol: docs/protocol.md), the board module of the game's
// board kind, the replay bar, and the panels around them (static/js/game/: players and
// clocks, status texts, buttons, Colorful's chooser and groups). The engine's to_dict() is the
// only source of truth about the position: the page decides no rules, it shows what the
// server sends and sends what the player picks. The same page shows a finished game: then it
// is a replay viewer.
//
// Only what draws the board and plays on it is imported here (the board module and, for
// Colorful, its colour chooser come with import() as soon as the page knows the game): on a
// slow phone every module is a request, and six at a time over HTTP/1.1. The other panels
// (game/panels.js) come with import() right after; until they are here the socket's messages
// wait for them, and a pick on the board is already sent (issue 21, item 24).
import { byId as $ } from "./dom.js";
import {
  applyAction, applyEnd, gameSocketPath, isLive, isMyTurn, playerToMove,
} from "./live-game.js";
import { Notice } from "./notice.js";
import { bindCheckbox, getPref, onPrefChange, setPref } from "./prefs.js";
import { ReconnectingSocket, socketUrl } from "./socket.js";

const root = $("game-page");
const svg = $("board");

let game = JSON.parse($("snapshot").textContent);
let board = null;
let pending = null; // {ply, action}: sent, not answered yet
let proposed = null; // {ply, action}: picked, waiting for the player to confirm it
let connection = { status: "connecting", delay: 0 };
const ANSWER_WAIT_MS = 5000;
const notice = new Notice($("notice"));
// game/panels.js once loaded; the panels made from it (below), null until then.
let ui = null;
let replay = null;
let clockHistory = null;
let analysis = null;
let controls = null;
let chat = null;
let takeback = null;
let berserk = null;
let premove = null; // a premove waits for the panels: the opponent's first reply rarely races them
let conditions = null;
let colorful = null;
const early = []; // the socket's messages before the panels came

// ---------------------------------------------------------------- the socket

const socket = new ReconnectingSocket(socketUrl(gameSocketPath(game.id)), {
  onMessage(message) {
    if (ui) handle(message);
    else early.push(message);
  },
  onStatus(status, delay) {
    connection = { status, delay };
    if (ui) showConnection();
  },
});

function handle(message) {
  const handler = handlers[message.type];
  if (handler) handler(message);
}

const handlers = {
  snapshot(message) {
    const before = game.state.ply;
    const missed = (message.game.takebacks || 0) !== (game.takebacks || 0);
    game = message.game;
    game.clocks.received_at = Date.now();
    pending = null;
    premove.snapshot(game);
    conditions.snapshot(game);
    if (missed) rewound(game.state.ply); // a takeback this page did not hear of
    positionChanged(before);
  },
  action(message) {
    const before = game.state.ply;
    const mover = game.state.to_move;
    const moverName = game.players[playerToMove(game)].username;
    const outcome = applyAction(game, message);
    if (outcome === "gap") {
      socket.send({ type: "snapshot" }); // some action never reached us
      return;
    }
    if (outcome === "seen") return;
    game.clocks.received_at = Date.now();
    if (pending && pending.ply === message.ply) pending = null;
    positionChanged(before);
    announce(`${moverName} played ${message.action}.`
      + (message.result ? ` ${message.result.text || "Game over."}` : ` ${game.state.prompt || ""}`));
    if (message.result) {
      ui.playSound("end");
      chatOpens();
    } else if (message.action !== "swap" && isLive(game) && game.state.to_move === mover) {
      ui.playSound("continuation");
      announceContinuation();
    } else {
      ui.playSound("move");
    }
  },
  end(message) {
    applyEnd(game, message);
    pending = null;
    notice.clear();
    renderAll();
    announce((message.result && message.result.text) || "Game over.");
    ui.playSound("end");
    chatOpens();
  },
  chat(message) {
    chat.add(message);
  },
  repeat() {
    pending = null;
  },
  premove(message) {
    premove.queuedNews(message);
  },
  premove_cleared(message) {
    premove.clearedNews(message);
  },
  conditions(message) {
    conditions.keptNews(message);
  },
  conditions_cleared(message) {
    conditions.clearedNews(message);
  },
  error(message) {
    // Too many chat lines says nothing about a move in flight.
    if (message.code === "chat_rate_limited") {
      notice.show(message.message, "error");
      return;
    }
    pending = null;
    clearPendingMarks();
    conditions.refused(message);
    notice.show(message.message || message.code, message.code === "illegal" ? "illegal" : "error");
  },
  presence(message) {
    const { type, ...presence } = message;
    game.presence = presence;
    ui.renderPlayers(game, shownState());
    ui.renderInfo(game);
    controls.render();
  },
  // The game's ply and status as the database has them, every keep-alive (and in pongs): a
  // page that missed news (a lost group membership, a dropped message) catches up.
  sync(message) {
    catchUp(message.ply, message.status);
  },
  // A player's page is back after a restart closed it: their clock got back the time it ran
  // meanwhile (play.services.back_after_restart).
  clocks(message) {
    game.clocks = { ...message.clocks, received_at: Date.now() };
    ui.updateClocks(game);
  },
  // A player left on vacation or came back (play.vacations): the clocks as they are now.
  vacation(message) {
    game.clocks = { ...message.clocks, received_at: Date.now() };
    ui.updateClocks(game);
    ui.renderInfo(game);
  },
  rematch(message) {
    controls.rematchChanged(message.offered_by);
  },
  rematch_started(message) {
    window.location.assign(message.url);
  },
  pong(message) {
    catchUp(message.ply, null);
  },
  berserk(message) {
    game.clocks = message.clocks;
    game.clocks.received_at = Date.now();
    berserk.went(message);
    renderAll();
  },
  takeback_offered(message) {
    takeback.offered(message);
  },
  takeback_declined(message) {
    takeback.cleared(message, true);
  },
  takeback_lapsed(message) {
    takeback.cleared(message, false);
  },
  taken_back(message) {
    const before = game.state.ply;
    const outcome = ui.applyTakenBack(game, message);
    if (outcome === "gap") {
      socket.send({ type: "snapshot" });
      return;
    }
    if (outcome === "seen") return;
    game.clocks.received_at = Date.now();
    pending = null;
    rewound(message.ply);
    positionChanged(before);
    takeback.takenBack(message);
  },
};

// A takeback: what the page kept of the plies after `ply` is gone.
function rewound(ply) {
  replay.rewound(ply);
  clockHistory.forget(ply);
}

// Once the game is over both chat rooms are open to everyone: the snapshot brings the room
// this page did not receive while the game was played.
function chatOpens() {
  if (chat.shown) socket.send({ type: "snapshot" });
}

function catchUp(ply, status) {
  const behind = typeof ply === "number" && ply > game.state.ply;
  if (behind || (status && status !== game.status)) socket.send({ type: "snapshot" });
}

// Whatever the notice said was about the position before (a refused click, a continuation).
function positionChanged(before) {
  if (game.state.ply !== before) {
    notice.clear();
    dropProposal();
  }
  renderAll();
}

// What a screen reader says of each action, the viewer's own or another's (an aria-live region:
// the board's picture changes without a word otherwise).
function announce(text) {
  $("announce").textContent = text.trim();
}

// Copolymer's forced claims and Colorful's second stone: the same side acts again.
function announceContinuation() {
  ui.flashPrompt();
  if (isMyTurn(game) && game.game === "copolymer") notice.show(game.state.prompt, "info");
}

function send(message) {
  if (socket.send(message)) return true;
  notice.show("Not connected: reconnecting, try again in a moment.", "error");
  return false;
}

function play(action) {
  if (premove && premove.pick(action)) return;
  if (!isMyTurn(game)) return;
  const ply = game.state.ply;
  if (pending && pending.ply === ply) return; // one action per ply in flight
  if (needsConfirmation(action)) {
    propose(action);
    return;
  }
  sendAction(ply, action);
}

function sendAction(ply, action) {
  dropProposal();
  if (!send({ type: "play", ply, action })) return;
  pending = { ply, action };
  if (game.state.legal.includes(action)) markPending(action);
  // Every action is answered, at least by its own broadcast: no answer means news was lost
  // on the way (the server stored the action, or not): the snapshot says which.
  setTimeout(() => {
    if (pending && pending.ply === ply && pending.action === action) socket.send({ type: "snapshot" });
  }, ANSWER_WAIT_MS);
}

// Correspondence games, when the player asked for it: a pick is only proposed, and sent once
// confirmed (a legal pick only: an illegal one goes straight to the server for its reason).
function needsConfirmation(action) {
  return game.time_control.kind === "correspondence" && getPref("confirmMove")
    && game.state.legal.includes(action);
}

function propose(action) {
  proposed = { ply: game.state.ply, action };
  $("confirm-text").textContent = `Play ${action}?`;
  $("confirm-move").hidden = false;
  renderBoard();
  $("confirm-yes").focus();
}

function dropProposal() {
  proposed = null;
  $("confirm-move").hidden = true;
}

$("confirm-yes").addEventListener("click", () => {
  if (proposed && proposed.ply === game.state.ply && isMyTurn(game)) {
    sendAction(proposed.ply, proposed.action);
  } else {
    dropProposal();
  }
  renderBoard();
});
$("confirm-no").addEventListener("click", () => {
  dropProposal();
  renderBoard();
});

// A legal pick shows at once as sent (a pulsing ghost) until the server's answer.
function markPending(action) {
  const cell = action.split("@").pop();
  const node = svg.querySelector(`[data-action="${CSS.escape(action)}"]`)
    || svg.querySelector(`[data-cell="${CSS.escape(cell)}"]`);
  if (node) node.classList.add("pending");
}

function clearPendingMarks() {
  for (const node of svg.querySelectorAll(".pending")) node.classList.remove("pending");
}

function showConnection() {
  ui.renderConnection(game, connection.status, connection.delay);
  root.classList.toggle("disconnected", isLive(game) && connection.status !== "open");
}

// ---------------------------------------------------------------- the board

// The board module of the game's board kind ("hex", "square", "tripen": state.board.kind),
// and for Colorful its colour chooser, loaded at once (the page preloads them). Each board
// module exports createBoard(svg, {onAction, game}).
function loadBoard(kind) {
  return Promise.all([
    import(new URL(`./boards/${kind}.js`, import.meta.url).href),
    game.game === "colorful" ? import("./game/colorful.js") : null,
  ]);
}

function mountBoard() {
  const kind = game.state.board.kind;
  return loadBoard(kind)
    .then(([module, chooser]) => {
      if (chooser) {
        colorful = new chooser.ColorfulPanels({
          svg, game: () => game, shown: shownState, redrawBoard: renderBoard,
        });
        colorful.render();
      }
      // A pick on a past or explored position is the replay's; otherwise a move in the game.
      const onAction = (action) => (replay && replay.action(action)) || play(action);
      board = module.createBoard(svg, { onAction, game: game.game });
      renderBoard();
      // The server's drawing of the position has done its job.
      $("board-picture")?.remove();
    })
    .catch((error) => notice.show(`The ${kind} board could not be drawn: ${error.message}`, "error"));
}

// The position on the board: the latest, or the one the replay shows (an earlier ply, an
// explored line). Every panel shows this one.
function shownState() {
  const shown = replay && replay.shown();
  return shown ? shown.state : game.state;
}

// The board and the panels that describe its position (counts, groups, clocks).
function renderShown() {
  renderBoard();
  const state = shownState();
  ui.renderPlayers(game, state);
  if (colorful) colorful.renderGroups();
  showClocks();
  ui.renderPrompt(game, replay.away());
  ui.renderBanner(game, replay.away());
  // Why the game ended, under its final position (the board marks it).
  const caption = $("ending-caption");
  caption.textContent = state.ending ? state.ending.caption : "";
  caption.hidden = !state.ending;
  analysis.render();
}

// The clocks as they stood at the position shown: live at the latest ply, else the clock
// history's (realtime games; loaded once, again when the game has gone further).
function showClocks() {
  const ply = replay.shownPly();
  if (ply >= game.state.ply) {
    ui.updateClocks(game);
    return;
  }
  const known = clockHistory.at(ply);
  ui.updateClocks(game, known);
  if (known === null && game.time_control.kind === "realtime") {
    clockHistory.load().then(() => {
      if (replay.shownPly() === ply && clockHistory.at(ply)) showClocks();
    });
  }
}

function renderBoard() {
  if (!board) return;
  clearPendingMarks();
  const shown = replay && replay.shown();
  svg.classList.toggle("flipped", getPref("flip"));
  if (shown) {
    // Exploring or looking back: the dots as in play, where the line can go on (the board
    // draws them only when the view is interactive).
    board.render(shown.state, { ...shown.view, hints: getPref("hints") });
    analysis.markBoard(svg, shown.state);
    return;
  }
  board.render(game.state, {
    interactive: isMyTurn(game) || Boolean(premove && premove.possible()),
    hints: getPref("hints") && isMyTurn(game), ...(colorful ? colorful.boardView() : {}),
    ...(premove ? premove.boardView() : {}),
  });
  if (premove) premove.mark();
  if (pending && pending.ply === game.state.ply) markPending(pending.action);
  if (proposed && proposed.ply === game.state.ply) markPending(proposed.action);
  if (analysis) analysis.markBoard(svg, null);
}

// ---------------------------------------------------------------- the viewer's choices

function pressed(id, on) {
  $(id).setAttribute("aria-pressed", String(on));
}

function showChoices() {
  pressed("flip", getPref("flip"));
  pressed("sound", getPref("sound"));
  $("sound").textContent = getPref("sound") ? "♪ Sound on" : "♪ Sound off";
}

$("flip").addEventListener("click", () => setPref("flip", !getPref("flip")));
$("sound").addEventListener("click", () => setPref("sound", !getPref("sound")));
// Larger than the window is wide, in a frame that scrolls: big boards on small screens.
$("zoom").addEventListener("click", () => {
  const zoomed = $("board-frame").classList.toggle("zoomed");
  pressed("zoom", zoomed);
});
$("board-tools").hidden = false; // buttons that need this script
bindCheckbox($("pref-hints"), "hints");
bindCheckbox($("pref-confirm"), "confirmMove");
onPrefChange(() => {
  showChoices();
  renderBoard();
});
showChoices();

// ---------------------------------------------------------------- everything

function renderAll() {
  replay.update();
  if (colorful) colorful.render();
  renderShown();
  ui.renderInfo(game);
  ui.renderWatching(game);
  controls.render();
  takeback.render();
  conditions.render();
  berserk.render();
  ui.renderMoveList($("moves"), game.state, game.by_condition);
  chat.render();
  showConnection();
  document.title = `${isMyTurn(game) ? "● Your move · " : ""}${root.dataset.title}`;
  // For scripts and tests that follow the page: the game's ply and status.
  root.dataset.ply = String(game.state.ply);
  root.dataset.status = game.status;
  root.classList.toggle("my-turn", isMyTurn(game));
  root.classList.toggle("over", !isLive(game));
}

// The panels, once their modules are here; then the messages that waited for them.
function startPanels(module) {
  ui = module;
  replay = ui.createReplay({
    game: () => game, controls: $("replay"), moveList: $("moves"), render: renderShown,
  });
  clockHistory = new ui.ClockHistory(game.id);
  analysis = new ui.AnalysisPanel({ game: () => game, replay, redrawBoard: renderBoard });
  controls = new ui.GameControls({ game: () => game, send, play, notice });
  chat = new ui.ChatPanel({ game: () => game, send });
  takeback = new ui.TakebackControls({ game: () => game, send, notice });
  conditions = new ui.ConditionControls({ game: () => game, send, notice, replay });
  berserk = new ui.BerserkControls({ game: () => game, send });
  premove = new ui.PremoveControls({
    game: () => game, send, svg, notice, redrawBoard: renderBoard,
  });
  ui.bindNotes();
  // The viewer's own clock running low, once per turn.
  ui.onLowTime((player) => {
    if (player === game.you && isLive(game)) ui.playSound("lowTime");
  });
  renderAll();
  for (const message of early.splice(0)) handle(message);
}

function panelsFailed(error) {
  notice.show(`The game's panels could not be loaded: ${error.message}`, "error");
}

const panels = import("./game/panels.js");
const query = new URLSearchParams(window.location.search);
if (query.has("ply") || query.has("explore")) {
  // A shared address shows another position than the latest (the server's drawing shows it
  // meanwhile): the replay opens it, so it is there before the board draws.
  panels.then(startPanels).catch(panelsFailed).then(mountBoard);
} else {
  // The panels wait for the board, so the board draws first.
  mountBoard().then(() => panels).then(startPanels).catch(panelsFailed);
}
socket.connect();
