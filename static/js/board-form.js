// A position played by clicking or tapping the board, on pages that take an action with a form
// (templates/includes/board_form.html: a lesson step or a puzzle, the analysis board). The
// board is the play page's own module (static/js/boards/, the module of the board's kind). The
// page decides no rules: a pick is sent to the server, whose answer is the engine's verdict in
// words: its reason for a refused action, or, in a lesson, why a legal one did or did not do
// the task. Illegal picks are sent too, so that the reason shows.
//
// A pick is judged without a page load: a lesson's or a puzzle's form is posted with fetch and
// answered in JSON by the same view (learn.views: the verdict, the position now, the actions
// kept in the form, and what follows a done step or a solved puzzle); the analysis board asks
// its position.json for the longer line and takes the line's address into the history. The
// form stays the fallback: typed actions, no JavaScript, or an answer that is not JSON.
//
// The svg names its form and field: data-form (the form's id), data-field (the action's
// field), data-playing (the viewer may act), data-hints (dots on the legal cells).
//
// Several actions in one turn (Colorful's two stones, Copolymer's forced claims) are one pick
// each: the server keeps the step's actions so far in the form and answers each. Colorful's
// colour chooser and Tripen's swap button are the play page's, with the same ids and styles.
import { byId as $, el } from "./dom.js";
import { COLOUR_NAME, colourButtons, colourOfKey } from "./colours.js";
import { csrfToken } from "./http.js";

const svg = $("board");
const form = $(svg.dataset.form || "");
const field = form && form.elements[svg.dataset.field || "action"];
let state = JSON.parse($("board-position").textContent);
const hints = svg.hasAttribute("data-hints");
// The viewer may act: the step is not done, the puzzle not solved, the form is there.
let playing = Boolean(field) && svg.hasAttribute("data-playing") && !state.is_over;
let owed = state.board.owed || []; // Colorful: the colours this turn still owes
let colour = owed[0] || null;
let board = null;
let sent = false;

function view() {
  return { interactive: playing && !sent, hints, colour };
}

function render() {
  if (board) board.render(state, view());
}

// The analysis board's set-up by the board: with the box ticked, a pick on an empty cell (or
// a free Tripen token) places the set-up form's piece there and a pick on a piece of the
// set-up removes it, through the set-up form, whose answer is the new position's address.
const setupBox = $("setup-by-board");
const setupForm = $("setup-form");

function setUp(action) {
  const cell = action.includes("@") ? action.split("@").pop() : action;
  const pieces = new Map((setupForm.elements.setup?.value || "").split(",").filter(Boolean)
    .map((item) => [item.slice(0, item.lastIndexOf(":")).toLowerCase(), item]));
  const params = new URLSearchParams(new FormData(setupForm));
  if (pieces.has(cell.toLowerCase())) {
    params.delete("place");
    params.delete("piece");
    params.set("remove", cell);
  } else {
    params.set("place", cell);
  }
  window.location.assign(`?${params}`);
}

// The pick goes to the same judge as a typed action: one door to the engine's verdict.
function send(action) {
  if (setupBox?.checked && setupForm) {
    setUp(action);
    return;
  }
  if (!playing || sent) return;
  sent = true;
  field.value = action;
  form.classList.add("sending");
  render();
  judge(action).catch((error) => {
    // The form's own post: the page load answers what the script could not.
    console.error("The pick is sent with the form instead", error);
    form.requestSubmit();
  });
}

async function judge(action) {
  if ((form.getAttribute("method") || "get").toLowerCase() === "get") return exploreOn(action);
  // The form's attribute, not form.action: that is the field named "action".
  const response = await fetch(form.getAttribute("action") || window.location.href, {
    method: "POST",
    body: new FormData(form),
    headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
    credentials: "same-origin",
  });
  const answer = await response.json();
  if (!answer.position) throw new Error(answer.message || "no position in the answer");
  answered(answer);
}

// A lesson's or a puzzle's answer: the verdict in words, the position, the form's actions.
function answered(answer) {
  let verdict = document.querySelector("p.verdict");
  if (!verdict) {
    verdict = el("p", { role: "status" });
    svg.closest(".learn-board").before(verdict);
  }
  verdict.className = `verdict verdict-${answer.status}`;
  verdict.textContent = answer.words;
  form.elements.moves.value = answer.moves;
  field.value = "";
  moveTo(answer.position, answer.playing);
  if (!answer.playing && answer.after !== null) {
    const after = el("div", { class: "learn-after", id: "learn-after" });
    after.innerHTML = answer.after;
    form.replaceWith(after);
  }
}

