// Hex boards (Copolymer, Colorful Connection): pointy-topped cells in rows, pbmserv labels.
// The engine gives every cell's centre in units of the hexagon's circumradius; this module
// only draws a cell's hexagon and stone, and names the action a click on a cell asks for.
import { cross, el, points, round } from "./svg.js";
import { createCellBoard } from "./cells.js";

const STONE_RADIUS = 0.64;

function hexagon(x, y, r = 1) {
  const corners = [];
  for (let k = 0; k < 6; k++) {
    const a = (Math.PI / 3) * k;
    corners.push([x + r * Math.sin(a), y - r * Math.cos(a)]);
  }
  return points(corners);
}

function drawCell(cell, g) {
  const cx = round(cell.x);
  const cy = round(cell.y);
  el("polygon", { class: "hex", points: hexagon(cell.x, cell.y) }, g);
  el("circle", { class: "dot", cx, cy, r: 0.16 }, g);
  const stone = el("circle", { class: "stone", cx, cy, r: STONE_RADIUS }, g);
  el("circle", { class: "mark", cx, cy, r: 0.2 }, g);
  el("path", { class: "cross", d: cross(cx, cy, 0.32) }, g);
  return stone;
}

// Colorful's stones carry their colour's letter too: colour is not the only cue.
function drawColorfulCell(cell, g) {
  const stone = drawCell(cell, g);
  const letter = el("text", { class: "letter", x: round(cell.x), y: round(cell.y), "aria-hidden": "true" }, g);
  g.insertBefore(letter, g.querySelector(".mark"));
  return stone;
}

// Copolymer's sides, Colorful's four colours.
function stoneClass(cell) {
  if (cell.colour) return `colour-${cell.colour}`;
  if (cell.owner !== null && cell.owner !== undefined) return `side-${cell.owner}`;
  return null;
}

export function createBoard(svg, { onAction, game }) {
  const colorful = game === "colorful";
  return createCellBoard(svg, {
    kind: "hex", game, onAction, drawCell: colorful ? drawColorfulCell : drawCell, stoneClass,
    letterOf: colorful ? (cell) => cell.colour : null,
    // Colorful's action names the colour chosen for the stone; none chosen, nothing to ask.
    actionFor: colorful
      ? (name, view) => (view.colour ? `${view.colour}@${name}` : null)
      : (name) => name,
    ghostClass: colorful
      ? (state, view) => (view.colour ? `colour-${view.colour}` : null)
      : (state) => `side-${state.to_move}`,
  });
}
