// The game page's buttons: Tripen's Swap, resign (with a confirmation), abort, claiming the win
// of a realtime game the opponent has left, and the rematch offer after the end (offer,
// accept, decline, withdraw, follow).
import { byId as $ } from "../dom.js";
import { isLive, isMyTurn, isPlayer } from "../live-game.js";
import { bothActed } from "../movelist.js";

export class GameControls {
  // game(): the page's current game; send(message) -> false when not connected;
  // play(action); notice: the page's Notice
  constructor({ game, send, play, notice }) {
    this.source = game;
    this.notice = notice;
    this.confirmingResign = false;
    this.withdrawing = false; // our own rematch offer is being withdrawn (not declined)
    const ply = () => this.game.state.ply;
    onClick("swap", () => play("swap"));
    onClick("resign", () => {
      this.confirmingResign = true;
      this.render();
      $("resign-yes").focus();
    });
    onClick("resign-yes", () => {
      this.confirmingResign = false;
      send({ type: "resign", ply: ply() });
      this.render();
    });
    onClick("resign-no", () => {
      this.confirmingResign = false;
      this.render();
      $("resign").focus();
    });
    onClick("abort", () => send({ type: "abort", ply: ply() }));
    onClick("claim", () => send({ type: "claim_victory", ply: ply() }));
    this.claimTimer = null;
    onClick("rematch", () => send({ type: "rematch" }));
    onClick("rematch-accept", () => send({ type: "rematch" }));
    onClick("rematch-decline", () => send({ type: "decline_rematch" }));
    onClick("rematch-withdraw", () => {
      this.withdrawing = send({ type: "decline_rematch" });
    });
  }

  get game() {
    return this.source();
  }

  render() {
    const game = this.game;
    const player = isPlayer(game);
    const live = isLive(game);
    show("swap", isMyTurn(game) && game.state.legal.includes("swap"));
    show("resign", player && live && !this.confirmingResign);
    show("resign-confirm", player && live && this.confirmingResign);
    show("abort", player && live && !bothActed(game.state));
    this.renderClaim(player && live);
    this.renderRematch(player && !live);
  }

  // The server says from when each player may claim the win because the opponent left
  // (presence.claimable_at, in server time): a countdown, then the button.
  renderClaim(possible) {
    const game = this.game;
    clearTimeout(this.claimTimer);
    const at = possible && game.presence && game.presence.claimable_at
      ? game.presence.claimable_at[game.you] : null;
    show("claim-box", Boolean(at));
    if (!at) return;
    const skew = Date.parse(game.clocks.server_time) - (game.clocks.received_at || Date.now());
    const wait = Date.parse(at) - (Date.now() + skew);
    const gone = game.players[1 - game.you].username;
    $("claim").disabled = wait > 0;
    $("claim-note").textContent = wait > 0
      ? `${gone} left the game: you can claim the win in ${Math.ceil(wait / 1000)} s.`
      : `${gone} left the game.`;
    if (wait > 0) this.claimTimer = setTimeout(() => this.render(), Math.min(wait, 1000));
  }

  renderRematch(possible) {
    const game = this.game;
    const offeredBy = game.rematch ? game.rematch.offered_by : null;
    const started = game.rematch && game.rematch.url;
    const offered = offeredBy !== null && offeredBy !== undefined;
    const mine = offered && offeredBy === game.you;
    const theirs = offered && !mine;
    show("rematch-box", possible || Boolean(started));
    show("rematch-link", Boolean(started));
    if (started) $("rematch-link").href = started;
    const open = possible && !started;
    show("rematch", open && !offered);
    show("rematch-accept", open && theirs);
    show("rematch-decline", open && theirs);
    show("rematch-withdraw", open && mine);
    // A seek like this game, back in the lobby (rendered for players only).
    const newOpponent = $("new-opponent-form");
    if (newOpponent) newOpponent.hidden = !possible;
    let note = "";
    if (theirs) note = `${game.players[offeredBy].username} offers a rematch.`;
    else if (mine) note = "Rematch offered: waiting for an answer.";
    $("rematch-note").textContent = note;
  }

  // A `rematch` message: an offer, or an offer gone (declined, or withdrawn by its maker).
  rematchChanged(offeredBy) {
    const game = this.game;
    const before = game.rematch ? game.rematch.offered_by : null;
    game.rematch = { ...game.rematch, offered_by: offeredBy };
    const withdrawn = this.withdrawing;
    this.withdrawing = false;
    if (offeredBy === null && before !== null && before === game.you && !withdrawn) {
      this.notice.show("Your rematch offer was declined.", "info");
    }
    this.render();
  }
}

function show(id, visible) {
  $(id).hidden = !visible;
}

function onClick(id, handler) {
  $(id).addEventListener("click", handler);
}
