// Premoves (docs/protocol.md, "Premoves"): in a realtime game a player picks their next action
// while the opponent is to move; the server keeps it and plays it when the turn passes. The
// page shows the queued action faintly on the board; a click on it cancels it. The server's
// `premove` / `premove_cleared` news (to this player's sockets only) and the snapshot's
// `premove` are the only truth: the page never plays it itself.
import { isLive, isMyTurn, isPlayer, sideOfPlayer } from "../live-game.js";

// Boards whose picks are one cell each; Tripen's poses and Colorful's colour chooser are
// left to the player's own turn.
const CELL_GAMES = ["hadron", "copolymer"];

export class PremoveControls {
  constructor({ game, send, svg, notice, redrawBoard }) {
    this.game = game;
    this.send = send;
    this.svg = svg;
    this.notice = notice;
    this.redrawBoard = redrawBoard;
    this.queued = game().premove || null; // {ply, actions}
  }

  // Whether a pick on the board now is a premove.
  possible() {
    const game = this.game();
    return isLive(game) && isPlayer(game) && !isMyTurn(game)
      && game.time_control.kind === "realtime" && CELL_GAMES.includes(game.game);
  }

  pick(action) {
    if (!this.possible()) return false;
    const game = this.game();
    if (this.queued && this.queued.actions.includes(action)) {
      this.send({ type: "premove_cancel" });
    } else {
      this.send({ type: "premove", ply: game.state.ply, actions: [action] });
    }
    return true;
  }

  snapshot(game) {
    this.queued = game.premove || null;
  }

  queuedNews(message) {
    this.queued = { ply: message.ply, actions: message.actions };
    this.notice.show(`Premove ${message.actions.join(", ")} queued: it is played as soon as `
      + "your turn comes. Click it again to cancel.", "info");
    this.redrawBoard();
  }

  clearedNews(message) {
    this.queued = null;
    if (message.reason === "cancelled") this.notice.clear();
    if (message.reason === "dropped") {
      this.notice.show(`Premove dropped: ${message.message}`, "illegal");
    }
    this.redrawBoard();
  }

  // After the board's render: the queued cells, faint, in the player's own colour.
  mark() {
    for (const node of this.svg.querySelectorAll(".premove")) node.classList.remove("premove");
    const game = this.game();
    if (!this.queued || isMyTurn(game) || !isLive(game)) return;
    const side = sideOfPlayer(game, game.you);
    for (const action of this.queued.actions) {
      const node = this.svg.querySelector(`[data-cell="${CSS.escape(action)}"]`);
      if (!node) continue;
      node.classList.add("premove");
      const stone = node.querySelector(".stone.ghost");
      if (stone) {
        stone.classList.remove("side-0", "side-1");
        stone.classList.add(`side-${side}`);
      }
      node.setAttribute("aria-label", `${action}: your premove (select to cancel)`);
    }
  }
}
