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
// Back online with a socket still open: how long its pong may take before it counts as dead.
const PROBE_MS = 5000;
// The server closed the socket because its process is stopping (a restart, docs/protocol.md):
// another process takes the page at once, so it comes back within a moment, not after the
// back-off; the stopping process already spreads its closes over seconds.
const RESTART_CLOSE_CODE = 4012;
const RESTART_JITTER_MS = 150;

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
    this.state = null; // the status last reported
    this.probe = null;
    this.unlisten = [
      listen(window, "online", () => this.backOnline()),
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
      // Anything heard means the connection works, whatever the browser said meanwhile
      // (it reports "offline" for a moment while the socket carries on).
      if (this.state !== "open") this.status("open");
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      this.onMessage(message);
    });
    ws.addEventListener("close", (event) => {
      if (ws !== this.ws) return;
      this.stopPinging();
      if (event.code === RESTART_CLOSE_CODE && this.attempt === 0) {
        this.reconnectSoon();
        return;
      }
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

  // After a restart's close: a moment of jitter, and the back-off stays at its first step
  // should this attempt fail too.
  reconnectSoon() {
    const delay = Math.round(Math.random() * RESTART_JITTER_MS);
    this.status("waiting", delay);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  reconnectNow() {
    if (this.stopped || this.isOpen) return;
    this.attempt = 0;
    this.drop();
    this.connect();
  }

  // The network is back. A socket that stayed open is asked for a pong: an answer within
  // PROBE_MS says it works (the message handler reports "open"), silence means it died
  // while the network was away, and a new one is opened.
  backOnline() {
    if (this.stopped) return;
    if (!this.isOpen) {
      this.reconnectNow();
      return;
    }
    const asked = Date.now();
    this.send({ type: "ping" });
    clearTimeout(this.probe);
    this.probe = setTimeout(() => {
      if (this.lastHeard < asked && !this.stopped) {
        this.drop();
        this.attempt = 0;
        this.connect();
      }
    }, PROBE_MS);
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
    clearTimeout(this.probe);
    this.drop();
    for (const remove of this.unlisten) remove();
    this.status("closed");
  }

  status(name, delay = 0) {
    this.state = name;
    this.onStatus(name, delay);
  }
}

function listen(target, type, handler) {
  target.addEventListener(type, handler);
  return () => target.removeEventListener(type, handler);
}