// The analysis board: the longer line's position from position.json, its address kept.
async function exploreOn(action) {
  const params = new URLSearchParams(new FormData(form));
  params.delete("next");
  params.set("moves", [params.get("moves"), action].filter(Boolean).join(","));
  const response = await fetch(`position.json?${params}`, { headers: { Accept: "application/json" } });
  const data = await response.json();
  let refusal = $("board-refusal");
  if (!response.ok) {
    // The engine's reason, as the page's refusal says it, without leaving the position.
    if (!refusal) {
      refusal = el("p", { class: "verdict verdict-illegal", role: "alert", id: "board-refusal" });
      svg.closest(".board-frame").before(refusal);
    }
    refusal.textContent = `Not allowed: ${data.message}.`;
    sent = false;
    form.classList.remove("sending");
    render();
    return;
  }
  refusal?.remove();
  history.pushState(null, "", `?${params}`);
  form.elements.moves.value = params.get("moves");
  field.value = "";
  relist(params, data);
  document.dispatchEvent(new CustomEvent("board-form:moved", { detail: { params, position: data } }));
  moveTo(data, !data.is_over);
}

// The analysis board's line (one more step) and legal moves, as the page would list them.
function relist(params, data) {
  const line = $("analysis-line");
  if (line) {
    for (const current of line.querySelectorAll("[aria-current]")) current.removeAttribute("aria-current");
    line.append(el("li", {}, el("a", { href: `?${params}`, "aria-current": "step" }, data.actions.at(-1))));
  }
  const legal = $("analysis-legal");
  if (!legal) return;
  legal.replaceChildren(...data.legal.map((action) => {
    const longer = new URLSearchParams(params);
    longer.set("moves", `${params.get("moves")},${action}`);
    return el("li", {}, el("a", { href: `?${longer}` }, action));
  }));
  const count = $("analysis-legal-count");
  if (count) count.textContent = `${data.legal.length} legal move${data.legal.length === 1 ? "" : "s"}`;
}

// Back and forward through picked moves: the address is the position, so the page is read again.
window.addEventListener("popstate", () => window.location.reload());

function moveTo(position, stillPlaying) {
  state = position;
  $("board-position").textContent = JSON.stringify(position);
  $("board-prompt").textContent = position.prompt;
  playing = stillPlaying && !position.is_over;
  owed = state.board.owed || [];
  colour = owed[0] || null;
  sent = false;
  form.classList.remove("sending");
  showChooser();
  showSwap();
  render();
}

function showChooser() {
  const chooser = $("chooser");
  if (!chooser) return;
  chooser.hidden = !owed.length || !playing;
  if (chooser.hidden) return;
  $("chooser-buttons").replaceChildren(...colourButtons(owed, colour, pickColour));
  const note = $("chooser-note");
  if (owed.length === 1) {
    note.textContent = `The other stone of your turn is ${COLOUR_NAME[owed[0]]}.`;
    return;
  }
  note.textContent = "Colour of your next stone, then click a cell. ";
  const keys = owed.flatMap((c, i) => [i ? " / " : "", el("kbd", {}, c)]);
  note.append(el("span", { class: "keys" }, "Keys: ", ...keys));
}

function pickColour(chosen) {
  if (!owed.includes(chosen)) return;
  colour = chosen;
  showChooser();
  render();
}

function showSwap() {
  const swap = $("swap");
  if (!swap) return;
  swap.hidden = !playing || !state.legal.includes("swap");
}

function mount() {
  const kind = state.board.kind;
  import(new URL(`./boards/${kind}.js`, import.meta.url).href)
    .then((module) => {
      board = module.createBoard(svg, { onAction: send, game: state.game });
      render();
      // The server's drawing of the position has done its job.
      $("board-picture")?.remove();
      const tools = $("board-form-tools");
      if (tools) tools.hidden = false;
      showChooser();
      showSwap();
      $("swap")?.addEventListener("click", () => send("swap"));
      if (setupBox) setupBox.closest("[hidden]")?.removeAttribute("hidden");
    })
    .catch((error) => {
      // The server's picture and the typed form stay: the page still works.
      svg.replaceChildren();
      console.error(`The ${kind} board could not be drawn`, error);
    });
}

document.addEventListener("keydown", (event) => {
  const chosen = colourOfKey(event);
  if (chosen && playing) pickColour(chosen);
});
// Back to the page from the history: the form was sent, this copy of it is not waiting.
window.addEventListener("pageshow", (event) => {
  if (event.persisted && sent) {
    sent = false;
    form.classList.remove("sending");
    render();
  }
});

mount();
