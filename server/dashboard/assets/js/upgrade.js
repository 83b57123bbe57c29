// "Ask for an upgrade" on the Usage page, when the server takes no payments:
// the plans above the current one, an optional message, and afterwards the
// pending request (which can be withdrawn) or what became of it, instead of
// the form.
import { ApiFailure, mutate, query } from "/assets/js/api.js";
import { find, format_date, set_busy, show_error } from "/assets/js/ui.js";

/**
 * @typedef {{id: string, current_plan: string, requested_plan: string,
 *   status: string, created_at: string, closed_at: string | null,
 *   resulting_plan: string | null}} UpgradeRequest
 */

/**
 * The plan's display name, from its card.
 * @param {string} plan
 * @returns {string}
 */
function plan_name(plan) {
  const card = document.querySelector(`[data-plan="${plan}"]`);
  return card instanceof HTMLElement ? card.dataset.planName ?? plan : plan;
}

/**
 * @param {string} plan
 * @returns {DOMStringMap}
 */
function plan_data(plan) {
  const card = document.querySelector(`[data-plan="${plan}"]`);
  return card instanceof HTMLElement ? card.dataset : {};
}

/**
 * @param {string} text
 * @param {{focus?: boolean}} [options]
 */
function show_status(text, options = {}) {
  const status = find("[data-upgrade-status]");
  status.textContent = text;
  status.hidden = false;
  if (options.focus) status.focus();
}

/**
 * What became of a closed request.
 * @param {UpgradeRequest} request
 * @returns {string}
 */
function decision_text(request) {
  const asked = `Your request for ${plan_name(request.requested_plan)} of ${
    format_date(request.created_at)
  }`;
  const when = request.closed_at ? format_date(request.closed_at) : "";
  if (request.status === "withdrawn") {
    return `${asked} was withdrawn on ${when}.`;
  }
  if (request.resulting_plan === request.requested_plan) {
    return `${asked} was granted on ${when}.`;
  }
  if (request.resulting_plan === request.current_plan) {
    return `${asked} was closed on ${when}; your plan stayed ${
      plan_name(request.current_plan)
    }.`;
  }
  return `${asked} was handled on ${when}: your plan is now ${
    plan_name(request.resulting_plan ?? request.current_plan)
  }.`;
}

/**
 * @param {UpgradeRequest} request
 * @param {string} email
 * @returns {string}
 */
function pending_text(request, email) {
  return `Your request for ${plan_name(request.requested_plan)} was sent on ${
    format_date(request.created_at)
  } and is waiting for the operator. They change your plan (it applies at once) and can reply to ${email}. ` +
    "You can send a new request once this one is handled, or withdraw it.";
}

/** Hides every "Ask for …" button on the plan cards. */
function hide_ask_buttons() {
  for (const button of document.querySelectorAll("[data-ask-plan]")) {
    /** @type {HTMLElement} */ (button).hidden = true;
  }
}

/**
 * Fills the plan choices and shows the form.
 * @param {string[]} plans
 */
function show_form(plans) {
  const form = /** @type {HTMLFormElement} */ (find("[data-upgrade-form]"));
  const options = find("[data-upgrade-plans]");
  options.replaceChildren(...plans.map((plan, index) => {
    const data = plan_data(plan);
    const label = document.createElement("label");
    label.className = "mode-option";
    const input = document.createElement("input");
    input.type = "radio";
    input.name = "plan";
    input.value = plan;
    input.checked = index === 0;
    const text = document.createElement("span");
    const name = document.createElement("strong");
    name.textContent = plan_name(plan);
    const detail = document.createElement("small");
    detail.textContent = `${
      Number(data.invoices ?? 0).toLocaleString()
    } invoices a month`;
    text.append(name, detail);
    label.append(input, text);
    return label;
  }));
  form.hidden = false;
  for (const element of document.querySelectorAll("[data-ask-plan]")) {
    const button = /** @type {HTMLElement} */ (element);
    const plan = button.dataset.askPlan ?? "";
    button.hidden = !plans.includes(plan);
    button.addEventListener("click", () => {
      const radio = form.querySelector(`input[value="${plan}"]`);
      if (radio instanceof HTMLInputElement) radio.checked = true;
    });
  }
}

