// The signed-in pages' frame: the account in the header, sign-out, and
// until the address is confirmed a banner that says where the link is and
// sends a new one.
import { ApiFailure, load_session, mutate } from "/assets/js/api.js";
import { as_sentence, find, set_busy, toast } from "/assets/js/ui.js";

/** localStorage keys of the Try it page's drafts start with this (then the account id). */
export const DRAFT_PREFIX = "ink.try.draft.";

/** Set once the account signs out: pages must not keep drafts after that. */
export let signed_out = false;

/** Forgets every Try it draft kept in this browser (they may hold customer data). */
export function forget_drafts() {
  signed_out = true;
  try {
    for (const key of Object.keys(localStorage)) {
      if (key.startsWith(DRAFT_PREFIX)) localStorage.removeItem(key);
    }
  } catch {
    // Storage disabled: nothing was kept.
  }
}

/** Sends the browser to the sign-in page, coming back here afterwards. */
export function go_to_sign_in() {
  location.replace(
    `/signin?next=${encodeURIComponent(location.pathname)}`,
  );
}

/**
 * Loads the session and fills the header; sends signed-out visitors to the
 * sign-in page (the server does too; this covers a session that expires
 * while the page is open).
 * @returns {Promise<{account: any, csrf_token: string | null}>}
 */
export async function start_shell() {
  const button = find("[data-sign-out]");
  button.addEventListener("click", async () => {
    try {
      await mutate("auth.sign_out");
      forget_drafts();
      location.assign("/signin");
    } catch (error) {
      toast(error instanceof ApiFailure ? error.message : "Sign-out failed");
    }
  });
  const session = await load_session();
  if (!session.account) {
    go_to_sign_in();
    return await new Promise(() => {});
  }
  find("[data-account-email]").textContent = session.account.email;
  if (session.email_verified === false) show_verify_banner(session);
  return session;
}

/**
 * The banner of an unconfirmed address: where the link is (the inbox, or
 * the server's log when it sends no mail) and a button for a new link.
 * @param {{account: any, mail_delivery: string}} session
 */
function show_verify_banner(session) {
  const banner = find("[data-verify-banner]");
  const status = find("[data-verify-status]");
  const resend =
    /** @type {HTMLButtonElement} */ (find("[data-verify-resend]"));
  const email = session.account.email;
  // Start of the log line with a logged mail's link (the server puts it here).
  const mark = banner.dataset.loggedMark;
  find("[data-verify-text]").textContent = session.mail_delivery === "smtp"
    ? `We mailed a link to ${email}; open it to confirm the address. Until then live API keys cannot be created (test keys work).`
    : `This server sends no mail (SMTP_URL is not set), so the link for ${email} is in the server's log, on a line starting with "${mark}". Until it is opened live API keys cannot be created (test keys work).`;
  banner.hidden = false;
  resend.addEventListener("click", async () => {
    set_busy(resend, "Sending…");
    status.textContent = "";
    try {
      const answer = await mutate("auth.resend_verification");
      status.textContent = answer.message;
    } catch (error) {
      if (handle_signed_out(error)) return;
      status.textContent = as_sentence(
        error instanceof ApiFailure ? error.message : "Sending failed",
      );
    } finally {
      set_busy(resend, null);
    }
  });
}

/**
 * Handles a failure that means the session is gone; true when it did.
 * @param {unknown} error
 * @returns {boolean}
 */
export function handle_signed_out(error) {
  if (error instanceof ApiFailure && error.status === 401) {
    go_to_sign_in();
    return true;
  }
  return false;
}
