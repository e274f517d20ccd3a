// Conditional moves (docs/protocol.md, "Conditional moves"): in a correspondence game the player
// who waits writes lines, "if they play e5 I play a1; then if e1, a5", in the game's notation;
// the server checks each on the engine (its reason is shown when it refuses one), keeps them
// and plays them. The server's `conditions` / `conditions_cleared` news (this player's sockets
// only) and the snapshot's `conditions` are the only truth: the page never plays a line.
import { byId as $ } from "../dom.js";
import { isLive, isMyTurn, isPlayer } from "../live-game.js";

// "e5 a1 e1 a5": turns in order, theirs first; one turn's actions joined with "+"
// ("B@A2+G@A3"). Returns a list of turns, each a list of actions.
export function parseLine(text) {
  return text.trim().split(/\s+/).filter(Boolean).map((turn) => turn.split("+").filter(Boolean));
}

export function lineText(line) {
  const pairs = [];
  for (let i = 0; i < line.length; i += 2) {
    pairs.push(`if ${line[i].join("+")} → ${(line[i + 1] || []).join("+")}`);
  }
  return pairs.join(", then ");
}

export class ConditionControls {
  // replay: the page's replay, whose exploration builds a line clicked on the board
  constructor({ game, send, notice, replay }) {
    this.game = game;
    this.send = send;
    this.notice = notice;
    this.replay = replay;
    this.drafting = false;
    this.kept = game().conditions || null; // {ply, lines}
    this.panel = $("conditions");
    if (!this.panel) return;
    $("condition-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const line = parseLine($("condition-line").value);
      if (!line.length) return;
      this.save([...this.lines(), line], "Checking the line…");
    });
    $("condition-draft").addEventListener("click", () => this.draft(true));
    $("condition-draft-cancel").addEventListener("click", () => this.draft(false));
    $("condition-draft-save").addEventListener("click", () => this.saveDraft());
    $("conditions-clear").addEventListener("click", () => {
      if (this.send({ type: "conditions_clear" })) this.status("Clearing…");
    });
  }

  // The board editor: the player clicks their opponent's move, their reply, and on, in the
  // replay's exploration; the server cuts the actions into turns and checks them.
  draft(on) {
    this.drafting = on;
    this.replay.draft(on);
    this.status(on ? "Click their move on the board, then your reply, and on; then save the "
      + "line." : "");
    this.render();
  }

  saveDraft() {
    const line = [...this.replay.line];
    if (this.replay.from !== this.game().state.ply) {
      this.status("The game moved on: enter the line again from the position now.");
      this.draft(true);
      return;
    }
    if (!line.length) {
      this.status("Click their move on the board first.");
      return;
    }
    this.drafting = false;
    this.replay.draft(false);
    this.save([...this.lines(), line], "Checking the line…");
  }

  lines() {
    return this.kept ? this.kept.lines : [];
  }

  possible() {
    const game = this.game();
    return isLive(game) && isPlayer(game) && !isMyTurn(game)
      && game.time_control.kind === "correspondence";
  }

  save(lines, text) {
    if (!lines.length) {
      if (this.send({ type: "conditions_clear" })) this.status("Clearing…");
      return;
    }
    if (this.send({ type: "conditions", ply: this.game().state.ply, lines })) this.status(text);
  }

  status(text) {
    if (this.panel) $("condition-status").textContent = text;
  }

  snapshot(game) {
    this.kept = game.conditions || null;
  }

  keptNews(message) {
    this.kept = { ply: message.ply, lines: message.lines };
    if (this.panel) $("condition-line").value = "";
    this.notice.clear(); // a refusal shown before is answered now
    this.status(message.played
      ? `Played ${message.played.join("+")} after ${message.after.join("+")}; your other lines wait.`
      : "Saved: the server plays these while you are away.");
    this.render();
  }

  clearedNews(message) {
    this.kept = null;
    if (message.reason === "played") {
      this.status(`Played ${message.played.join("+")} after ${message.after.join("+")}: `
        + "no lines left.");
    } else if (message.reason === "discarded") {
      this.status(`${message.message.charAt(0).toUpperCase()}${message.message.slice(1)}.`);
    } else {
      this.status("Cleared.");
    }
    this.render();
  }

  // A refused line: the engine's reason, next to the entry.
  refused(message) {
    if (this.panel && !this.panel.hidden && ["illegal", "too_large", "bad_message",
      "your_turn", "not_correspondence"].includes(message.code)) {
      this.status(`Not saved: ${message.message}`);
    }
  }

  render() {
    if (!this.panel) return;
    const game = this.game();
    this.panel.hidden = !(isLive(game) && isPlayer(game)
      && game.time_control.kind === "correspondence");
    const list = $("condition-lines");
    list.replaceChildren();
    this.lines().forEach((line, index) => {
      const item = document.createElement("li");
      item.textContent = `${lineText(line)} `;
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "button small";
      remove.textContent = "Remove";
      remove.setAttribute("aria-label", `Remove the line ${lineText(line)}`);
      remove.disabled = !this.possible();
      remove.addEventListener("click", () => {
        this.save(this.lines().filter((_, i) => i !== index), "Removing the line…");
      });
      item.append(remove);
      list.append(item);
    });
    $("conditions-none").hidden = this.lines().length > 0;
    const open = this.possible();
    for (const id of ["condition-line", "condition-add", "conditions-clear"]) $(id).disabled = !open;
    $("conditions-clear").disabled = !open || !this.lines().length;
    $("condition-wait").hidden = open;
    if (this.drafting && !open) {
      this.drafting = false;
      this.replay.draft(false);
    }
    $("condition-draft").hidden = this.drafting;
    $("condition-draft").disabled = !open;
    $("condition-draft-save").hidden = !this.drafting;
    $("condition-draft-cancel").hidden = !this.drafting;
  }
}