/**
 * Shows the account's upgrade state: the pending request (with Withdraw),
 * why no request can be sent, or the form.
 * @param {any} state the answer of `upgrade.state`
 * @param {{plan: string, email: string}} account
 */
function show_state(state, account) {
  const form = /** @type {HTMLFormElement} */ (find("[data-upgrade-form]"));
  const withdraw_row = find("[data-upgrade-withdraw-row]");
  form.hidden = true;
  withdraw_row.hidden = true;
  if (state.pending) {
    show_status(pending_text(state.pending, account.email));
    hide_ask_buttons();
    withdraw_row.hidden = false;
    withdraw_row.dataset.requestId = state.pending.id;
    return;
  }
  const decision = state.latest && state.latest.status !== "open"
    ? decision_text(state.latest)
    : "";
  if (state.plans_available.length === 0) {
    show_status(
      `${decision} ${
        plan_name(account.plan)
      } is the largest plan; there is no plan to ask for.${
        state.support_email ? ` For more, write to ${state.support_email}.` : ""
      }`.trim(),
    );
    return;
  }
  if (state.requests_left === 0) {
    show_status(
      `${decision} You sent the most requests allowed in 24 hours; you can send another tomorrow.${
        state.support_email ? ` Or write to ${state.support_email}.` : ""
      }`.trim(),
    );
    return;
  }
  const status = find("[data-upgrade-status]");
  status.hidden = decision === "";
  status.textContent = decision;
  show_form(state.plans_available);
}

/**
 * Wires the form for the signed-in account (nothing to do with billing on).
 * @param {{plan: string, email: string}} account
 */
export async function start_upgrade(account) {
  if (!document.querySelector("[data-upgrade-form]")) return;
  const error_element = find("[data-upgrade-error]");
  const load_state = async () => {
    try {
      return await query("upgrade.state");
    } catch (error) {
      show_error(
        error_element,
        error instanceof ApiFailure
          ? error.message
          : "Could not load the upgrade options.",
      );
      return null;
    }
  };
  const state = await load_state();
  if (!state) return;
  show_state(state, account);
  if (location.hash === "#upgrade" && !state.pending) {
    find("[data-upgrade]").scrollIntoView({ block: "start" });
  }
  const form = /** @type {HTMLFormElement} */ (find("[data-upgrade-form]"));
  const send = /** @type {HTMLButtonElement} */ (find("[data-upgrade-send]"));
  const message = /** @type {HTMLTextAreaElement} */ (
    find("[data-upgrade-message]")
  );
  const withdraw = /** @type {HTMLButtonElement} */ (
    find("[data-upgrade-withdraw]")
  );
  withdraw.addEventListener("click", async () => {
    show_error(error_element, null);
    set_busy(withdraw, "Withdrawing…");
    try {
      await mutate("upgrade.withdraw", {
        id: find("[data-upgrade-withdraw-row]").dataset.requestId,
      });
      const fresh = await load_state();
      if (fresh) show_state(fresh, account);
      find("[data-upgrade-status]").focus();
    } catch (error) {
      show_error(
        error_element,
        error instanceof ApiFailure
          ? error.message
          : "The request could not be withdrawn; try again.",
      );
    } finally {
      set_busy(withdraw, null);
    }
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    show_error(error_element, null);
    const chosen = form.querySelector("input[name=plan]:checked");
    if (!(chosen instanceof HTMLInputElement)) {
      show_error(error_element, "Pick the plan you want first.");
      return;
    }
    set_busy(send, "Sending…");
    try {
      const request = await mutate("upgrade.request", {
        plan: chosen.value,
        ...(message.value.trim() ? { message: message.value } : {}),
      });
      set_busy(send, null);
      message.value = "";
      show_state({ pending: request }, account);
      show_status(
        `Request sent. ${pending_text(request, account.email)}`,
        { focus: true },
      );
    } catch (error) {
      set_busy(send, null);
      show_error(
        error_element,
        error instanceof ApiFailure
          ? error.message
          : "The request could not be sent; try again.",
      );
    }
  });
}
