// The home page's "Your games": the running realtime clocks tick down, and the button that
// turns on desktop notifications on this device (asked for on that click, as browsers want).
// Whose turn it is follows the notification socket (static/js/turns.js, via notify.js).
import { formatClock } from "./clock.js";
import { DESKTOP_KEY, desktopWanted } from "./turns.js";

const loadedAt = performance.now();

function tick() {
  for (const clock of document.querySelectorAll(".glance .clock[data-ms]")) {
    let ms = Number(clock.dataset.ms);
    if (clock.hasAttribute("data-running")) ms = Math.max(0, ms - (performance.now() - loadedAt));
    const text = formatClock(ms);
    if (clock.textContent !== text) clock.textContent = text;
  }
}

tick();
setInterval(tick, 500);

const button = document.getElementById("desktop-notify");

function showButton() {
  if (!button) return;
  const supported = "Notification" in window && Notification.permission !== "denied";
  button.hidden = !supported;
  const on = desktopWanted();
  button.textContent = on ? "Desktop notifications: on (turn off)"
    : "Tell me on this device when it is my move";
  button.setAttribute("aria-pressed", String(on));
}

if (button) {
  button.addEventListener("click", async () => {
    if (desktopWanted()) {
      localStorage.setItem(DESKTOP_KEY, "off");
    } else {
      const answer = await Notification.requestPermission();
      localStorage.setItem(DESKTOP_KEY, answer === "granted" ? "on" : "off");
    }
    showButton();
  });
  showButton();
}
