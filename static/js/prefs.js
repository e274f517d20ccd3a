// The player's board choices: legal-move hints, sounds, confirming moves, the board's
// orientation. Kept in this browser's localStorage for now, behind this one module, so that a
// settings page can later keep them on the server without touching the pages that read them.
//
//   getPref("hints") -> true
//   setPref("sound", false)          tells every onPrefChange listener of this page
//   onPrefChange((name, value) => ...)
const KEY = "tessera-prefs";
const DEFAULTS = Object.freeze({
  hints: true, // dots on the cells the player to move may use
  sound: true, // move, continuation, low time and end sounds
  confirmMove: false, // correspondence games: a move is sent only once confirmed
  flip: false, // the board turned half a turn
});

const listeners = new Set();

function stored() {
  try {
    const value = JSON.parse(localStorage.getItem(KEY) || "{}");
    return value && typeof value === "object" ? value : {};
  } catch (error) {
    return {}; // storage unavailable (private mode) or garbled: the defaults
  }
}

export function getPref(name) {
  const value = stored()[name];
  return typeof value === typeof DEFAULTS[name] ? value : DEFAULTS[name];
}

export function setPref(name, value) {
  const all = { ...stored(), [name]: value };
  try {
    localStorage.setItem(KEY, JSON.stringify(all));
  } catch (error) {
    // Not kept, but this page still follows the choice.
  }
  for (const listener of listeners) listener(name, value);
}

export function onPrefChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

// A checkbox that shows and sets one choice.
export function bindCheckbox(input, name) {
  if (!input) return;
  input.checked = getPref(name);
  input.addEventListener("change", () => setPref(name, input.checked));
  onPrefChange((changed, value) => {
    if (changed === name) input.checked = value;
  });
}
