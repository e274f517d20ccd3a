// "Play the computer": show the chosen game's board options and its levels' ratings, and the
// real-time fields only when the clock is real time. Without JavaScript every field is there and the form still works.

function showChosen(form) {
  const game = form.querySelector("[name$=game]").value;
  for (const part of form.querySelectorAll(".game-options, .level-ratings")) {
    part.hidden = part.dataset.game !== game;
  }
  const kind = (form.querySelector("[name$=time_kind]:checked") || {}).value;
  for (const part of form.querySelectorAll("[data-kind]")) {
    part.hidden = part.dataset.kind !== kind;
  }
}

for (const form of document.querySelectorAll(".computer-form")) {
  form.addEventListener("change", () => showChosen(form));
  showChosen(form);
}
