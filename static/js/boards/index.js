// The board module of each board kind ("hex", "square", "tripen": state.board.kind), loaded
// when a page first needs it. Each exports createBoard(svg, {onAction, game}) (UI_API).
export function loadBoard(kind) {
  return import(new URL(`./${kind}.js`, import.meta.url).href);
}
