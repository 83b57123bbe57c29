// The Try it page: edit invoice JSON, render it as a free session preview
// (invoice.preview) or with one of the account's keys (POST /generate), and
// show the PDF in the page. Validation errors are listed with their paths;
// clicking a path selects that spot in the JSON.
import {
  ApiFailure,
  mutate,
  query,
  read_answer,
  request,
} from "/assets/js/api.js";
import { handle_signed_out, start_shell } from "/assets/js/shell.js";
import { find, set_busy } from "/assets/js/ui.js";

const editor = /** @type {HTMLTextAreaElement} */ (find("[data-editor]"));
const errors = find("[data-errors]");
const errors_title = find("[data-errors-title]");
const errors_list = find("[data-errors-list]");
const key_field = find("[data-key-field]");
const key_input = /** @type {HTMLInputElement} */ (find("[data-api-key]"));
const key_hint = find("[data-key-hint]");
const render_button = /** @type {HTMLButtonElement} */ (find(
  "[data-render]",
));
const render_status = find("[data-render-status]");
const preview = find("[data-preview]");
const frame = /** @type {HTMLIFrameElement} */ (find("[data-preview-frame]"));
const fallback = find("[data-preview-fallback]");
const fallback_open = /** @type {HTMLAnchorElement} */ (find(
  "[data-fallback-open]",
));
const preview_empty = find("[data-preview-empty]");
const actions = find("[data-pdf-actions]");
const open_link = /** @type {HTMLAnchorElement} */ (find("[data-pdf-open]"));
const download_link = /** @type {HTMLAnchorElement} */ (find(
  "[data-pdf-download]",
));
const meta = find("[data-pdf-meta]");

/** @param {Date} date */
function iso_day(date) {
  return date.toISOString().slice(0, 10);
}

/** A valid invoice to start from, dated today: US sales tax, a discount, payment terms. */
function example_invoice() {
  const today = new Date();
  const due = new Date(today.getTime() + 30 * 86400_000);
  return {
    invoice_number: `INV-${today.getUTCFullYear()}-0001`,
    date: iso_day(today),
    due_date: iso_day(due),
    currency: "USD",
    sender: {
      name: "Northwind Studio LLC",
      email: "billing@northwind.example",
      address: "500 Market Street, Suite 200",
      city: "San Francisco",
      state: "CA",
      zip: "94105",
      country: "US",
    },
    bill_to: {
      name: "Globex Corporation",
      email: "accounts@globex.example",
      address: "42 Harbor Road",
      city: "Boston",
      state: "MA",
      zip: "02110",
      country: "US",
    },
    tax_rate: 7.25,
    tax_label: "Sales tax",
    items: [
      {
        description: "Website redesign (fixed fee)",
        quantity: 1,
        rate: 4800,
        amount: 4800,
      },
      {
        description: "Managed hosting, monthly",
        quantity: 12,
        rate: 25,
        amount: 300,
      },
      {
        description: "Support hours",
        quantity: 6,
        rate: 95.5,
        amount: 573,
      },
    ],
    discounts: [{ description: "Returning-customer discount", percent: 5 }],
    payment_terms: "Net 30",
    notes:
      "Thank you for your business. Payment within 30 days by bank transfer.",
  };
}

function reset_example() {
  editor.value = JSON.stringify(example_invoice(), null, 2);
  clear_errors();
}

function clear_errors() {
  errors.hidden = true;
  errors_list.replaceChildren();
  editor.removeAttribute("aria-invalid");
}

/**
 * Turns `items[2].amount` into `["items", 2, "amount"]`.
 * @param {string} path
 * @returns {(string | number)[]}
 */
function parse_path(path) {
  /** @type {(string | number)[]} */
  const segments = [];
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    segments.push(match[2] !== undefined ? Number(match[2]) : match[1]);
  }
  return segments;
}

/**
 * Where the value at `segments` is in a valid JSON text, or the deepest
 * parent that exists (a missing field points at its object).
 * @param {string} text
 * @param {(string | number)[]} segments
 * @returns {{start: number, end: number}}
 */
