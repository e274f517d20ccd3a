// The square board (Hadron): unit squares with their top-left corners from the engine, file
// letters below and rank numbers beside it. A click on a square asks for that cell.
import { el, clear, round, setViewBox, fitViewBox, drawLabels, flag } from "./svg.js";

const TILE_INSET = 0.1;

export function createBoard(svg, { onAction, game }) {
  svg.classList.add("kind-square", `game-${game}`);
  const cells = new Map();
  let geometry = null;
  let view = { interactive: false };
  let owners = new Map();

  function pick(target) {
    const node = target.closest && target.closest("[data-cell]");
    if (node && view.interactive) onAction(node.dataset.cell);
  }
  const onClick = (event) => pick(event.target);
  const onKey = (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    pick(event.target);
  };
  svg.addEventListener("click", onClick);
  svg.addEventListener("keydown", onKey);

  function build(board) {
    clear(svg);
    cells.clear();
    owners = new Map();
    setViewBox(svg, board.viewbox);
    const grid = el("g", { class: "cells" }, svg);
    for (const cell of board.cells) {
      const shade = (cell.x + cell.y) % 2 ? "square alt" : "square";
      const g = el("g", { class: "cell", "data-cell": cell.name, "aria-label": cell.name }, grid);
      el("rect", { class: shade, x: cell.x, y: cell.y, width: 1, height: 1 }, g);
      const cx = round(cell.x + 0.5);
      const cy = round(cell.y + 0.5);
      el("circle", { class: "dot", cx, cy, r: 0.1 }, g);
      const tile = el("rect", {
        class: "stone tile",
        x: round(cell.x + TILE_INSET), y: round(cell.y + TILE_INSET),
        width: 1 - 2 * TILE_INSET, height: 1 - 2 * TILE_INSET, rx: 0.12,
      }, g);
      el("circle", { class: "mark", cx, cy, r: 0.12 }, g);
      cells.set(cell.name, { g, tile });
    }
    el("rect", { class: "frame", x: 0, y: 0, width: board.size, height: board.size }, svg);
    drawLabels(el("g", { class: "labels" }, svg), board.labels);
    fitViewBox(svg, board.viewbox);
    geometry = board.viewbox.join() + "|" + board.cells.length;
  }

  function render(state, nextView = {}) {
    view = { interactive: false, ...nextView };
    const board = state.board;
    if (board.viewbox.join() + "|" + board.cells.length !== geometry) build(board);
    const legal = new Set(view.interactive ? state.legal : []);
    const last = new Set(state.last);
    flag(svg, "interactive", view.interactive);
    for (const cell of board.cells) {
      const { g, tile } = cells.get(cell.name);
      const owned = cell.owner !== null && cell.owner !== undefined;
      const colour = owned ? `side-${cell.owner}` : `ghost side-${state.to_move}`;
      tile.setAttribute("class", `stone tile ${colour}`);
      flag(g, "empty", !owned);
      flag(g, "legal", legal.has(cell.name));
      flag(g, "last", last.has(cell.name));
      flag(g, "placed", owned && owners.get(cell.name) === false);
      owners.set(cell.name, owned);
      if (view.interactive && !owned) {
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
      } else {
        g.removeAttribute("tabindex");
        g.removeAttribute("role");
      }
    }
  }

  function destroy() {
    svg.removeEventListener("click", onClick);
    svg.removeEventListener("keydown", onKey);
    svg.classList.remove("kind-square", `game-${game}`, "interactive");
    clear(svg);
  }

  return { render, destroy };
}
