// Self-service plan changes on the Usage page, when the server takes
// payments (Stripe): the plan cards start Checkout or change the
// subscription, and "Manage billing" opens Stripe's customer portal.
import { ApiFailure, mutate, query } from "/assets/js/api.js";
import { find, set_busy, show_error } from "/assets/js/ui.js";

const long_date = new Intl.DateTimeFormat(undefined, {
  month: "long",
  day: "numeric",
  year: "numeric",
});

/**
 * @param {string} message
 */
function show_status(message) {
  const element = find("[data-billing-status]");
  element.textContent = message;
  element.hidden = false;
}

/**
 * @param {unknown} error
 */
function show_failure(error) {
  show_error(
    find("[data-billing-error]"),
    error instanceof ApiFailure ? error.message : "The plan change failed.",
  );
}

/**
 * After Stripe Checkout the webhook sets the plan, usually within seconds:
 * wait for it, then reload so every figure shows the new plan.
 */
async function wait_for_subscription() {
  show_status(
    "Payment received. Your new plan is applied as soon as Stripe confirms it…",
  );
  for (let attempt = 0; attempt < 40; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const billing = await query("billing.state").catch(() => null);
    if (billing?.has_subscription) {
      location.replace("/dashboard/usage?billing=updated");
      return;
    }
  }
  show_status(
    "Stripe has not confirmed the payment yet. Reload this page in a minute; if the plan has not changed, contact support.",
  );
}

/**
 * Wires the plan cards and the billing portal button.
 * @param {{plan: string}} account the signed-in account
 */
export async function start_billing(account) {
  const buttons = document.querySelectorAll("[data-choose-plan]");
  if (buttons.length === 0) return;
  const params = new URLSearchParams(location.search);
  const outcome = params.get("billing");
  if (outcome === "canceled") {
    show_status("Checkout was canceled; nothing was charged.");
  } else if (outcome === "updated") {
    show_status("Your plan was updated.");
  }
  let billing;
  try {
    billing = await query("billing.state");
  } catch (error) {
    show_failure(error);
    return;
  }
  if (outcome === "success" && !billing.has_subscription) {
    void wait_for_subscription();
  } else if (outcome === "success") {
    show_status("Thank you: your subscription is active.");
  }
  for (const element of buttons) {
    const button = /** @type {HTMLButtonElement} */ (element);
    const plan = button.dataset.choosePlan ?? "";
    const current = plan === account.plan;
    if (current && billing.pending_plan === null) {
      button.textContent = "Current plan";
      button.disabled = true;
    } else if (current) {
      button.textContent = "Keep this plan";
    }
    button.addEventListener("click", async () => {
      show_error(find("[data-billing-error]"), null);
      set_busy(button, "Working…");
      try {
        const result = await mutate("billing.change_plan", { plan });
        if (result.action === "checkout" && result.url) {
          location.assign(result.url);
          return;
        }
        if (result.action === "downgrade_scheduled" && result.effective_at) {
          show_status(
            `Your plan changes on ${
              long_date.format(new Date(result.effective_at))
            }; until then you keep your current plan.`,
          );
          set_busy(button, null);
          return;
        }
        location.replace("/dashboard/usage?billing=updated");
      } catch (error) {
        set_busy(button, null);
        show_failure(error);
      }
    });
  }
  if (billing.pending_plan) {
    const card = document.querySelector(
      `[data-plan="${billing.pending_plan}"]`,
    );
    const name = card instanceof HTMLElement ? card.dataset.planName : "";
    show_status(
      `Your plan changes to ${name} on ${
        billing.current_period_end
          ? long_date.format(new Date(billing.current_period_end))
          : "the end of the period"
      }.`,
    );
  } else if (billing.cancel_at_period_end && billing.current_period_end) {
    show_status(
      `Your subscription ends on ${
        long_date.format(new Date(billing.current_period_end))
      }; API calls are refused after that. Resume it in Manage billing.`,
    );
  } else if (billing.stripe_status === "past_due") {
    show_status(
      "The last payment failed; Stripe will retry it. Update your payment method in Manage billing to keep your plan.",
    );
  }
  if (billing.stripe_customer_id) {
    const manage = /** @type {HTMLButtonElement} */ (
      find("[data-manage-billing]")
    );
    manage.hidden = false;
    manage.addEventListener("click", async () => {
      set_busy(manage, "Opening…");
      try {
        const { url } = await mutate("billing.portal");
        location.assign(url);
      } catch (error) {
        set_busy(manage, null);
        show_failure(error);
      }
    });
  }
}
