// A rating beside a name, from a payload's badge {rating, provisional} (ratings.display.badge;
// the server renders the same with the template tag rating_badge): "1523", or "1523?" while
// the rating is provisional. A computer player's badge carries its level ("computer"): the
// BOT mark comes first, as the server's rating_badge draws it.
import { el } from "./dom.js";

export function ratingBadge(badge) {
  if (!badge) return null;
  const provisional = Boolean(badge.provisional);
  const rating = el("span", {
    class: provisional ? "rating provisional" : "rating",
    title: `rating ${badge.rating}${provisional ? ", provisional" : ""}`,
  }, `${badge.rating}${provisional ? "?" : ""}`);
  // A bot account (a program playing through the API) has the same mark, without a level.
  if (badge.computer == null && !badge.bot) return rating;
  const mark = badge.computer == null
    ? el("span", { class: "computer-mark", title: "bot account" }, "BOT")
    : el("span", {
      class: "computer-mark",
      title: `computer player, level ${badge.computer}`,
    }, `BOT ${badge.computer}`);
  return el("span", { class: "rated-name-marks" }, mark, " ", rating);
}

// A rating change as players read it: +12, −8, ±0.
export function changeText(change) {
  if (change > 0) return `+${change}`;
  if (change < 0) return `−${-change}`;
  return "±0";
}
