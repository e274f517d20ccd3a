// What the server knows of a game's past: its positions from the server's engine, and (below)
// the clocks after each ply. Positions come from /game/<id>/position/<ply>.json for the game's
// own line (kept once loaded: they change only by a takeback, see forget) and /game/<id>/explore.json for other moves
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

  // A takeback: the positions after `ply` are gone (those plies may be played otherwise).
  forget(ply) {
    for (const kept of [...this.cache.keys()]) if (kept > ply) this.cache.delete(kept);
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

// The clocks of a realtime game after each ply, from /game/<id>/clocks.json, so that stepping
// back through the moves shows the time each player had then. Loaded when first needed, and
// again when the game has gone past what was loaded.
export class ClockHistory {
  constructor(gameId) {
    this.gameId = gameId;
    this.plies = []; // remaining_ms per ply: [[player 0, player 1], ...]
    this.loading = null;
  }

  // {remaining_ms} after `ply` actions, or null while it is not known.
  at(ply) {
    const left = this.plies[ply];
    return left ? { remaining_ms: left } : null;
  }

  // A takeback: the clocks after `ply` are gone.
  forget(ply) {
    this.plies = this.plies.slice(0, ply + 1);
  }

  load() {
    if (!this.loading) {
      this.loading = fetch(`/game/${this.gameId}/clocks.json`, { headers: { Accept: "application/json" } })
        .then((response) => (response.ok ? response.json() : null))
        .then((data) => { if (data && data.remaining_ms) this.plies = data.remaining_ms; })
        .catch(() => {})
        .finally(() => { this.loading = null; });
    }
    return this.loading;
  }
}
