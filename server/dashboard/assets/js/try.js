// The Try it page: edit invoice JSON, pick an output format, render it as a
// free session preview (invoice.preview) or with one of the account's keys
// (POST /generate), and show the PDF, or the XML highlighted, in the page. Each kind of refusal is shown as what it is:
// JSON syntax (line and column, caret put there), invoice fields (listed
// with their paths and highlighted in the editor; clicking a path selects
// it), key problems (link to the keys page), plan problems (links to the
// Usage page and the upgrade request) and rate limits (when to retry). The
// editor's text is kept as a draft in localStorage, per account.
import {
  ApiFailure,
  query,
  read_answer,
  request,
  write_headers,
} from "/assets/js/api.js";
import {
  DRAFT_PREFIX,
  handle_signed_out,
  signed_out,
  start_shell,
} from "/assets/js/shell.js";
import { find, set_busy } from "/assets/js/ui.js";
import { show_xml } from "/assets/js/xml_view.js";

const editor = /** @type {HTMLTextAreaElement} */ (find("[data-editor]"));
const errors = find("[data-errors]");
const errors_title = find("[data-errors-title]");
const errors_list = find("[data-errors-list]");
const errors_actions = find("[data-errors-actions]");
const marks = find("[data-editor-marks]");
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
const format_select = /** @type {HTMLSelectElement} */ (find(
  "[data-output-format]",
));
const result_title = find("[data-result-title]");
const xml_view = find("[data-xml-view]");
const xml_code = find("[data-xml-code]");

/** @param {Date} date */
function iso_day(date) {
  return date.toISOString().slice(0, 10);
}

/**
 * The example invoice the server puts in the page (server/example_invoice.ts),
 * with its own date.
 * @type {{invoice_number: string, date: string, due_date: string}}
 */
const EXAMPLE = JSON.parse(editor.dataset.example ?? "");

/**
 * The example dated today: the due date as many days later as in the
 * example, and this year in the invoice number.
 */
function example_invoice() {
  const today = new Date();
  const term = Date.parse(EXAMPLE.due_date) - Date.parse(EXAMPLE.date);
  return {
    ...EXAMPLE,
    invoice_number: EXAMPLE.invoice_number.replace(
      EXAMPLE.date.slice(0, 4),
      String(today.getUTCFullYear()),
    ),
    date: iso_day(today),
    due_date: iso_day(new Date(today.getTime() + term)),
  };
}

/** Where this account's draft is kept (cleared on sign-out and by Reset). */
let draft_key = "";
/** @type {ReturnType<typeof setTimeout> | undefined} */
let draft_timer;
/** The text changed since it was last saved. */
let draft_dirty = false;

function save_draft() {
  clearTimeout(draft_timer);
  if (!draft_key || !draft_dirty || signed_out) return;
  draft_dirty = false;
  try {
    localStorage.setItem(draft_key, editor.value);
  } catch {
    // Storage full or disabled: the draft is simply not kept.
  }
}

function reset_example() {
  editor.value = JSON.stringify(example_invoice(), null, 2);
  clear_errors();
  draft_dirty = false;
  clearTimeout(draft_timer);
  if (draft_key) localStorage.removeItem(draft_key);
}

function clear_errors() {
  errors.hidden = true;
  errors.dataset.kind = "";
  errors_list.replaceChildren();
  errors_actions.replaceChildren();
  errors_actions.hidden = true;
  editor.removeAttribute("aria-invalid");
  key_input.removeAttribute("aria-invalid");
  clear_marks();
  clearInterval(retry_timer);
}

/** Removes the highlights behind the editor. */
function clear_marks() {
  marks.replaceChildren();
}

/**
 * Highlights spans of the editor's text (drawn behind the transparent
 * textarea, in the same font, so they line up with the characters).
 * @param {{start: number, end: number}[]} spans
 */
function show_marks(spans) {
  const text = editor.value;
  const sorted = spans.filter((span) => span.end > span.start)
    .sort((a, b) => a.start - b.start);
  /** @type {(string | HTMLElement)[]} */
  const parts = [];
  let at = 0;
  for (const span of sorted) {
    if (span.start < at) continue; // overlapping: the first one wins
    parts.push(text.slice(at, span.start));
    const mark = document.createElement("mark");
    mark.textContent = text.slice(span.start, span.end);
    parts.push(mark);
    at = span.end;
  }
  // A trailing newline keeps the last line's height equal to the textarea's.
  parts.push(text.slice(at) + "\n");
  marks.replaceChildren(...parts);
  sync_marks();
}

