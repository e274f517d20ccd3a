// What the game page says about where the game stands: the prompt bar while it is played, the
// end banner after, the line under the title (connection, watchers, correspondence deadline)
// and the note for spectators. A finished game's page is a replay viewer: nothing on it says
// "live" any more.
import { formatDate } from "../clock.js";
import { byId as $, el } from "../dom.js";
import { NO_RESULT, isLive, isMyTurn, isPlayer, ratingChangeOf } from "../live-game.js";
import { changeText } from "../ratings.js";

const REASON_TEXT = {
  resign: "by resignation", time: "on time", abort: "game aborted", no_start: "no first move",
  left: "opponent left", idle: "left untouched",
};
const CONNECTION_TEXT = {
  connecting: "Connecting…",
  open: "Live",
  offline: "Offline: waiting for the network",
  closed: "Disconnected",
};

// `away`: what the board shows when it is not the latest position (replay.away()); the bar
// then says so rather than tell a live prompt over an old position.
export function renderPrompt(game, away = null) {
  const live = isLive(game);
  // The end banner takes over from the prompt.
  $("prompt-bar").hidden = !live;
  if (!live) return;
  const prompt = $("prompt");
  const who = $("prompt-who");
  if (away) {
    prompt.textContent = away.text;
    prompt.classList.remove("yours");
    who.textContent = away.label;
    who.className = "who past";
    return;
  }
  const mine = isMyTurn(game);
  prompt.textContent = game.state.prompt;
  prompt.classList.toggle("yours", mine);
  if (mine) who.textContent = "Your move";
  else who.textContent = isPlayer(game) ? "Waiting" : "Live";
  who.className = `who${mine ? " yours" : ""}`;
  // Tripen's pie rule: the engine's prompt names the colour to move; the players should also
  // know that they no longer play the colour they started with.
  $("swapped-note").hidden = !game.swapped;
}

// Copolymer's forced claims and Colorful's second stone: the same side acts again. The prompt
// flashes so that the mover sees the turn is not over.
export function flashPrompt() {
  const prompt = $("prompt");
  prompt.classList.remove("again");
  void prompt.offsetWidth; // restarts the animation
  prompt.classList.add("again");
}

export function renderBanner(game, away = null) {
  const banner = $("banner");
  banner.hidden = isLive(game);
  if (banner.hidden) return;
  const result = game.result || { winner: game.state.winner, reason: "normal", text: game.state.result };
  let tone = "draw";
  if (NO_RESULT.includes(result.reason)) tone = "aborted";
  else if (result.winner !== null && result.winner !== undefined) {
    if (!isPlayer(game)) tone = "decided";
    else tone = result.winner === game.you ? "won" : "lost";
  }
  banner.className = `game-banner ${tone}`;
  $("banner-title").textContent = result.text || "Game over";
  $("banner-reason").textContent = reasonText(game, result);
  $("banner-shown").textContent = away ? `The board shows an earlier position: ${away.text}.` : "";
  renderRatingChanges(game);
}

// "alice 1523 (+12) · bob 1477 (−12)": what a rated game did to both ratings, for players
// and spectators alike.
function renderRatingChanges(game) {
  const line = $("banner-ratings");
  const changes = game.players.map((_, i) => ratingChangeOf(game, i)).filter(Boolean);
  line.hidden = changes.length === 0;
  line.replaceChildren(...changes.flatMap((change, n) => {
    const tone = change.change > 0 ? "up" : change.change < 0 ? "down" : "";
    const parts = [el("span", { class: "who" }, change.username), " ",
      `${change.after}${change.provisional ? "?" : ""} `,
      el("span", { class: `rating-change ${tone}` }, `(${changeText(change.change)})`)];
    return n ? [" · ", ...parts] : parts;
  }));
}

// The engine's account of a normal end, unless the result's text already says it.
function reasonText(game, result) {
  if (result.reason === "normal") {
    const engine = game.state.result || "";
    return result.text && result.text.includes(engine) ? "" : engine;
  }
  return REASON_TEXT[result.reason] || "";
}

// Spectators: following a game in progress, or replaying one that is over.
export function renderWatching(game) {
  $("watching").hidden = isPlayer(game);
  const live = isLive(game);
  $("watching-live").hidden = !live;
  $("watching-over").hidden = live;
}

// The spectators' count is the one the players see; a spectator is told they are in it. Once
// the game is over nobody watches it any more: people on the page are reading a record.
export function renderInfo(game) {
  const watchers = (game.presence && game.presence.watchers) || 0;
  const node = $("watchers");
  node.hidden = !isLive(game);
  node.textContent = `${watchers} watching${isPlayer(game) ? "" : " (you included)"}`;
  const deadline = $("deadline");
  const clocks = game.clocks || {};
  const running = clocks.running;
  const toMove = isLive(game) && running !== null && running !== undefined;
  // The player to move is on vacation (play.vacations): their deadline stands still.
  const away = toMove && Boolean(clocks.away && clocks.away[running]);
  deadline.hidden = !(toMove && (clocks.deadline || away));
  if (away) {
    deadline.textContent = `${game.players[running].username} is on vacation: the deadline stands still`;
  } else if (!deadline.hidden) {
    deadline.textContent = `${game.players[running].username} to move by ${formatDate(clocks.deadline)}`;
  }
}

// The socket's state. While the game is played it is always shown ("Live" when all is well);
// once it is over only a player has a use for the socket (rematch offers), and only a lost
// connection is worth saying.
export function renderConnection(game, status, delay = 0) {
  const node = $("connection");
  node.textContent = status === "waiting"
    ? `Reconnecting in ${Math.ceil(delay / 1000)} s…`
    : CONNECTION_TEXT[status] || status;
  node.className = `connection ${status}`;
  const lost = status === "waiting" || status === "offline" || status === "closed";
  node.hidden = !isLive(game) && !(lost && isPlayer(game));
}
