// Takebacks on the game page (docs/protocol.md, "Takebacks"): a player proposes to take back
// their last turn, the opponent accepts or declines, spectators read a short note. Shaped
// like the rematch offer (game/controls.js). The server decides which actions go back; the
// page only shows the position it sends (`taken_back`).
import { byId as $ } from "../dom.js";
import { isLive, isPlayer } from "../live-game.js";
import { bothActed } from "../movelist.js";

export class TakebackControls {
  // game(): the page's current game; send(message) -> false when not connected;
  // notice: the page's Notice
  constructor({ game, send, notice }) {
    this.source = game;
    this.notice = notice;
    this.withdrawing = false; // our own proposal is being withdrawn (not declined)
    const ply = () => this.game.state.ply;
    onClick("takeback", () => send({ type: "takeback", ply: ply() }));
    onClick("takeback-accept", () => send({ type: "accept_takeback", ply: ply() }));
    onClick("takeback-decline", () => send({ type: "decline_takeback" }));
    onClick("takeback-withdraw", () => {
      this.withdrawing = send({ type: "decline_takeback" });
    });
  }

  get game() {
    return this.source();
  }

  get offeredBy() {
    const offer = this.game.takeback;
    return offer && offer.offered_by !== undefined ? offer.offered_by : null;
  }

  render() {
    const game = this.game;
    const live = isLive(game);
    const player = isPlayer(game);
    const offeredBy = this.offeredBy;
    // A house rule of the game's event (tournament games: none): no button, the page's header
    // says why.
    if (game.house_rules && game.house_rules.takeback) {
      show("takeback-box", false);
      return;
    }
    const offered = live && offeredBy !== null;
    const mine = offered && player && offeredBy === game.you;
    const theirs = offered && player && !mine;
    show("takeback-box", live && (player || offered));
    show("takeback", live && player && !offered);
    // Allowed once the player has made a turn of their own: player 0 moves first, so any
    // action is theirs; player 1 has acted once both sides have.
    $("takeback").disabled = !(game.you === 0 ? game.state.ply > 0 : bothActed(game.state));
    show("takeback-accept", theirs);
    show("takeback-decline", theirs);
    show("takeback-withdraw", mine);
    let note = "";
    if (theirs) note = `${game.players[offeredBy].username} proposes a takeback.`;
    else if (mine) note = "Takeback proposed: waiting for an answer.";
    else if (offered) note = `${game.players[offeredBy].username} proposes a takeback.`;
    $("takeback-note").textContent = note;
  }

  // `takeback_offered`
  offered(message) {
    this.game.takeback = { offered_by: message.by, ply: message.ply };
    this.render();
  }

  // `takeback_declined` (declined, or withdrawn by its maker) and `takeback_lapsed` (an
  // action or the end came first).
  cleared(message, declined) {
    const game = this.game;
    const withdrawn = this.withdrawing;
    this.withdrawing = false;
    game.takeback = { offered_by: null, ply: game.state.ply };
    if (declined && message.proposed_by === game.you && message.by !== game.you && !withdrawn) {
      this.notice.show("Your takeback proposal was declined.", "info");
    }
    this.render();
  }

  // `taken_back`: the position, move list and clocks step back for everyone.
  takenBack(message) {
    const game = this.game;
    const who = game.players[message.by].username;
    this.notice.show(message.by === game.you ? "Takeback accepted."
      : `${who}'s takeback was accepted.`, "info");
  }
}

// Applies a `taken_back` message to the game. Returns "applied", "seen" (a snapshot had it
// already) or "gap" (the page was not at the ply the takeback started from: ask for a
// snapshot).
export function applyTakenBack(game, message) {
  if ((game.takebacks || 0) >= message.takebacks) return "seen";
  if (game.state.ply !== message.from_ply || (game.takebacks || 0) !== message.takebacks - 1) {
    return "gap";
  }
  game.state = { ...message.state, board: { ...game.state.board, ...message.state.board } };
  game.actions = message.state.actions;
  game.clocks = message.clocks;
  game.swapped = message.swapped;
  game.takebacks = message.takebacks;
  game.takeback = { offered_by: null, ply: message.ply };
  return "applied";
}

function show(id, visible) {
  $(id).hidden = !visible;
}

function onClick(id, handler) {
  $(id).addEventListener("click", handler);
}
