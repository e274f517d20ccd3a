// A websocket that reconnects by itself with exponential back-off (and some jitter, so that
// a restarted server is not hit by every browser in the same instant), keeps the connection
// alive with pings and reports its status. The caller resynchronises on each open: the server
// sends a full snapshot to every new connection.
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 15000;
const PING_EVERY_MS = 25000;
// No message at all for this long (pongs included) means the connection is dead even if the
// browser has not noticed yet (a laptop waking from sleep, a dropped Wi-Fi).
const SILENCE_LIMIT_MS = 65000;

// The site's websocket address for `path` ("/ws/game/12/"), over TLS when the page is.
export function socketUrl(path) {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${window.location.host}${path}`;
}

export class ReconnectingSocket {
  constructor(url, { onMessage, onStatus }) {
    this.url = url;
    this.onMessage = onMessage;
    this.onStatus = onStatus || (() => {});
    this.attempt = 0;
    this.ws = null;
    this.timer = null;
    this.pinger = null;
    this.lastHeard = 0;
    this.stopped = false;
    this.unlisten = [
      listen(window, "online", () => this.reconnectNow()),
      listen(window, "offline", () => this.status("offline")),
      listen(document, "visibilitychange", () => {
        if (document.visibilityState === "visible") this.checkAlive();
      }),
    ];
  }

  connect() {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.status("connecting");
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      this.attempt = 0;
      this.lastHeard = Date.now();
      this.status("open");
      this.startPinging();
    });
    ws.addEventListener("message", (event) => {
      if (ws !== this.ws) return;
      this.lastHeard = Date.now();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      this.onMessage(message);
    });
    ws.addEventListener("close", () => {
      if (ws !== this.ws) return;
      this.stopPinging();
      this.scheduleReconnect();
    });
  }

  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  get isOpen() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN);
  }

  scheduleReconnect() {
    if (this.stopped) return;
    const base = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** this.attempt);
    const delay = Math.round(base * (0.75 + Math.random() * 0.5));
    this.attempt += 1;
    this.status(navigator.onLine === false ? "offline" : "waiting", delay);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  reconnectNow() {
    if (this.stopped || this.isOpen) return;
    this.attempt = 0;
    this.drop();
    this.connect();
  }

  // Closes the current socket without the close handler scheduling another attempt.
  drop() {
    const ws = this.ws;
    this.ws = null;
    this.stopPinging();
    if (ws) {
      try {
        ws.close();
      } catch (error) {
        // Already closing.
      }
    }
  }

  checkAlive() {
    if (this.stopped) return;
    if (!this.isOpen || Date.now() - this.lastHeard > SILENCE_LIMIT_MS) {
      this.drop();
      this.attempt = 0;
      this.connect();
    } else {
      this.send({ type: "ping" });
    }
  }

  startPinging() {
    this.stopPinging();
    this.pinger = setInterval(() => this.checkAlive(), PING_EVERY_MS);
  }

  stopPinging() {
    clearInterval(this.pinger);
    this.pinger = null;
  }

  // For good: the Watch page stops the previous featured game's socket when it features
  // another.
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.drop();
    for (const remove of this.unlisten) remove();
    this.status("closed");
  }

  status(name, delay = 0) {
    this.onStatus(name, delay);
  }
}

function listen(target, type, handler) {
  target.addEventListener(type, handler);
  return () => target.removeEventListener(type, handler);
}
