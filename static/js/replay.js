// The replay viewer: step through a game's positions (first / previous / next / last, the arrow
// keys, Home and End, the slider, a click on any move in the move list), autoplay at a chosen
// speed, the shown ply kept in the URL (?ply=12) so a position can be shared, exploration of
// other moves from any position (?explore=c3,d4), and export links. In a live game the same
// controls let a spectator step back through the moves already played while new ones keep
// arriving, and "Back to live" returns to the live position.
//
// Positions come from the server's engine (static/js/replay/positions.js); the bar's markup is
// static/js/replay/bar.js. This module keeps what is shown.
//
//   const replay = createReplay({game, controls, moveList, render});
//     game():   the host page's current game (snapshot shape: id, game, status, you, and
//               state = the engine's full to_dict() at the latest ply, kept current by the host)
//     controls: the element the replay bar is built in
//     moveList: the move list <ol> (static/js/movelist.js): a click on an action shows the
//               position after it; re-rendering the list is noticed by itself
//     render(): the host redraws its board, drawing replay.shown() when that is not null
//   replay.shown()      -> null (draw the game as it stands) or {state, view} to draw instead
//   replay.away()       -> null at the game's latest position, else {label, text}: what the
//                          board shows instead ("Replay", "After action 2 of 6 · Red to ...")
//   replay.action(a)    -> true when a board pick was taken as an exploration move
//   replay.update()     the host's game changed (a new action, the end, a fresh snapshot)
//   replay.rewound(ply) a takeback: the positions after `ply` are gone
import { colourOfKey } from "./colours.js";
import { isPlainKey } from "./dom.js";
import { isLive, isPlayer } from "./live-game.js";
import { markCurrent } from "./movelist.js";
import { ReplayBar } from "./replay/bar.js";
import { Positions } from "./replay/positions.js";

const KEY_COMMANDS = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };

export function createReplay(options) {
  return new Replay(options);
}

class Replay {
  constructor({ game, controls, moveList, render }) {
    this.source = game;
    this.render = render;
    this.moveList = moveList;
    this.positions = new Positions(this.game.id, () => this.latest);
    this.ply = null; // the game's ply shown; null: the latest (live: follows new actions)
    this.drawn = null; // the game position last drawn, kept on screen while the next loads
    this.from = null; // exploring: the game's ply the line starts from
    this.line = []; // exploring: the actions tried from there
    this.explored = null; // exploring: to_dict() after the line
    this.colour = null; // Colorful: the colour of the next explored stone
    this.drafting = false; // a player enters a conditional line on the board (draft)
    this.timer = null; // autoplay
    this.request = 0; // only the answer to the latest request is shown
    this.positions.remember(this.latest);
    this.bar = new ReplayBar(controls, this.game.id, {
      command: (name) => this.command(name),
      slide: (ply) => {
        this.stopAutoplay();
        this.goto(ply);
      },
      speed: () => this.restartAutoplay(),
      live: () => this.live(),
      back: () => this.backToGame(),
      undo: () => this.undo(),
      colour: (colour) => this.pickColour(colour),
    });
    this.watchMoveList();
    document.addEventListener("keydown", (event) => this.onKey(event));
    this.refreshControls();
    this.bar.drawn(); // the host draws its latest position
    // After the host has its `replay` in hand: opening a shared ?ply= position redraws.
    Promise.resolve().then(() => this.openFromUrl());
  }

  // ------------------------------------------------------------------ what is shown

  get game() {
    return this.source();
  }

  get latest() {
    return this.game.state;
  }

  get end() {
    return this.latest.ply;
  }

  get isLive() {
    return isLive(this.game);
  }

  // The game's ply on screen (or the one exploration started from).
  at() {
    return this.ply === null ? this.end : this.ply;
  }

  shownPly() {
    return this.explored ? this.from : this.at();
  }

  // Anyone may explore, except the two players of a game still being played: their clicks
  // are moves in the real game, never a scratch line.
  canExplore() {
    return this.drafting || !(this.isLive && isPlayer(this.game));
  }

  // A player of a live game entering a conditional line (game/conditions.js): while on, their
  // clicks build a scratch line from the latest position, never moves in the game.
  draft(on) {
    this.drafting = on;
    this.stopAutoplay();
    return this.goto(this.end);
  }

