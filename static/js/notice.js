// A transient message in one element: the engine's reason for a refused move, a forced
// continuation, a connection problem. It goes by itself after a few seconds, and at once when
// the position it was about gives way to another (clear()).
const SHOWN_MS = { info: 3500, other: 5000 };

export class Notice {
  constructor(element) {
    this.element = element;
    this.baseClass = element.className;
    this.timer = null;
  }

  // `kind` is a class for the colours: info, illegal, error.
  show(text, kind = "info") {
    const element = this.element;
    element.textContent = text;
    element.className = `${this.baseClass} ${kind}`;
    element.hidden = false;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.clear(), SHOWN_MS[kind] || SHOWN_MS.other);
  }

  clear() {
    clearTimeout(this.timer);
    this.timer = null;
    this.element.hidden = true;
  }
}
