// The Watch page: keeps the server-rendered list of games in progress live over /ws/watch/
// (rows arrive as HTML rendered by the server, thumbnails included: this script only inserts,
// replaces and removes them), and shows the featured game on a live board fed by that game's
// own socket /ws/game/<id>/, as any spectator's. The watch socket says which game to feature;
// when the featured game ends it names the next one. Protocol: site/watch/consumers.py.
import { Clocks, formatClock } from "./clock.js";
import { SVG_NS } from "./boards/svg.js";
import { byId as $, el } from "./dom.js";
import {
  applyAction, applyEnd, gameSocketPath, isLive, playerToMove, sideOfPlayer,
} from "./live-game.js";
import { applyTakenBack } from "./game/takeback.js";
import { ratingBadge } from "./ratings.js";
import { ReconnectingSocket, socketUrl } from "./socket.js";

const page = $("watch-page");
const rowsList = $("rows");
const kind = page.dataset.game || "";
const limit = Number(page.dataset.limit) || 60;

// ---------------------------------------------------------------- the list

// A row's list item: the server's HTML, with the thumbnail (sent once, beside it) put in.
function rowNode(row) {
  const template = document.createElement("template");
  template.innerHTML = row.html.trim();
  const node = template.content.firstElementChild;
  node.querySelector(".thumb").innerHTML = row.thumbnail;
  node.dataset.arrived = String(performance.now());
  return node;
}

// The rows' running clocks run down from the server's reading, each from when its row came.
function tickRowClocks() {
  const now = performance.now();
  for (const clock of rowsList.querySelectorAll(".row-clock.running")) {
    const row = clock.closest(".watch-row");
    const left = Number(clock.dataset.ms) - (now - Number(row.dataset.arrived || 0));
    const text = formatClock(left);
    if (clock.textContent !== text) clock.textContent = text;
  }
}

function rowOf(id) {
  return document.getElementById(`watch-game-${id}`);
}

// Rows are ordered newest game first (by id), so a move never moves a row.
function insertRow(node, id) {
  const after = [...rowsList.children].find((child) => Number(child.dataset.id) < id);
  rowsList.insertBefore(node, after || null);
  while (rowsList.children.length > limit) rowsList.lastElementChild.remove();
}

function upsertRow(row) {
  const node = rowNode(row);
  const old = rowOf(row.id);
  if (old) {
    if (Number(old.dataset.ply) > row.ply) return; // older news than what is shown
    if (Number(old.dataset.ply) !== row.ply) node.classList.add("changed");
    old.replaceWith(node);
  } else {
    node.classList.add("arrived");
    insertRow(node, row.id);
  }
  showEmpty();
}

function removeRow(id) {
  const node = rowOf(id);
  if (node) node.remove();
  showEmpty();
}

function replaceRows(rows) {
  rowsList.replaceChildren(...rows.map(rowNode));
  showEmpty();
}

function showEmpty() {
  $("empty").hidden = rowsList.children.length > 0;
}

function showTotal(total) {
  if (typeof total !== "number") return;
  $("live-count").textContent = String(total);
  $("live-noun").textContent = total === 1 ? "game" : "games";
}

// ---------------------------------------------------------------- the watch socket

const featured = {
  id: Number(page.dataset.featured) || null,
  row: null, // the watch socket's row of it (names, options) until its snapshot arrives
  game: null, // the game socket's snapshot, kept current
  socket: null,
  board: null,
  boardKind: null,
  svg: null,
};

function watchUrl() {
  const params = new URLSearchParams();
  if (kind) params.set("game", kind);
  // A reconnect keeps the board it shows while that game is in progress.
  if (featured.id) params.set("featured", String(featured.id));
  const query = params.toString();
  return socketUrl(`/ws/watch/${query ? "?" + query : ""}`);
}

const watchHandlers = {
  list(message) {
    replaceRows(message.games);
    showTotal(message.total);
    feature(message.featured, null);
  },
  row(message) {
    upsertRow(message.game);
    showTotal(message.total);
  },
  remove(message) {
    removeRow(message.id);
    showTotal(message.total);
  },
  featured(message) {
    feature(message.game, message.ended);
  },
};

