// The create form: only the chosen game's board options and the chosen format's fields are
// shown (without JavaScript every field is there, and the server ignores the ones that do not
// apply).
const form = document.getElementById("new-tournament");

const FORMAT_FIELDS = {
  duration: "arena", rounds: "swiss", round_days: "swiss", double: "roundrobin",
};
const CLOCK_FIELDS = { minutes: "realtime", increment: "realtime", days: "correspondence" };

function fieldBox(name) {
  return form.querySelector(`[data-field="${name}"]`);
}

function update() {
  const game = form.querySelector("[name=game]").value;
  const kind = form.querySelector("[name=kind]").value;
  const clock = form.querySelector("[name=time_kind]:checked")?.value;
  for (const fieldset of form.querySelectorAll("fieldset.options")) {
    fieldset.hidden = fieldset.dataset.game !== game;
  }
  for (const [name, format] of Object.entries(FORMAT_FIELDS)) {
    const box = fieldBox(name);
    if (box) box.hidden = format !== kind;
  }
  for (const [name, kind_] of Object.entries(CLOCK_FIELDS)) {
    const box = fieldBox(name);
    if (box) box.hidden = clock !== undefined && kind_ !== clock;
  }
}

if (form) {
  form.addEventListener("change", update);
  update();
}
