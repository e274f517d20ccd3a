// An event's page: the standings are pushed over /ws/tournament/<id>/ while the event is on
// (the page is rendered whole by the server, so it works without this); your own row is kept
// in view, and when one of your games starts the page follows you to it, as lichess's arena
// does (the push is the same for everyone, so the page then asks standings.json for its game).
import { ReconnectingSocket, socketUrl } from "./socket.js";

const page = document.getElementById("tournament");

function cell(text, className) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function mark(td, text, className, title) {
  const span = document.createElement("span");
  span.className = className;
  span.textContent = text;
  if (title) span.title = title;
  td.append(" ", span);
}

function number(value, digits) {
  return value === null || value === undefined ? "–" : String(+value.toFixed(digits));
}

function rowOf(row, kind, me) {
  const tr = document.createElement("tr");
  if (row.username === me) {
    tr.className = "me";
    tr.setAttribute("aria-current", "true");
  }
  const name = cell(row.username);
  if (row.bot) mark(name, "BOT", "bot-mark");
  if (row.fire) mark(name, "🔥", "fire", "on a streak: wins count double");
  if (row.playing) mark(name, "playing", "playing");
  if (row.paused) mark(name, "paused", "paused");
  if (row.withdrawn) mark(name, "withdrawn", "withdrawn");
  tr.append(cell(String(row.rank)), name, cell(number(row.points, 1)));
  if (kind === "arena") tr.append(cell(number(row.performance, 0)));
  else if (kind === "swiss") tr.append(cell(number(row.buchholz, 1)), cell(number(row.sonneborn_berger, 2)));
  else tr.append(cell(number(row.sonneborn_berger, 2)));
  tr.append(cell(String(row.games), "col-extra"));
  if (kind === "arena") tr.append(sheetOf(row.sheet || []));
  return tr;
}

// The arena's score sheet (lichess's): each game's points in order, a streak's doubled wins
// and berserk games marked.
function sheetOf(marks) {
  const td = cell("", "col-extra sheet");
  for (const m of marks) {
    const span = document.createElement("span");
    span.className = [m.doubled ? "double" : "", m.berserk ? "berserk" : ""].join(" ").trim();
    span.textContent = `${m.points}${m.berserk ? "⚔" : ""}`;
    span.title = `${m.points} point${m.points === 1 ? "" : "s"}`
      + (m.doubled ? ", doubled on a streak" : "")
      + (m.berserk ? `, berserk${m.berserk_point ? " (+1)" : ""}` : "");
    td.append(span);
  }
  return td;
}

async function followToMyGame() {
  try {
    const response = await fetch(page.dataset.standings, { credentials: "same-origin" });
    const data = await response.json();
    if (data.my_game && data.my_game !== page.dataset.game) window.location.assign(data.my_game);
  } catch {
    // The server is away: the next push tries again.
  }
}

function showStandings(message) {
  const kind = page.dataset.kind;
  const me = page.dataset.me;
  const body = document.querySelector("#standings tbody");
  body.replaceChildren(...message.rows.map((row) => rowOf(row, kind, me)));
  body.querySelector("tr.me")?.scrollIntoView({ block: "nearest" });
  if (message.status !== page.dataset.status) {
    window.location.reload();  // started or ended: the page's actions and podium change
    return;
  }
  const mine = message.rows.find((row) => row.username === me);
  if (mine && mine.playing) followToMyGame();
}

if (page && (page.dataset.status === "upcoming" || page.dataset.status === "running")) {
  const socket = new ReconnectingSocket(socketUrl(`/ws/tournament/${page.dataset.id}/`), {
    onMessage(message) {
      if (message.type === "standings") showStandings(message);
    },
  });
  socket.connect();
}
