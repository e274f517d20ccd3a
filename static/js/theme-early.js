// Applies the chosen colour scheme before the first paint, so dark mode never flashes light.
// A classic script in <head> (not a module, not deferred): it must run before the body is drawn.
// theme.js keeps the choice in localStorage and switches it.
try {
  const theme = localStorage.getItem("tessera-theme");
  if (theme) document.documentElement.dataset.theme = theme;
} catch (e) {
  // Storage unavailable (private mode, blocked cookies): the device's scheme applies.
}