  shown() {
    if (this.explored) return this.view(this.explored);
    if (this.ply === null && this.drafting) return this.view(this.latest);
    if (this.ply === null) {
      // The latest position is the host's to draw, except a finished game that did not end
      // on the board (resignation, time): from there one can still explore.
      const latest = this.latest;
      return !this.isLive && !latest.is_over && latest.legal.length ? this.view(latest) : null;
    }
    const state = this.positions.known(this.ply) || this.drawn;
    return state ? this.view(state) : null;
  }

  away() {
    if (this.explored) {
      const from = this.from === 0 ? "the start" : `action ${this.from}`;
      return { label: "Exploring", text: `A line tried from ${from}, not part of the game` };
    }
    if (this.ply === null) return null;
    const state = this.positions.known(this.ply);
    const where = this.ply === 0 ? "Start of the game" : `After action ${this.ply} of ${this.end}`;
    const said = state ? (state.is_over ? state.result : state.prompt) : "";
    return { label: "Replay", text: said ? `${where} · ${said}` : where };
  }

  view(state) {
    const interactive = this.canExplore() && !state.is_over;
    return { state, view: { interactive, colour: this.colourFor(state, interactive), highlight: [] } };
  }

  colourFor(state, interactive) {
    const owed = owedColours(state);
    if (!interactive || !owed.length) return null;
    if (!owed.includes(this.colour)) this.colour = owed[0];
    return this.colour;
  }

  // ------------------------------------------------------------------ navigation

  command(name) {
    if (name === "play") return this.toggleAutoplay();
    this.stopAutoplay();
    if (name === "prev" && this.explored) return this.undo();
    const target = { first: 0, prev: this.at() - 1, next: this.at() + 1, last: this.end }[name];
    if (target === undefined) return undefined;
    return this.goto(target);
  }

  async goto(ply, { write = true } = {}) {
    ply = Math.max(0, Math.min(this.end, Math.trunc(ply)));
    this.clearExploration();
    this.ply = ply === this.end ? null : ply;
    const token = ++this.request;
    this.refreshControls();
    if (write) this.writeUrl();
    this.bar.loading();
    if (this.ply === null) {
      this.drawn = null;
      this.refresh();
      return;
    }
    try {
      this.drawn = await this.positions.at(ply);
    } catch (error) {
      if (token === this.request) this.bar.notice.show(error.message, "error");
      return;
    }
    if (token !== this.request) return;
    this.refresh();
    // Autoplay: the next position loads while this one is on screen.
    if (this.timer) this.positions.at(Math.min(ply + 1, this.end)).catch(() => {});
  }

  live() {
    this.stopAutoplay();
    return this.goto(this.end);
  }

  // The host's game changed: a new action, the end of the game, or a fresh snapshot.
  update() {
    this.positions.remember(this.latest);
    if (this.ply !== null && this.ply >= this.end && !this.explored) this.ply = null;
    this.refreshControls();
    if (this.ply === null && !this.explored) this.bar.drawn();
  }

  // A takeback: the game's positions after `ply` are gone. A view of one of them, or an
  // exploration from one, returns to the game as it stands.
  rewound(ply) {
    this.positions.forget(ply);
    if (this.shownPly() > ply) {
      this.stopAutoplay();
      this.goto(ply);
    }
  }

  // ------------------------------------------------------------------ exploring

  // A pick on the board while it shows a position one may explore from: the next action of
  // the scratch line. Returns false when the pick is the host's (a move in the live game).
  action(action) {
    const shown = this.shown();
    if (!shown || !shown.view.interactive) return false;
    this.stopAutoplay();
    this.explore([...this.line, action]);
    return true;
  }

  async explore(line, { from = this.shownPly() } = {}) {
    const token = ++this.request;
    let explored;
    try {
      explored = await this.positions.explore(from, line);
    } catch (error) {
      // The engine's reason for refusing the move; the line stays as it was.
      if (token === this.request) this.bar.notice.show(error.message, "error");
      return false;
    }
    if (token !== this.request) return false;
    this.from = from;
    this.ply = from;
    this.line = line;
    this.explored = explored;
    this.refresh();
    this.writeUrl();
    return true;
  }

  undo() {
    if (this.line.length <= 1) return this.backToGame();
    return this.explore(this.line.slice(0, -1));
  }

  backToGame() {
    return this.goto(this.shownPly());
  }

  clearExploration() {
    this.from = null;
    this.line = [];
    this.explored = null;
  }

  // ------------------------------------------------------------------ autoplay

