// Tripen board: the rhombus of hexagonal cells, its four coloured borders, the pentagon tokens,
// and the ghost token that shows where a click would place one.
//
// Every polygon comes from the engine's to_dict() (cells' hexagons, borders, tokens, and the
// polygon of every pose of every cell). The browser decides no rules: it only finds which
// cell the pointer is in and which of that cell's poses is nearest, and asks state.legal
// whether the engine would accept it.
//
// Placing with a mouse or pen:
//   * The pointer's position inside a cell chooses the pose: the ghost is the half-cell
//     token whose centre is nearest the pointer, so pointing at a half of the cell shows that
//     half.
//   * The wheel or R (Shift+R backwards) turns the ghost through the six poses from there.
//     A turn holds while the pointer stays in the cell, so the small drift of a hand on the
//     mouse does not undo it; entering another cell starts again from the nearest pose.
//   * Click places the ghost's pose. A refused ghost (class `refused`: not in state.legal)
//     is sent too, so the server answers with the engine's reason.
// Placing by touch: tapping a cell opens a pose picker of six small buttons, one per pose,
// the legal ones enabled. From the keyboard: Tab to a cell, Enter or Space opens the same
// picker, Escape closes it.

import { isTyping } from "../dom.js";
import { el, points, setViewBox, fitViewBox, drawLabels, isActivationKey } from "./svg.js";

const POSES = [0, 1, 2, 3, 4, 5];
const HATCH_ID = "tripen-refused-hatch";
// Wheel pixels that make one turn: less than one mouse-wheel notch (about 50-120 px in
// Chromium, 48+ in Firefox), a short swipe on a trackpad.
const WHEEL_STEP = 40;

export function createBoard(svg, { onAction, game = "tripen" } = {}) {
  ensureStylesheet();
  return new TripenBoard(svg, onAction || (() => {}), game);
}

function ensureStylesheet() {
  const href = new URL("../../css/tripen.css", import.meta.url).href;
  const present = [...document.querySelectorAll('link[rel="stylesheet"]')]
    .some((link) => link.href === href);
  if (!present) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = href;
    document.head.append(link);
  }
}

function insidePolygon([px, py], polygon) {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const [xi, yi] = polygon[i];
    const [xj, yj] = polygon[j];
    if ((yi > py) !== (yj > py) && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) {
      inside = !inside;
    }
  }
  return inside;
}

function centroid(polygon) {
  const n = polygon.length;
  return [
    polygon.reduce((sum, [x]) => sum + x, 0) / n,
    polygon.reduce((sum, [, y]) => sum + y, 0) / n,
  ];
}

class TripenBoard {
  constructor(svg, onAction, game) {
    this.svg = svg;
    this.onAction = onAction;
    this.game = game;
    this.state = null;
    this.view = { interactive: false };
    this.legal = new Set();
    this.layoutKey = null;
    // The ghost: which cell and pose it shows, and whether wheel/R turned it in this cell.
    this.ghost = { cell: null, pose: 0, turned: false };
    this.wheelDelta = 0;
    this.pointerType = "mouse";
    this.picker = null;
    this.listeners = [];

    svg.classList.add("tripen-board", "kind-tripen", `game-${game}`);
    this.listen(svg, "pointerdown", (e) => { this.pointerType = e.pointerType || "mouse"; });
    this.listen(svg, "pointermove", (e) => this.onPointerMove(e));
    this.listen(svg, "pointerleave", () => this.hideGhost());
    this.listen(svg, "click", (e) => this.onClick(e));
    this.listen(svg, "wheel", (e) => this.onWheel(e), { passive: false });
    this.listen(svg, "keydown", (e) => this.onCellKey(e));
    this.listen(window, "keydown", (e) => this.onKey(e));
    this.listen(document, "pointerdown", (e) => this.onOutsidePointer(e), true);
  }

  listen(target, type, handler, options) {
    target.addEventListener(type, handler, options);
    this.listeners.push(() => target.removeEventListener(type, handler, options));
  }

  // -- drawing -------------------------------------------------------------------------------