const watchSocket = new ReconnectingSocket(watchUrl(), {
  onMessage(message) {
    const handler = watchHandlers[message.type];
    if (handler) handler(message);
  },
  onStatus: showConnection,
});

const STATUS_TEXT = { connecting: "connecting…", waiting: "reconnecting…", offline: "offline" };

function showConnection(status) {
  const node = $("connection");
  node.className = `connection ${status}`;
  node.textContent = status === "open" ? "live" : STATUS_TEXT[status] || status;
  node.hidden = false;
  page.dataset.socket = status;
}

// ---------------------------------------------------------------- the featured game

function feature(row, ended) {
  showEnded(ended);
  const id = row ? row.id : null;
  if (id !== null && id === featured.id && featured.socket) return;
  stopFeatured();
  featured.id = id;
  featured.row = row;
  watchSocket.url = watchUrl();
  page.dataset.featured = id === null ? "" : String(id);
  $("featured-body").hidden = id === null;
  $("featured-none").hidden = id !== null;
  if (id === null) return;
  showFeaturedRow(row);
  featured.socket = new ReconnectingSocket(socketUrl(gameSocketPath(id)), {
    onMessage: (message) => receiveGame(id, message),
  });
  featured.socket.connect();
}

function stopFeatured() {
  featuredClocks.update(null);
  if (featured.socket) featured.socket.stop();
  if (featured.board) featured.board.destroy();
  featured.socket = null;
  featured.game = null;
  featured.board = null;
  featured.boardKind = null;
  featured.svg = null;
}

function showEnded(ended) {
  const note = $("featured-note");
  if (!ended) return;
  const names = featured.row ? featured.row.players.map((p) => p.username).join(" v ") : `Game ${ended.id}`;
  note.textContent = `${names} has ended${ended.result ? ": " + ended.result : "."}`;
  note.hidden = false;
}

// What the watch socket's row tells before the game's own snapshot arrives.
function showFeaturedRow(row) {
  $("featured-body").className = `featured-body game-${row.game}`;
  for (const id of ["featured-link", "featured-open"]) $(id).href = row.url;
  $("featured-link").textContent = row.title;
  $("featured-options").textContent = `${row.options_text} · ${row.time_control}`;
  renderPlayers(row.players, row.to_move);
  $("featured-prompt").textContent = row.prompt || "";
  $("featured-prompt").classList.remove("over");
  showMoves(row.ply);
  $("featured-watchers").textContent = "";
  // The server's picture of the position until the live board is drawn (a page load has
  // the larger one, with labels, already).
  if (row.thumbnail) $("featured-frame").innerHTML = row.thumbnail;
}

function renderPlayers(players, toMove) {
  $("featured-players").replaceChildren(...players.map((player, i) => el("li", {
    class: `featured-player${toMove === i ? " to-move" : ""}`, dataset: { player: String(i) },
  },
  el("span", { class: `chip side-${player.side}`, "aria-hidden": "true" }), " ",
  el("a", { class: "name", href: `/u/${encodeURIComponent(player.username)}/` }, player.username),
  " ", ratingBadge(player.rating) || "", " ",
  el("span", { class: "muted side-name" }, player.side_name), " ",
  el("span", { class: "featured-clock", dataset: { player: String(i) }, hidden: "" }))));
  renderFeaturedClocks();
}

// The featured game's clocks, from its own socket's reports, ticking in between.
const featuredClocks = new Clocks(renderFeaturedClocks);

function renderFeaturedClocks() {
  for (const node of document.querySelectorAll("#featured-players .featured-clock")) {
    const i = Number(node.dataset.player);
    const ms = featuredClocks.remaining(i);
    node.hidden = ms === null;
    if (ms === null) continue;
    node.textContent = formatClock(ms);
    node.classList.toggle("running", featuredClocks.running === i);
  }
}

