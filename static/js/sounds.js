// The game page's sounds, synthesised with WebAudio (no files to download): a move, a forced
// continuation (the same side again), low time on the viewer's own clock, and the end. Muted
// by the "sound" choice (static/js/prefs.js). Every sound played is also announced as a
// `tessera:sound` event on the document (detail: its name), for scripts and tests.
import { getPref } from "./prefs.js";

// name -> notes: [frequency Hz, start s, length s, wave]
const SOUNDS = {
  move: [[660, 0, 0.07, "triangle"]],
  continuation: [[660, 0, 0.06, "triangle"], [880, 0.08, 0.08, "triangle"]],
  lowTime: [[1000, 0, 0.05, "square"], [1000, 0.12, 0.05, "square"]],
  end: [[523, 0, 0.14, "sine"], [659, 0.12, 0.14, "sine"], [784, 0.24, 0.3, "sine"]],
};
const VOLUME = 0.12;

let context = null;

// Browsers start audio only after the person has done something on the page; the first tap
// or key press makes the context (and every later sound works).
function unlock() {
  if (context) return;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  try {
    context = new Context();
  } catch (error) {
    context = null;
  }
}
for (const type of ["pointerdown", "keydown"]) {
  document.addEventListener(type, unlock, { capture: true, passive: true });
}

export function playSound(name) {
  const notes = SOUNDS[name];
  if (!notes || !getPref("sound")) return false;
  document.dispatchEvent(new CustomEvent("tessera:sound", { detail: name }));
  if (!context) return true;
  if (context.state === "suspended") context.resume().catch(() => {});
  const now = context.currentTime;
  for (const [frequency, start, length, wave] of notes) {
    const oscillator = context.createOscillator();
    const gain = context.createGain();
    oscillator.type = wave;
    oscillator.frequency.value = frequency;
    // A quick rise and an exponential fall: a tone, not a click.
    gain.gain.setValueAtTime(0.0001, now + start);
    gain.gain.exponentialRampToValueAtTime(VOLUME, now + start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    oscillator.connect(gain).connect(context.destination);
    oscillator.start(now + start);
    oscillator.stop(now + start + length + 0.02);
  }
  return true;
}
