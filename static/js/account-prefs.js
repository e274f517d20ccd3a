// The logged-in player's board choices as their settings page stores them on the server
// (accounts.Profile: show_hints, sounds, confirm_move, hide_chat), put in every page by
// base.html as JSON. null for visitors: the browser's own choices (localStorage) apply then.
// When logged in these are the source: a choice made in one browser follows the player to
// the next.

let cached;

export function accountPrefs() {
  if (cached !== undefined) return cached;
  const node = document.getElementById("account-prefs");
  try {
    cached = node ? JSON.parse(node.textContent) : null;
  } catch {
    cached = null;
  }
  return cached;
}

// One choice: the server's when logged in, else `fallback` (the browser's own).
export function accountPref(name, fallback) {
  const prefs = accountPrefs();
  return prefs && name in prefs ? prefs[name] : fallback;
}
