// The Watch page: keeps the server-rendered list of games in progress live over /ws/watch/
// (rows arrive as HTML rendered by the server, thumbnails included: this script only inserts,
// replaces and removes them), and shows the featured game on a live board fed by that game's
// own socket /ws/game/<id>/, as any spectator's. The watch socket says which game to feature;
// when the featured game ends it names the next one. Protocol: site/watch/consumers.py.
import { ReconnectingSocket } from "./socket.js";

const $ = (id) => document.getElementById(id);
const page = $("watch-page");
const rowsList = $("rows");
const kind = page.dataset.game || "";
const limit = Number(page.dataset.limit) || 60;
const scheme = location.protocol === "https:" ? "wss:" : "ws:";

// ---------------------------------------------------------------- the list

// A row's list item: the server's HTML, with the thumbnail (sent once, beside it) put in.
function rowNode(row) {
  const template = document.createElement("template");
  template.innerHTML = row.html.trim();
  const node = template.content.firstElementChild;
  node.querySelector(".thumb").innerHTML = row.thumbnail;
  return node;
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
  return `${scheme}//${location.host}/ws/watch/${query ? "?" + query : ""}`;
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
  featured.socket = new ReconnectingSocket(`${scheme}//${location.host}/ws/game/${id}/`, {
    onMessage: (message) => receiveGame(id, message),
  });
  featured.socket.connect();
}

function stopFeatured() {
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
  const list = $("featured-players");
  list.replaceChildren(...players.map((player, i) => {
    const item = document.createElement("li");
    item.className = "featured-player";
    item.dataset.player = String(i);
    item.classList.toggle("to-move", toMove === i);
    const chip = document.createElement("span");
    chip.className = `chip side-${player.side}`;
    const name = document.createElement("a");
    name.className = "name";
    name.href = `/u/${encodeURIComponent(player.username)}/`;
    name.textContent = player.username;
    const side = document.createElement("span");
    side.className = "muted side-name";
    side.textContent = player.side_name;
    item.append(chip, " ", name, " ", side);
    return item;
  }));
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
    const game = featured.game;
    if (!game || message.ply < game.state.ply) return; // no snapshot yet, or seen already
    if (message.ply > game.state.ply) {
      featured.socket.send({ type: "snapshot" }); // a gap: start again from a snapshot
      return;
    }
    game.state = withStaticBoard(message.state);
    if (typeof message.swapped === "boolean") game.swapped = message.swapped;
    if (message.result) {
      game.result = message.result;
      game.status = "finished";
    }
    renderFeatured();
  },
  end(message) {
    const game = featured.game;
    if (!game) return;
    game.state = withStaticBoard(message.state);
    game.result = message.result;
    game.status = message.result && message.result.reason === "abort" ? "aborted" : "finished";
    renderFeatured();
  },
  presence(message) {
    if (featured.game) {
      featured.game.presence = { players_online: message.players_online, watchers: message.watchers };
    }
    showWatchers(message.watchers);
  },
};

function receiveGame(id, message) {
  if (id !== featured.id) return; // a late message from the previous featured game
  const handler = gameHandlers[message.type];
  if (handler) handler(message);
}

// Messages after an action leave out board data that never changes (Tripen's pose polygons).
function withStaticBoard(state) {
  return { ...state, board: { ...featured.game.state.board, ...state.board } };
}

function showWatchers(count) {
  const n = count || 0;
  $("featured-watchers").textContent = `${n} watching`;
}

// The side a player plays now: a Tripen swap exchanges the players' colours. The mapping is
// its own inverse, so it also gives the player who plays a side.
function sideOf(game, index) {
  return game.swapped ? 1 - index : index;
}
const playerOf = sideOf;

async function renderFeatured() {
  const game = featured.game;
  const id = featured.id;
  const state = game.state;
  const playing = game.status === "active" && !state.is_over;
  const toMove = playing && state.to_move !== null ? playerOf(game, state.to_move) : null;
  renderPlayers(game.players.map((player, i) => ({
    username: player.username, side: sideOf(game, i), side_name: state.sides[sideOf(game, i)],
  })), toMove);
  const prompt = $("featured-prompt");
  prompt.textContent = playing ? state.prompt : (game.result && game.result.text) || state.result || "Game over";
  prompt.classList.toggle("over", !playing);
  showMoves(state.ply);
  showWatchers(game.presence && game.presence.watchers);
  await drawBoard(id, game);
}

async function drawBoard(id, game) {
  const boardKind = game.state.board.kind;
  if (!featured.board || featured.boardKind !== boardKind) {
    let module;
    try {
      module = await import(new URL(`./boards/${boardKind}.js`, import.meta.url).href);
    } catch (error) {
      return; // the server's picture stays
    }
    if (id !== featured.id || featured.game !== game) return; // switched meanwhile
    if (!featured.board || featured.boardKind !== boardKind) {
      const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
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
  const box = featured.svg.viewBox.baseVal;
  const [w, h] = box && box.width ? [box.width, box.height] : game.state.board.viewbox.slice(2);
  featured.svg.style.setProperty("--board-aspect", `${w} / ${h}`);
  featured.svg.style.setProperty("--board-ratio", String(w / h));
  featured.svg.dataset.ply = String(game.state.ply);
}

// ---------------------------------------------------------------- start

// The page was rendered with this featured game (its picture already drawn by the server).
const initial = JSON.parse($("featured-row").textContent);
if (initial) feature(initial, null);
watchSocket.connect();
