/**
 * The operator's mail about upgrade requests: what it says, where replies
 * go, the log line without OPERATOR_EMAIL, and a failing send that leaves
 * the request recorded (only logged).
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { create_operator_mail } from "../../server/operator_mail.ts";
import type { Mailer, MailMessage } from "../../server/mail.ts";
import type { UpgradeRequestRecord } from "../../db/mod.ts";

const REQUEST: UpgradeRequestRecord = {
  id: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
  account_id: "3f6c1a52-8b0e-4c7d-9a51-2f4e8d7b6c10",
  account_email: "ada@example.com",
  current_plan: "starter",
  requested_plan: "pro",
  message: "About 600 a month",
  status: "open",
  created_at: new Date("2026-11-23T09:00:00Z"),
  closed_at: null,
  closed_by: null,
  resulting_plan: null,
};

function recording_mailer(fail = false): Mailer & { sent: MailMessage[] } {
  const sent: MailMessage[] = [];
  return {
    kind: "smtp",
    sent,
    send(message) {
      if (fail) return Promise.reject(new Error("550 mailbox unavailable"));
      sent.push(message);
      return Promise.resolve();
    },
    close() {},
  };
}

Deno.test("operator mail: to OPERATOR_EMAIL, Reply-To the customer, with the commands that grant it", async () => {
  const mailer = recording_mailer();
  const mail = create_operator_mail({
    mailer,
    operator_email: "ops@ink.example",
    link_origin: () => "https://invoices.example.com",
  });
  assertEquals(mail.configured, true);
  mail.upgrade_requested({
    request: REQUEST,
    usage: { used: 150, limit: 150 },
    email_verified: false,
  });
  await mail.idle();
  assertEquals(mailer.sent.length, 1);
  const [message] = mailer.sent;
  assertEquals(message.to, "ops@ink.example");
  assertEquals(message.reply_to, "ada@example.com");
  assertEquals(
    message.subject,
    "Upgrade request: ada@example.com asks for Pro",
  );
  assertMatch(message.text, /from Starter to Pro/);
  assertMatch(message.text, /150 of 150 invoices used/);
  assertMatch(message.text, /\(not confirmed yet\)/);
  assertMatch(message.text, /About 600 a month/);
  // The service's own origin (PUBLIC_URL), never one a request named.
  assert(message.text.includes(
    `curl -X PATCH https://invoices.example.com/admin/accounts/${REQUEST.account_id}`,
  ));
  assert(message.text.includes(`set-plan ${REQUEST.account_id} pro`));
  assertMatch(message.text, /To decline, set the plan the account keeps/);
});

Deno.test("operator mail: an inactive account's request says so and the commands reactivate it", async () => {
  const mailer = recording_mailer();
  const mail = create_operator_mail({
    mailer,
    operator_email: "ops@ink.example",
    link_origin: () => "http://127.0.0.1:8000",
  });
  mail.upgrade_requested({
    request: REQUEST,
    usage: { used: 0, limit: 150 },
    email_verified: true,
    subscription_status: "inactive",
  });
  await mail.idle();
  const { text } = mailer.sent[0];
  assertMatch(text, /Subscription: INACTIVE/);
  assert(
    text.includes(`-d '{"plan": "pro", "subscription_status": "active"}'`),
    text,
  );
  assert(text.includes(`set-subscription ${REQUEST.account_id} active`));
  assert(text.includes("PATCH http://127.0.0.1:8000/admin/accounts/"));
  assert(!text.includes("(not confirmed yet)"));
});

Deno.test("operator mail: without OPERATOR_EMAIL the log says no operator mail is configured", async () => {
  const mailer = recording_mailer();
  const lines: string[] = [];
  const mail = create_operator_mail({
    mailer,
    link_origin: () => "http://127.0.0.1:8000",
    write_log: (line) => lines.push(line),
  });
  assertEquals(mail.configured, false);
  mail.upgrade_requested({
    request: REQUEST,
    usage: { used: 150, limit: 150 },
    email_verified: true,
  });
  await mail.idle();
  assertEquals(mailer.sent, []);
  assertEquals(lines.length, 1);
  const record = JSON.parse(lines[0]);
  assertEquals(record.upgrade_request, REQUEST.id);
  assertEquals(record.requested_plan, "pro");
  assertMatch(record.operator_mail, /no operator mail is configured/);
  assertMatch(record.operator_mail, /GET \/admin\/upgrade-requests/);
});

Deno.test("operator mail: a failing send is reported, never thrown", async () => {
  const errors: unknown[] = [];
  const mail = create_operator_mail({
    mailer: recording_mailer(true),
    operator_email: "ops@ink.example",
    link_origin: () => "http://127.0.0.1:8000",
    on_error: (error) => errors.push(error),
  });
  mail.upgrade_requested({
    request: { ...REQUEST, message: null },
    usage: { used: 3, limit: 150 },
    email_verified: true,
  });
  await mail.idle();
  assertEquals(errors.length, 1);
  assertMatch(String(errors[0]), /550 mailbox unavailable/);
});

Deno.test("operator mail: a withdrawn request is mailed too, so nobody grants it; nothing without OPERATOR_EMAIL", async () => {
  const mailer = recording_mailer();
  const mail = create_operator_mail({
    mailer,
    operator_email: "ops@ink.example",
    link_origin: () => "https://invoices.example.com",
  });
  mail.upgrade_withdrawn({
    ...REQUEST,
    status: "withdrawn",
    closed_at: new Date("2026-11-23T10:00:00Z"),
    closed_by: "customer",
  });
  await mail.idle();
  assertEquals(mailer.sent.length, 1);
  const [message] = mailer.sent;
  assertEquals(message.to, "ops@ink.example");
  assertEquals(message.reply_to, "ada@example.com");
  assertEquals(
    message.subject,
    "Upgrade request withdrawn: ada@example.com no longer asks for Pro",
  );
  assertMatch(message.text, /withdrew the request of 2026-11-23T09:00:00/);
  assertMatch(message.text, /Nothing is left to do/);

  const unconfigured = recording_mailer();
  const lines: string[] = [];
  const quiet = create_operator_mail({
    mailer: unconfigured,
    link_origin: () => "https://invoices.example.com",
    write_log: (line) => lines.push(line),
  });
  quiet.upgrade_withdrawn(REQUEST);
  await quiet.idle();
  assertEquals(unconfigured.sent, []);
  assertEquals(lines, []);
});
