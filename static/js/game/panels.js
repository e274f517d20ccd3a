// Everything on the game page besides the board it plays on: the replay bar, the move list,
// the players and their clocks, the status texts, the buttons, the takeback controls, the chat,
// the analysis panel and the sounds. game.js imports this module with import() once the board
// is on its way, so that a slow connection fetches only what draws and plays the board before
// the board is live (issue 21, item 24; docs/measurements.md). The page preloads it anyway.
export { AnalysisPanel } from "../analysis.js";
export { renderMoveList } from "../movelist.js";
export { createReplay } from "../replay.js";
export { ClockHistory } from "../replay/positions.js";
export { playSound } from "../sounds.js";
export { BerserkControls } from "./berserk.js";
export { ChatPanel } from "./chat.js";
export { ConditionControls } from "./conditions.js";
export { GameControls } from "./controls.js";
export { bindNotes } from "./notes.js";
export { PremoveControls } from "./premove.js";
export { TakebackControls, applyTakenBack } from "./takeback.js";
export { onLowTime, renderPlayers, updateClocks } from "./players.js";
export {
  flashPrompt, renderBanner, renderConnection, renderInfo, renderPrompt, renderWatching,
} from "./status.js";
