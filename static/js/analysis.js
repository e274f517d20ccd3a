// Computer analysis on a finished game's replay (docs/analysis.md): the request button, the
// progress while a worker computes (the page asks again every second; what is stored so far is
// drawn at once), the graph of winning chances with its marked actions (static/js/analysis/
// chart.js), and the hint: the engine's preferred action for the position on the board while
// exploring, named in notation and marked on the board.
//
//   const analysis = new AnalysisPanel({game, replay, redrawBoard});
//     game():        the host page's game (snapshot shape: id, status, players)
//     replay:        the replay (static/js/replay.js): where the viewer is, goto(ply)
//     redrawBoard(): the host redraws its board (which calls markBoard)
//   analysis.render()               the shown position or the game changed
//   analysis.markBoard(svg, state)  after the board drew `state` (null: the game's own latest)
import { byId as $, el } from "./dom.js";
import { el as svgEl, points } from "./boards/svg.js";
import { postForJson } from "./http.js";
import { drawChart, moveCursor } from "./analysis/chart.js";

const POLL_MS = 1000;
const HINT_POLL_MS = 700;
// A hint is one search of a few seconds; a page that waited this long stops asking.
const HINT_GIVE_UP_MS = 120_000;
const UNREACHABLE = "The server could not be reached: try again.";

export class AnalysisPanel {
  constructor({ game, replay, redrawBoard }) {
    this.source = game;
    this.replay = replay;
    this.redrawBoard = redrawBoard;
    this.data = JSON.parse($("analysis-data").textContent);
    this.root = $("analysis");
    this.chart = $("analysis-chart");
    this.poll = null;
    this.hint = null; // {key, ply, moves, status, action, message}
    this.hintPoll = null;
    $("analysis-request").addEventListener("click", () => this.request());
    $("hint-request").addEventListener("click", () => this.askHint());
    $("analysis-marks").addEventListener("click", (event) => {
      const button = event.target.closest("[data-ply]");
      if (button) this.goto(Number(button.dataset.ply));
    });
    this.drawAnalysis();
    this.follow();
    // The graph is drawn at its width on screen: again when that changes.
    let drawnWidth = 0;
    new ResizeObserver(() => {
      const width = Math.round(this.chart.getBoundingClientRect().width);
      if (width && width !== drawnWidth && this.data.positions.length) {
        drawnWidth = width;
        this.drawAnalysis();
      }
    }).observe(this.chart);
  }

  get game() {
    return this.source();
  }

  get names() {
    return this.game.players.map((player) => player.username);
  }

  // ---------------------------------------------------------------- the analysis

  async request() {
    const button = $("analysis-request");
    button.disabled = true;
    try {
      const { response, data } = await postForJson(`/game/${this.game.id}/analysis.json`);
      if (!response.ok) {
        this.status(data.message || UNREACHABLE, "error");
        return;
      }
      this.data = { ...this.data, ...data };
      this.drawAnalysis();
      this.follow();
    } catch (error) {
      this.status(UNREACHABLE, "error");
    } finally {
      button.disabled = false;
    }
  }

  // While a worker computes, ask again every POLL_MS: each answer has the plies done so far.
  follow() {
    clearTimeout(this.poll);
    if (!["queued", "running"].includes(this.data.status)) return;
    this.poll = setTimeout(async () => {
      try {
        const response = await fetch(`/game/${this.game.id}/analysis.json`,
          { headers: { Accept: "application/json" } });
        if (response.ok) {
          this.data = { ...this.data, ...(await response.json()) };
          this.drawAnalysis();
        }
      } catch (error) {
        // The next try may reach the server.
      }
      this.follow();
    }, POLL_MS);
  }

  drawAnalysis() {
    const { data } = this;
    const { status, positions, plies } = data;
    this.root.dataset.status = status;
    this.root.dataset.analysed = String(positions.length);
    $("analysis-request").hidden = !data.signed_in || !["none", "failed"].includes(status);
    $("analysis-login").hidden = data.signed_in;
    const shown = positions.length > 0;
    $("analysis-chart-frame").hidden = !shown;
    $("analysis-legend").hidden = !shown;
    if (shown) {
      drawChart(this.chart, { positions, plies, marks: data.marks, at: this.replay.shownPly(),
        names: this.names }, (ply) => this.goto(ply));
    }
    this.drawMarks();
    const total = plies + 1;
    const texts = {
      none: "This game has not been analysed yet.",
      queued: "Waiting for a worker to analyse this game…",
      running: `Analysing: ${positions.length} of ${total} positions…`,
      done: `Analysed: ${total} positions at ${data.playouts} simulations each. `
        + `${summary(data.marks)}`,
      failed: `The analysis failed${data.error ? ` (${data.error})` : ""}: you may ask again.`,
    };
    this.status(texts[status] || "", "");
  }

