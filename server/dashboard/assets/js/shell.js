// The signed-in pages' frame: the account in the header and sign-out.
import { ApiFailure, load_session, mutate } from "/assets/js/api.js";
import { find, toast } from "/assets/js/ui.js";

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
  return session;
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
