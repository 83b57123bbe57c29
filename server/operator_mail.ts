/**
 * Mail to the service's operator (`OPERATOR_EMAIL`): a customer asked for a
 * higher plan. Sent in the background, so the customer's answer does not
 * wait for SMTP; the request is recorded either way. Without an operator
 * address, a log line says that no operator mail is configured.
 *
 * @module
 */
import { PLANS } from "../contract/mod.ts";
import type { UpgradeRequestRecord } from "../db/mod.ts";
import type { Mailer } from "./mail.ts";

/** What the operator is told about, with what helps to decide. */
export interface UpgradeRequestNotice {
  request: UpgradeRequestRecord;
  /** This month's invoices used and the plan's limit. */
  usage: { used: number; limit: number };
  /** Whether the account proved its address (replies go to it). */
  email_verified: boolean;
  /** Inactive accounts need `subscription_status` too to use the new plan. */
  subscription_status?: "active" | "inactive";
}

/** Mail to the operator. */
export interface OperatorMail {
  /** Whether `OPERATOR_EMAIL` is set (otherwise notices only go to the log). */
  readonly configured: boolean;
  /** Tells the operator about a new upgrade request (in the background). */
  upgrade_requested(notice: UpgradeRequestNotice): void;
  /**
   * Tells the operator that a customer withdrew a request mailed earlier, so
   * nobody grants a plan no one wants any more (in the background; nothing
   * without `OPERATOR_EMAIL`, whose log lists no open request then).
   */
  upgrade_withdrawn(request: UpgradeRequestRecord): void;
  /** Settles once mail started so far was handed over (tests, shutdown). */
  idle(): Promise<void>;
}

/** Options of {@link create_operator_mail}. */
export interface OperatorMailOptions {
  mailer: Mailer;
  /** `OPERATOR_EMAIL`; unset: notices are logged, not mailed. */
  operator_email?: string;
  /**
   * Where the operator reaches the admin API, e.g.
   * `https://invoices.example.com`: `PUBLIC_URL`, else the address the
   * service listens on (never a request's `Host`).
   */
  link_origin: () => string;
  /** Where log lines go (default: `console.log`). */
  write_log?: (line: string) => void;
  /** Told when a send fails (default: `console.error`). */
  on_error?: (error: unknown) => void;
}

/** Creates the operator's mail. */
export function create_operator_mail(
  options: OperatorMailOptions,
): OperatorMail {
  const pending = new Set<Promise<void>>();
  const write_log = options.write_log ??
    ((line: string) => console.log(line));
  const on_error = options.on_error ??
    ((error: unknown) =>
      console.error(
        "mail: the upgrade request was recorded, but mailing the operator failed:",
        error instanceof Error ? error.message : error,
      ));

  return {
    configured: options.operator_email !== undefined,

    upgrade_requested(notice) {
      const { request } = notice;
      if (!options.operator_email) {
        write_log(JSON.stringify({
          time: new Date().toISOString(),
          upgrade_request: request.id,
          account_id: request.account_id,
          account_email: request.account_email,
          requested_plan: request.requested_plan,
          operator_mail:
            "not sent: no operator mail is configured (OPERATOR_EMAIL unset); " +
            "list open requests with GET /admin/upgrade-requests?status=open " +
            "or `deno task admin list-upgrade-requests --status open`",
        }));
        return;
      }
      const to = options.operator_email;
      const running = options.mailer.send({
        to,
        reply_to: request.account_email,
        subject: `Upgrade request: ${request.account_email} asks for ${
          PLANS[request.requested_plan].name
        }`,
        text: upgrade_request_text(notice, options.link_origin()),
      }).catch(on_error).finally(() => pending.delete(running));
      pending.add(running);
    },

    upgrade_withdrawn(request) {
      if (!options.operator_email) return;
      const running = options.mailer.send({
        to: options.operator_email,
        reply_to: request.account_email,
        subject:
          `Upgrade request withdrawn: ${request.account_email} no longer asks for ${
            PLANS[request.requested_plan].name
          }`,
        text: [
          `${request.account_email} withdrew the request of ${request.created_at.toISOString()} ` +
          `to move from ${PLANS[request.current_plan].name} to ${
            PLANS[request.requested_plan].name
          }.`,
          "Nothing is left to do: the plan stays as it is.",
          "",
          `Account: ${request.account_id}`,
        ].join("\n"),
      }).catch(on_error).finally(() => pending.delete(running));
      pending.add(running);
    },

    async idle() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}

function upgrade_request_text(
  notice: UpgradeRequestNotice,
  origin: string,
): string {
  const { request, usage } = notice;
  const from = PLANS[request.current_plan];
  const to = PLANS[request.requested_plan];
  const inactive = notice.subscription_status === "inactive";
  const body = inactive
    ? `{"plan": "${request.requested_plan}", "subscription_status": "active"}`
    : `{"plan": "${request.requested_plan}"}`;
  return [
    `${request.account_email} asks to move from ${from.name} to ${to.name} ` +
    `(${
      to.monthly_invoices.toLocaleString("en-US")
    } invoices a month, $${to.price_usd} a month).`,
    "",
    `Account:   ${request.account_id}`,
    `E-mail:    ${request.account_email}${
      notice.email_verified ? "" : " (not confirmed yet)"
    }`,
    `This month: ${usage.used} of ${usage.limit} invoices used`,
    ...(inactive
      ? [
        "Subscription: INACTIVE (API calls are refused); reactivate it with the plan change below.",
      ]
      : []),
    `Asked on:  ${request.created_at.toISOString()}`,
    "",
    "Message:",
    request.message ? request.message : "(none)",
    "",
    `To grant it, change the plan (this closes the request and applies at once):`,
    `  curl -X PATCH ${origin}/admin/accounts/${request.account_id} \\`,
    `    -H "Authorization: Bearer $ADMIN_TOKEN" -H "Content-Type: application/json" \\`,
    `    -d '${body}'`,
    `or: deno task admin set-plan ${request.account_id} ${request.requested_plan}` +
    (inactive
      ? ` && deno task admin set-subscription ${request.account_id} active`
      : ""),
    "",
    `To decline, set the plan the account keeps ("${request.current_plan}"): that closes the request too. ` +
    "Reply to this mail to write to the customer.",
    `Open requests: GET ${origin}/admin/upgrade-requests?status=open`,
  ].join("\n");
}