function sync_marks() {
  marks.scrollTop = editor.scrollTop;
  marks.scrollLeft = editor.scrollLeft;
}

/**
 * 1-based line and column of an offset in the editor's text.
 * @param {string} text
 * @param {number} offset
 */
function line_column(text, offset) {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

/**
 * The span of the line holding `offset` (without its newline).
 * @param {string} text
 * @param {number} offset
 */
function line_span(text, offset) {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  const newline = text.indexOf("\n", offset);
  return { start, end: newline === -1 ? text.length : newline };
}

/**
 * Where JSON.parse stopped, as an offset: browsers say "position N",
 * "line L column C", or (at the end) "unexpected end".
 * @param {string} text
 * @param {string} message
 * @returns {number}
 */
function syntax_error_offset(text, message) {
  const line_col = /line (\d+) column (\d+)/i.exec(message);
  if (line_col) {
    const lines = text.split("\n");
    const line = Math.min(Number(line_col[1]), lines.length);
    let offset = 0;
    for (let i = 0; i < line - 1; i++) offset += lines[i].length + 1;
    return Math.min(text.length, offset + Number(line_col[2]) - 1);
  }
  const position = /position (\d+)/i.exec(message);
  if (position) return Math.min(text.length, Number(position[1]));
  return text.length;
}

/**
 * Puts the caret (or a selection) at `span`, scrolled into view.
 * @param {{start: number, end: number}} span
 */
function place_caret(span) {
  editor.focus();
  editor.setSelectionRange(span.start, span.end);
  // Scroll the selection into view: put the caret's line near the top.
  const line = line_column(editor.value, span.start).line - 1;
  const line_height = parseFloat(getComputedStyle(editor).lineHeight) || 20;
  editor.scrollTop = Math.max(0, (line - 3) * line_height);
  sync_marks();
}

/**
 * Checks the editor's JSON; on a syntax error shows where (line and
 * column), highlights that line and puts the caret there.
 * @returns {boolean} whether the JSON parses
 */
function check_syntax() {
  const text = editor.value;
  try {
    JSON.parse(text);
    return true;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const offset = syntax_error_offset(text, message);
    const { line, column } = line_column(text, offset);
    // The browser's words, without its own position (shown as line/column).
    const reason = message.replace(/\s*(in JSON )?at position \d+.*$/s, "")
      .replace(/^JSON\.parse: /, "")
      .replace(/ at line \d+ column \d+ of the JSON data$/, "");
    show_errors(
      "json",
      `The JSON is not valid: line ${line}, column ${column}`,
      [{
        path: "",
        message: reason || "Unexpected text",
      }],
    );
    show_marks([line_span(text, offset)]);
    place_caret({ start: offset, end: offset });
    return false;
  }
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
 * @returns {{start: number, end: number, exact?: boolean}}
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
  /** @returns {{start: number, end: number, exact?: boolean}} */
  const value = (/** @type {number} */ depth) => {
    space();
    const start = i;
    const wanted = depth < segments.length ? segments[depth] : undefined;
    /** @type {{start: number, end: number, exact?: boolean} | undefined} */
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
    return found ?? { start, end: i, exact: depth >= segments.length };
  };
  return value(0);
}

/**
 * The span to highlight for a field path: its value, or for a missing
 * field the first line of the object that should hold it.
 * @param {string} text
 * @param {string} path
 */
function path_span(text, path) {
  if (path === "(body)" || path === "") return line_span(text, 0);
  const span = locate(text, parse_path(path));
  return span.exact ? span : line_span(text, span.start);
}

/** @param {string} path */
function select_path(path) {
  try {
    JSON.parse(editor.value);
    place_caret(path_span(editor.value, path));
  } catch {
    editor.focus();
  }
}

/**
 * @typedef {"json" | "fields" | "key" | "plan" | "rate" | "other"} ErrorKind
 * json: the text is not JSON; fields: 400 with per-field paths; key:
 * unknown or revoked key; plan: month used up or subscription inactive;
 * rate: 429; other: anything else.
 */

/**
 * Shows a problem: its kind (for styling and tests), a title, per-field
 * details (paths select the spot in the JSON) and links to act on it.
 * @param {ErrorKind} kind
 * @param {string} title
 * @param {{path: string, message: string}[]} details
 * @param {{href: string, label: string, primary?: boolean}[]} [links]
 */
function show_errors(kind, title, details, links = []) {
  errors.dataset.kind = kind;
  errors_title.textContent = title;
  const text = editor.value;
  let parses = true;
  try {
    JSON.parse(text);
  } catch {
    parses = false;
  }
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
        if (parses) {
          const where = document.createElement("span");
          where.className = "error-line";
          where.textContent = `line ${
            line_column(text, path_span(text, detail.path).start).line
          }`;
          item.append(where);
        }
      }
      const message = document.createElement("span");
      message.textContent = detail.message;
      item.append(message);
      return item;
    }),
  );
  errors_actions.replaceChildren(
    ...links.map((link) => {
      const anchor = document.createElement("a");
      anchor.className = `button button-small ${
        link.primary ? "button-primary" : "button-secondary"
      }`;
      anchor.href = link.href;
      anchor.textContent = link.label;
      return anchor;
    }),
  );
  errors_actions.hidden = links.length === 0;
  errors.hidden = false;
  if (kind === "json" || kind === "fields") {
    editor.setAttribute("aria-invalid", "true");
  }
  if (kind === "fields" && parses) {
    show_marks(
      details.filter((detail) => detail.path).map((detail) =>
        path_span(text, detail.path)
      ),
    );
  }
}

