// A position played by clicking or tapping the board, on pages that take an action with a form
// (templates/includes/board_form.html: a lesson step or a puzzle, the analysis board). The
// board is the play page's own module (static/js/boards/, the module of the board's kind). The
// page decides no rules: a pick fills the form's action field (the typed action, which stays
// as the fallback without JavaScript or a pointer) and sends it, and the server answers with
// the engine's verdict in words: its reason for a refused action, or, in a lesson, why a
// legal one did or did not do the task. Illegal picks are sent too, so that the reason shows.
//
// The svg names its form and field: data-form (the form's id), data-field (the action's
// field), data-playing (the viewer may act), data-hints (dots on the legal cells).
//
// Several actions in one turn (Colorful's two stones, Copolymer's forced claims) are one pick
// each: the server keeps the step's actions so far in the form and answers each. Colorful's
// colour chooser and Tripen's swap button are the play page's, with the same ids and styles.
import { byId as $, el } from "./dom.js";
import { COLOUR_NAME, colourButtons, colourOfKey } from "./colours.js";

const svg = $("board");
const form = $(svg.dataset.form || "");
const field = form && form.elements[svg.dataset.field || "action"];
const state = JSON.parse($("board-position").textContent);
const hints = svg.hasAttribute("data-hints");
// The viewer may act: the step is not done, the puzzle not solved, the form is there.
const playing = Boolean(field) && svg.hasAttribute("data-playing") && !state.is_over;
const owed = state.board.owed || []; // Colorful: the colours this turn still owes
let colour = owed[0] || null;
let board = null;
let sent = false;

function view() {
  return { interactive: playing && !sent, hints, colour };
}

function render() {
  if (board) board.render(state, view());
}

// The pick goes through the same form as a typed action: one door to the engine's verdict.
function send(action) {
  if (!playing || sent) return;
  sent = true;
  field.value = action;
  form.classList.add("sending");
  render();
  form.requestSubmit();
}

function showChooser() {
  const chooser = $("chooser");
  if (!chooser || !owed.length || !playing) return;
  chooser.hidden = false;
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
  if (!swap || !playing || !state.legal.includes("swap")) return;
  swap.hidden = false;
  swap.addEventListener("click", () => send("swap"));
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
