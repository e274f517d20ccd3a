// A game's positions from the server's engine: /game/<id>/position/<ply>.json for the game's
// own line (kept once loaded: they never change) and /game/<id>/explore.json for other moves
// from one of them. The browser decides no rules: a refused exploration comes back with the
// engine's reason.
//
// Both endpoints leave out the board's static geometry (cells, labels, Tripen's poses): it is
// the same in every position of the game, and the page has it in its latest position.
const UNREACHABLE = "The server could not be reached: try again.";

export class Positions {
  // latest(): the host's latest full state (the engine's to_dict() with the static board)
  constructor(gameId, latest) {
    this.gameId = gameId;
    this.latest = latest;
    this.cache = new Map(); // ply -> state
  }

  remember(state) {
    if (state) this.cache.set(state.ply, state);
  }

  known(ply) {
    return this.cache.get(ply) || null;
  }

  async at(ply) {
    if (this.cache.has(ply)) return this.cache.get(ply);
    const state = await this.load(`/game/${this.gameId}/position/${ply}.json?static=0`,
      `Position ${ply} could not be loaded.`);
    this.cache.set(ply, state);
    return state;
  }

  // The position after playing `line` (actions) from the game's ply `from`.
  explore(from, line) {
    const query = new URLSearchParams({ ply: String(from), moves: line.join(","), static: "0" });
    return this.load(`/game/${this.gameId}/explore.json?${query}`,
      "That move cannot be played here.");
  }

  // Rejects with the message to show: the engine's reason, or `refused` without one.
  async load(url, refused) {
    let response;
    try {
      response = await fetch(url, { headers: { Accept: "application/json" } });
    } catch (error) {
      throw new Error(UNREACHABLE);
    }
    const data = await response.json().catch(() => null);
    if (!response.ok) throw new Error((data && data.message) || refused);
    if (!data) throw new Error(UNREACHABLE);
    return { ...data, board: { ...this.latest().board, ...data.board } };
  }
}
