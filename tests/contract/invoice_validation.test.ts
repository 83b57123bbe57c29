import { assert, assertEquals, assertMatch } from "../assert.ts";
import {
  type InvoiceRequest,
  InvoiceRequestSchema,
  validation_error,
} from "../../contract/mod.ts";
import { full_invoice } from "../fixtures/invoices.ts";

type Body = Record<string, unknown>;

function details_of(body: unknown): { path: string; message: string }[] {
  const result = InvoiceRequestSchema.safeParse(body);
  assert(!result.success, "expected the body to be rejected");
  const error = validation_error(result.error.issues);
  assertEquals(error.status, 400);
  assertEquals(error.code, "invalid_request");
  return error.details ?? [];
}

function expect_rejected(body: unknown, path: string, message: RegExp): void {
  const details = details_of(body);
  const hit = details.find((detail) => detail.path === path);
  assert(hit, `no detail for ${path} in ${JSON.stringify(details)}`);
  assertMatch(hit.message, message);
}

function with_changes(change: (body: Body) => void): Body {
  const body = structuredClone(full_invoice()) as unknown as Body;
  change(body);
  return body;
}

function item(body: Body, index: number): Body {
  return (body.items as Body[])[index];
}

Deno.test("a complete invoice is accepted and normalised with exact money", () => {
  const parsed = InvoiceRequestSchema.parse(full_invoice());
  assertEquals(parsed.bill_to.name, "Ștefan Bălănescu SRL");
  assertEquals(parsed.items.map((i) => [i.rate, i.amount]), [
    ["1250.5", "2501.00"],
    ["800", "800.00"],
    ["0.125", "0.38"],
  ]);
  assertEquals(parsed.subtotal, "3301.38");
  assertEquals(parsed.total, "3301.38");
});

Deno.test("amounts sum exactly where floats would not (0.1 + 0.2)", () => {
  const parsed = InvoiceRequestSchema.parse(with_changes((body) => {
    body.items = [
      { description: "a", quantity: 1, rate: 0.1, amount: 0.1 },
      { description: "b", quantity: 1, rate: 0.2, amount: 0.2 },
    ];
  }));
  assertEquals(parsed.total, "0.30");
});

Deno.test("every required field missing is a 400 naming it", () => {
  for (
    const field of [
      "invoice_number",
      "date",
      "due_date",
      "sender",
      "bill_to",
      "items",
    ]
  ) {
    expect_rejected(
      with_changes((body) => delete body[field]),
      field,
      /is required/,
    );
  }
  for (const field of ["name", "email"]) {
    expect_rejected(
      with_changes((body) => delete (body.sender as Body)[field]),
      `sender.${field}`,
      /is required/,
    );
    expect_rejected(
      with_changes((body) => delete (body.bill_to as Body)[field]),
      `bill_to.${field}`,
      /is required/,
    );
  }
  for (const field of ["description", "quantity", "rate", "amount"]) {
    expect_rejected(
      with_changes((body) => delete item(body, 1)[field]),
      `items[1].${field}`,
      /is required/,
    );
  }
});

Deno.test("required strings are trimmed and must not be empty", () => {
  expect_rejected(
    with_changes((b) => b.invoice_number = "   "),
    "invoice_number",
    /must not be empty/,
  );
  expect_rejected(
    with_changes((b) => (b.sender as Body).name = ""),
    "sender.name",
    /must not be empty/,
  );
  expect_rejected(
    with_changes((b) => item(b, 0).description = " \n "),
    "items[0].description",
    /must not be empty/,
  );
  const parsed = InvoiceRequestSchema.parse(
    with_changes((b) => b.invoice_number = "  INV-1  "),
  );
  assertEquals(parsed.invoice_number, "INV-1");
});

Deno.test("dates must be real calendar dates in YYYY-MM-DD", () => {
  expect_rejected(
    with_changes((b) => b.date = "2026-02-30"),
    "date",
    /not a real calendar date/,
  );
  expect_rejected(
    with_changes((b) => b.date = "2026-13-01"),
    "date",
    /not a real calendar date/,
  );
  expect_rejected(
    with_changes((b) => b.date = "23/11/2026"),
    "date",
    /YYYY-MM-DD/,
  );
  expect_rejected(
    with_changes((b) => b.due_date = "2026-11-23T00:00:00Z"),
    "due_date",
    /YYYY-MM-DD/,
  );
  // 2028 is a leap year, 2026 is not.
  InvoiceRequestSchema.parse(with_changes((b) => {
    b.date = "2028-02-29";
    b.due_date = "2028-03-01";
  }));
  expect_rejected(
    with_changes((b) => b.date = "2026-02-29"),
    "date",
    /not a real calendar date/,
  );
});