function showMoves(ply) {
  $("featured-moves").textContent = `${ply} move${ply === 1 ? "" : "s"}`;
}

// ---------------------------------------------------------------- the featured game's socket

const gameHandlers = {
  snapshot(message) {
    featured.game = message.game;
    renderFeatured();
  },
  action(message) {
    if (!featured.game) return; // its snapshot comes first
    const outcome = applyAction(featured.game, message);
    if (outcome === "gap") featured.socket.send({ type: "snapshot" }); // start again from one
    if (outcome === "applied") renderFeatured();
  },
  end(message) {
    if (!featured.game) return;
    applyEnd(featured.game, message);
    renderFeatured();
  },
  // A takeback: the featured board steps back too.
  taken_back(message) {
    if (!featured.game) return;
    const outcome = applyTakenBack(featured.game, message);
    if (outcome === "gap") featured.socket.send({ type: "snapshot" });
    if (outcome === "applied") renderFeatured();
  },
  presence(message) {
    if (featured.game) {
      featured.game.presence = { players_online: message.players_online, watchers: message.watchers };
    }
    showWatchers(message.watchers);
  },
  // The game's ply and status from the database, every keep-alive: catch up if behind.
  sync(message) {
    const game = featured.game;
    if (game && (message.ply > game.state.ply || message.status !== game.status)) {
      featured.socket.send({ type: "snapshot" });
    }
  },
};

function receiveGame(id, message) {
  if (id !== featured.id) return; // a late message from the previous featured game
  const handler = gameHandlers[message.type];
  if (handler) handler(message);
}

function showWatchers(count) {
  const n = count || 0;
  $("featured-watchers").textContent = `${n} watching`;
}

async function renderFeatured() {
  const game = featured.game;
  const id = featured.id;
  const state = game.state;
  const playing = isLive(game);
  const toMove = playing ? playerToMove(game) : null;
  renderPlayers(game.players.map((player, i) => {
    const side = sideOfPlayer(game, i);
    return { username: player.username, side, side_name: state.sides[side], rating: player.rating };
  }), toMove);
  const prompt = $("featured-prompt");
  prompt.textContent = playing ? state.prompt : (game.result && game.result.text) || state.result || "Game over";
  prompt.classList.toggle("over", !playing);
  showMoves(state.ply);
  showWatchers(game.presence && game.presence.watchers);
  featuredClocks.update(playing ? game.clocks : { ...game.clocks, running: null });
  await drawBoard(id, game);
}

// The board module of a board kind, loaded when the featured game first needs it.
function loadBoard(kind) {
  return import(new URL(`./boards/${kind}.js`, import.meta.url).href);
}

async function drawBoard(id, game) {
  const boardKind = game.state.board.kind;
  if (!featured.board || featured.boardKind !== boardKind) {
    let module;
    try {
      module = await loadBoard(boardKind);
    } catch (error) {
      return; // the server's picture stays
    }
    if (id !== featured.id || featured.game !== game) return; // switched meanwhile
    if (!featured.board || featured.boardKind !== boardKind) {
      const svg = document.createElementNS(SVG_NS, "svg");
      svg.setAttribute("class", "live-board");
      svg.setAttribute("id", "featured-board");
      svg.setAttribute("role", "img");
      svg.setAttribute("aria-label", `${game.title} board`);
      svg.setAttribute("viewBox", game.state.board.viewbox.join(" "));
      $("featured-frame").replaceChildren(svg);
      featured.svg = svg;
      featured.board = module.createBoard(svg, { onAction: () => {}, game: game.game });
      featured.boardKind = boardKind;
    }
  }
  featured.board.render(game.state, { interactive: false });
  featured.svg.dataset.ply = String(game.state.ply);
}

// ---------------------------------------------------------------- start

// The page was rendered with this featured game (its picture already drawn by the server).
const initial = JSON.parse($("featured-row").textContent);
for (const row of rowsList.children) row.dataset.arrived = String(performance.now());
setInterval(tickRowClocks, 250);
if (initial) feature(initial, null);
watchSocket.connect();
