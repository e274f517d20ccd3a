// The game page's player cards: name, side, presence, the side's count or scores, and the
// clocks, which tick locally between the server's reports (static/js/clock.js). The counts
// and the clocks are those of the position on the board: stepping back through the moves
// shows what each side had then.
import { Clocks, formatClock, formatSpan } from "../clock.js";
import { byId as $, el } from "../dom.js";
import { isLive, ratingChangeOf, sideOfPlayer } from "../live-game.js";
import { changeText, ratingBadge } from "../ratings.js";

// Under this a running clock turns red.
const LOW_TIME_MS = 20000;

function cards() {
  return document.querySelectorAll("#players .player");
}

// `state`: the position on the board (the engine's to_dict(); by default the latest).
export function renderPlayers(game, state = game.state) {
  const online = (game.presence && game.presence.players_online) || [];
  const live = isLive(game);
  for (const node of cards()) {
    const i = Number(node.dataset.player);
    const side = sideOfPlayer(game, i);
    const away = online[i] === false;
    node.querySelector(".name").textContent = game.players[i].username;
    node.querySelector(".you").hidden = game.you !== i;
    node.querySelector(".chip").className = `chip side-${side}`;
    node.querySelector(".side-name").textContent = game.state.sides[side];
    // The mover of the position shown, not the live one: a spectator stepping back sees who
    // was to move then.
    node.classList.toggle("to-move", live && moverAt(game, state) === i);
    node.classList.toggle("offline", away);
    node.querySelector(".presence").title = away ? "offline" : "online";
    node.querySelector(".gone").hidden = !(away && live);
    // The engine's words: "23 cells", "1 tile", "scores 7 · 3".
    node.querySelector(".extra").textContent = (state.tallies || [])[side] || "";
    renderRating(node.querySelector(".rating-slot"), game, i);
  }
  // The viewer's own card goes last (nearest the controls); spectators see players[0] first.
  const list = $("players");
  const mine = list.querySelector(`.player[data-player="${game.you}"]`);
  if (mine && list.lastElementChild !== mine) list.append(mine);
}

// The player (0 or 1) to move in `state`, none once it is over. Tripen's swap hands the sides
// over: a position before it keeps the players' first sides.
function moverAt(game, state) {
  if (state.is_over) return null;
  const swapped = game.swapped && (state.actions || []).includes("swap");
  return swapped ? 1 - state.to_move : state.to_move;
}

// The player's rating; once a rated game has ended, the new one and the change it made.
function renderRating(slot, game, i) {
  if (!slot) return;
  const change = ratingChangeOf(game, i);
  if (!change) {
    slot.replaceChildren(ratingBadge(game.players[i].rating) || "");
    return;
  }
  const tone = change.change > 0 ? "up" : change.change < 0 ? "down" : "";
  const computer = game.players[i].rating?.computer;
  slot.replaceChildren(ratingBadge({ rating: change.after, provisional: change.provisional, computer }), " ",
    el("span", { class: `rating-change ${tone}` }, changeText(change.change)));
}

const clocks = new Clocks(renderClocks);
let lowTimeListener = () => {};
const wasLow = [false, false];

// `listener(player)` when a running clock goes under LOW_TIME_MS.
export function onLowTime(listener) {
  lowTimeListener = listener;
}

// Only a game still being played has a running clock. `past`: the clocks of an earlier
// position on the board ({remaining_ms} as they stood then, or null when unknown yet), which
// never run.
export function updateClocks(game, past = undefined) {
  if (past !== undefined) {
    clocks.update({ remaining_ms: past ? past.remaining_ms : null, running: null, deadline: null });
    return;
  }
  clocks.update(isLive(game) ? game.clocks : { ...game.clocks, running: null, away: null });
}

function renderClocks() {
  const deadline = clocks.untilDeadline();
  for (const node of cards()) {
    const i = Number(node.dataset.player);
    const clock = node.querySelector(".clock");
    const ms = clocks.remaining(i);
    const running = clocks.running === i;
    let text = "";
    if (ms !== null) text = formatClock(ms);
    else if (deadline !== null && running) text = formatSpan(deadline);
    // Correspondence: a player on vacation (play.vacations), whose deadline stands still.
    else if (clocks.report && clocks.report.away && clocks.report.away[i]) text = "on vacation";
    if (clock.textContent !== text) clock.textContent = text;
    clock.hidden = text === "";
    clock.classList.toggle("running", running);
    const low = running && ms !== null && ms < LOW_TIME_MS;
    clock.classList.toggle("low", low);
    if (low && !wasLow[i]) lowTimeListener(i);
    wasLow[i] = low;
    renderIncrement(node.querySelector(".clock-increment"), i);
  }
}

// Beside a realtime clock, the seconds it gains per turn; a player who went berserk
// (play.berserk) gains none, as on lichess, and is marked.
function renderIncrement(slot, i) {
  if (!slot) return;
  const increments = clocks.report && clocks.report.increments;
  const berserk = Boolean(increments && increments[i] === 0 && Math.max(...increments) > 0);
  const text = !increments || clocks.remaining(i) === null ? ""
    : berserk ? "⚔ +0" : `+${increments[i]}`;
  if (slot.textContent !== text) slot.textContent = text;
  slot.hidden = text === "";
  slot.classList.toggle("berserk", berserk);
  slot.title = berserk ? "berserk: half the clock and no increment" : "seconds added each turn";
}