Deno.test("due_date must not be before date", () => {
  expect_rejected(
    with_changes((b) => b.due_date = "2026-11-22"),
    "due_date",
    /must not be before date \(2026-11-23\)/,
  );
  InvoiceRequestSchema.parse(with_changes((b) => b.due_date = b.date));
});

Deno.test("e-mails must be valid addresses", () => {
  expect_rejected(
    with_changes((b) => (b.sender as Body).email = "not-an-email"),
    "sender.email",
    /valid e-mail/,
  );
  expect_rejected(
    with_changes((b) => (b.bill_to as Body).email = "a@"),
    "bill_to.email",
    /valid e-mail/,
  );
});

Deno.test("items must have 1 to 1000 elements", () => {
  expect_rejected(
    with_changes((b) => b.items = []),
    "items",
    /at least one item/,
  );
  const many = Array.from(
    { length: 1001 },
    () => ({ description: "x", quantity: 1, rate: 1, amount: 1 }),
  );
  expect_rejected(
    with_changes((b) => b.items = many),
    "items",
    /at most 1000 items/,
  );
  InvoiceRequestSchema.parse(
    with_changes((b) => b.items = many.slice(0, 1000)),
  );
});

Deno.test("quantity must be a number greater than 0 with at most 4 decimals, never a string", () => {
  expect_rejected(
    with_changes((b) => item(b, 0).quantity = "2"),
    "items[0].quantity",
    /must be a number, got a string/,
  );
  expect_rejected(
    with_changes((b) => item(b, 0).quantity = 1.23456),
    "items[0].quantity",
    /at most 4 decimals/,
  );
  expect_rejected(
    with_changes((b) => item(b, 0).quantity = 0),
    "items[0].quantity",
    /greater than 0/,
  );
  expect_rejected(
    with_changes((b) => item(b, 0).quantity = -3),
    "items[0].quantity",
    /greater than 0/,
  );
  // 1.5 hours at 1250.50 and 0.0001 units at 1,000,000 are accepted.
  const parsed = InvoiceRequestSchema.parse(with_changes((b) => {
    item(b, 0).quantity = 1.5;
    item(b, 0).amount = 1875.75;
    item(b, 1).quantity = 0.0001;
    item(b, 1).rate = 1_000_000;
    item(b, 1).amount = 100;
  }));
  assertEquals(parsed.items[0].quantity, 1.5);
  assertEquals(parsed.items[0].amount, "1875.75");
  assertEquals(parsed.items[1].quantity, 0.0001);
  assertEquals(parsed.total, "1976.13");
});

Deno.test("rate and amount must be finite numbers", () => {
  expect_rejected(
    with_changes((b) => item(b, 0).rate = "12.50"),
    "items[0].rate",
    /must be a number/,
  );
  expect_rejected(
    with_changes((b) => item(b, 0).amount = null),
    "items[0].amount",
    /must be a number, got null/,
  );
  expect_rejected(
    with_changes((b) => item(b, 0).rate = 1e308),
    "items[0].rate",
    /must be between/,
  );
});

Deno.test("amount must be within one cent of quantity × rate, naming the item and the expected value", () => {
  // 3 × 0.125 = 0.375: 0.37 and 0.38 are both within a cent; 0.36 is not.
  expect_rejected(
    with_changes((b) => item(b, 2).amount = 0.36),
    "items[2].amount",
    /must equal quantity × rate = 0\.38 \(got 0\.36\)/,
  );
  expect_rejected(
    with_changes((b) => item(b, 2).amount = 0.39),
    "items[2].amount",
    /= 0\.38 \(got 0\.39\)/,
  );
  // More than two decimals is never a line total.
  expect_rejected(
    with_changes((b) => item(b, 2).amount = 0.375),
    "items[2].amount",
    /= 0\.38/,
  );
  const rounded_down = InvoiceRequestSchema.parse(
    with_changes((b) => item(b, 2).amount = 0.37),
  );
  assertEquals(rounded_down.items[2].amount, "0.37");
  assertEquals(rounded_down.subtotal, "3301.37");
  // Half away from zero for negative rates (discounts).
  const parsed = InvoiceRequestSchema.parse(with_changes((b) => {
    b.items = [{
      description: "Discount",
      quantity: 1,
      rate: -0.005,
      amount: -0.01,
    }];
  }));
  assertEquals(parsed.total, "-0.01");
});

