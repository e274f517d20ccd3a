// The chat panel of the game page (protocol: docs/protocol.md, `chat`). The server decides
// everything about rooms: who writes where, and which lines this page may receive (a player's
// page never gets the spectators' room while the game is played). The page shows the rooms it
// has lines for: the viewer's own while the game is played, both once it is over.
//
// Every line is built as DOM text (el() appends strings as text nodes): whatever anyone types,
// markup included, is shown as typed.
import { accountPref } from "../account-prefs.js";
import { byId as $, el } from "../dom.js";
import { isLive, isPlayer } from "../live-game.js";

const MAX_TEXT = 140;
// A page keeps at most this many lines (the snapshot brings the last 100 of each view).
const KEEP = 300;
const ROOMS = ["players", "spectators"];

function mutedKey(gameId) {
  return `tessera-chat-muted-${gameId}`;
}

export class ChatPanel {
  constructor({ game, send }) {
    this.game = game;
    this.send = send;
    this.panel = $("chat");
    this.form = $("chat-form");
    this.input = $("chat-text");
    this.mute = $("chat-mute");
    // The player's "Hide the chat" setting: no panel at all, only a word on where it went.
    this.hidden = Boolean(accountPref("hide_chat", false));
    if (this.hidden) {
      $("chat-hidden").hidden = false;
      return;
    }
    this.panel.hidden = false;
    if (this.form) {
      this.input.maxLength = MAX_TEXT;
      this.form.addEventListener("submit", (event) => {
        event.preventDefault();
        this.submit();
      });
    }
    this.mute.checked = this.muted();
    this.mute.addEventListener("change", () => {
      try {
        if (this.mute.checked) localStorage.setItem(mutedKey(this.game().id), "1");
        else localStorage.removeItem(mutedKey(this.game().id));
      } catch (error) {
        // Not kept, but this page still follows the choice.
      }
      this.render();
    });
  }

  get shown() {
    return !this.hidden;
  }

  // A player's choice, per game, kept in this browser: the opponent's lines are not shown.
  muted() {
    try {
      return localStorage.getItem(mutedKey(this.game().id)) === "1";
    } catch (error) {
      return false;
    }
  }

  opponentName() {
    const game = this.game();
    return isPlayer(game) ? game.players[1 - game.you].username : null;
  }

  // The viewer's own room: where the server puts what they write.
  ownRoom() {
    return isPlayer(this.game()) ? "players" : "spectators";
  }

  submit() {
    const text = this.input.value.trim();
    if (!text) return;
    if (this.send({ type: "chat", text })) this.input.value = "";
  }

  // A `chat` message: one new line.
  add(line) {
    const game = this.game();
    game.chat = game.chat || [];
    if (game.chat.some((known) => known.id === line.id)) return; // the snapshot had it
    const { type, ...kept } = line;
    game.chat.push(kept);
    if (game.chat.length > KEEP) game.chat.splice(0, game.chat.length - KEEP);
    this.render();
  }

  render() {
    if (this.hidden) return;
    const game = this.game();
    const lines = game.chat || [];
    const live = isLive(game);
    const own = this.ownRoom();
    const opponent = this.muted() ? this.opponentName() : null;
    $("chat-mute-label").hidden = !isPlayer(game);
    for (const room of ROOMS) {
      const list = $(`chat-${room}`);
      const inRoom = lines.filter((line) => line.room === room);
      // While the game is played a page has one room; after the end both, when they said
      // anything (the viewer's own room always, to write in).
      $(`chat-room-${room}`).hidden = live ? room !== own : room !== own && inRoom.length === 0;
      list.replaceChildren(...inRoom
        .filter((line) => line.author !== opponent)
        .map((line) => lineNode(line)));
      list.scrollTop = list.scrollHeight;
    }
    if (this.input) {
      this.input.placeholder = own === "players"
        ? (live ? "Message your opponent" : "Message everyone")
        : (live ? "Message the spectators" : "Message everyone");
    }
  }
}

function lineNode(line) {
  const when = new Date(line.time);
  const time = Number.isNaN(when.getTime()) ? "" : when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return el("li", {
    class: "chat-line", dataset: { author: line.author, room: line.room, ply: String(line.ply) },
    title: `${time}, after action ${line.ply}`,
  }, el("span", { class: "chat-author" }, line.author), " ", el("span", { class: "chat-text" }, line.text));
}
