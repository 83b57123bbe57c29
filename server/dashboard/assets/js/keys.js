// The API Keys page: list, generate (the full key is shown once), revoke,
// and a curl example against this very server.
import { ApiFailure, mutate, query } from "/assets/js/api.js";
import { handle_signed_out, start_shell } from "/assets/js/shell.js";
import {
  clear_toast,
  copy_text,
  find,
  format_date,
  format_date_time,
  set_busy,
  show_error,
  time_ago,
  toast,
} from "/assets/js/ui.js";

const table = find("[data-keys-table]");
const body = find("[data-keys-body]");
const row_template = /** @type {HTMLTemplateElement} */ (find(
  "template[data-key-row]",
));
const empty = find("[data-keys-empty]");
const loading = find("[data-keys-loading]");
const list_error = find("[data-keys-error]");
const count = find("[data-key-count]");

const create_dialog = /** @type {HTMLDialogElement} */ (find(
  "[data-create-dialog]",
));
const create_form = /** @type {HTMLFormElement} */ (find("[data-create-form]"));
const create_error = find("[data-create-error]");
const name_input = /** @type {HTMLInputElement} */ (find(
  "[name=name]",
  create_form,
));

const revoke_dialog = /** @type {HTMLDialogElement} */ (find(
  "[data-revoke-dialog]",
));
const revoke_form = /** @type {HTMLFormElement} */ (find("[data-revoke-form]"));
const revoke_error = find("[data-revoke-error]");

const new_key = find("[data-new-key]");
const new_key_value = find("[data-new-key-value]");
const copy_button = /** @type {HTMLButtonElement} */ (find("[data-copy-key]"));

const curl_card = find("[data-curl-card]");
const curl_code = find("[data-curl]");
const curl_note = find("[data-curl-note]");

/** @type {{id: string, name: string, prefix: string} | null} */
let revoking = null;

/** The newest active key, for the curl example when no new key is shown. */
/** @type {{name: string, prefix: string} | null} */
let newest_active = null;

// A small invoice the example sends; the README and /docs show every field.
const today = new Date();
const EXAMPLE_INVOICE = {
  invoice_number: "INV-0001",
  date: today.toISOString().slice(0, 10),
  due_date: new Date(today.getTime() + 30 * 86_400_000).toISOString()
    .slice(0, 10),
  currency: "EUR",
  sender: { name: "Your Company", email: "billing@example.com" },
  bill_to: { name: "Client Ltd", email: "ap@client.example" },
  items: [{ description: "Consulting", quantity: 2, rate: 100, amount: 200 }],
};

/**
 * A copyable curl call of POST /generate on this server (the page's own
 * origin), with the key just created, or the prefix of the newest key.
 */
function render_curl() {
  const full_key = new_key.hidden ? "" : new_key_value.textContent ?? "";
  const key = full_key ||
    (newest_active ? `${newest_active.prefix}…` : "YOUR_API_KEY");
  curl_note.textContent = full_key
    ? "Ready to run with the key you just created. The full key is on this page only until you leave it."
    : newest_active
    ? `Replace ${newest_active.prefix}… with the full key “${newest_active.name}” (only its first characters are kept here).`
    : "Generate a key first, then put it where YOUR_API_KEY stands.";
  curl_code.textContent = [
    `curl -X POST ${location.origin}/generate \\`,
    `  -H "Authorization: Bearer ${key}" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '${JSON.stringify(EXAMPLE_INVOICE)}' \\`,
    "  -o invoice.pdf",
  ].join("\n");
  curl_card.hidden = false;
}

/**
 * @param {unknown} error
 * @param {HTMLElement} element
 */
function report(error, element) {
  if (handle_signed_out(error)) return;
  show_error(
    element,
    error instanceof ApiFailure ? error.message : "Something went wrong.",
  );
}

/**
 * @param {any} key
 * @param {string | null} highlight_id
 * @returns {DocumentFragment}
 */
function render_row(key, highlight_id) {
  const fragment = /** @type {DocumentFragment} */ (row_template.content
    .cloneNode(true));
  const row = find("tr", fragment);
  const cell = (/** @type {string} */ name) =>
    find(`[data-cell="${name}"]`, row);
  row.dataset.keyId = key.id;
  cell("name").textContent = key.name;
  cell("mode").hidden = key.mode !== "test";
  cell("prefix").textContent = `${key.prefix}…`;
  cell("created").textContent = format_date(key.created_at);
  cell("created").title = format_date_time(key.created_at);
  const last_used = cell("last_used");
  last_used.textContent = key.last_used_at
    ? time_ago(key.last_used_at)
    : "Never";
  if (key.last_used_at) last_used.title = format_date_time(key.last_used_at);
  const status = cell("status");
  const button = /** @type {HTMLButtonElement} */ (find("[data-revoke]", row));
  if (key.status === "revoked") {
    row.classList.add("is-revoked");
    status.textContent = "Revoked";
    status.classList.add("badge-revoked");
    const note = document.createElement("span");
    note.className = "status-note";
    note.textContent = `on ${format_date(key.revoked_at)}`;
    note.title = format_date_time(key.revoked_at);
    status.after(note);
    button.remove();
  } else {
    status.textContent = "Active";
    status.classList.add("badge-active");
    button.setAttribute("aria-label", `Revoke ${key.name}`);
    button.addEventListener("click", () => open_revoke(key));
  }
  if (key.id === highlight_id) row.classList.add("is-new");
  return fragment;
}

