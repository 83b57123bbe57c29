// Forms of the mailed-link flows: asking for a password reset, choosing the
// new password from the link, confirming the address from the link (after
// sign-up, or a new address from the account settings). The
// token comes from the page's own `?token=`; it is sent only in a POST body.
import { ApiFailure, mutate } from "/assets/js/api.js";
import { find, set_busy, show_error } from "/assets/js/ui.js";

const form = document.querySelector("form[data-mail-form]");
if (form instanceof HTMLFormElement) {
  const procedure = form.dataset.mailForm ?? "";
  const error_box = find("[data-form-error]", form);
  const done_box = form.querySelector("[data-form-done]");
  const submit = /** @type {HTMLButtonElement} */ (find(
    "button[type=submit]",
    form,
  ));
  const email = form.querySelector("[name=email]");
  const password = form.querySelector("[name=password]");
  const token = new URLSearchParams(location.search).get("token") ?? "";

  if (procedure !== "auth.request_password_reset" && !token) {
    show_error(
      error_box,
      "This link has no token. Open the link from the mail exactly as it was sent.",
    );
    submit.disabled = true;
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    show_error(error_box, null);
    /** @type {Record<string, string>} */
    const input = {};
    if (email instanceof HTMLInputElement) {
      if (!email.value.trim()) {
        show_error(error_box, "Enter your e-mail.");
        email.focus();
        return;
      }
      input.email = email.value.trim();
    }
    if (password instanceof HTMLInputElement) {
      if (password.value.length < password.minLength) {
        show_error(
          error_box,
          `Use at least ${password.minLength} characters for the password.`,
        );
        password.focus();
        return;
      }
      input.password = password.value;
    }
    if (procedure !== "auth.request_password_reset") input.token = token;
    set_busy(submit, "Working…");
    try {
      const answer = await mutate(procedure, input);
      if (procedure === "auth.reset_password") {
        location.assign("/dashboard/keys");
        return;
      }
      if (done_box instanceof HTMLElement) {
        done_box.textContent = form.dataset.confirms === "change"
          ? `Done: your account now uses ${answer.email}. The previous address was told of the change.`
          : procedure === "auth.verify_email"
          ? `Thank you: ${answer.email} is confirmed.`
          : answer.message;
        done_box.hidden = false;
      }
      submit.hidden = true;
    } catch (error) {
      set_busy(submit, null);
      if (!(error instanceof ApiFailure)) throw error;
      show_error(
        error_box,
        error.details.length > 0 && error.details[0].path !== "token"
          ? error.details.map((detail) =>
            `${
              detail.path === "password" ? "Password" : "E-mail"
            } ${detail.message}.`
          ).join(" ")
          : error.message,
      );
    }
  });
}
