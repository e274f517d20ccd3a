// A game as the server's snapshot describes it (the `game` object of docs/protocol.md), kept
// current by the game socket's messages. Shared by the game page and the Watch page's
// featured board, which follow the same socket.

export function gameSocketPath(id) {
  return `/ws/game/${id}/`;
}

export function isPlayer(game) {
  return game.you !== null && game.you !== undefined;
}

// The side a player plays now: Tripen's swap exchanges the players' colours.
export function sideOfPlayer(game, player) {
  return game.swapped ? 1 - player : player;
}

// The player who plays `side` now (a scorer's colour): the swap read the other way.
export function playerOfSide(game, side) {
  return game.swapped ? 1 - side : side;
}

// The player whose turn it is, null once the position is over: the engine's person_to_move.
export function playerToMove(game) {
  const side = game.state.to_move;
  return side === null || side === undefined ? null : playerOfSide(game, side);
}

// Still being played: a game that ended (on the board, by resignation, time or abort) is
// only replayed.
export function isLive(game) {
  return game.status === "active" && !game.state.is_over;
}

export function isMyTurn(game) {
  return isLive(game) && isPlayer(game) && game.state.to_move === sideOfPlayer(game, game.you);
}

// `action` and `end` messages leave out board data that never changes (the geometry,
// Tripen's pose polygons): it is kept from the snapshot.
function withStaticBoard(game, state) {
  return { ...state, board: { ...game.state.board, ...state.board } };
}

// Applies an `action` message. Returns "applied"; "seen" when the game is already past it
// (a snapshot showed it); "gap" when an earlier action never arrived: the caller then asks
// for a snapshot.
export function applyAction(game, message) {
  const expected = game.state.ply;
  if (message.ply < expected) return "seen";
  if (message.ply > expected) return "gap";
  game.state = withStaticBoard(game, message.state);
  game.actions = message.state.actions;
  // Marks kept only for actions still on the record (a takeback removes the last ones).
  game.by_condition = (game.by_condition || []).filter((n) => n <= message.ply);
  if (message.by_condition) game.by_condition.push(message.ply + 1);
  game.clocks = message.clocks;
  if (typeof message.swapped === "boolean") game.swapped = message.swapped;
  if (message.result) {
    game.result = message.result;
    game.status = "finished";
  }
  return "applied";
}

// What a rated game's end did to player `i`'s rating ({username, before, after, change,
// provisional}), or null (still going, casual, aborted).
export function ratingChangeOf(game, i) {
  const ratings = game.result && game.result.ratings;
  return ratings && ratings[i] ? ratings[i] : null;
}

// Endings with no result: the game did not really take place (docs/protocol.md).
export const NO_RESULT = ["abort", "no_start", "idle"];

// An `end` message: resignation, time, abort, or nobody acting.
export function applyEnd(game, message) {
  game.state = withStaticBoard(game, message.state);
  game.result = message.result;
  game.clocks = message.clocks;
  game.status = message.result && NO_RESULT.includes(message.result.reason) ? "aborted" : "finished";
}
