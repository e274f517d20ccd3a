// The replay viewer: step through a game's positions (first / previous / next / last, the arrow
// keys, Home and End, a slider, a click on any move in the move list), autoplay at a chosen
// speed, the shown ply kept in the URL (?ply=12) so a position can be shared, exploration of
// other moves from any position (?explore=c3,d4), and export links. In a live game the same
// controls let a spectator step back through the moves already played while new ones keep
// arriving, and the Live button returns to the live position.
//
// Positions come from the server's engine (/game/<id>/position/<ply>.json, explored lines from
// /game/<id>/explore.json): the browser decides no rules, it only asks and shows.
//
//   const replay = createReplay({game, controls, moveList, render});
//     game():   the host page's current game (snapshot shape: id, game, status, you, and
//               state = the engine's full to_dict() at the latest ply, kept current by the host)
//     controls: the element the replay bar is built in
//     moveList: the move list <ol> (static/js/movelist.js): its .act spans, in order, are the
//               actions, and become clickable; re-rendering it is noticed by itself
//     render(): the host redraws its board, drawing replay.shown() when that is not null
//   replay.shown()      -> null (draw the game as it stands) or {state, view} to draw instead
//   replay.action(a)    -> true when a board pick was taken as an exploration move
//   replay.update()     the host's game changed (a new action, the end, a fresh snapshot)
//   replay.goto(ply), replay.live(), replay.destroy()

const SPEEDS = [["Slow", 2000], ["Normal", 1000], ["Fast", 500], ["Very fast", 200]];
const DEFAULT_SPEED = 1000;
const COLOUR_NAMES = { R: "red", P: "pink", B: "blue", G: "green" };
const KEY_COMMANDS = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };

export function createReplay(options) {
  return new Replay(options);
}

class Replay {
  constructor({ game, controls, moveList = null, render, url = true }) {
    this.source = game;
    this.render = render;
    this.moveList = moveList;
    this.useUrl = url;
    this.positions = new Map(); // ply -> full to_dict() of the game's own line
    this.ply = null; // the game's ply shown; null: the latest (live: follows new actions)
    this.drawn = null; // the game position last drawn, kept on screen while the next loads
    this.from = null; // exploring: the game's ply the line starts from
    this.line = []; // exploring: the actions tried from there
    this.explored = null; // exploring: to_dict() after the line
    this.colour = null; // Colorful: the colour of the next explored stone
    this.timer = null; // autoplay
    this.request = 0; // only the answer to the latest request is shown
    this.listeners = [];
    this.remember(this.latest);
    this.build(controls);
    this.watchMoveList();
    this.listen(document, "keydown", (event) => this.onKey(event));
    this.refreshControls();
    this.root.dataset.shown = this.root.dataset.ply; // the host draws its latest position
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
    return this.game.status === "active" && !this.latest.is_over;
  }

  get isPlayer() {
    return this.game.you !== null && this.game.you !== undefined;
  }

  // The game's ply on screen (or the one exploration started from).
  at() {
    return this.ply === null ? this.end : this.ply;
  }

  // Anyone may explore, except the two players of a game still being played: their clicks
  // are moves in the real game, never a scratch line.
  canExplore() {
    return !(this.isLive && this.isPlayer);
  }

  shown() {
    if (this.explored) return this.view(this.explored);
    if (this.ply === null) {
      // The latest position is the host's to draw, except a finished game that did not end
      // on the board (resignation, time): from there one can still explore.
      const latest = this.latest;
      return !this.isLive && !latest.is_over && latest.legal.length ? this.view(latest) : null;
    }
    const state = this.positions.get(this.ply) || this.drawn;
    return state ? this.view(state) : null;
  }

  view(state) {
    const interactive = this.canExplore() && !state.is_over;
    return { state, view: { interactive, colour: this.colourFor(state, interactive), highlight: [] } };
  }

  colourFor(state, interactive) {
    const owed = (state.board && state.board.owed) || [];
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
    this.root.setAttribute("aria-busy", "true");
    if (this.ply === null) {
      this.drawn = null;
      this.refresh();
      return;
    }
    try {
      this.drawn = await this.position(ply);
    } catch (error) {
      if (token === this.request) this.notice(error.message);
      return;
    }
    if (token !== this.request) return;
    this.refresh();
    if (this.timer) this.position(Math.min(ply + 1, this.end)).catch(() => {});
  }

  live() {
    this.stopAutoplay();
    return this.goto(this.end);
  }

