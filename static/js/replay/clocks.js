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
