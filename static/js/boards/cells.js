// What the hex and square boards share: a board of cells, each one group
// (`<g class="cell" data-cell="c3">`) holding its shape, a hint dot, a stone (or tile) and the
// last-turn mark, drawn by the board kind's own `drawCell`. A click (or Enter / Space) on a
// cell asks for the action `actionFor` names; everything else is CSS classes:
//   svg:   interactive (this viewer may act), hints (legal cells show a dot), highlighting
//          (Colorful: a group is hovered), ending-<kind> (the final position shows why the
//          game ended: the engine's state.ending)
//   cell:  empty, legal, last, highlight, placed (a stone appeared since the previous render),
//          decisive (a cell the ending marks: Copolymer's winner, Colorful's deciding
//          groups), blocked (Hadron: an empty cell the loser could not use, crossed out)
//   stone: its owner's class (side-0, colour-R ...), or `ghost` + the class the next stone
//          would get, shown on hover over a legal cell.
import { el, clear, setViewBox, fitViewBox, drawLabels, flag, isActivationKey } from "./svg.js";

const NO_VIEW = { interactive: false, hints: false, colour: null, highlight: [] };

// kind:        "hex" or "square" (the svg gets class kind-<kind>)
// drawCell(cell, g) -> the stone element, drawn inside the cell's group g
// drawFrame(board, svg): drawn over the cells, under the labels (optional)
// stoneClass(cell) -> the class of the stone on the cell, or null when it is empty
// letterOf(cell) -> the letter on the stone (Colorful's R, P, B, G: a cue besides colour),
//                   shown in the cell's `.letter` text if drawCell made one
// actionFor(cellName, view) -> the action a click asks for, or null (nothing to ask yet)
// ghostClass(state, view) -> the class of the stone a click would place
export function createCellBoard(svg, { kind, game, onAction, drawCell, drawFrame = null,
  stoneClass, actionFor, ghostClass, letterOf = null }) {
  const classes = [`kind-${kind}`, `game-${game}`];
  svg.classList.add(...classes);
  const cells = new Map(); // name -> {g, stone, stoneBase, letter}
  let geometry = null;
  let view = NO_VIEW;
  let stones = new Map(); // name -> the stone class at the previous render (null: empty)

  function pick(target) {
    const node = target.closest && target.closest("[data-cell]");
    if (!node || !view.interactive) return;
    const action = actionFor(node.dataset.cell, view);
    if (action) onAction(action);
  }
  const onClick = (event) => pick(event.target);
  const onKey = (event) => {
    if (!isActivationKey(event)) return;
    event.preventDefault();
    pick(event.target);
  };
  svg.addEventListener("click", onClick);
  svg.addEventListener("keydown", onKey);

  function build(board) {
    clear(svg);
    cells.clear();
    stones = new Map();
    setViewBox(svg, board.viewbox);
    const grid = el("g", { class: "cells" }, svg);
    for (const cell of board.cells) {
      const g = el("g", { class: "cell", "data-cell": cell.name, "aria-label": cell.name,
        role: "img" }, grid);
      const stone = drawCell(cell, g);
      cells.set(cell.name, { g, stone, stoneBase: stone.getAttribute("class"),
        letter: g.querySelector(".letter") });
    }
    if (drawFrame) drawFrame(board, svg);
    drawLabels(el("g", { class: "labels", "aria-hidden": "true" }, svg), board.labels);
    geometry = geometryOf(board);
  }

  function render(state, nextView = {}) {
    view = { ...NO_VIEW, ...nextView };
    const board = state.board;
    const fresh = geometryOf(board) !== geometry;
    if (fresh) build(board);
    const legal = new Set(view.interactive ? state.legal : []);
    const last = new Set(state.last.map(cellOf));
    const highlight = new Set(view.highlight || []);
    const ghost = ghostClass(state, view) || "";
    const ending = state.ending || null;
    const marked = new Set((ending && ending.cells) || []);
    flag(svg, "interactive", view.interactive);
    flag(svg, "hints", view.interactive && view.hints);
    flag(svg, "highlighting", highlight.size > 0);
    for (const name of [...svg.classList]) {
      if (name.startsWith("ending-")) svg.classList.remove(name);
    }
    if (ending) svg.classList.add(`ending-${ending.kind}`);
    const blocked = ending && ending.kind === "blocked";
    for (const cell of board.cells) {
      const { g, stone, stoneBase, letter } = cells.get(cell.name);
      const owner = stoneClass(cell);
      stone.setAttribute("class", `${stoneBase} ${owner || `ghost ${ghost}`}`);
      if (letter) {
        const text = letterOf ? letterOf(cell) || "" : "";
        if (letter.textContent !== text) letter.textContent = text;
      }
      flag(g, "decisive", !blocked && marked.has(cell.name));
      flag(g, "blocked", blocked && marked.has(cell.name));
      flag(g, "empty", !owner);
      flag(g, "legal", legal.has(actionFor(cell.name, view)));
      flag(g, "last", last.has(cell.name));
      flag(g, "highlight", highlight.has(cell.name));
      // Not on the first draw: then every stone would pop in.
      flag(g, "placed", owner && stones.get(cell.name) === null);
      stones.set(cell.name, owner);
      setFocusable(g, view.interactive && !owner);
    }
    // After the classes: see fitViewBox.
    if (fresh) fitViewBox(svg, board.viewbox);
  }

  function destroy() {
    svg.removeEventListener("click", onClick);
    svg.removeEventListener("keydown", onKey);
    svg.classList.remove(...classes, "interactive", "hints", "highlighting");
    clear(svg);
  }

  return { render, destroy };
}

function geometryOf(board) {
  return `${board.viewbox.join()}|${board.cells.length}`;
}

// The cell an action is on: "P@C4" (Colorful) is on C4.
function cellOf(action) {
  return action.split("@").pop();
}

// Keyboard players reach the cells they may play; the others are pictures with a name (a
// group may not carry a name without a role: axe's aria-prohibited-attr).
function setFocusable(g, on) {
  if (on) {
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
  } else {
    g.removeAttribute("tabindex");
    g.setAttribute("role", "img");
  }
}
