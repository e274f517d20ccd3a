// Helpers shared by the board modules: SVG drawing, the viewBox, keys (no framework, no build
// step).
export const SVG_NS = "http://www.w3.org/2000/svg";

export function el(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(name, value);
  }
  if (parent) parent.appendChild(node);
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

export function points(pairs) {
  return pairs.map(([x, y]) => `${round(x)},${round(y)}`).join(" ");
}

export function round(value) {
  return Math.round(value * 10000) / 10000;
}

// Sets the viewBox only when it changes, so a re-render does not reflow the page. The pages'
// CSS sizes the board from its proportions (--board-aspect for aspect-ratio, --board-ratio
// for widths computed from the height available).
export function setViewBox(svg, viewbox) {
  const box = viewbox.map(round);
  const [, , width, height] = box;
  const text = box.join(" ");
  if (svg.getAttribute("viewBox") === text && svg.style.getPropertyValue("--board-ratio")) return;
  svg.setAttribute("viewBox", text);
  svg.style.setProperty("--board-aspect", `${width} / ${height}`);
  svg.style.setProperty("--board-ratio", String(width / height));
}

// An × centred on (cx, cy), as path data: Hadron's cells nobody may use at the end.
export function cross(cx, cy, half) {
  const [a, b, c, d] = [cx - half, cx + half, cy - half, cy + half].map(round);
  return `M${a} ${c}L${b} ${d}M${b} ${c}L${a} ${d}`;
}

// Labels (row letters, column numbers) as the engine placed them.
export function drawLabels(parent, labels) {
  for (const label of labels) {
    const text = el("text", { class: "label", x: round(label.x), y: round(label.y) }, parent);
    text.textContent = label.text;
  }
}

// Sets or removes a class according to a flag; returns the flag.
export function flag(node, name, on) {
  node.classList.toggle(name, Boolean(on));
  return on;
}

// Fits the viewBox to what was drawn (by default all of it; `parts`: those elements only)
// plus a small margin, so that every kind of board fills its frame the same way; the engine's
// viewbox is the fallback while the SVG is not laid out. Reading the drawing's size makes the
// browser compute styles: the stones' classes must be set before, or their first appearance
// would be animated.
export function fitViewBox(svg, fallback, { margin = 0.15, parts = [svg] } = {}) {
  const box = unionBox(parts);
  if (!box) {
    setViewBox(svg, fallback);
    return;
  }
  setViewBox(svg, [box.x - margin, box.y - margin, box.width + 2 * margin, box.height + 2 * margin]);
}

function unionBox(parts) {
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const part of parts) {
    let box = null;
    try {
      box = part.getBBox();
    } catch (error) {
      box = null; // not rendered (display: none, or not in the document)
    }
    if (!box || box.width <= 0 || box.height <= 0) continue;
    left = Math.min(left, box.x);
    top = Math.min(top, box.y);
    right = Math.max(right, box.x + box.width);
    bottom = Math.max(bottom, box.y + box.height);
  }
  if (left === Infinity) return null;
  return { x: left, y: top, width: right - left, height: bottom - top };
}

// Enter or Space on a focused cell acts like a click.
export function isActivationKey(event) {
  return event.key === "Enter" || event.key === " ";
}
