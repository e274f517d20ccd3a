// Clocks as the server last reported them, ticking locally in between. The running clock
// counts down from the moment its report arrived (not from the server's timestamp: the two
// machines' clocks need not agree); the next report corrects any drift.

export function formatClock(ms) {
  const clamped = Math.max(0, ms);
  if (clamped < 10000) {
    // Under ten seconds the tenths matter.
    return `0:0${(Math.floor(clamped / 100) / 10).toFixed(1)}`;
  }
  const total = Math.ceil(clamped / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

// "2 days 3 h", "5 h 10 min", "12 min": how long until a correspondence deadline.
export function formatSpan(ms) {
  if (ms <= 0) return "time is up";
  const minutes = Math.ceil(ms / 60000);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  if (days) return `${days} day${days > 1 ? "s" : ""}${hours ? ` ${hours} h` : ""}`;
  if (hours) return `${hours} h ${mins} min`;
  return `${mins} min`;
}

export function formatDate(iso) {
  const date = new Date(iso);
  return date.toLocaleString(undefined, {
    weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit",
  });
}

export class Clocks {
  constructor(onTick) {
    this.onTick = onTick;
    this.report = null;
    this.receivedAt = 0;
    this.timer = null;
  }

  update(report) {
    this.report = report || null;
    this.receivedAt = performance.now();
    clearInterval(this.timer);
    this.timer = null;
    if (this.running !== null) {
      this.timer = setInterval(() => this.onTick(), 100);
    }
    this.onTick();
  }

  get running() {
    const running = this.report ? this.report.running : null;
    return running === undefined ? null : running;
  }

  get realtime() {
    return Boolean(this.report && Array.isArray(this.report.remaining_ms));
  }

  // Milliseconds left on player i's clock now, or null when the game has no clocks.
  remaining(i) {
    if (!this.realtime) return null;
    const reported = this.report.remaining_ms[i];
    if (reported === null || reported === undefined) return null;
    const elapsed = this.running === i ? performance.now() - this.receivedAt : 0;
    return Math.max(0, reported - elapsed);
  }

  // Milliseconds until the correspondence deadline, or null.
  untilDeadline() {
    if (!this.report || !this.report.deadline) return null;
    return new Date(this.report.deadline).getTime() - Date.now();
  }
}