  render(state, view = {}) {
    const moved = this.state?.ply !== state.ply;
    this.state = state;
    this.view = { interactive: false, ...view };
    this.legal = new Set(this.view.interactive ? state.legal : []);
    this.board = state.board;
    this.cellByName = new Map(this.board.cells.map((cell) => [cell.name, cell]));
    const key = JSON.stringify([this.board.size, this.board.viewbox]);
    const fresh = key !== this.layoutKey;
    if (fresh) this.drawLayout(key);
    this.drawTokens();
    this.markLegalCells();
    // Framed like the hex and square boards: the drawing's own extent, not the engine's
    // viewbox (which leaves room the labels do not use).
    if (fresh) fitViewBox(this.svg, this.board.viewbox, { parts: this.framed });
    this.svg.classList.toggle("interactive", Boolean(this.view.interactive));
    this.svg.classList.toggle("hints", Boolean(this.view.interactive && this.view.hints));
    this.svg.dataset.ply = state.ply;
    if (this.view.interactive) {
      this.updateGhost();
      // Rebuilt only for a new position, so a re-render keeps the focus inside the picker.
      if (this.picker && moved) this.openPicker(this.picker.cell, this.picker.at);
    } else {
      this.hideGhost();
      this.closePicker();
    }
  }

  drawLayout(key) {
    const { svg, board } = this;
    this.layoutKey = key;
    svg.replaceChildren();
    setViewBox(svg, board.viewbox);
    if (!svg.hasAttribute("aria-label")) svg.setAttribute("aria-label", "Tripen board");
    this.drawHatch(el("defs", {}, svg));

    const cells = el("g", { class: "cells" }, svg);
    this.cellShapes = new Map();
    for (const cell of board.cells) {
      const shape = el("polygon", { class: "cell", "data-cell": cell.name, "aria-label": cell.name,
        role: "img", points: points(cell.hexagon) }, cells);
      this.cellShapes.set(cell.name, shape);
    }
    // Borders above the cells and below the tokens: a token on the rim then sits against
    // the coloured line rather than under it.
    const borders = el("g", { class: "borders" }, svg);
    for (const border of board.borders) {
      el("polyline", { class: `border side-${border.side}`, "data-border": border.border || "",
        points: points(border.points) }, borders);
    }
    this.tokenLayer = el("g", { class: "tokens" }, svg);
    this.ghostShape = el("polygon", { class: "ghost", visibility: "hidden",
      "aria-hidden": "true" }, svg);
    const labels = el("g", { class: "labels", "aria-hidden": "true" }, svg);
    drawLabels(labels, board.labels || []);
    this.framed = [cells, borders, labels];
  }

  // Diagonal red stripes: a refused ghost must read as "no" even when the mover is Red.
  drawHatch(defs) {
    const pattern = el("pattern", { id: HATCH_ID, patternUnits: "userSpaceOnUse",
      width: 0.22, height: 0.22, patternTransform: "rotate(45)" }, defs);
    el("rect", { class: "hatch-ground", width: 0.22, height: 0.22 }, pattern);
    el("rect", { class: "hatch-stripe", width: 0.08, height: 0.22 }, pattern);
  }

  // The final position shows the winner's chain from border to border (state.ending).
  drawTokens() {
    const last = new Set(this.state.last || []);
    const ending = this.state.ending;
    const chain = new Set(ending && ending.kind === "chain" ? ending.chain : []);
    this.svg.classList.toggle("ending-chain", chain.size > 0);
    const { sides = ["Red", "Blue"] } = this.state;
    const shapes = this.board.tokens.map((token) => el("polygon", {
      class: `token side-${token.side}${last.has(token.action) ? " last" : ""}`
        + `${chain.has(token.action) ? " chain" : ""}`,
      "data-action": token.action,
      "aria-label": `${sides[token.side]} ${token.action}`, role: "img",
      points: points(token.polygon),
    }));
    // The last token goes on top so its outline is not covered by a neighbour's.
    shapes.sort((a, b) => a.classList.contains("last") - b.classList.contains("last"));
    this.tokenLayer.replaceChildren(...shapes);
  }

  markLegalCells() {
    const open = new Set([...this.legal].map((action) => action.split("/")[0]));
    for (const [name, shape] of this.cellShapes) {
      shape.classList.toggle("legal", open.has(name));
      // Keyboard players reach the cells where a token can go; Enter opens the pose picker.
      if (open.has(name)) {
        shape.setAttribute("tabindex", "0");
        shape.setAttribute("role", "button");
        shape.setAttribute("aria-haspopup", "dialog");
      } else {
        shape.removeAttribute("tabindex");
        shape.setAttribute("role", "img");
        shape.removeAttribute("aria-haspopup");
      }
    }
  }

