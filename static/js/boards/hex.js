// Hex boards (Copolymer, Colorful Connection): pointy-topped cells in rows, pbmserv labels.
// The engine gives every cell's centre in units of the hexagon's circumradius; this module
// only scales and draws, and turns a click on a cell into an action in the game's notation.
import { el, clear, points, round, setViewBox, fitViewBox, drawLabels, flag } from "./svg.js";

const STONE_RADIUS = 0.64;

function hexagon(x, y, r = 1) {
  const corners = [];
  for (let k = 0; k < 6; k++) {
    const a = (Math.PI / 3) * k;
    corners.push([x + r * Math.sin(a), y - r * Math.cos(a)]);
  }
  return points(corners);
}

// The class that colours a stone: Copolymer's sides, Colorful's four colours.
function stoneClass(cell) {
  if (cell.colour) return `colour-${cell.colour}`;
  if (cell.owner !== null && cell.owner !== undefined) return `side-${cell.owner}`;
  return null;
}

export function createBoard(svg, { onAction, game }) {
  svg.classList.add("kind-hex", `game-${game}`);
  const cells = new Map();
  let geometry = null;
  let view = { interactive: false, colour: null, highlight: [] };
  let owners = new Map();

  // The action a click on a cell asks for: Colorful names the chosen colour.
  function actionFor(name) {
    return game === "colorful" ? `${view.colour}@${name}` : name;
  }

  function pick(target) {
    const node = target.closest && target.closest("[data-cell]");
    if (!node || !view.interactive) return;
    if (game === "colorful" && !view.colour) return;
    onAction(actionFor(node.dataset.cell));
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
      const g = el("g", { class: "cell", "data-cell": cell.name, "aria-label": cell.name }, grid);
      el("polygon", { class: "hex", points: hexagon(cell.x, cell.y) }, g);
      el("circle", { class: "dot", cx: round(cell.x), cy: round(cell.y), r: 0.16 }, g);
      const stone = el("circle", { class: "stone", cx: round(cell.x), cy: round(cell.y), r: STONE_RADIUS }, g);
      el("circle", { class: "mark", cx: round(cell.x), cy: round(cell.y), r: 0.2 }, g);
      cells.set(cell.name, { g, stone });
    }
    drawLabels(el("g", { class: "labels" }, svg), board.labels);
    fitViewBox(svg, board.viewbox);
    geometry = board.viewbox.join() + "|" + board.cells.length;
  }

  function render(state, nextView = {}) {
    view = { interactive: false, colour: null, highlight: [], ...nextView };
    const board = state.board;
    if (board.viewbox.join() + "|" + board.cells.length !== geometry) build(board);
    const legal = new Set(view.interactive ? state.legal : []);
    const last = new Set(state.last.map((action) => action.split("@").pop()));
    const highlight = new Set(view.highlight || []);
    const ghost = game === "colorful" ? (view.colour ? `colour-${view.colour}` : null) : `side-${state.to_move}`;
    flag(svg, "interactive", view.interactive);
    flag(svg, "highlighting", highlight.size > 0);
    for (const cell of board.cells) {
      const { g, stone } = cells.get(cell.name);
      const colour = stoneClass(cell);
      const isLegal = legal.has(actionFor(cell.name));
      const before = owners.get(cell.name);
      stone.setAttribute("class", `stone ${colour || "ghost " + (ghost || "")}`);
      flag(g, "empty", !colour);
      flag(g, "legal", isLegal);
      flag(g, "last", last.has(cell.name));
      flag(g, "highlight", highlight.has(cell.name));
      // A stone that was not there at the previous render pops in (not on the first draw).
      flag(g, "placed", colour && before === null);
      owners.set(cell.name, colour);
      if (view.interactive && !colour) {
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
    svg.classList.remove("kind-hex", `game-${game}`, "interactive", "highlighting");
    clear(svg);
  }

  return { render, destroy };
}
