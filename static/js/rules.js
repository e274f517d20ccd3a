// Rules pages: the size picker under the board diagrams shows one board at a time.
const variants = document.querySelector("[data-board-variants]");
const picker = document.querySelector(".size-picker");

function show(key) {
  for (const figure of variants.querySelectorAll("figure[data-key]")) {
    figure.hidden = figure.dataset.key !== key;
  }
  for (const button of picker.querySelectorAll("button[data-show]")) {
    button.setAttribute("aria-pressed", String(button.dataset.show === key));
  }
}

if (variants && picker) {
  picker.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-show]");
    if (button) show(button.dataset.show);
  });
}
