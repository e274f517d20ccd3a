// Berserk in arena games (docs/tournaments.md, docs/protocol.md `berserk`): before their first
// action a player may halve their own clock for one more point if they win. The server decides
// (arena games only, own clock, before one's first action, once); the page offers the button
// and shows everyone who went berserk.
import { byId as $ } from "../dom.js";
import { isLive, isPlayer } from "../live-game.js";
import { bothActed } from "../movelist.js";

export class BerserkControls {
  // game(): the page's current game; send(message) -> false when not connected
  constructor({ game, send }) {
    this.source = game;
    const button = $("berserk");
    if (button) {
      button.addEventListener("click", () => {
        send({ type: "berserk", ply: this.source().state.ply });
      });
    }
  }

  render() {
    const game = this.source();
    const event = game.event;
    const box = $("berserk-box");
    if (!box || !event) return;
    const went = event.berserk || [false, false];
    // Player 0 moves first, so any action is theirs; player 1 has acted once both sides have.
    const acted = game.you === 0 ? game.state.ply > 0 : bothActed(game.state);
    const offer = Boolean(event.berserk_offered) && isLive(game) && isPlayer(game)
      && !went[game.you] && !acted;
    $("berserk").hidden = !offer;
    const names = game.players.filter((player, index) => went[index]).map((p) => p.username);
    $("berserk-note").textContent = names.length
      ? `Berserk: ${names.join(" and ")} (half the clock).` : "";
    box.hidden = !offer && names.length === 0;
  }

  // `berserk`: a player halved their clock.
  went(message) {
    const game = this.source();
    if (!game.event) return;
    game.event.berserk = game.event.berserk || [false, false];
    game.event.berserk[message.player] = true;
  }
}