Deno.test("string lengths are limited", () => {
  expect_rejected(
    with_changes((b) => b.invoice_number = "x".repeat(65)),
    "invoice_number",
    /at most 64/,
  );
  expect_rejected(
    with_changes((b) => b.notes = "x".repeat(5001)),
    "notes",
    /at most 5000/,
  );
  expect_rejected(
    with_changes((b) => item(b, 0).description = "x".repeat(5001)),
    "items[0].description",
    /at most 5000/,
  );
  expect_rejected(
    with_changes((b) => (b.sender as Body).zip = "1".repeat(33)),
    "sender.zip",
    /at most 32/,
  );
});

Deno.test("optional address fields and notes must be strings", () => {
  expect_rejected(
    with_changes((b) => (b.sender as Body).zip = 31001),
    "sender.zip",
    /must be a string, got a number/,
  );
  expect_rejected(
    with_changes((b) => b.notes = ["a"]),
    "notes",
    /must be a string, got an array/,
  );
  const parsed = InvoiceRequestSchema.parse(with_changes((b) => {
    delete b.notes;
    b.sender = { name: "Solo", email: "solo@example.com" };
  }));
  assertEquals(parsed.notes, undefined);
  assertEquals(parsed.sender.city, undefined);
});

Deno.test("aliases recipient, line_items and unit_price are accepted", () => {
  const body = with_changes((b) => {
    b.recipient = b.bill_to;
    delete b.bill_to;
    b.line_items = (b.items as Body[]).map((i) => {
      const { rate, ...rest } = i;
      return { ...rest, unit_price: rate };
    });
    delete b.items;
  });
  assertEquals(
    InvoiceRequestSchema.parse(body),
    InvoiceRequestSchema.parse(full_invoice()),
  );
});

Deno.test("giving both names of an alias pair is a 400", () => {
  expect_rejected(
    with_changes((b) => b.recipient = b.bill_to),
    "recipient",
    /either "bill_to" or its alias "recipient"/,
  );
  expect_rejected(
    with_changes((b) => b.line_items = b.items),
    "line_items",
    /either "items" or its alias/,
  );
  expect_rejected(
    with_changes((b) => item(b, 1).unit_price = 800),
    "items[1].unit_price",
    /either "rate" or its alias/,
  );
});

Deno.test("unknown fields are a 400 that names them, at any depth", () => {
  expect_rejected(
    with_changes((b) => b.tax_rates = 0.2),
    "tax_rates",
    /not a known field/,
  );
  expect_rejected(
    with_changes((b) => (b.sender as Body).fax = "123"),
    "sender.fax",
    /not a known field/,
  );
  expect_rejected(
    with_changes((b) => item(b, 2).amout = 1),
    "items[2].amout",
    /not a known field/,
  );
});

Deno.test("all problems are reported at once, with a message naming the first", () => {
  const body = with_changes((b) => {
    delete b.bill_to;
    item(b, 0).quantity = "2";
  });
  const result = InvoiceRequestSchema.safeParse(body);
  assert(!result.success);
  const error = validation_error(result.error.issues);
  assertEquals(error.details?.map((d) => d.path).sort(), [
    "bill_to",
    "items[0].quantity",
  ]);
  assertMatch(error.message, /^Invalid request: .+ \(and 1 more problem\)$/);
});

Deno.test("non-object bodies are rejected", () => {
  for (const body of [null, [], "invoice", 42, true]) {
    expect_rejected(body, "(body)", /must be an object/);
  }
});

Deno.test("currency is an optional ISO 4217 code", () => {
  expect_rejected(
    with_changes((b) => b.currency = "euro"),
    "currency",
    /3-letter ISO 4217/,
  );
  const parsed = InvoiceRequestSchema.parse(
    with_changes((b) => delete b.currency),
  );
  assertEquals(parsed.currency, undefined);
});

// Types stay in sync with the schema: this compiles only if the fixture is a valid request type.
const _typed: InvoiceRequest = full_invoice();
