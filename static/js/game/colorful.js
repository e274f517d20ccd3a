// Colorful Connection's panels on the game page: the chooser of the next stone's colour (the
// colours the engine says the turn still owes; keys R, P, B, G) and the scoring groups, where
// hovering or tapping a group (or a stone on the board) highlights its stones.
import { COLOUR_NAME, colourButtons, colourOfKey } from "../colours.js";
import { byId as $, el } from "../dom.js";
import { isMyTurn, playerOfSide } from "../live-game.js";

// Red groups score for side 0, green groups for side 1 (pink and blue never score).
const SCORER = ["red", "green"];

export class ColorfulPanels {
  // game(): the page's current game; shown(): the position on the board (the latest, or the
  // one the replay shows); redrawBoard(): the colour or highlight changed
  constructor({ svg, game, shown, redrawBoard }) {
    this.source = game;
    this.shown = shown;
    this.redrawBoard = redrawBoard;
    this.colour = null; // of the next stone
    this.highlight = []; // cells of the hovered group
    $("chooser").hidden = true;
    $("groups").hidden = false;
    svg.addEventListener("pointerover", (event) => {
      const node = event.target.closest("[data-cell]");
      const group = node && this.groupOf(node.dataset.cell);
      this.setHighlight(group ? group.cells : []);
    });
    // A finger leaves as it lifts: a tapped group stays lit until another tap.
    svg.addEventListener("pointerleave", (event) => {
      if (event.pointerType !== "touch") this.setHighlight([]);
    });
    document.addEventListener("keydown", (event) => {
      const colour = colourOfKey(event);
      if (colour && isMyTurn(this.game)) this.pickColour(colour);
    });
  }

  get game() {
    return this.source();
  }

  get owed() {
    return this.game.state.board.owed || [];
  }

  // The view the board draws with: the chosen colour and the highlighted group.
  boardView() {
    return { colour: this.colour, highlight: this.highlight };
  }

  render() {
    if (!this.owed.includes(this.colour)) this.colour = this.owed[0] || null;
    this.renderChooser();
    this.renderGroups();
  }

  renderChooser() {
    const chooser = $("chooser");
    chooser.hidden = !isMyTurn(this.game);
    if (chooser.hidden) return;
    const owed = this.owed;
    $("chooser-buttons").replaceChildren(...colourButtons(owed, this.colour, (c) => this.pickColour(c)));
    const note = $("chooser-note");
    if (owed.length === 1) {
      note.textContent = `The other stone of your turn is ${COLOUR_NAME[owed[0]]}. `;
      return;
    }
    note.textContent = "Colour of your next stone. ";
    const keys = owed.flatMap((colour, i) => [i ? " / " : "", el("kbd", {}, colour)]);
    note.append(el("span", { class: "keys" }, "Keys: ", ...keys));
  }

  pickColour(colour) {
    if (!this.owed.includes(colour)) return;
    this.colour = colour;
    this.renderChooser();
    this.redrawBoard();
  }

  // The groups of the position on the board, which may be an earlier one.
  renderGroups() {
    const game = this.game;
    const groups = this.shown().board.groups || [];
    for (const side of [0, 1]) {
      const scoring = groups
        .filter((group) => group.score !== null && sideOfColour(group.colour) === side)
        .sort((a, b) => b.score - a.score || b.cells.length - a.cells.length);
      const list = $(`groups-${side}`);
      list.replaceChildren(...scoring.map((group) => this.groupRow(group)));
      if (!scoring.length) list.append(el("li", { class: "group none" }, "no scoring group yet"));
      $(`groups-${side}-name`).replaceChildren(
        `${game.players[playerOfSide(game, side)].username} `,
        el("span", { class: "muted" }, `· ${SCORER[side]} groups`));
    }
    this.markRows();
  }

  groupRow(group) {
    const size = group.cells.length;
    const cells = group.cells.join(" ");
    // Focusable so that keyboard users can highlight a group as a pointer does.
    const row = el("li", { class: `group colour-${group.colour}`, tabindex: "0", title: cells,
      dataset: { cells } },
    el("span", { class: "swatch", "aria-hidden": "true" }),
    el("strong", { class: "score" }, String(group.score)),
    el("span", { class: "detail" }, `${size} stone${size > 1 ? "s" : ""} · `
      + `${group.touching} enemy + ${group.sides} side${group.sides === 1 ? "" : "s"}`));
    const on = () => this.setHighlight(group.cells);
    const off = () => this.setHighlight([]);
    const mouseOnly = (handler) => (event) => { if (event.pointerType !== "touch") handler(); };
    row.addEventListener("pointerenter", mouseOnly(on));
    row.addEventListener("pointerleave", mouseOnly(off));
    // Touch has no hover: a tap lights the group (and focuses it) until a tap elsewhere.
    row.addEventListener("click", on);
    row.addEventListener("focus", on);
    row.addEventListener("blur", off);
    return row;
  }

  groupOf(cell) {
    return (this.shown().board.groups || []).find((group) => group.cells.includes(cell)) || null;
  }

  setHighlight(cells) {
    if (cells.join() === this.highlight.join()) return;
    this.highlight = cells;
    this.redrawBoard();
    this.markRows();
  }

  markRows() {
    const cells = this.highlight.join(" ");
    for (const row of document.querySelectorAll("#groups [data-cells]")) {
      row.classList.toggle("hot", cells !== "" && row.dataset.cells === cells);
    }
  }
}

function sideOfColour(colour) {
  return colour === "R" || colour === "P" ? 0 : 1;
}
