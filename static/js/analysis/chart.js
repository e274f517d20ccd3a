// The analysis graph: players[0]'s winning chance after every ply (top: 100%, bottom: 0%),
// drawn as SVG from the analysis's positions (docs/analysis.md). The plies not analysed yet
// are left blank, so the graph grows from the left while a worker computes. Marked actions
// ("?", "??") are buttons; a click or Enter on a mark, or a click anywhere on the graph, goes
// to that ply.
import { el, round } from "../boards/svg.js";

// One unit is one CSS pixel at the graph's width on screen (the page redraws it when that
// changes), so the marks and names keep their size on a phone as on a desktop.
const DEFAULT_WIDTH = 600;
const HEIGHT = 120;
const PAD = 8; // room above and below for the marks' circles

function widthOf(svg) {
  return Math.round(svg.getBoundingClientRect().width) || DEFAULT_WIDTH;
}

export function drawChart(svg, { positions, plies, marks, at, names }, onPly) {
  const WIDTH = widthOf(svg);
  svg.dataset.width = String(WIDTH);
  svg.setAttribute("viewBox", `0 0 ${WIDTH} ${HEIGHT}`);
  svg.replaceChildren();
  const span = Math.max(plies, 1);
  const x = (ply) => round((ply / span) * WIDTH);
  const y = (chance) => round(PAD + (1 - chance) * (HEIGHT - 2 * PAD));
  el("rect", { class: "chart-ground", x: 0, y: 0, width: WIDTH, height: HEIGHT }, svg);
  if (positions.length) {
    const line = positions.map((p) => `${x(p.ply)},${y(p.chances[0])}`);
    const first = positions[0].ply;
    const last = positions[positions.length - 1].ply;
    // players[0]'s share: from the curve down to the bottom edge.
    el("polygon", { class: "chart-area", points: `${x(first)},${HEIGHT} ${line.join(" ")} ${x(last)},${HEIGHT}` }, svg);
    el("polyline", { class: "chart-line", points: line.join(" ") }, svg);
  }
  // Whose chance is which: players[0]'s is the light area, rising to the top.
  el("text", { class: "chart-name top", x: 6, y: 12 }, svg).textContent = `${names[0]} ▲`;
  el("text", { class: "chart-name bottom", x: 6, y: HEIGHT - 5 }, svg).textContent = `${names[1]} ▼`;
  el("line", { class: "chart-middle", x1: 0, y1: y(0.5), x2: WIDTH, y2: y(0.5) }, svg);
  el("line", { class: "chart-cursor", x1: x(at), y1: 0, x2: x(at), y2: HEIGHT, "data-ply": at }, svg);
  const known = new Map(positions.map((p) => [p.ply, p]));
  for (const mark of marks) {
    const point = known.get(mark.ply);
    if (!point) continue;
    const kind = mark.symbol === "??" ? "blunder" : "mistake";
    const g = el("g", {
      class: `chart-mark ${kind}`, "data-ply": mark.ply, tabindex: 0, role: "button",
      "aria-label": `${mark.ply}. ${mark.action} ${mark.symbol} by ${names[mark.player]}`,
    }, svg);
    const cx = x(mark.ply);
    const cy = y(point.chances[0]);
    el("circle", { cx, cy, r: 7 }, g);
    const label = el("text", { x: cx, y: round(cy + 3.5), "text-anchor": "middle" }, g);
    label.textContent = mark.symbol;
    el("title", {}, g).textContent = `Action ${mark.ply}, ${mark.action}: `
      + `${names[mark.player]}'s chance fell by ${Math.round(mark.drop * 100)} points`;
  }
  svg.onclick = (event) => {
    const mark = event.target.closest(".chart-mark");
    if (mark) {
      onPly(Number(mark.dataset.ply));
      return;
    }
    const matrix = svg.getScreenCTM();
    if (!matrix) return;
    const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    onPly(Math.max(0, Math.min(plies, Math.round((point.x / WIDTH) * span))));
  };
  svg.onkeydown = (event) => {
    const mark = event.target.closest(".chart-mark");
    if (mark && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      onPly(Number(mark.dataset.ply));
    }
  };
}

// Only the cursor moves when the viewer steps through the game.
export function moveCursor(svg, { plies, at }) {
  const cursor = svg.querySelector(".chart-cursor");
  if (!cursor) return;
  const width = Number(svg.dataset.width) || DEFAULT_WIDTH;
  const position = String(round((at / Math.max(plies, 1)) * width));
  cursor.setAttribute("x1", position);
  cursor.setAttribute("x2", position);
  cursor.dataset.ply = String(at);
}