  // -- the ghost -----------------------------------------------------------------------------

  boardPoint(event) {
    const matrix = this.svg.getScreenCTM();
    if (!matrix) return null;
    const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    return [p.x, p.y];
  }

  cellAt(point) {
    if (!point) return null;
    return this.board.cells.find((cell) => insidePolygon(point, cell.hexagon)) || null;
  }

  nearestPose(cell, point) {
    let best = 0;
    let bestDistance = Infinity;
    for (const pose of POSES) {
      const [cx, cy] = centroid(this.board.poses[`${cell.name}/${pose}`]);
      const distance = (cx - point[0]) ** 2 + (cy - point[1]) ** 2;
      if (distance < bestDistance) [best, bestDistance] = [pose, distance];
    }
    return best;
  }

  onPointerMove(event) {
    if (event.pointerType === "touch" || !this.view.interactive) return;
    this.aimAt(this.boardPoint(event));
  }

  aimAt(point) {
    const cell = this.cellAt(point);
    if (!cell) {
      this.hideGhost();
      return;
    }
    if (cell.name !== this.ghost.cell) {
      this.ghost = { cell: cell.name, pose: this.nearestPose(cell, point), turned: false };
    } else if (!this.ghost.turned) {
      this.ghost.pose = this.nearestPose(cell, point);
    }
    this.updateGhost();
  }

  turn(step) {
    if (!this.ghostVisible()) return false;
    this.ghost.pose = (this.ghost.pose + step + 6) % 6;
    this.ghost.turned = true;
    this.updateGhost();
    return true;
  }

  ghostAction() {
    return `${this.ghost.cell}/${this.ghost.pose}`;
  }

  ghostVisible() {
    return Boolean(this.ghostShape && this.ghost.cell && this.view.interactive);
  }

  updateGhost() {
    if (!this.ghostVisible()) return;
    const action = this.ghostAction();
    const polygon = this.board.poses[action];
    if (!polygon) {
      this.hideGhost();
      return;
    }
    const refused = !this.legal.has(action);
    const shape = this.ghostShape;
    // The game page marks the ghost `pending` while its action is on the way; that mark
    // belongs to the action, so it goes when the ghost shows another one.
    const pending = shape.dataset.action === action && shape.classList.contains("pending");
    shape.setAttribute("points", points(polygon));
    shape.setAttribute("class", `ghost side-${this.state.to_move}`);
    shape.classList.toggle("refused", refused);
    shape.classList.toggle("pending", pending);
    shape.setAttribute("visibility", "visible");
    shape.dataset.action = action;
    this.svg.classList.toggle("refusing", refused);
  }

  hideGhost() {
    this.ghost = { cell: null, pose: 0, turned: false };
    if (!this.ghostShape) return;
    this.ghostShape.setAttribute("visibility", "hidden");
    this.ghostShape.removeAttribute("data-action");
    this.svg.classList.remove("refusing");
  }

  onWheel(event) {
    if (!this.ghostVisible()) return;
    event.preventDefault();
    // A mouse notch (deltaMode 1 or 2, or a large pixel delta) is one turn; a trackpad's small
    // pixel deltas add up to one. Never more than one turn per event, so a fast flick does
    // not spin past the pose the player wanted.
    const delta = event.deltaMode ? Math.sign(event.deltaY) * WHEEL_STEP : event.deltaY;
    if (Math.sign(delta) !== Math.sign(this.wheelDelta)) this.wheelDelta = 0;
    this.wheelDelta += delta;
    if (Math.abs(this.wheelDelta) >= WHEEL_STEP) {
      this.turn(Math.sign(this.wheelDelta));
      this.wheelDelta = 0;
    }
  }

  onKey(event) {
    if (event.key === "Escape" && this.picker) {
      const cell = this.cellShapes.get(this.picker.cell);
      const inside = this.picker.element.contains(document.activeElement);
      this.closePicker();
      if (inside) cell?.focus();
    }
    if (event.key.toLowerCase() !== "r" || event.ctrlKey || event.metaKey || event.altKey) return;
    if (isTyping(event.target)) return;
    if (this.turn(event.shiftKey ? -1 : 1)) event.preventDefault();
  }

