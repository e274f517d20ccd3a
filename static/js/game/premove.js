// Premoves (docs/protocol.md, "Premoves"): in a realtime game a player picks their next action
// while the opponent is to move; the server keeps it and plays it when the turn passes. The
// page shows the queued action faintly on the board; a click on it cancels it. The server's
// `premove` / `premove_cleared` news (to this player's sockets only) and the snapshot's
// `premove` are the only truth: the page never plays it itself.
import { el, points } from "../boards/svg.js";
import { isLive, isMyTurn, isPlayer, sideOfPlayer } from "../live-game.js";

// Hadron and Copolymer: one cell per pick. Colorful: a turn is two stones, one of each of the
// side's colours, picked one after the other (the first colour first). Tripen: the pose the
// board's ghost shows, drawn faintly where it will go.
const PREMOVE_GAMES = ["hadron", "copolymer", "colorful", "tripen"];
const COLOURS = [["R", "P"], ["B", "G"]]; // Colorful: each side's colours

function cellOf(action) {
  return action.includes("@") ? action.split("@")[1] : action;
}

export class PremoveControls {
  constructor({ game, send, svg, notice, redrawBoard }) {
    this.game = game;
    this.send = send;
    this.svg = svg;
    this.notice = notice;
    this.redrawBoard = redrawBoard;
    this.queued = game().premove || null; // {ply, actions}
    this.partial = []; // Colorful: the first stone of a premove, not sent yet
  }

  // Whether a pick on the board now is a premove.
  possible() {
    const game = this.game();
    return isLive(game) && isPlayer(game) && !isMyTurn(game)
      && game.time_control.kind === "realtime" && PREMOVE_GAMES.includes(game.game);
  }

  // What the board draws with while a pick is a premove: Colorful's next stone is in the
  // player's own colour (the chooser offers the colours of the turn being played).
  boardView() {
    const game = this.game();
    if (game.game !== "colorful" || !this.possible()) return {};
    const mine = COLOURS[sideOfPlayer(game, game.you)];
    return { colour: mine[this.partial.length] || mine[0] };
  }

  pick(action) {
    if (!this.possible()) return false;
    const game = this.game();
    const cell = cellOf(action);
    if (this.queued && this.queued.actions.some((queued) => cellOf(queued) === cell)) {
      this.partial = [];
      this.send({ type: "premove_cancel" });
    } else if (game.game === "colorful" && this.partial.length === 0) {
      this.partial = [action];
      const next = COLOURS[sideOfPlayer(game, game.you)][1];
      this.notice.show(`Premove: ${action} first; now pick the cell of your ${next} stone.`,
        "info");
      this.redrawBoard();
    } else if (game.game === "colorful") {
      if (cellOf(this.partial[0]) === cell) {
        this.partial = []; // the same cell again: start over
        this.notice.clear();
        this.redrawBoard();
        return true;
      }
      const actions = [...this.partial, action];
      this.partial = [];
      this.send({ type: "premove", ply: game.state.ply, actions });
    } else {
      this.send({ type: "premove", ply: game.state.ply, actions: [action] });
    }
    return true;
  }

  snapshot(game) {
    this.queued = game.premove || null;
    this.partial = [];
  }

  queuedNews(message) {
    this.partial = [];
    this.queued = { ply: message.ply, actions: message.actions };
    this.notice.show(`Premove ${message.actions.join(", ")} queued: it is played as soon as `
      + "your turn comes. Click it again to cancel.", "info");
    this.redrawBoard();
  }

  clearedNews(message) {
    this.queued = null;
    this.partial = [];
    if (message.reason === "cancelled") this.notice.clear();
    if (message.reason === "dropped") {
      this.notice.show(`Premove dropped: ${message.message}`, "illegal");
    }
    this.redrawBoard();
  }

  // After the board's render: the queued cells (or Tripen's tokens), faint, in the player's
  // own colour.
  mark() {
    for (const node of this.svg.querySelectorAll(".premove")) node.classList.remove("premove");
    for (const node of this.svg.querySelectorAll(".premove-token")) node.remove();
    const game = this.game();
    if (isMyTurn(game) || !isLive(game)) return;
    const actions = [...(this.queued ? this.queued.actions : []), ...this.partial];
    const side = sideOfPlayer(game, game.you);
    for (const action of actions) {
      if (game.game === "tripen") {
        this.markToken(action, side);
        continue;
      }
      const cell = cellOf(action);
      const node = this.svg.querySelector(`[data-cell="${CSS.escape(cell)}"]`);
      if (!node) continue;
      node.classList.add("premove");
      const stone = node.querySelector(".stone.ghost");
      if (stone) {
        stone.classList.remove("side-0", "side-1", "colour-R", "colour-P", "colour-B", "colour-G");
        stone.classList.add(action.includes("@") ? `colour-${action.split("@")[0]}` : `side-${side}`);
      }
      const queued = this.queued && this.queued.actions.includes(action);
      node.setAttribute("aria-label", queued ? `${action}: your premove (select to cancel)`
        : `${action}: the first stone of your premove`);
    }
  }

  // Tripen: the queued pose as a faint token (the board data has every pose's polygon).
  markToken(action, side) {
    const polygon = this.game().state.board.poses?.[action];
    if (!polygon) return;
    const token = el("polygon", { class: `premove-token token side-${side}`, role: "img",
      "aria-label": `${action}: your premove`, "data-action": action, points: points(polygon) });
    token.setAttribute("pointer-events", "none");
    this.svg.append(token);
  }
}