  drawMarks() {
    const list = $("analysis-marks");
    const { marks } = this.data;
    list.hidden = marks.length === 0;
    list.replaceChildren(...marks.map((mark) => el("li", {},
      el("button", { type: "button", class: `mark-button ${mark.symbol === "??" ? "blunder" : "mistake"}`,
        dataset: { ply: String(mark.ply) },
        title: `${this.names[mark.player]}'s chance fell by ${Math.round(mark.drop * 100)} points` },
      `${mark.ply}. ${mark.action}${mark.symbol}`, el("span", { class: "mark-who" }, ` ${this.names[mark.player]}`)))));
  }

  status(text, kind) {
    const line = $("analysis-status");
    line.textContent = text;
    line.classList.toggle("error", kind === "error");
  }

  goto(ply) {
    this.replay.stopAutoplay();
    this.replay.goto(ply);
  }

  // ---------------------------------------------------------------- the shown position

  render() {
    const finished = this.game.status === "finished";
    this.root.hidden = !finished;
    if (!finished) return;
    if (this.data.positions.length) moveCursor(this.chart, { plies: this.data.plies, at: this.replay.shownPly() });
    for (const button of $("analysis-marks").querySelectorAll("[data-ply]")) {
      button.setAttribute("aria-current", String(Number(button.dataset.ply) === this.replay.shownPly()));
    }
    this.renderHint();
  }

  // The position the viewer explores from: the game's ply and the line tried from it.
  position() {
    const shown = this.replay.shown();
    if (!shown || !shown.view.interactive) return null;
    const ply = this.replay.shownPly();
    const moves = this.replay.explored ? [...this.replay.line] : [];
    return { ply, moves, key: `${ply}|${moves.join(",")}` };
  }

  renderHint() {
    const position = this.position();
    $("analysis-hint").hidden = !position || !this.data.signed_in;
    const text = $("hint-text");
    const hint = position && this.hint && this.hint.key === position.key ? this.hint : null;
    $("hint-request").disabled = Boolean(hint && ["queued", "running"].includes(hint.status));
    text.classList.toggle("error", Boolean(hint && hint.message));
    if (!hint) text.textContent = "";
    else if (hint.message) text.textContent = hint.message;
    else if (hint.action) text.textContent = `The engine would play ${hint.action}.`;
    else text.textContent = "The engine is thinking…";
    this.root.dataset.hint = hint && hint.action ? hint.action : "";
  }

  async askHint() {
    const position = this.position();
    if (!position) return;
    clearTimeout(this.hintPoll);
    this.hint = { ...position, status: "queued", action: null, message: "" };
    this.renderHint();
    const body = new FormData();
    body.append("ply", String(position.ply));
    body.append("moves", position.moves.join(","));
    try {
      const { response, data } = await postForJson(`/game/${this.game.id}/hint.json`, body);
      this.hintAnswered(position, response.ok ? data : { status: "failed", message: data.message || UNREACHABLE });
    } catch (error) {
      this.hintAnswered(position, { status: "failed", message: UNREACHABLE });
    }
    this.followHint(position, Date.now());
  }

  hintAnswered(position, data) {
    if (!this.hint || this.hint.key !== position.key) return;
    this.hint = {
      ...this.hint, status: data.status, action: data.action || null,
      message: data.message || (data.status === "failed" ? `No hint: ${data.error || "the engine failed"}.` : ""),
    };
    this.renderHint();
    if (this.hint.action) this.redrawBoard();
  }

  followHint(position, since) {
    const hint = this.hint;
    if (!hint || hint.key !== position.key || !["queued", "running"].includes(hint.status)) return;
    if (Date.now() - since > HINT_GIVE_UP_MS) {
      this.hintAnswered(position, { status: "failed", message: "No answer from the engine: try again later." });
      return;
    }
    this.hintPoll = setTimeout(async () => {
      const query = new URLSearchParams({ ply: String(position.ply), moves: position.moves.join(",") });
      try {
        const response = await fetch(`/game/${this.game.id}/hint.json?${query}`,
          { headers: { Accept: "application/json" } });
        if (response.ok) this.hintAnswered(position, await response.json());
      } catch (error) {
        // The next try may reach the server.
      }
      this.followHint(position, since);
    }, HINT_POLL_MS);
  }

  // ---------------------------------------------------------------- the hint on the board

  markBoard(svg, state) {
    for (const node of svg.querySelectorAll(".hinted")) node.classList.remove("hinted");
    for (const node of svg.querySelectorAll(".hint-token")) node.remove();
    const position = this.position();
    const hint = this.hint;
    if (!state || !position || !hint || hint.key !== position.key || !hint.action) return;
    const poses = state.board && state.board.poses;
    if (poses && poses[hint.action]) {
      // Tripen: the token itself, in its pose.
      svgEl("polygon", { class: "hint-token hinted", points: points(poses[hint.action]),
        "aria-hidden": "true" }, svg);
      return;
    }
    const cell = svg.querySelector(`[data-cell="${CSS.escape(hint.action.split("@").pop())}"]`);
    if (cell) cell.classList.add("hinted");
  }
}

function summary(marks) {
  const blunders = marks.filter((mark) => mark.symbol === "??").length;
  const mistakes = marks.length - blunders;
  if (!marks.length) return "No mistakes marked.";
  const part = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  return `${part(blunders, "blunder")}, ${part(mistakes, "mistake")} marked.`;
}
