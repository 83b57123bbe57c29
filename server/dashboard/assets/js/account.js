// The Account page: change the e-mail address (confirmed from a mailed
// link), change the password (other sessions end), delete the account.
import { ApiFailure, mutate } from "/assets/js/api.js";
import { handle_signed_out, start_shell } from "/assets/js/shell.js";
import { find, set_busy, show_error } from "/assets/js/ui.js";

/** Field names as a person reads them in error messages. */
const FIELD_LABELS = {
  new_email: "New e-mail address",
  current_password: "Current password",
  new_password: "New password",
  email: "E-mail address",
  password: "Password",
};

const settings = find("[data-settings]");
const deleted = find("[data-deleted]");
const delete_dialog = /** @type {HTMLDialogElement} */ (find(
  "[data-delete-dialog]",
));
const delete_form = /** @type {HTMLFormElement} */ (find(
  "form",
  delete_dialog,
));
const delete_email = /** @type {HTMLInputElement} */ (find(
  "[name=email]",
  delete_form,
));
const delete_submit = /** @type {HTMLButtonElement} */ (find(
  "button[type=submit]",
  delete_form,
));

/** @type {string} */
let account_email = "";

/**
 * The form's inputs by name.
 * @param {HTMLFormElement} form
 * @returns {HTMLInputElement[]}
 */
function inputs_of(form) {
  return [...form.querySelectorAll("input[name]")].filter((input) =>
    input instanceof HTMLInputElement
  );
}

/**
 * Marks the inputs named by `paths` invalid and focuses the first.
 * @param {HTMLFormElement} form
 * @param {string[]} paths
 */
function mark_invalid(form, paths) {
  let first = true;
  for (const input of inputs_of(form)) {
    if (paths.includes(input.name)) {
      input.setAttribute("aria-invalid", "true");
      if (first) input.focus();
      first = false;
    } else {
      input.removeAttribute("aria-invalid");
    }
  }
}

/**
 * What is wrong with the form before sending it, or null.
 * @param {HTMLFormElement} form
 * @returns {{path: string, message: string} | null}
 */
function check_form(form) {
  for (const input of inputs_of(form)) {
    const label = FIELD_LABELS[/** @type {keyof FIELD_LABELS} */ (input.name)];
    if (!input.value.trim()) {
      return { path: input.name, message: `${label}: enter a value.` };
    }
    if (input.minLength > 0 && input.value.length < input.minLength) {
      return {
        path: input.name,
        message: `${label}: use at least ${input.minLength} characters.`,
      };
    }
  }
  return null;
}

/**
 * What the server answered for a failed request, in words.
 * @param {ApiFailure} error
 * @returns {string}
 */
function failure_text(error) {
  if (error.details.length === 0) return error.message;
  return error.details.map((detail) => {
    const label =
      FIELD_LABELS[/** @type {keyof FIELD_LABELS} */ (detail.path)] ??
        detail.path;
    return `${label} ${detail.message}.`;
  }).join(" ");
}

/**
 * Runs one settings form against its procedure.
 * @param {HTMLFormElement} form
 */
function wire_form(form) {
  const procedure = form.dataset.accountForm ?? "";
  const error_box = find("[data-form-error]", form);
  const done_box = form.querySelector("[data-form-done]");
  const submit = /** @type {HTMLButtonElement} */ (find(
    "button[type=submit]",
    form,
  ));
  for (const input of inputs_of(form)) {
    input.addEventListener("input", () => {
      input.removeAttribute("aria-invalid");
      show_error(error_box, null);
      // A new change is under way: the last one's confirmation is stale.
      if (done_box instanceof HTMLElement) done_box.hidden = true;
    });
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    show_error(error_box, null);
    // Confirmations of earlier changes (in any form) are stale now.
    for (const box of document.querySelectorAll("[data-form-done]")) {
      /** @type {HTMLElement} */ (box).hidden = true;
    }
    const problem = check_form(form);
    if (problem) {
      mark_invalid(form, [problem.path]);
      show_error(error_box, problem.message);
      return;
    }
    /** @type {Record<string, string>} */
    const input = {};
    for (const field of inputs_of(form)) {
      input[field.name] = field.type === "password"
        ? field.value
        : field.value.trim();
    }
    set_busy(submit, "Working…");
    try {
      const answer = await mutate(procedure, input);
      set_busy(submit, null);
      form.reset();
      mark_invalid(form, []);
      if (procedure === "auth.delete_account") {
        show_deleted(answer.message);
        return;
      }
      if (done_box instanceof HTMLElement) {
        done_box.textContent = answer.message;
        done_box.hidden = false;
      }
    } catch (error) {
      set_busy(submit, null);
      if (procedure === "auth.delete_account") update_delete_button();
      if (handle_signed_out(error)) return;
      if (!(error instanceof ApiFailure)) throw error;
      mark_invalid(form, error.details.map((detail) => detail.path));
      show_error(error_box, failure_text(error));
    }
  });
}

/** @param {string} message */
function show_deleted(message) {
  delete_dialog.close();
  settings.remove();
  find("[data-deleted-message]").textContent = message;
  deleted.hidden = false;
  deleted.focus();
  // Nothing is signed in any more.
  find("[data-signed-in-lead]").remove();
  find("[data-verify-banner]").hidden = true;
  find("[data-account-email]").textContent = "";
  find("[data-sign-out]").hidden = true;
  for (const link of document.querySelectorAll(".tabs a")) {
    if (link.getAttribute("href")?.startsWith("/dashboard/")) link.remove();
  }
}

/** The delete button works only once the account's address was typed. */
function update_delete_button() {
  delete_submit.disabled =
    delete_email.value.trim().toLowerCase() !== account_email.toLowerCase();
}

delete_email.addEventListener("input", update_delete_button);

find("[data-open-delete]").addEventListener("click", () => {
  delete_form.reset();
  mark_invalid(delete_form, []);
  show_error(find("[data-form-error]", delete_form), null);
  update_delete_button();
  delete_dialog.showModal();
  delete_email.focus();
});

for (const button of document.querySelectorAll("[data-close-dialog]")) {
  button.addEventListener("click", () => {
    button.closest("dialog")?.close();
  });
}

for (const form of document.querySelectorAll("form[data-account-form]")) {
  if (form instanceof HTMLFormElement) wire_form(form);
}

const session = await start_shell();
account_email = session.account.email;
find("[data-current-email]").textContent = account_email;
find("[data-confirm-email]").textContent = account_email;
