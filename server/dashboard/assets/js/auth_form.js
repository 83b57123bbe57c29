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

  const done_box = form.querySelector("[data-form-done]");
  let signed_up = false;

  /**
   * Sign-up answered: say where the mail is (the inbox, or the server's log
   * when it sends none), keep the fields (read-only) and turn the button
   * into the one "Sign in" (the link to the sign-in page goes).
   * @param {{message: string, mail_delivery: string}} result
   */
  const show_done = (result) => {
    if (done_box instanceof HTMLElement) {
      done_box.textContent = result.message;
      done_box.classList.toggle("is-notice", result.mail_delivery !== "smtp");
      done_box.hidden = false;
    }
    document.querySelector("[data-signin-switch]")?.remove();
    email.readOnly = true;
    password.readOnly = true;
    submit.textContent = "Sign in";
    submit.focus();
  };

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
    // After sign-up the same form signs in with what was just typed.
    const signing_up = procedure === "auth.sign_up" && !signed_up;
    set_busy(submit, signing_up ? "Creating account…" : "Signing in…");
    try {
      const credentials = {
        email: email.value.trim(),
        password: password.value,
      };
      if (signing_up) {
        // The same answer whether or not the address already has an
        // account (no session either way): the mail tells the two apart.
        const result = await mutate(procedure, credentials);
        signed_up = true;
        set_busy(submit, null);
        show_done(result);
        return;
      }
      await mutate("auth.sign_in", credentials);
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
