// Colorful Connection's four colours in the browser: the buttons that choose the colour of the
// next stone (the game page's chooser, the replay's exploration) and their keys.
import { el, isPlainKey } from "./dom.js";

export const COLOUR_NAME = { R: "red", P: "pink", B: "blue", G: "green" };

// One toggle button per colour the position owes; `chosen` is pressed.
export function colourButtons(owed, chosen, onPick) {
  return owed.map((colour) => {
    const button = el("button", {
      type: "button", class: `colour-button colour-${colour}`,
      dataset: { colour }, "aria-pressed": String(colour === chosen),
    }, el("span", { class: "swatch", "aria-hidden": "true" }), COLOUR_NAME[colour]);
    button.addEventListener("click", () => onPick(colour));
    return button;
  });
}

// The colour a key press names (R, P, B or G), or null.
export function colourOfKey(event) {
  if (!isPlainKey(event)) return null;
  const colour = event.key.toUpperCase();
  return COLOUR_NAME[colour] ? colour : null;
}