/** @param {string | null} [highlight_id] */
async function load_keys(highlight_id = null) {
  try {
    const { keys } = await query("account.list_keys");
    show_error(list_error, null);
    // Newest first: the key just made is at the top.
    const sorted = [...keys].sort((a, b) =>
      b.created_at.localeCompare(a.created_at)
    );
    body.replaceChildren(
      ...sorted.map((key) => render_row(key, highlight_id)),
    );
    const active = keys.filter((key) => key.status === "active").length;
    count.textContent = keys.length === 0
      ? ""
      : `${active} active${
        keys.length > active ? `, ${keys.length - active} revoked` : ""
      }`;
    table.hidden = keys.length === 0;
    empty.hidden = keys.length > 0;
    newest_active = sorted.find((key) => key.status === "active") ?? null;
    render_curl();
  } catch (error) {
    report(error, list_error);
  } finally {
    loading.hidden = true;
  }
}

name_input.addEventListener("input", () => {
  name_input.removeAttribute("aria-invalid");
  show_error(create_error, null);
});

function open_create() {
  create_form.reset();
  name_input.removeAttribute("aria-invalid");
  show_error(create_error, null);
  create_dialog.showModal();
  name_input.focus();
}

create_form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = name_input.value.trim();
  if (!name) {
    name_input.setAttribute("aria-invalid", "true");
    show_error(create_error, "Give the key a name, e.g. “Production server”.");
    name_input.focus();
    return;
  }
  const submit = /** @type {HTMLButtonElement} */ (find(
    "button[type=submit]",
    create_form,
  ));
  set_busy(submit, "Generating…");
  try {
    const mode = new FormData(create_form).get("mode") === "test"
      ? "test"
      : "live";
    const created = await mutate("account.create_key", { name, mode });
    create_dialog.close();
    show_new_key(created);
    // Back to the key itself, not to the button that opened the dialog, as
    // soon as it shows (the list reloads behind it).
    new_key_value.focus();
    await load_keys(created.id);
    if (document.activeElement === document.body) new_key_value.focus();
  } catch (error) {
    report(error, create_error);
  } finally {
    set_busy(submit, null);
  }
});

/** @param {{name: string, key: string}} created */
function show_new_key(created) {
  find("[data-new-key-name]").textContent = created.name;
  new_key_value.textContent = created.key;
  copy_button.textContent = "Copy";
  // A "copied" message was about an earlier key.
  clear_toast();
  new_key.hidden = false;
  render_curl();
  new_key.scrollIntoView({ behavior: "smooth", block: "center" });
}

function forget_new_key() {
  // Gone from the page: nothing but this element (and the example) held it.
  new_key_value.textContent = "";
  new_key.hidden = true;
  render_curl();
}

// Leaving (or reloading) loses a key shown once: the browser asks first.
addEventListener("beforeunload", (event) => {
  if (new_key.hidden || !new_key_value.textContent) return;
  event.preventDefault();
  event.returnValue = "";
});

find("[data-copy-curl]").addEventListener("click", async () => {
  if (await copy_text(curl_code.textContent ?? "")) {
    toast("Example copied to the clipboard");
  } else {
    const range = document.createRange();
    range.selectNodeContents(curl_code);
    getSelection()?.removeAllRanges();
    getSelection()?.addRange(range);
    toast("Press Ctrl+C (⌘C) to copy the selected example");
  }
});

copy_button.addEventListener("click", async () => {
  const text = new_key_value.textContent ?? "";
  if (!await copy_text(text)) {
    // Without clipboard permission: select it so Ctrl+C / long-press works.
    const range = document.createRange();
    range.selectNodeContents(new_key_value);
    getSelection()?.removeAllRanges();
    getSelection()?.addRange(range);
    toast("Press Ctrl+C (⌘C) to copy the selected key");
    return;
  }
  copy_button.textContent = "Copied ✓";
  toast("Key copied to the clipboard");
});

find("[data-dismiss-key]").addEventListener("click", forget_new_key);

/** @param {{id: string, name: string, prefix: string}} key */
function open_revoke(key) {
  revoking = key;
  find("[data-revoke-name]").textContent = key.name;
  find("[data-revoke-prefix]").textContent = key.prefix;
  show_error(revoke_error, null);
  revoke_dialog.showModal();
}

revoke_form.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (!revoking) return;
  const submit = /** @type {HTMLButtonElement} */ (find(
    "button[type=submit]",
    revoke_form,
  ));
  set_busy(submit, "Revoking…");
  try {
    await mutate("account.revoke_key", { id: revoking.id });
    revoke_dialog.close();
    toast(`“${revoking.name}” was revoked`);
    revoking = null;
    await load_keys();
  } catch (error) {
    report(error, revoke_error);
  } finally {
    set_busy(submit, null);
  }
});

for (const button of document.querySelectorAll("[data-close-dialog]")) {
  button.addEventListener("click", () => {
    button.closest("dialog")?.close();
  });
}

for (const button of document.querySelectorAll("[data-open-create]")) {
  button.addEventListener("click", open_create);
}

await start_shell();
await load_keys();