/** @type {ReturnType<typeof setInterval> | undefined} */
let retry_timer;

/**
 * A 429: says when to try again, counting down to it.
 * @param {ApiFailure} error
 */
function show_rate_limited(error) {
  const seconds = error.retry_after ?? 60;
  const until = Date.now() + seconds * 1000;
  const at = new Intl.DateTimeFormat(undefined, {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).format(new Date(until));
  show_errors("rate", "Too many requests for now", [{
    path: "",
    message: error.message,
  }]);
  const line = document.createElement("li");
  line.dataset.retry = "";
  errors_list.append(line);
  const tick = () => {
    const left = Math.ceil((until - Date.now()) / 1000);
    if (left <= 0) {
      clearInterval(retry_timer);
      line.textContent = "You can try again now.";
      return;
    }
    line.textContent = `Try again in ${left} second${
      left === 1 ? "" : "s"
    } (at ${at}). Nothing was counted.`;
  };
  clearInterval(retry_timer);
  tick();
  retry_timer = setInterval(tick, 1000);
}

/**
 * Shows a refused render as the kind of problem it is.
 * @param {ApiFailure} error
 * @param {boolean} with_key
 */
function show_failure(error, with_key) {
  const keys_link = { href: "/dashboard/keys", label: "Go to API keys" };
  const usage_link = { href: "/dashboard/usage", label: "See usage & plan" };
  const upgrade_link = {
    href: "/dashboard/usage#upgrade",
    label: "Ask for an upgrade",
    primary: true,
  };
  if (error.status === 400 && error.details.length > 0) {
    show_errors(
      "fields",
      `${error.details.length} problem${
        error.details.length === 1 ? "" : "s"
      } with the invoice`,
      error.details,
    );
  } else if (with_key && error.code === "unauthorized") {
    key_input.setAttribute("aria-invalid", "true");
    show_errors("key", "This API key is not known", [{
      path: "",
      message:
        `${error.message}. Check that you pasted the whole key; full keys are shown only once, ` +
        "when generated, so generate a new one on the API keys page if it is lost.",
    }], [keys_link]);
  } else if (error.code === "key_revoked") {
    key_input.setAttribute("aria-invalid", "true");
    show_errors("key", "This API key was revoked", [{
      path: "",
      message: error.message,
    }], [keys_link]);
  } else if (error.code === "quota_exceeded") {
    show_errors("plan", "This month's invoices are used up", [{
      path: "",
      message: error.message,
    }], [usage_link, upgrade_link]);
  } else if (error.code === "test_limit_reached") {
    show_errors("plan", "This month's test documents are used up", [{
      path: "",
      message: error.message,
    }], [usage_link]);
  } else if (error.code === "subscription_inactive") {
    show_errors("plan", "The subscription is inactive", [{
      path: "",
      message: error.message,
    }], [usage_link, upgrade_link]);
  } else if (error.status === 429) {
    show_rate_limited(error);
  } else {
    show_errors("other", error.message, []);
  }
}

/** @type {string | undefined} */
let pdf_url;

/**
 * Shows a rendered document: a PDF in the browser's viewer, XML as
 * highlighted text; either way with Open and Download.
 * @param {Blob} document_blob
 * @param {{file_name: string, note: string, format: string, xml?: string}} shown
 */
function show_document(document_blob, shown) {
  if (pdf_url) URL.revokeObjectURL(pdf_url);
  pdf_url = URL.createObjectURL(document_blob);
  preview.classList.remove("is-stale");
  preview_empty.hidden = true;
  fallback.hidden = true;
  frame.hidden = true;
  xml_view.hidden = true;
  result_title.textContent = format_name(shown.format);
  if (shown.xml !== undefined) {
    frame.removeAttribute("src");
    show_xml(xml_code, shown.xml);
    xml_view.hidden = false;
    xml_view.scrollTop = 0;
  } else if (navigator.pdfViewerEnabled === false) {
    // Phones (Android) have no built-in PDF viewer: offer to open it instead.
    find("[data-fallback-name]").textContent = shown.file_name;
    fallback_open.href = pdf_url;
    fallback.hidden = false;
  } else {
    frame.src = pdf_url;
    frame.hidden = false;
  }
  open_link.href = pdf_url;
  download_link.href = pdf_url;
  download_link.download = shown.file_name;
  actions.hidden = false;
  meta.textContent = `${shown.file_name} · ${
    (document_blob.size / 1024).toFixed(1)
  } KB · ${shown.note}`;
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

/**
 * The format's name, from the page's format choices (the server's registry).
 * @param {string} format
 */
function format_name(format) {
  const option = [...format_select.options].find((item) =>
    item.value === format
  );
  return option?.textContent ?? format;
}

/**
 * Whether the format answers XML (else a PDF).
 * @param {string} format
 */
function is_xml(format) {
  const option = [...format_select.options].find((item) =>
    item.value === format
  );
  return option?.dataset.output === "xml";
}

/**
 * The request body and format: the editor's text as typed, with the chosen
 * format added unless the JSON names one itself (which then wins, as it
 * would for /generate).
 * @param {string} text JSON that parses
 * @returns {{body: string, format: string}}
 */
function request_of(text) {
  const parsed = JSON.parse(text);
  const own = parsed && typeof parsed === "object" && !Array.isArray(parsed) &&
      Object.hasOwn(parsed, "format")
    ? parsed.format
    : undefined;
  if (own !== undefined) {
    return { body: text, format: typeof own === "string" ? own : "pdf" };
  }
  const format = format_select.value;
  if (format === "pdf") return { body: text, format };
  const brace = text.indexOf("{");
  const rest = text.slice(brace + 1);
  const field = `"format": ${JSON.stringify(format)}`;
  return {
    body: `${text.slice(0, brace + 1)}${field}${
      /^\s*\}/.test(rest) ? "" : ", "
    }${rest}`,
    format,
  };
}

/** The render button says what it makes: Render or Generate, PDF or XML. */
function update_render_label() {
  const output = is_xml(format_select.value) ? "XML" : "PDF";
  render_button.textContent = `${
    mode() === "key" ? "Generate" : "Render"
  } ${output}`;
}

/**
 * This month's counts of the account (`account.usage`), for the key hints;
 * null until loaded or when it could not be.
 * @type {{used: number, limit: number, remaining: number, test_calls: number, test_limit: number} | null}
 */
let usage = null;

async function refresh_usage() {
  try {
    usage = await query("account.usage");
  } catch (error) {
    handle_signed_out(error);
  }
}

const number = new Intl.NumberFormat();

/** What a test document costs, with this month's count left. */
function test_documents_text() {
  const left = usage
    ? `; ${
      number.format(Math.max(0, usage.test_limit - usage.test_calls))
    } of ${number.format(usage.test_limit)} test documents left this month`
    : "";
  return `test documents are not charged${left}`;
}

/**
 * What the meta line says after a render with a key.
 * @param {Response} response
 * @param {boolean} test_key
 */
async function counted_text(response, test_key) {
  const replayed = response.headers.get("idempotent-replayed") === "true";
  if (test_key) {
    await refresh_usage();
    describe_key();
    return `${
      replayed ? "served again for free" : "test document"
    }: ${test_documents_text()}`;
  }
  const remaining = response.headers.get("x-quota-remaining");
  const limit = response.headers.get("x-quota-limit");
  const left = remaining !== null
    ? `${remaining} of ${limit} left this month`
    : "";
  await refresh_usage();
  describe_key();
  return replayed
    ? `not counted: the same invoice was already generated this month, so it was served again for free${
      left ? ` (${left})` : ""
    }`
    : left
    ? `counted: ${left}`
    : "counted against your plan";
}

async function render() {
  clear_errors();
  // Whatever is shown no longer matches the JSON until this render succeeds.
  if (pdf_url) preview.classList.add("is-stale");
  if (!check_syntax()) return;
  // The text goes as typed, so the server sees what /generate would
  // (duplicate keys, for one, are refused with their path).
  const { body, format } = request_of(editor.value);
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
        body,
      });
      if (!response.ok) await read_answer(response);
      const blob = await response.blob();
      const xml = (response.headers.get("content-type") ?? "").includes("xml")
        ? await blob.text()
        : undefined;
      show_document(blob, {
        file_name: file_name_of(response),
        format,
        xml,
        note: await counted_text(response, key.startsWith("ink_test_")),
      });
    } else {
      const response = await request("/trpc/invoice.preview", {
        method: "POST",
        headers: {
          Accept: "application/json",
          "Content-Type": "application/json",
          ...await write_headers(),
        },
        body,
      });
      const result = await read_answer(response);
      const blob = result.xml !== undefined
        ? new Blob([result.xml], { type: "application/xml" })
        : new Blob([decode_base64(result.pdf_base64)], {
          type: "application/pdf",
        });
      show_document(blob, {
        file_name: result.file_name,
        format,
        xml: result.xml,
        note: result.xml !== undefined
          ? "free preview, not counted; marked as a test document (TEST- number, (TEST) seller, note), so it is not a valid e-invoice"
          : "free preview, not counted; every page is marked PREVIEW",
      });
    }
    render_status.textContent = `Rendered in ${
      Math.round(performance.now() - started)
    } ms`;
  } catch (error) {
    if (!(error instanceof ApiFailure)) throw error;
    if (!with_key && handle_signed_out(error)) return;
    show_failure(error, with_key);
  } finally {
    set_busy(render_button, null);
  }
}