  async position(ply) {
    if (this.positions.has(ply)) return this.positions.get(ply);
    const response = await fetch(`/game/${this.game.id}/position/${ply}.json?static=0`,
      { headers: { Accept: "application/json" } });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.message || `Position ${ply} could not be loaded.`);
    const state = this.withStaticBoard(data);
    this.positions.set(ply, state);
    return state;
  }

  // The endpoints leave out the board's static geometry (cells, labels, Tripen's poses):
  // it is the same in every position of the game, and the page has it already.
  withStaticBoard(state) {
    return { ...state, board: { ...this.latest.board, ...state.board } };
  }

  remember(state) {
    if (state) this.positions.set(state.ply, state);
  }

  // The host's game changed: a new action, the end of the game, or a fresh snapshot.
  update() {
    this.remember(this.latest);
    if (this.ply !== null && this.ply >= this.end && !this.explored) this.ply = null;
    this.refreshControls();
    if (this.ply === null && !this.explored) this.root.dataset.shown = this.root.dataset.ply;
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

  async explore(line, { from = this.explored ? this.from : this.at() } = {}) {
    const token = ++this.request;
    const query = new URLSearchParams({ ply: String(from), moves: line.join(","), static: "0" });
    let response;
    let data;
    try {
      response = await fetch(`/game/${this.game.id}/explore.json?${query}`,
        { headers: { Accept: "application/json" } });
      data = await response.json();
    } catch (error) {
      if (token === this.request) this.notice("The server could not be reached: try again.");
      return false;
    }
    if (token !== this.request) return false;
    if (!response.ok) {
      // The engine's reason for refusing the move; the line stays as it was.
      this.notice(data.message || "That move cannot be played here.");
      return false;
    }
    this.from = from;
    this.ply = from;
    this.line = line;
    this.explored = this.withStaticBoard(data);
    this.refresh();
    this.writeUrl();
    return true;
  }

  undo() {
    if (this.line.length <= 1) return this.backToGame();
    return this.explore(this.line.slice(0, -1));
  }

  backToGame() {
    const from = this.from === null ? this.at() : this.from;
    return this.goto(from);
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
    this.timer = setInterval(() => this.tick(), this.speed());
    this.refreshControls();
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

  speed() {
    return Number(this.el.speed.value) || DEFAULT_SPEED;
  }

  // ------------------------------------------------------------------ the URL

  // ?ply=K (and ?explore=a,b) say what is on screen, so the address can be shared; a live
  // game followed live has neither.
  writeUrl() {
    if (!this.useUrl) return;
    const url = new URL(window.location.href);
    if (this.ply === null && this.isLive) url.searchParams.delete("ply");
    else url.searchParams.set("ply", String(this.explored ? this.from : this.at()));
    if (this.line.length) url.searchParams.set("explore", this.line.join(","));
    else url.searchParams.delete("explore");
    if (url.href !== window.location.href) window.history.replaceState(window.history.state, "", url);
  }

  async openFromUrl() {
    if (!this.useUrl) return;
    const params = new URLSearchParams(window.location.search);
    const ply = params.get("ply");
    const line = (params.get("explore") || "").split(",").filter(Boolean);
    if (ply === null || !/^\d+$/.test(ply)) return;
    await this.goto(Number(ply), { write: false });
    if (line.length && this.canExplore()) await this.explore(line, { from: this.at() });
  }

  // ------------------------------------------------------------------ the replay bar

  build(controls) {
    controls.classList.add("replay-bar");
    controls.setAttribute("role", "group");
    controls.setAttribute("aria-label", "Replay");
    controls.innerHTML = `
      <div class="replay-row">
        <div class="replay-buttons" role="toolbar" aria-label="Step through the game">
          <button type="button" class="replay-button" data-go="first" title="First position (Home)" aria-label="First position">«</button>
          <button type="button" class="replay-button" data-go="prev" title="Previous (←)" aria-label="Previous position">‹</button>
          <button type="button" class="replay-button replay-play" data-go="play" title="Autoplay" aria-label="Autoplay" aria-pressed="false">▶ Play</button>
          <button type="button" class="replay-button" data-go="next" title="Next (→)" aria-label="Next position">›</button>
          <button type="button" class="replay-button" data-go="last" title="Last position (End)" aria-label="Last position">»</button>
        </div>
        <span class="replay-where" aria-live="polite"></span>
        <label class="replay-speed-label">Speed
          <select class="replay-speed" aria-label="Autoplay speed"></select>
        </label>
        <button type="button" class="button replay-live" hidden>● Back to live</button>
      </div>
      <input type="range" class="replay-slider" min="0" step="1" aria-label="Position in the game">
      <p class="replay-prompt"></p>
      <div class="replay-explore" hidden>
        <p class="replay-line"></p>
        <div class="replay-explore-buttons">
          <button type="button" class="button secondary replay-undo">Undo</button>
          <button type="button" class="button replay-back">Back to the game</button>
        </div>
      </div>
      <div class="replay-colours" role="group" aria-label="Colour of the next explored stone" hidden></div>
      <p class="replay-hint muted"></p>
      <p class="replay-notice" role="alert" hidden></p>
      <p class="replay-exports">Download:
        <a class="record-txt" download>record (.txt)</a> ·
        <a class="record-json" download>record (.json)</a> ·
        <a class="position-svg" download>this position (.svg)</a></p>`;
    const find = (selector) => controls.querySelector(selector);
    this.root = controls;
    this.el = {
      slider: find(".replay-slider"), speed: find(".replay-speed"), live: find(".replay-live"),
      play: find(".replay-play"), where: find(".replay-where"), prompt: find(".replay-prompt"),
      explore: find(".replay-explore"), line: find(".replay-line"), colours: find(".replay-colours"),
      hint: find(".replay-hint"), notice: find(".replay-notice"), svg: find(".position-svg"),
    };
    for (const [name, ms] of SPEEDS) {
      const option = new Option(`${name} (${ms / 1000} s)`, String(ms), false, ms === DEFAULT_SPEED);
      this.el.speed.append(option);
    }
    const id = this.game.id;
    find(".record-txt").href = `/game/${id}/record.txt`;
    find(".record-json").href = `/game/${id}/record.json`;
    this.listen(controls, "click", (event) => {
      const button = event.target.closest("[data-go]");
      if (button) this.command(button.dataset.go);
    });
    this.listen(this.el.slider, "input", () => {
      this.stopAutoplay();
      this.goto(Number(this.el.slider.value));
    });
    this.listen(this.el.speed, "change", () => {
      if (!this.timer) return;
      this.stopAutoplay();
      this.toggleAutoplay();
    });
    this.listen(this.el.live, "click", () => this.live());
    this.listen(find(".replay-back"), "click", () => this.backToGame());
    this.listen(find(".replay-undo"), "click", () => this.undo());
  }

  refresh() {
    this.refreshControls();
    this.render();
    // What is drawn now (data-ply is where the viewer is going, perhaps still loading).
    this.root.dataset.shown = this.root.dataset.ply;
    this.root.removeAttribute("aria-busy");
  }

  refreshControls() {
    const at = this.explored ? this.from : this.at();
    const end = this.end;
    const el = this.el;
    el.slider.max = String(end);
    el.slider.value = String(at);
    el.slider.disabled = end === 0;
    this.setDisabled("first", at === 0);
    this.setDisabled("prev", at === 0 && !this.explored);
    this.setDisabled("next", at >= end);
    this.setDisabled("last", at >= end && !this.explored);
    this.setDisabled("play", end === 0);
    el.play.textContent = this.timer ? "❚❚ Pause" : "▶ Play";
    el.play.setAttribute("aria-pressed", String(Boolean(this.timer)));
    el.play.setAttribute("aria-label", this.timer ? "Pause" : "Autoplay");
    const browsing = this.isLive && (this.ply !== null || Boolean(this.explored));
    el.live.hidden = !browsing;
    this.root.classList.toggle("browsing", browsing);
    this.root.classList.toggle("exploring", Boolean(this.explored));
    this.root.dataset.ply = String(at);
    el.where.textContent = this.whereText(at, end);
    // The position's own prompt, when it is not the one the page shows above the board.
    const state = this.explored || (this.ply === null ? null : this.positions.get(this.ply));
    el.prompt.textContent = state ? (state.is_over ? state.result || "" : state.prompt) : "";
    el.explore.hidden = !this.explored;
    el.line.textContent = this.explored
      ? `Exploring from ${at === 0 ? "the start" : `action ${at}`}: ${this.line.join(", ")}. `
        + "Not part of the game; nothing is saved."
      : "";
    el.svg.href = `/game/${this.game.id}/position/${at}.svg`;
    el.hint.textContent = this.hintText();
    this.renderColours();
    this.markMoveList(at);
  }

  whereText(at, end) {
    if (this.isLive && this.ply === null && !this.explored) return `Live · ${end} action${end === 1 ? "" : "s"}`;
    if (at === 0) return `Start of the game · 0 of ${end}`;
    return `After action ${at} of ${end}`;
  }

  hintText() {
    const shown = this.shown();
    if (!shown || !shown.view.interactive) return "";
    return this.explored ? "Click the board to go on exploring."
      : "Click the board to explore a move from here (the game itself is not changed).";
  }

  setDisabled(name, disabled) {
    const button = this.root.querySelector(`[data-go="${name}"]`);
    if (button) button.disabled = disabled;
  }

  // Colorful: the colour of the next explored stone, from the colours the position owes.
  renderColours() {
    const shown = this.shown();
    const owed = shown && shown.view.interactive ? (shown.state.board.owed || []) : [];
    const box = this.el.colours;
    box.hidden = owed.length === 0;
    if (!owed.length) {
      box.replaceChildren();
      return;
    }
    box.replaceChildren(...owed.map((colour) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = `colour-button colour-${colour}`;
      button.dataset.colour = colour;
      button.setAttribute("aria-pressed", String(colour === shown.view.colour));
      button.innerHTML = `<span class="swatch colour-${colour}"></span>${COLOUR_NAMES[colour]}`;
      button.addEventListener("click", () => this.pickColour(colour));
      return button;
    }));
  }

  pickColour(colour) {
    this.colour = colour;
    this.refresh();
  }

  notice(text) {
    const notice = this.el.notice;
    notice.textContent = text;
    notice.hidden = false;
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => { notice.hidden = true; }, 5000);
  }

  // ------------------------------------------------------------------ the move list

  // Each action of the list is the position after it: action i (0-based) is ply i + 1.
  watchMoveList() {
    if (!this.moveList) return;
    this.observer = new MutationObserver(() => this.markMoveList(this.explored ? this.from : this.at()));
    this.observer.observe(this.moveList, { childList: true, subtree: true });
    const pick = (event) => {
      const act = event.target.closest(".act[data-ply]");
      if (!act) return;
      if (event.type === "keydown" && event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
      this.stopAutoplay();
      this.goto(Number(act.dataset.ply));
    };
    this.listen(this.moveList, "click", pick);
    this.listen(this.moveList, "keydown", pick);
  }

  markMoveList(at) {
    if (!this.moveList) return;
    const acts = this.moveList.querySelectorAll(".act");
    let current = null;
    acts.forEach((act, index) => {
      const ply = index + 1;
      if (act.dataset.ply !== String(ply)) {
        act.dataset.ply = String(ply);
        act.tabIndex = 0;
        act.setAttribute("role", "button");
        act.title = `Show the position after action ${ply}`;
      }
      const on = ply === at;
      if (act.classList.contains("current") !== on) act.classList.toggle("current", on);
      if (on) current = act;
    });
    // Scroll the list only when the ply changes, not at every redraw (the reader may be
    // looking further up the list).
    if (current && at !== this.markedAt) keepInView(this.moveList, current);
    this.markedAt = at;
  }

  // ------------------------------------------------------------------ keys

  onKey(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target.closest && target.closest("input, textarea, select, [contenteditable=''], [contenteditable='true']")) return;
    const name = KEY_COMMANDS[event.key];
    if (name) {
      event.preventDefault();
      this.command(name);
      return;
    }
    const colour = event.key.toUpperCase();
    const shown = this.shown();
    if (COLOUR_NAMES[colour] && shown && shown.view.interactive
        && (shown.state.board.owed || []).includes(colour)) {
      this.pickColour(colour);
    }
  }

  listen(target, type, handler) {
    target.addEventListener(type, handler);
    this.listeners.push(() => target.removeEventListener(type, handler));
  }

  destroy() {
    this.stopAutoplay();
    for (const remove of this.listeners) remove();
    if (this.observer) this.observer.disconnect();
    this.root.replaceChildren();
    this.root.classList.remove("replay-bar", "browsing", "exploring");
  }
}

// Scroll a list (not the page) so that `item` is visible.
function keepInView(list, item) {
  const frame = list.getBoundingClientRect();
  const box = item.getBoundingClientRect();
  if (box.top < frame.top) list.scrollTop -= frame.top - box.top;
  else if (box.bottom > frame.bottom) list.scrollTop += box.bottom - frame.bottom;
}
