// The square board (Hadron): unit squares with their top-left corners from the engine, file
// letters below and rank numbers beside it. A click on a square asks for that cell.
import { cross, el, round } from "./svg.js";
import { createCellBoard } from "./cells.js";

const TILE_INSET = 0.1;

function drawCell(cell, g) {
  const shade = (cell.x + cell.y) % 2 ? "square alt" : "square";
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
  el("path", { class: "cross", d: cross(cx, cy, 0.22) }, g);
  return tile;
}

function drawFrame(board, svg) {
  el("rect", { class: "frame", x: 0, y: 0, width: board.size, height: board.size }, svg);
}

function stoneClass(cell) {
  return cell.owner !== null && cell.owner !== undefined ? `side-${cell.owner}` : null;
}

export function createBoard(svg, { onAction, game }) {
  return createCellBoard(svg, {
    kind: "square", game, onAction, drawCell, drawFrame, stoneClass,
    actionFor: (name) => name,
    ghostClass: (state) => `side-${state.to_move}`,
  });
}
