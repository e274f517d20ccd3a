// The engine's hint on the analysis board (docs/analysis.md, "The analysis board's hint"):
// the Hint button asks for the position in the page's address (set-up and line), waits for
// the worker, then names the action and marks it on the board, as the replay's hint does.
// Without JavaScript the button stays hidden: a hint is a job, answered later, in JSON.
import { byId as $ } from "./dom.js";
import { el as svgEl, points } from "./boards/svg.js";
import { postForJson } from "./http.js";

const POLL_MS = 700;
const GIVE_UP_MS = 120_000;
const UNREACHABLE = "The server could not be reached: try again.";

const root = $("board-hint");
const button = $("board-hint-ask");
const words = $("board-hint-words");

function position() {
  return new URLSearchParams(root.dataset.params);
}

function say(text) {
  words.textContent = text;
}

function mark(action) {
  const svg = $("board");
  const state = JSON.parse($("board-position").textContent);
  for (const node of svg.querySelectorAll(".hinted")) node.classList.remove("hinted");
  for (const node of svg.querySelectorAll(".hint-token")) node.remove();
  const poses = state.board && state.board.poses;
  if (poses && poses[action]) {
    // Tripen: the token itself, in its pose.
    svgEl("polygon", { class: "hint-token hinted", points: points(poses[action]),
      "aria-hidden": "true" }, svg);
    return;
  }
  const cell = svg.querySelector(`[data-cell="${CSS.escape(action.split("@").pop())}"]`);
  if (cell) cell.classList.add("hinted");
}

function answered(data) {
  if (data.action) {
    say(`The engine would play ${data.action}.`);
    mark(data.action);
    button.disabled = false;
    return true;
  }
  if (data.status === "failed" || data.message) {
    say(data.message || `No hint: ${data.error || "the engine failed"}.`);
    button.disabled = false;
    return true;
  }
  say("The engine is thinking…");
  return false;
}

async function follow(since) {
  if (Date.now() - since > GIVE_UP_MS) {
    answered({ status: "failed", message: "No answer from the engine: try again later." });
    return;
  }
  try {
    const response = await fetch(`${root.dataset.url}?${position()}`,
      { headers: { Accept: "application/json" } });
    if (response.ok && answered(await response.json())) return;
  } catch (error) {
    // The next try may reach the server.
  }
  setTimeout(() => follow(since), POLL_MS);
}

async function ask() {
  button.disabled = true;
  say("The engine is thinking…");
  const body = new FormData();
  for (const [name, value] of position()) body.append(name, value);
  try {
    const { response, data } = await postForJson(root.dataset.url, body);
    if (!response.ok) {
      answered({ status: "failed", message: data.message || UNREACHABLE });
      return;
    }
    if (!answered(data)) setTimeout(() => follow(Date.now()), POLL_MS);
  } catch (error) {
    answered({ status: "failed", message: UNREACHABLE });
  }
}

if (root && button) {
  root.hidden = false;
  button.addEventListener("click", ask);
  // A move picked on the board (static/js/board-form.js): the hint is for the new position.
  document.addEventListener("board-form:moved", (event) => {
    root.dataset.params = event.detail.params.toString();
    root.hidden = event.detail.position.is_over;
    button.disabled = false;
    say("");
  });
}
