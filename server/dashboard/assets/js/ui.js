// Small DOM helpers shared by the dashboard pages. Text always goes in
// through textContent, never as HTML.

/**
 * The element matching `selector`; throws when the page lacks it.
 * @template {Element} [T=HTMLElement]
 * @param {string} selector
 * @param {ParentNode} [root]
 * @returns {T}
 */
export function find(selector, root = document) {
  const element = root.querySelector(selector);
  if (!element) throw new Error(`missing element ${selector}`);
  return /** @type {T} */ (element);
}

const date_format = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "short",
  day: "numeric",
});

const date_time_format = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
});

/**
 * @param {string} iso
 * @returns {string} e.g. "Nov 23, 2026"
 */
export function format_date(iso) {
  return date_format.format(new Date(iso));
}

/**
 * @param {string} iso
 * @returns {string} e.g. "Nov 23, 2026, 14:05"
 */
export function format_date_time(iso) {
  return date_time_format.format(new Date(iso));
}

/**
 * A short "how long ago" for recent instants, else the date.
 * @param {string} iso
 * @returns {string}
 */
export function time_ago(iso) {
  const seconds = (Date.now() - new Date(iso).getTime()) / 1000;
  if (seconds < 90) return "Just now";
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) {
    const hours = Math.round(seconds / 3600);
    return `${hours} hour${hours === 1 ? "" : "s"} ago`;
  }
  if (seconds < 7 * 86400) {
    const days = Math.round(seconds / 86400);
    return `${days} day${days === 1 ? "" : "s"} ago`;
  }
  return format_date(iso);
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let toast_timer;

/**
 * Shows a short status message at the bottom of the page.
 * @param {string} message
 */
export function toast(message) {
  const element = document.querySelector("[data-toast]");
  if (!(element instanceof HTMLElement)) return;
  element.textContent = message;
  element.hidden = false;
  clearTimeout(toast_timer);
  toast_timer = setTimeout(() => {
    element.hidden = true;
  }, 3000);
}

/** Hides the status message at once (e.g. when what it was about is gone). */
export function clear_toast() {
  const element = document.querySelector("[data-toast]");
  if (!(element instanceof HTMLElement)) return;
  clearTimeout(toast_timer);
  element.hidden = true;
  element.textContent = "";
}

/**
 * Copies `text` to the clipboard; false when the browser refused.
 * @param {string} text
 * @returns {Promise<boolean>}
 */
export async function copy_text(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * `text` as a sentence: the service's messages end without a full stop,
 * the page's sentences with one.
 * @param {string} text
 * @returns {string}
 */
export function as_sentence(text) {
  const trimmed = text.trimEnd();
  return trimmed === "" || /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/**
 * Shows `message` (as a sentence) in an error element, or hides it when null.
 * @param {HTMLElement} element
 * @param {string | null} message
 */
export function show_error(element, message) {
  element.textContent = message === null ? "" : as_sentence(message);
  element.hidden = message === null;
}

/**
 * Disables a button while work runs, with a temporary label.
 * @param {HTMLButtonElement} button
 * @param {string | null} busy_label null to restore
 */
export function set_busy(button, busy_label) {
  if (busy_label !== null) {
    button.dataset.label ??= button.textContent ?? "";
    button.textContent = busy_label;
    button.disabled = true;
  } else {
    if (button.dataset.label !== undefined) {
      button.textContent = button.dataset.label;
      delete button.dataset.label;
    }
    button.disabled = false;
  }
}