/** @type {{name: string, prefix: string, status: string, mode: string}[]} */
let account_keys = [];

function describe_key() {
  const key = key_input.value.trim();
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
  } else if (match.mode === "test") {
    key_hint.textContent =
      `Test key “${match.name}”: ${test_documents_text()}.`;
    key_hint.classList.add("hint-ok");
  } else {
    const left = usage
      ? `; ${number.format(usage.remaining)} of ${
        number.format(usage.limit)
      } left this month`
      : "";
    key_hint.textContent =
      `Live key “${match.name}”: each render uses one invoice of your plan${left}.`;
    key_hint.classList.add("hint-ok");
  }
}

for (const radio of document.querySelectorAll("input[name=mode]")) {
  radio.addEventListener("change", () => {
    key_field.hidden = mode() !== "key";
    update_render_label();
    if (mode() === "key") key_input.focus();
  });
}
format_select.addEventListener("change", update_render_label);
key_input.addEventListener("input", () => {
  key_input.removeAttribute("aria-invalid");
  describe_key();
});
editor.addEventListener("input", () => {
  editor.removeAttribute("aria-invalid");
  // Highlights no longer match the text once it changes.
  clear_marks();
  draft_dirty = true;
  clearTimeout(draft_timer);
  draft_timer = setTimeout(save_draft, 300);
});
editor.addEventListener("scroll", sync_marks);
addEventListener("pagehide", save_draft);
editor.addEventListener("keydown", (event) => {
  if ((event.ctrlKey || event.metaKey) && event.key === "Enter") render();
});
render_button.addEventListener("click", render);
find("[data-reset]").addEventListener("click", reset_example);
find("[data-format]").addEventListener("click", () => {
  clear_errors();
  if (!check_syntax()) return;
  editor.value = JSON.stringify(JSON.parse(editor.value), null, 2);
  draft_dirty = true;
  save_draft();
});

// The example at once; the account's draft, if any, once the session says
// whose it is (unless the user started typing meanwhile).
reset_example();
const session = await start_shell();
draft_key = `${DRAFT_PREFIX}${session.account.id}`;
const draft = localStorage.getItem(draft_key);
if (draft_dirty) {
  save_draft();
} else if (draft !== null && draft.trim() !== "") {
  editor.value = draft;
  find("[data-draft-note]").textContent =
    "Your draft from last time, kept in this browser. Reset example starts over.";
}
update_render_label();
try {
  account_keys = (await query("account.list_keys")).keys;
} catch (error) {
  handle_signed_out(error);
}
await refresh_usage();
describe_key();
