// The replay bar's markup and its drawing: step buttons, the slider, autoplay speed, "back to
// live", the exploration box, Colorful's colour buttons, the notice and the export links.
// It decides nothing: user actions go to the `on` callbacks, and render(view) shows what
// the replay (static/js/replay.js) says.
import { colourButtons } from "../colours.js";
import { Notice } from "../notice.js";

const SPEEDS = [["Slow", 2000], ["Normal", 1000], ["Fast", 500], ["Very fast", 200]];
const DEFAULT_SPEED = 1000;

const MARKUP = `
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
    <a class="position-svg" download>this position (.svg)</a> ·
    <a class="position-png" download>(.png)</a> ·
    <a class="game-gif" download>the whole game (.gif)</a></p>`;

export class ReplayBar {
  // on: {command(name) for first/prev/play/next/last, slide(ply), speed(), live(), back(),
  //      undo(), colour(colour)}
  constructor(root, gameId, on) {
    this.root = root;
    this.gameId = gameId;
    root.classList.add("replay-bar");
    root.setAttribute("role", "group");
    root.setAttribute("aria-label", "Replay");
    root.innerHTML = MARKUP;
    const find = (selector) => root.querySelector(selector);
    this.el = {
      slider: find(".replay-slider"), speed: find(".replay-speed"), live: find(".replay-live"),
      play: find(".replay-play"), where: find(".replay-where"), prompt: find(".replay-prompt"),
      explore: find(".replay-explore"), line: find(".replay-line"), colours: find(".replay-colours"),
      hint: find(".replay-hint"), svg: find(".position-svg"), png: find(".position-png"),
      gif: find(".game-gif"),
    };
    this.notice = new Notice(find(".replay-notice"));
    for (const [name, ms] of SPEEDS) {
      this.el.speed.append(new Option(`${name} (${ms / 1000} s)`, String(ms), false, ms === DEFAULT_SPEED));
    }
    find(".record-txt").href = `/game/${gameId}/record.txt`;
    find(".record-json").href = `/game/${gameId}/record.json`;
    root.addEventListener("click", (event) => {
      const button = event.target.closest("[data-go]");
      if (button) on.command(button.dataset.go);
    });
    this.el.slider.addEventListener("input", () => on.slide(Number(this.el.slider.value)));
    this.el.speed.addEventListener("change", () => on.speed());
    this.el.live.addEventListener("click", () => on.live());
    find(".replay-back").addEventListener("click", () => on.back());
    find(".replay-undo").addEventListener("click", () => on.undo());
    this.onColour = on.colour;
  }

  get speed() {
    return Number(this.el.speed.value) || DEFAULT_SPEED;
  }

  // view: {at, end, playing, browsing (not at the game's latest position), live (the game
  //        goes on), exploring, where, prompt, line, hint, owed, colour}
  render(view) {
    const { el } = this;
    const { at, end, exploring } = view;
    this.root.dataset.ply = String(at);
    el.slider.max = String(end);
    el.slider.value = String(at);
    el.slider.disabled = end === 0;
    this.setDisabled("first", at === 0);
    this.setDisabled("prev", at === 0 && !exploring);
    this.setDisabled("next", at >= end);
    this.setDisabled("last", at >= end && !exploring);
    this.setDisabled("play", end === 0);
    el.play.textContent = view.playing ? "❚❚ Pause" : "▶ Play";
    el.play.setAttribute("aria-pressed", String(view.playing));
    el.play.setAttribute("aria-label", view.playing ? "Pause" : "Autoplay");
    // The way back to the latest position stays at hand, also once the game has ended while
    // the viewer was looking back.
    el.live.hidden = !view.browsing;
    el.live.textContent = view.live ? "● Back to live" : "Final position »";
    el.live.classList.toggle("to-end", !view.live);
    this.root.classList.toggle("browsing", view.browsing && view.live);
    this.root.classList.toggle("exploring", exploring);
    el.where.textContent = view.where;
    el.prompt.textContent = view.prompt;
    el.explore.hidden = !exploring;
    el.line.textContent = view.line;
    el.svg.href = `/game/${this.gameId}/position/${at}.svg`;
    el.png.href = `/game/${this.gameId}/position/${at}.png`;
    el.gif.href = `/game/${this.gameId}/game.gif`;
    el.hint.textContent = view.hint;
    el.colours.hidden = view.owed.length === 0;
    el.colours.replaceChildren(...colourButtons(view.owed, view.colour, this.onColour));
  }

  setDisabled(name, disabled) {
    const button = this.root.querySelector(`[data-go="${name}"]`);
    if (button) button.disabled = disabled;
  }

  // Loading a position (data-ply is where the viewer is going) ...
  loading() {
    this.root.setAttribute("aria-busy", "true");
  }

  // ... and drawn (data-shown: what is on the board now).
  drawn() {
    this.root.dataset.shown = this.root.dataset.ply;
    this.root.removeAttribute("aria-busy");
  }
}