function locate(text, segments) {
  let i = 0;
  const space = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const skip_string = () => {
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
  };
  /** @returns {{start: number, end: number}} */
  const value = (/** @type {number} */ depth) => {
    space();
    const start = i;
    const wanted = depth < segments.length ? segments[depth] : undefined;
    /** @type {{start: number, end: number} | undefined} */
    let found;
    if (text[i] === "{") {
      i++;
      space();
      while (text[i] !== "}") {
        const key_start = i;
        skip_string();
        const key = JSON.parse(text.slice(key_start, i));
        space();
        i++; // :
        const inner = value(key === wanted ? depth + 1 : segments.length);
        if (key === wanted && !found) found = inner;
        space();
        if (text[i] === ",") {
          i++;
          space();
        }
      }
      i++;
    } else if (text[i] === "[") {
      i++;
      space();
      let index = 0;
      while (text[i] !== "]") {
        const inner = value(index === wanted ? depth + 1 : segments.length);
        if (index === wanted && !found) found = inner;
        index++;
        space();
        if (text[i] === ",") {
          i++;
          space();
        }
      }
      i++;
    } else if (text[i] === '"') {
      skip_string();
    } else {
      while (i < text.length && /[^\s,\]}]/.test(text[i])) i++;
    }
    return found ?? { start, end: i };
  };
  return value(0);
}

/** @param {string} path */
function select_path(path) {
  try {
    const text = editor.value;
    JSON.parse(text);
    const span = path === "(body)"
      ? { start: 0, end: 0 }
      : locate(text, parse_path(path));
    editor.focus();
    editor.setSelectionRange(span.start, span.end);
    // Scroll the selection into view: put the caret's line near the top.
    const line = text.slice(0, span.start).split("\n").length - 1;
    const line_height = parseFloat(getComputedStyle(editor).lineHeight) || 20;
    editor.scrollTop = Math.max(0, (line - 3) * line_height);
  } catch {
    editor.focus();
  }
}

/**
 * @param {string} title
 * @param {{path: string, message: string}[]} details
 */
function show_errors(title, details) {
  errors_title.textContent = title;
  errors_list.replaceChildren(
    ...details.map((detail) => {
      const item = document.createElement("li");
      if (detail.path) {
        const path = document.createElement("button");
        path.type = "button";
        path.className = "error-path";
        path.textContent = detail.path;
        path.title = "Show in the JSON";
        path.addEventListener("click", () => select_path(detail.path));
        item.append(path);
      }
      const message = document.createElement("span");
      message.textContent = detail.message;
      item.append(message);
      return item;
    }),
  );
  errors.hidden = false;
  editor.setAttribute("aria-invalid", "true");
}

/** @type {string | undefined} */
let pdf_url;

/**
 * @param {Blob} pdf
 * @param {string} file_name
 * @param {string} note
 */
function show_pdf(pdf, file_name, note) {
  if (pdf_url) URL.revokeObjectURL(pdf_url);
  pdf_url = URL.createObjectURL(pdf);
  preview.classList.remove("is-stale");
  preview_empty.hidden = true;
  // Phones (Android) have no built-in PDF viewer: offer to open it instead.
  if (navigator.pdfViewerEnabled === false) {
    find("[data-fallback-name]").textContent = file_name;
    fallback_open.href = pdf_url;
    fallback.hidden = false;
  } else {
    frame.src = pdf_url;
    frame.hidden = false;
  }
  open_link.href = pdf_url;
  download_link.href = pdf_url;
  download_link.download = file_name;
  actions.hidden = false;
  meta.textContent = `${file_name} · ${
    (pdf.size / 1024).toFixed(1)
  } KB · ${note}`;
}

/** @param {string} base64 */
function decode_base64(base64) {
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

/** @param {Response} response */
function file_name_of(response) {
  const header = response.headers.get("content-disposition") ?? "";
  return /filename="([^"]+)"/.exec(header)?.[1] ?? "invoice.pdf";
}

function mode() {
  const checked = document.querySelector("input[name=mode]:checked");
  return checked instanceof HTMLInputElement ? checked.value : "preview";
}

