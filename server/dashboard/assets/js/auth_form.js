// Sign-in and sign-up forms: one script, the procedure named by the form.
import { ApiFailure, mutate } from "/assets/js/api.js";
import { find, set_busy, show_error } from "/assets/js/ui.js";

const LABELS = /** @type {Record<string, string>} */ ({
  email: "E-mail",
  password: "Password",
});

/**
 * Where to go after signing in: a dashboard path from `?next=`, nothing else
 * (no open redirect).
 * @returns {string}
 */
function next_location() {
  const next = new URLSearchParams(location.search).get("next");
  return next && /^\/dashboard\/[a-z]+$/.test(next) ? next : "/dashboard/keys";
}

for (const element of document.querySelectorAll("[data-origin]")) {
  element.textContent = location.origin;
}

const form = document.querySelector("form[data-auth-form]");
if (form instanceof HTMLFormElement) {
  const procedure = form.dataset.authForm ?? "";
  const error_box = find("[data-form-error]", form);
  const submit = /** @type {HTMLButtonElement} */ (find(
    "button[type=submit]",
    form,
  ));
  const email = /** @type {HTMLInputElement} */ (find("[name=email]", form));
  const password = /** @type {HTMLInputElement} */ (find(
    "[name=password]",
    form,
  ));

  for (const input of [email, password]) {
    input.addEventListener(
      "input",
      () => input.removeAttribute("aria-invalid"),
    );
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    show_error(error_box, null);
    const problems = [];
    if (!email.value.trim()) problems.push([email, "Enter your e-mail."]);
    if (!password.value) problems.push([password, "Enter your password."]);
    else if (
      password.minLength > 0 && password.value.length < password.minLength
    ) {
      problems.push([
        password,
        `Use at least ${password.minLength} characters for the password.`,
      ]);
    }
    if (problems.length > 0) {
      for (const [input] of problems) {
        input.setAttribute("aria-invalid", "true");
      }
      show_error(error_box, problems.map(([, text]) => text).join(" "));
      /** @type {HTMLInputElement} */ (problems[0][0]).focus();
      return;
    }
    set_busy(
      submit,
      procedure === "auth.sign_up" ? "Creating account…" : "Signing in…",
    );
    try {
      await mutate(procedure, {
        email: email.value.trim(),
        password: password.value,
      });
      location.assign(next_location());
    } catch (error) {
      set_busy(submit, null);
      if (!(error instanceof ApiFailure)) throw error;
      if (error.details.length > 0) {
        for (const detail of error.details) {
          form.querySelector(`[name="${detail.path}"]`)?.setAttribute(
            "aria-invalid",
            "true",
          );
        }
        show_error(
          error_box,
          error.details.map((detail) =>
            `${LABELS[detail.path] ?? detail.path} ${detail.message}.`
          ).join(" "),
        );
      } else {
        show_error(error_box, error.message);
      }
      if (error.code === "unauthorized") password.select();
    }
  });
}
