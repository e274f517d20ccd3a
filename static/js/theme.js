// Colour scheme toggle: auto (follow the device) -> light -> dark -> auto.
// The choice is kept in localStorage; base.html applies it before the first paint.
const KEY = "tessera-theme";
const ORDER = ["auto", "light", "dark"];
const TITLES = {
  auto: "Colour scheme: follows your device",
  light: "Colour scheme: light",
  dark: "Colour scheme: dark",
};

function current() {
  return document.documentElement.dataset.theme || "auto";
}

function apply(theme, button) {
  if (theme === "auto") {
    delete document.documentElement.dataset.theme;
    localStorage.removeItem(KEY);
  } else {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem(KEY, theme);
  }
  button.title = TITLES[theme];
}

const button = document.getElementById("theme-toggle");
if (button) {
  button.title = TITLES[current()];
  button.addEventListener("click", () => {
    const next = ORDER[(ORDER.indexOf(current()) + 1) % ORDER.length];
    try {
      apply(next, button);
    } catch (e) {
      // Storage may be unavailable (private mode): still switch for this page.
      document.documentElement.dataset.theme = next;
    }
  });
}
