// Colour scheme toggle: auto (follow the device) -> the scheme the device does not show ->
// the device's own scheme, chosen for good -> auto. So the first click always changes what is
// shown (a fixed auto -> light -> dark did nothing on a light device).
// The choice is kept in localStorage; base.html applies it before the first paint.
const KEY = "tessera-theme";
const TITLES = {
  auto: "Colour scheme: follows your device",
  light: "Colour scheme: light",
  dark: "Colour scheme: dark",
};

function current() {
  return document.documentElement.dataset.theme || "auto";
}

function deviceScheme() {
  return window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function following(theme) {
  const device = deviceScheme();
  if (theme === "auto") return device === "dark" ? "light" : "dark";
  return theme === device ? "auto" : device;
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
    const next = following(current());
    try {
      apply(next, button);
    } catch (e) {
      // Storage may be unavailable (private mode): still switch for this page.
      document.documentElement.dataset.theme = next;
    }
  });
}
