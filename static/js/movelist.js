// The move list: actions grouped into turns, in the games' own notation. Which side made an
// action is read off the board (the owner of the claimed cell, the colour of the stone, the
// side of the token), so the browser needs no rules of its own.

const COLOUR_SIDE = { R: 0, P: 0, B: 1, G: 1 };

function boardIndex(board) {
  const index = new Map();
  for (const cell of board.cells || []) index.set(cell.name, cell);
  for (const token of board.tokens || []) index.set(token.action, token);
  return index;
}

function sideFrom(index, action) {
  // The pie rule: only Blue (side 1) ever swaps.
  if (action === "swap") return 1;
  const thing = index.get(action) || index.get(action.split("@").pop());
  if (!thing) return null;
  if (thing.colour) return COLOUR_SIDE[thing.colour];
  if (thing.side !== undefined) return thing.side;
  return thing.owner ?? null;
}

// [{number, side, actions: [...]}]: consecutive actions of one side form a turn. A swap is a
// turn of its own: the side that swaps also moves next, but as the other person.
function turnsOf(state) {
  const index = boardIndex(state.board);
  const turns = [];
  for (const action of state.actions) {
    const side = sideFrom(index, action);
    const previous = turns[turns.length - 1];
    if (previous && previous.side === side && action !== "swap" && previous.actions[0] !== "swap") {
      previous.actions.push(action);
    } else {
      turns.push({ number: turns.length + 1, side, actions: [action] });
    }
  }
  return turns;
}

// Both players have acted: after that a game can no longer be aborted, only resigned.
export function bothActed(state) {
  const sides = new Set(turnsOf(state).map((turn) => turn.side));
  return sides.has(0) && sides.has(1);
}

// The words the server's list (archive.templatetags.replay) puts on the same mark.
const BY_CONDITION_TITLE = "Played by a conditional move: the player left this reply in advance "
  + "and the server played it when the opponent's move matched";

// Each action is a button that shows the position after it: action i (0-based) is ply i + 1.
// `byCondition`: the server played it from a player's conditional moves (marked, titled).
function actionNode(action, ply, byCondition) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "act";
  const colour = /^([RPBG])@/.exec(action);
  if (colour) button.classList.add(`colour-${colour[1]}`);
  button.dataset.ply = String(ply);
  button.title = `Show the position after action ${ply}`;
  button.textContent = action;
  if (byCondition) {
    button.classList.add("by-condition");
    button.title = `${BY_CONDITION_TITLE}. ${button.title}`;
  }
  return button;
}

// `byCondition`: the action numbers a conditional move played (the snapshot's "by_condition").
export function renderMoveList(list, state, byCondition = []) {
  const turns = turnsOf(state);
  const marked = new Set(byCondition);
  const stickToEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
  let ply = 0;
  list.replaceChildren(...turns.map((turn, i) => {
    const item = document.createElement("li");
    item.className = `turn side-${turn.side}`;
    if (i === turns.length - 1) item.classList.add("latest");
    const number = document.createElement("span");
    number.className = "num";
    number.textContent = turn.number;
    const chip = document.createElement("span");
    chip.className = `chip side-${turn.side}`;
    chip.title = state.sides[turn.side] || "";
    const actions = document.createElement("span");
    actions.className = "acts";
    actions.append(...turn.actions.map((action) => {
      ply += 1;
      return actionNode(action, ply, marked.has(ply));
    }));
    item.append(number, chip, actions);
    return item;
  }));
  if (stickToEnd || turns.length <= 1) list.scrollTop = list.scrollHeight;
  return turns;
}

// Marks the action whose position is on screen (none at ply 0). The list scrolls to it only
// when that ply changes, not at every redraw: the reader may be looking further up.
export function markCurrent(list, ply) {
  let current = null;
  for (const act of list.querySelectorAll(".act")) {
    const on = act.dataset.ply === String(ply);
    if (act.classList.contains("current") !== on) act.classList.toggle("current", on);
    if (on) {
      act.setAttribute("aria-current", "step");
      current = act;
    } else {
      act.removeAttribute("aria-current");
    }
  }
  if (current && list.dataset.marked !== String(ply)) keepInView(list, current);
  list.dataset.marked = String(ply);
}

// Scrolls the list (not the page) so that `item` is visible.
function keepInView(list, item) {
  const frame = list.getBoundingClientRect();
  const box = item.getBoundingClientRect();
  if (box.top < frame.top) list.scrollTop -= frame.top - box.top;
  else if (box.bottom > frame.bottom) list.scrollTop += box.bottom - frame.bottom;
}