  toggleAutoplay() {
    if (this.timer) {
      this.stopAutoplay();
      return;
    }
    if (this.explored) this.clearExploration();
    if (this.at() >= this.end) this.goto(0);
    this.timer = setInterval(() => this.tick(), this.bar.speed);
    this.refreshControls();
  }

  // A new speed applies at once.
  restartAutoplay() {
    if (!this.timer) return;
    this.stopAutoplay();
    this.toggleAutoplay();
  }

  tick() {
    if (this.at() >= this.end) {
      this.stopAutoplay();
      return;
    }
    this.goto(this.at() + 1);
  }

  stopAutoplay() {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    this.refreshControls();
  }

  // ------------------------------------------------------------------ the URL

  // ?ply=K (and ?explore=a,b) say what is on screen, so the address can be shared; a live
  // game followed live has neither.
  writeUrl() {
    const url = new URL(window.location.href);
    if (this.ply === null && this.isLive) url.searchParams.delete("ply");
    else url.searchParams.set("ply", String(this.shownPly()));
    if (this.line.length) url.searchParams.set("explore", this.line.join(","));
    else url.searchParams.delete("explore");
    if (url.href !== window.location.href) window.history.replaceState(window.history.state, "", url);
  }

  async openFromUrl() {
    const params = new URLSearchParams(window.location.search);
    const ply = params.get("ply");
    const line = (params.get("explore") || "").split(",").filter(Boolean);
    if (ply === null || !/^\d+$/.test(ply)) return;
    await this.goto(Number(ply), { write: false });
    if (line.length && this.canExplore()) await this.explore(line, { from: this.at() });
  }

  // ------------------------------------------------------------------ drawing

  // A new position is on screen: whatever the notice said was about the previous one.
  refresh() {
    this.bar.notice.clear();
    this.refreshControls();
    this.render();
    this.bar.drawn();
  }

  refreshControls() {
    const at = this.shownPly();
    const end = this.end;
    const shown = this.shown();
    const explorable = Boolean(shown && shown.view.interactive);
    // The position's own prompt, when it is not the one the page shows above the board.
    const state = this.explored || (this.ply === null ? null : this.positions.known(this.ply));
    this.bar.render({
      at,
      end,
      playing: Boolean(this.timer),
      browsing: this.ply !== null || Boolean(this.explored),
      live: this.isLive,
      exploring: Boolean(this.explored),
      where: this.whereText(at, end),
      prompt: state ? (state.is_over ? state.result || "" : state.prompt) : "",
      line: this.explored
        ? `Exploring from ${at === 0 ? "the start" : `action ${at}`}: ${this.line.join(", ")}. `
          + "Not part of the game; nothing is saved."
        : "",
      hint: this.hintText(explorable),
      owed: explorable ? owedColours(shown.state) : [],
      colour: explorable ? shown.view.colour : null,
    });
    if (this.moveList) markCurrent(this.moveList, at);
  }

  whereText(at, end) {
    if (this.isLive && this.ply === null && !this.explored) return `Live · ${end} action${end === 1 ? "" : "s"}`;
    if (at === 0) return `Start of the game · 0 of ${end}`;
    return `After action ${at} of ${end}`;
  }

  hintText(explorable) {
    if (!explorable) return "";
    return this.explored ? "Click the board to go on exploring."
      : "Click the board to explore a move from here (the game itself is not changed).";
  }

  // Colorful: the colour of the next explored stone.
  pickColour(colour) {
    this.colour = colour;
    this.refresh();
  }

  // ------------------------------------------------------------------ the move list

  watchMoveList() {
    new MutationObserver(() => markCurrent(this.moveList, this.shownPly()))
      .observe(this.moveList, { childList: true, subtree: true });
    this.moveList.addEventListener("click", (event) => {
      const act = event.target.closest(".act[data-ply]");
      if (!act) return;
      this.stopAutoplay();
      this.goto(Number(act.dataset.ply));
    });
  }

  // ------------------------------------------------------------------ keys

  onKey(event) {
    if (event.defaultPrevented || !isPlainKey(event)) return;
    const name = KEY_COMMANDS[event.key];
    if (name) {
      event.preventDefault();
      this.command(name);
      return;
    }
    const colour = colourOfKey(event);
    const shown = this.shown();
    if (colour && shown && shown.view.interactive && owedColours(shown.state).includes(colour)) {
      this.pickColour(colour);
    }
  }
}

function owedColours(state) {
  return (state.board && state.board.owed) || [];
}
