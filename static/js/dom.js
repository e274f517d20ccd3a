// Small DOM helpers shared by the pages' scripts (no framework, no build step).

// An HTML element: `class` sets the class list, `dataset` the data-* attributes, any other
// key an attribute; null and undefined children are skipped, strings become text.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

// Keys typed into a field are text, not shortcuts.
export function isTyping(target) {
  return target instanceof Element
    && (target.isContentEditable || Boolean(target.closest("input, textarea, select")));
}

// A shortcut key without Ctrl, Alt or Meta, pressed outside any text field.
export function isPlainKey(event) {
  return !(event.ctrlKey || event.metaKey || event.altKey) && !isTyping(event.target);
}

export function byId(id) {
  return document.getElementById(id);
}
