/**
 * The zod checks that report issues without assigning a closure to zod's
 * payload: what they report and when they run, unit by unit and
 * through the invoice schemas.
 */
import { assert, assertEquals, assertThrows } from "../assert.ts";
import { z } from "zod";
import {
  issue_check,
  type IssueSink,
  normalized,
} from "../../contract/zod_checks.ts";
import {
  GenerateRequestSchema,
  InvoiceRequestSchema,
} from "../../contract/mod.ts";
import { full_invoice } from "../fixtures/invoices.ts";

function issues_of(schema: z.ZodType, value: unknown): [string, string][] {
  const result = schema.safeParse(value);
  assert(!result.success, "expected the value to be refused");
  return result.error.issues.map((
    issue,
  ) => [issue.path.join("."), issue.message]);
}

function check_pair(
  value: { low: number; high: number },
  sink: IssueSink,
): void {
  if (value.high < value.low) {
    sink.addIssue({ path: ["high"], message: "must not be below low" });
  }
}

const Range = z.strictObject({ low: z.number(), high: z.number() });

Deno.test("issue_check: reports each problem at its path and passes good values", () => {
  const schema = Range.check(issue_check(check_pair));
  assertEquals(schema.parse({ low: 1, high: 2 }), { low: 1, high: 2 });
  assertEquals(issues_of(schema, { low: 3, high: 2 }), [[
    "high",
    "must not be below low",
  ]]);
  const nested = z.strictObject({ range: schema });
  assertEquals(issues_of(nested, { range: { low: 3, high: 2 } }), [[
    "range.high",
    "must not be below low",
  ]]);
});

Deno.test("issue_check: runs after a failed field only when asked to (always)", () => {
  const calls: unknown[] = [];
  function record(value: unknown, sink: IssueSink): void {
    calls.push(value);
    sink.addIssue({ message: "recorded" });
  }
  const Loose = z.object({ n: z.number({ error: "must be a number" }) });
  const plain = Loose.check(issue_check(record));
  assertEquals(issues_of(plain, { n: "x" }), [[
    "n",
    "must be a number",
  ]]);
  assertEquals(calls.length, 0);
  const always = Loose.check(issue_check(record, { always: true }));
  assertEquals(issues_of(always, { n: "x" }).map(([, message]) => message), [
    "must be a number",
    "recorded",
  ]);
  assertEquals(calls.length, 1);
});

Deno.test("normalized: replaces the output, only for a value without issues", () => {
  let runs = 0;
  const schema = normalized(
    Range.check(issue_check(check_pair)),
    (range, sink) => {
      runs++;
      const width = range.high - range.low;
      if (width > 10) sink.addIssue({ path: ["high"], message: "too wide" });
      return { width };
    },
  );
  assertEquals(schema.parse({ low: 1, high: 4 }), { width: 3 });
  assertEquals(runs, 1);
  assertEquals(issues_of(schema, { low: 5, high: 4 }), [[
    "high",
    "must not be below low",
  ]]);
  assertEquals(runs, 1, "not run on a value that has issues");
  assertEquals(issues_of(schema, { low: 0, high: 40 }), [["high", "too wide"]]);
  assertThrows(() => schema.parse({ low: 0, high: 40 }));
});

Deno.test("issue_check and normalized assign nothing to zod's payload", () => {
  // zod's superRefine and transform assign payload.addIssue on every call;
  // a non-extensible payload makes any such assignment throw.
  const check = issue_check(check_pair);
  const payload = Object.preventExtensions({
    value: { low: 3, high: 2 },
    issues: [] as z.core.$ZodRawIssue[],
  });
  check._zod.check(
    payload as z.core.ParsePayload<{ low: number; high: number }>,
  );
  assertEquals(payload.issues.map((issue) => issue.message), [
    "must not be below low",
  ]);
  const schema = normalized(Range, (range) => range.high - range.low);
  const checks = schema._zod.def.checks ?? [];
  const last = checks[checks.length - 1];
  const sealed = Object.preventExtensions({
    value: { low: 1, high: 5 } as unknown,
    issues: [] as z.core.$ZodRawIssue[],
  });
  last._zod.check(sealed as z.core.ParsePayload<never>);
  assertEquals(sealed.value, 4);
});

Deno.test("invoice schemas: a malformed currency gets one message, the format's", () => {
  const body = { ...full_invoice(), currency: "euro" };
  const currency = issues_of(InvoiceRequestSchema, body).filter(([path]) =>
    path === "currency"
  );
  assertEquals(currency, [[
    "currency",
    "must be a 3-letter ISO 4217 code like EUR",
  ]]);
  const unknown = issues_of(InvoiceRequestSchema, {
    ...full_invoice(),
    currency: "xyz",
  });
  assertEquals(unknown, [[
    "currency",
    'must be an ISO 4217 currency code in use like EUR (got "XYZ")',
  ]]);
});

Deno.test("invoice schemas: normalized output, and format problems refused", () => {
  const parsed = GenerateRequestSchema.parse(full_invoice());
  assertEquals(parsed.format, "pdf");
  assertEquals(parsed.invoice.invoice_number, "INV-2026-0042");
  assertEquals(
    parsed.invoice,
    InvoiceRequestSchema.parse(full_invoice()),
    "both schemas normalize the invoice alike",
  );
  const refused = issues_of(GenerateRequestSchema, {
    ...full_invoice(),
    format: "xrechnung-ubl",
  });
  assert(
    refused.some(([path, message]) =>
      path === "sender.electronic_address" && /xrechnung-ubl/.test(message)
    ),
    JSON.stringify(refused),
  );
  // Field problems come first; format problems need a valid invoice.
  const bad_date = issues_of(GenerateRequestSchema, {
    ...full_invoice(),
    format: "xrechnung-ubl",
    due_date: "2026-01-01",
  });
  assertEquals(bad_date, [[
    "due_date",
    "must not be before date (2026-11-23)",
  ]]);
});