async function render() {
  clear_errors();
  // Whatever is shown no longer matches the JSON until this render succeeds.
  if (pdf_url) preview.classList.add("is-stale");
  let invoice;
  try {
    invoice = JSON.parse(editor.value);
  } catch (error) {
    show_errors("The JSON is not valid", [{
      path: "",
      message: error instanceof Error ? error.message : String(error),
    }]);
    return;
  }
  const with_key = mode() === "key";
  const key = key_input.value.trim();
  if (with_key && !key) {
    key_input.setAttribute("aria-invalid", "true");
    key_input.focus();
    render_status.textContent = "Paste an API key first.";
    return;
  }
  set_busy(render_button, "Rendering…");
  render_status.textContent = "";
  const started = performance.now();
  try {
    if (with_key) {
      const response = await request("/generate", {
        method: "POST",
        headers: {
          Authorization: `Bearer ${key}`,
          "Content-Type": "application/json",
        },
        body: JSON.stringify(invoice),
      });
      if (!response.ok) await read_answer(response);
      const remaining = response.headers.get("x-quota-remaining");
      const limit = response.headers.get("x-quota-limit");
      show_pdf(
        await response.blob(),
        file_name_of(response),
        remaining !== null
          ? `counted: ${remaining} of ${limit} left this month`
          : "counted against your plan",
      );
    } else {
      const result = await mutate("invoice.preview", invoice);
      show_pdf(
        new Blob([decode_base64(result.pdf_base64)], {
          type: "application/pdf",
        }),
        result.file_name,
        "free preview, not counted",
      );
    }
    render_status.textContent = `Rendered in ${
      Math.round(performance.now() - started)
    } ms`;
  } catch (error) {
    if (!(error instanceof ApiFailure)) throw error;
    if (!with_key && handle_signed_out(error)) return;
    if (error.details.length > 0) {
      show_errors(
        `${error.details.length} problem${
          error.details.length === 1 ? "" : "s"
        } with the invoice`,
        error.details,
      );
    } else {
      show_errors(error.message, []);
    }
  } finally {
    set_busy(render_button, null);
  }
}

/** @type {{name: string, prefix: string, status: string}[]} */
let account_keys = [];

function describe_key() {
  const key = key_input.value.trim();
  key_input.removeAttribute("aria-invalid");
  key_hint.classList.remove("hint-ok", "hint-bad");
  if (!key) {
    key_hint.textContent =
      "Paste a full key. Full keys are only shown when generated; we never store them.";
    return;
  }
  const match = account_keys.find((item) =>
    key.length > item.prefix.length && key.startsWith(item.prefix)
  );
  if (!match) {
    key_hint.textContent = "This is not one of this account's keys.";
    key_hint.classList.add("hint-bad");
  } else if (match.status !== "active") {
    key_hint.textContent =
      `“${match.name}” was revoked: /generate will answer 403.`;
    key_hint.classList.add("hint-bad");
  } else {
    key_hint.textContent =
      `Key “${match.name}”. Each render counts as one invoice.`;
    key_hint.classList.add("hint-ok");
  }
}

for (const radio of document.querySelectorAll("input[name=mode]")) {
  radio.addEventListener("change", () => {
    key_field.hidden = mode() !== "key";
    render_button.textContent = mode() === "key"
      ? "Generate PDF"
      : "Render PDF";
    if (mode() === "key") key_input.focus();
  });
}
key_input.addEventListener("input", describe_key);
editor.addEventListener("input", () => editor.removeAttribute("aria-invalid"));
editor.addEventListener("keydown", (event) => {
  if ((event.ctrlKey || event.metaKey) && event.key === "Enter") render();
});
render_button.addEventListener("click", render);
find("[data-reset]").addEventListener("click", reset_example);
find("[data-format]").addEventListener("click", () => {
  try {
    editor.value = JSON.stringify(JSON.parse(editor.value), null, 2);
    clear_errors();
  } catch (error) {
    show_errors("The JSON is not valid", [{
      path: "",
      message: error instanceof Error ? error.message : String(error),
    }]);
  }
});

reset_example();
await start_shell();
try {
  account_keys = (await query("account.list_keys")).keys;
} catch (error) {
  handle_signed_out(error);
}
