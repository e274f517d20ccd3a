// The player's private notes on the game (play.notes): saved without leaving the page (the
// form works without this script too, with a reload).
import { byId as $ } from "../dom.js";
import { postForJson } from "../http.js";

export function bindNotes() {
  const form = $("note-form");
  if (!form) return;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const status = $("note-status");
    status.textContent = "Saving…";
    try {
      const { response, data } = await postForJson(form.action, new FormData(form));
      status.textContent = response.ok ? "Saved." : data.error || "Not saved.";
    } catch {
      status.textContent = "Not saved: try again.";
    }
  });
}
