/**
 * Currency rules: codes checked against ISO 4217, lower case upper-cased,
 * amounts in a currency without a minor unit (JPY, KRW) whole numbers only,
 * computed amounts rounded to it, and the PDF printing them without decimals.
 * Through the schema, the renderer and HTTP.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import {
  type InvoiceRequest,
  InvoiceRequestSchema,
  validation_error,
} from "../../contract/mod.ts";
import {
  CURRENCY_CODES,
  currency_minor_units,
} from "../../contract/currencies.ts";
import { render_invoice_pdf } from "../../server/pdf/mod.ts";
import { pdf_text } from "../helpers/pdf_text.ts";
import { start_test_server } from "../helpers/test_server.ts";

function yen_invoice(changes: Record<string, unknown> = {}): InvoiceRequest {
  return {
    invoice_number: "JP-1",
    date: "2026-11-23",
    due_date: "2026-12-23",
    currency: "JPY",
    sender: { name: "Tanaka Design", email: "billing@tanaka.example" },
    bill_to: { name: "Suzuki Trading", email: "ap@suzuki.example" },
    items: [
      { description: "Workshop", quantity: 3, rate: 1505, amount: 4515 },
    ],
    tax_rate: 10,
    discounts: [{ description: "Loyalty", percent: 3.33 }],
    ...changes,
  } as InvoiceRequest;
}

function rejected_paths(body: unknown): Map<string, string> {
  const result = InvoiceRequestSchema.safeParse(body);
  assert(!result.success, "expected the body to be rejected");
  const error = validation_error(result.error.issues);
  assertEquals(error.status, 400);
  return new Map((error.details ?? []).map((d) => [d.path, d.message]));
}

Deno.test("currency: a code outside ISO 4217 is a 400 naming currency", () => {
  for (const code of ["XYZ", "xyz", "ABC", "XXX", "XTS", "HRK"]) {
    const paths = rejected_paths(yen_invoice({ currency: code }));
    assertMatch(paths.get("currency") ?? "", /ISO 4217/, code);
  }
  const paths = rejected_paths(yen_invoice({ currency: "EURO" }));
  assertMatch(paths.get("currency") ?? "", /3-letter ISO 4217/);
});

Deno.test("currency: lower case is accepted and upper-cased", () => {
  for (
    const [given, code] of [["jpy", "JPY"], ["eur", "EUR"], ["Usd", "USD"]]
  ) {
    const parsed = InvoiceRequestSchema.parse(yen_invoice({ currency: given }));
    assertEquals(parsed.currency, code);
  }
});

Deno.test("currency: the table holds minor units as ISO 4217 gives them", () => {
  assertEquals(currency_minor_units("JPY"), 0);
  assertEquals(currency_minor_units("KRW"), 0);
  assertEquals(currency_minor_units("EUR"), 2);
  assertEquals(currency_minor_units("KWD"), 3);
  assertEquals(currency_minor_units("XYZ"), undefined);
  assert(CURRENCY_CODES.length > 150, "the whole active list");
  for (const code of CURRENCY_CODES) assertMatch(code, /^[A-Z]{3}$/);
});

Deno.test("JPY and KRW: a rate or amount with decimals is a 400 naming the field", () => {
  for (const currency of ["JPY", "KRW"]) {
    const paths = rejected_paths(yen_invoice({
      currency,
      items: [{ description: "x", quantity: 2, rate: 1.5, amount: 3 }],
    }));
    assertMatch(paths.get("items[0].rate") ?? "", /whole number/, currency);
    assert(!paths.has("items[0].amount"), "3 is whole");
  }
  const more = rejected_paths(yen_invoice({
    items: [{
      description: "x",
      quantity: 1,
      unit_price: 10.25,
      amount: 10.25,
    }],
    discounts: [{ description: "d", amount: 0.5 }],
    amount_paid: 1.1,
    expected_total: 9.99,
  }));
  for (
    const path of [
      "items[0].unit_price",
      "items[0].amount",
      "discounts[0].amount",
      "amount_paid",
      "expected_total",
    ]
  ) {
    assertMatch(more.get(path) ?? "", /JPY has no minor unit/, path);
  }
  // The same decimals in EUR stay valid.
  InvoiceRequestSchema.parse(yen_invoice({
    currency: "EUR",
    items: [{ description: "x", quantity: 2, rate: 1.5, amount: 3 }],
  }));
});

Deno.test("JPY: percent discounts and tax are rounded to whole yen", () => {
  const yen = InvoiceRequestSchema.parse(yen_invoice());
  // 3.33% of 4515 = 150.3495 → 150; tax 10% of 4365 = 436.5 → 437.
  assertEquals(yen.discounts?.[0].amount, "150.00");
  assertEquals(yen.tax_total, "437.00");
  assertEquals(yen.total, "4802.00");
  const euro = InvoiceRequestSchema.parse(yen_invoice({ currency: "EUR" }));
  assertEquals(euro.discounts?.[0].amount, "150.35");
  assertEquals(euro.tax_total, "436.47");
});

Deno.test("JPY: the PDF prints amounts without decimals, with and without a locale", async () => {
  for (const locale of [undefined, "en-US", "de-DE"]) {
    const invoice = InvoiceRequestSchema.parse(
      yen_invoice(locale ? { locale } : {}),
    );
    const text = await pdf_text(render_invoice_pdf(invoice));
    assert(/4[,.]802/.test(text), `${locale}: total in ${text}`);
    assert(!/4[,.]802[.,]00/.test(text), `${locale}: no decimals in ${text}`);
    assert(!/1[,.]505[.,]00/.test(text), `${locale}: unit price`);
  }
  const euro = InvoiceRequestSchema.parse(yen_invoice({ currency: "EUR" }));
  const text = await pdf_text(render_invoice_pdf(euro));
  assertMatch(text, /4,801\.12/);
});

Deno.test("currency over HTTP: XYZ and a fractional yen rate are 400s naming the field", async () => {
  const server = await start_test_server();
  try {
    const { key } = await server.create_account({ plan: "team" });
    const wrong = await server.generate(key, yen_invoice({ currency: "XYZ" }));
    assertEquals(wrong.status, 400);
    const body = await wrong.json();
    assertEquals(body.error.code, "invalid_request");
    assertEquals(body.error.details[0].path, "currency");
    const fractional = await server.generate(
      key,
      yen_invoice({
        items: [{ description: "x", quantity: 1, rate: 1.5, amount: 1.5 }],
      }),
    );
    assertEquals(fractional.status, 400);
    const paths = (await fractional.json()).error.details.map((
      d: { path: string },
    ) => d.path);
    assert(paths.includes("items[0].rate"), JSON.stringify(paths));
  } finally {
    await server.close();
  }
});
