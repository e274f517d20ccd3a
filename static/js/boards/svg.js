// Small SVG helpers shared by the board modules (no framework, no build step).
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

// Sets the viewBox only when it changes, so a re-render does not reflow the page.
export function setViewBox(svg, viewbox) {
  const text = viewbox.map(round).join(" ");
  if (svg.getAttribute("viewBox") !== text) svg.setAttribute("viewBox", text);
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

// Fits the viewBox to what was drawn (cells and labels) plus a small margin, so the board
// fills its frame; the engine's viewbox is the fallback while the SVG is not laid out.
export function fitViewBox(svg, fallback, margin = 0.15) {
  let box = null;
  try {
    box = svg.getBBox();
  } catch (error) {
    box = null;
  }
  if (!box || box.width <= 0 || box.height <= 0) {
    setViewBox(svg, fallback);
    return;
  }
  setViewBox(svg, [box.x - margin, box.y - margin, box.width + 2 * margin, box.height + 2 * margin]);
}