  onClick(event) {
    if (!this.view.interactive) return;
    const point = this.boardPoint(event);
    if (this.pointerType === "touch") {
      const cell = this.cellAt(point);
      if (cell) this.openPicker(cell.name, [event.clientX, event.clientY]);
      else this.closePicker();
      return;
    }
    // A click without a pointer move before it (a synthetic click) still aims first.
    if (!this.ghostVisible()) this.aimAt(point);
    if (this.ghostVisible()) this.onAction(this.ghostAction());
  }

  onCellKey(event) {
    if (!isActivationKey(event)) return;
    const name = event.target.dataset?.cell;
    if (!name || !this.view.interactive) return;
    event.preventDefault();
    const box = event.target.getBoundingClientRect();
    this.openPicker(name, [box.left + box.width / 2, box.top + box.height / 2]);
    const picker = this.picker?.element;
    (picker?.querySelector(".tripen-pose:enabled") || picker?.querySelector("button"))?.focus();
  }

  // -- touch and keyboard: the pose picker ---------------------------------------------------

  openPicker(cellName, at) {
    this.closePicker();
    const cell = this.cellByName.get(cellName);
    if (!cell) return;
    const picker = document.createElement("div");
    picker.className = "tripen-picker";
    picker.setAttribute("role", "dialog");
    picker.setAttribute("aria-label", `Choose the pose of the token in ${cellName}`);
    const head = document.createElement("div");
    head.className = "tripen-picker-head";
    const title = document.createElement("span");
    title.textContent = `${cellName}: pick a pose`;
    const close = document.createElement("button");
    close.type = "button";
    close.className = "tripen-picker-close";
    close.setAttribute("aria-label", "Close");
    close.textContent = "×";
    close.addEventListener("click", () => this.closePicker());
    head.append(title, close);
    const grid = document.createElement("div");
    grid.className = "tripen-picker-poses";
    for (const pose of POSES) grid.append(this.poseButton(cell, pose));
    picker.append(head, grid);
    document.body.append(picker);
    this.placePicker(picker, at);
    this.picker = { element: picker, cell: cellName, at };
    this.cellShapes.get(cellName)?.classList.add("picking");
  }

  // One button: the cell's outline, the tokens already in it, and this pose's pentagon.
  poseButton(cell, pose) {
    const action = `${cell.name}/${pose}`;
    const legal = this.legal.has(action);
    const button = document.createElement("button");
    button.type = "button";
    button.className = "tripen-pose";
    button.dataset.action = action;
    button.disabled = !legal;
    button.setAttribute("aria-label", legal ? `place ${action}` : `${action} cannot be placed`);
    const icon = el("svg", { viewBox: `${cell.x - 1.1} ${cell.y - 1.1} 2.2 2.2`,
      "aria-hidden": "true", class: "tripen-board" });
    el("polygon", { class: "cell", points: points(cell.hexagon) }, icon);
    for (const token of this.board.tokens) {
      if (token.action.split("/")[0] === cell.name) {
        el("polygon", { class: `token side-${token.side}`, points: points(token.polygon) }, icon);
      }
    }
    el("polygon", { class: `pose side-${this.state.to_move}`,
      points: points(this.board.poses[action]) }, icon);
    button.append(icon);
    button.addEventListener("click", () => {
      this.closePicker();
      this.onAction(action);
    });
    return button;
  }

  // Below the tapped point (above it near the bottom of the window), inside the window
  // (phones are narrow), in page coordinates so that it scrolls with the board.
  placePicker(picker, [x, y]) {
    const margin = 8;
    const { width, height } = picker.getBoundingClientRect();
    const left = Math.min(Math.max(margin, x - width / 2), window.innerWidth - width - margin);
    let top = y + 24;
    if (top + height > window.innerHeight - margin) top = Math.max(margin, y - height - 24);
    picker.style.left = `${left + window.scrollX}px`;
    picker.style.top = `${top + window.scrollY}px`;
  }

  closePicker() {
    if (!this.picker) return;
    this.picker.element.remove();
    this.cellShapes?.get(this.picker.cell)?.classList.remove("picking");
    this.picker = null;
  }

  onOutsidePointer(event) {
    if (!this.picker) return;
    if (this.picker.element.contains(event.target) || this.svg.contains(event.target)) return;
    this.closePicker();
  }

  destroy() {
    this.closePicker();
    for (const remove of this.listeners) remove();
    this.listeners = [];
    this.svg.replaceChildren();
    this.svg.classList.remove("tripen-board", "kind-tripen", `game-${this.game}`, "interactive",
      "refusing");
    this.layoutKey = null;
  }
}
