// What the hex and square boards share: a board of cells, each one group
// (`<g class="cell" data-cell="c3">`) holding its shape, a hint dot, a stone (or tile) and the
// last-turn mark, drawn by the board kind's own `drawCell`. A click (or Enter / Space) on a
// cell asks for the action `actionFor` names; everything else is CSS classes:
//   svg:   interactive (this viewer may act), highlighting (Colorful: a group is hovered)
//   cell:  empty, legal, last, highlight, placed (a stone appeared since the previous render)
//   stone: its owner's class (side-0, colour-R ...), or `ghost` + the class the next stone
//          would get, shown on hover over a legal cell.
import { el, clear, setViewBox, fitViewBox, drawLabels, flag, isActivationKey } from "./svg.js";

const NO_VIEW = { interactive: false, colour: null, highlight: [] };

// kind:        "hex" or "square" (the svg gets class kind-<kind>)
// drawCell(cell, g) -> the stone element, drawn inside the cell's group g
// drawFrame(board, svg): drawn over the cells, under the labels (optional)
// stoneClass(cell) -> the class of the stone on the cell, or null when it is empty
// actionFor(cellName, view) -> the action a click asks for, or null (nothing to ask yet)
// ghostClass(state, view) -> the class of the stone a click would place
export function createCellBoard(svg, { kind, game, onAction, drawCell, drawFrame = null,
  stoneClass, actionFor, ghostClass }) {
  const classes = [`kind-${kind}`, `game-${game}`];
  svg.classList.add(...classes);
  const cells = new Map(); // name -> {g, stone, stoneBase}
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
      const g = el("g", { class: "cell", "data-cell": cell.name, "aria-label": cell.name }, grid);
      const stone = drawCell(cell, g);
      cells.set(cell.name, { g, stone, stoneBase: stone.getAttribute("class") });
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
    flag(svg, "interactive", view.interactive);
    flag(svg, "highlighting", highlight.size > 0);
    for (const cell of board.cells) {
      const { g, stone, stoneBase } = cells.get(cell.name);
      const owner = stoneClass(cell);
      stone.setAttribute("class", `${stoneBase} ${owner || `ghost ${ghost}`}`);
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
    svg.classList.remove(...classes, "interactive", "highlighting");
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

// Keyboard players reach the cells they may play.
function setFocusable(g, on) {
  if (on) {
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
  } else {
    g.removeAttribute("tabindex");
    g.removeAttribute("role");
  }
}
