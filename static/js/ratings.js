// A rating beside a name, from a payload's badge {rating, provisional} (ratings.display.badge;
// the server renders the same with the template tag rating_badge): "1523", or "1523?" while
// the rating is provisional.
import { el } from "./dom.js";

export function ratingBadge(badge) {
  if (!badge) return null;
  const provisional = Boolean(badge.provisional);
  return el("span", {
    class: provisional ? "rating provisional" : "rating",
    title: `rating ${badge.rating}${provisional ? ", provisional" : ""}`,
  }, `${badge.rating}${provisional ? "?" : ""}`);
}

// A rating change as players read it: +12, −8, ±0.
export function changeText(change) {
  if (change > 0) return `+${change}`;
  if (change < 0) return `−${-change}`;
  return "±0";
}
