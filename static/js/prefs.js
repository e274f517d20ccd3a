// The player's board choices: legal-move hints, sounds, confirming moves, the board's
// orientation. A logged-in player's choices live on their account (their settings page, and
// a change made here is sent there: static/js/account-prefs.js); a visitor's in this
// browser's localStorage. The flip is this browser's only.
//
//   getPref("hints") -> true
//   setPref("sound", false)          tells every onPrefChange listener of this page
//   onPrefChange((name, value) => ...)
import { accountPrefs } from "./account-prefs.js";
import { postForJson } from "./http.js";

const KEY = "tessera-prefs";
// The account's names of the choices it keeps (accounts.Profile.BOARD_PREFS).
const ACCOUNT_NAMES = Object.freeze({ hints: "show_hints", sound: "sounds", confirmMove: "confirm_move" });
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
  const account = accountPrefs();
  const accountName = ACCOUNT_NAMES[name];
  if (account && accountName in account) return account[accountName];
  const value = stored()[name];
  return typeof value === typeof DEFAULTS[name] ? value : DEFAULTS[name];
}

export function setPref(name, value) {
  const account = accountPrefs();
  const accountName = ACCOUNT_NAMES[name];
  if (account && accountName in account) {
    account[accountName] = value;
    const body = new URLSearchParams({ name: accountName, value: String(value) });
    // Not kept if this fails, but this page still follows the choice.
    postForJson("/accounts/settings/board/", body).catch(() => {});
  } else {
    try {
      localStorage.setItem(KEY, JSON.stringify({ ...stored(), [name]: value }));
    } catch (error) {
      // Not kept, but this page still follows the choice.
    }
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
