/**
 * The business invoice in the contract: tax per (category, rate)
 * group, discounts and charges, amounts paid and due, payment details, logo,
 * locale, credit notes and expected totals, by worked examples. Each bad
 * input's 400 is in `invoice_rules.test.ts`, the property test of the
 * arithmetic in `invoice_arithmetic_property.test.ts` (both beside this file).
 */
import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
} from "../assert.ts";
import {
  type Invoice,
  InvoiceRequestSchema,
  negotiate_locale,
  SUPPORTED_LOCALES,
  validation_error,
} from "../../contract/mod.ts";
import { is_locale } from "../../server/pdf/locales.ts";
import { start_test_server } from "../helpers/test_server.ts";
import { pdf_text } from "../helpers/pdf_text.ts";

type Body = Record<string, unknown>;

function base(): Body {
  return {
    invoice_number: "RE-2026-001",
    date: "2026-11-23",
    due_date: "2026-12-23",
    currency: "EUR",
    sender: {
      name: "Muster GmbH",
      email: "rechnung@muster.example",
      address: "Hauptstraße 1",
      city: "Berlin",
      zip: "10115",
      country: "DE",
      tax_id: "DE123456789",
    },
    bill_to: {
      name: "Kunde AG",
      email: "ap@kunde.example",
      country: "DE",
      tax_id: "DE987654321",
    },
    items: [
      { description: "Beratung", quantity: 10, rate: 120, amount: 1200 },
      { description: "Fachbuch", quantity: 2, rate: 24.95, amount: 49.9 },
    ],
  };
}

function parse(body: Body): Invoice {
  return InvoiceRequestSchema.parse(body);
}

/** The 400 details of a rejected body, as `path: message` strings. */
function problems(body: Body): string[] {
  const result = InvoiceRequestSchema.safeParse(body);
  assert(!result.success, "expected the body to be rejected");
  return (validation_error(result.error.issues).details ?? []).map((d) =>
    `${d.path}: ${d.message}`
  );
}

function expect_problem(body: Body, path: string, pattern: RegExp): void {
  const found = problems(body);
  assert(
    found.some((line) => line.startsWith(`${path}: `) && pattern.test(line)),
    `expected ${path} ${pattern} in ${JSON.stringify(found)}`,
  );
}

Deno.test("a seed-style invoice has no tax and normalizes to its plain totals", () => {
  const body = base();
  delete (body.sender as Body).country;
  delete (body.sender as Body).tax_id;
  delete (body.bill_to as Body).country;
  delete (body.bill_to as Body).tax_id;
  const invoice = parse(body);
  assertEquals(invoice.has_tax, false);
  assertEquals(invoice.subtotal, "1249.90");
  assertEquals(invoice.total, "1249.90");
  assertEquals(invoice.amount_due, "1249.90");
  assertEquals(invoice.document_type, "invoice");
  for (
    const key of ["tax_breakdown", "tax_total", "total_without_tax", "locale"]
  ) {
    assert(!(key in invoice), key);
  }
  assertEquals(invoice.items[0].tax_rate, undefined);
  assertEquals(invoice.sender.address, "Hauptstraße 1");
  assertEquals(invoice.sender.address_lines, ["Hauptstraße 1"]);
});

Deno.test("German VAT: two rates, a percent discount of its rate's lines and shipping, tax rounded once per group", () => {
  const invoice = parse({
    ...base(),
    tax_rate: 19,
    items: [
      { description: "Beratung", quantity: 3, rate: 33.33, amount: 99.99 },
      { description: "Beratung", quantity: 1, rate: 0.01, amount: 0.01 },
      {
        description: "Fachbuch",
        quantity: 1,
        rate: 10.05,
        amount: 10.05,
        tax_rate: 7,
      },
    ],
    discounts: [{ description: "Treuerabatt", percent: 10, tax_rate: 19 }],
    charges: [{ description: "Versand", amount: 4.9 }],
    amount_paid: 50,
  });
  // The discount at 19 % is 10 % of the 19 % lines (100.00), not of the
  // subtotal 110.05.
  assertEquals(invoice.subtotal, "110.05");
  assertEquals(invoice.discounts?.[0], {
    description: "Treuerabatt",
    amount: "10.00",
    percent: "10",
    base_amount: "100.00",
    tax_category: "S",
    tax_rate: "19",
  });
  assertEquals(invoice.charges?.[0].tax_rate, "19");
  // S 19 %: 99.99 + 0.01 − 10.00 + 4.90 = 94.90 → 18.031 → 18.03.
  // S 7 %: 10.05 → 0.7035 → 0.70.
  assertEquals(invoice.tax_breakdown, [
    {
      category: "S",
      rate: "19",
      taxable_amount: "94.90",
      tax_amount: "18.03",
    },
    { category: "S", rate: "7", taxable_amount: "10.05", tax_amount: "0.70" },
  ]);
  assertEquals(invoice.total_without_tax, "104.95");
  assertEquals(invoice.tax_total, "18.73");
  assertEquals(invoice.total, "123.68");
  assertEquals(invoice.amount_paid, "50.00");
  assertEquals(invoice.amount_due, "73.68");
  assertEquals(invoice.items.map((item) => item.tax_rate), ["19", "19", "7"]);
});

Deno.test("categories: rate alone is S (or Z at 0), exempt groups carry the reason, reverse charge needs both tax ids", () => {
  const invoice = parse({
    ...base(),
    tax_exemption_reason: "Steuerfreie Ausfuhr, § 4 Nr. 1a UStG",
    items: [
      { description: "A", quantity: 1, rate: 100, amount: 100, tax_rate: 0 },
      {
        description: "B",
        quantity: 1,
        rate: 50,
        amount: 50,
        tax_category: "G",
      },
      {
        description: "C",
        quantity: 1,
        rate: 10,
        amount: 10,
        tax_category: "AE",
      },
    ],
  });
  assertEquals(invoice.tax_breakdown?.map((row) => row.category), [
    "Z",
    "AE",
    "G",
  ]);
  assertEquals(
    invoice.tax_breakdown?.[1].exemption_reason,
    invoice.tax_exemption_reason,
  );
  assertEquals(invoice.tax_breakdown?.[0].exemption_reason, undefined);
  assertEquals(invoice.tax_total, "0.00");
  assertEquals(invoice.total, "160.00");

  const no_ids = base();
  delete (no_ids.bill_to as Body).tax_id;
  expect_problem(
    {
      ...no_ids,
      tax_category: "AE",
      tax_exemption_reason: "Reverse charge",
    },
    "bill_to.tax_id",
    /reverse charge/,
  );
});

Deno.test("payment and logo are normalized: IBAN without spaces, logo measured and hashed", () => {
  // 1×1 transparent PNG.
  const png =
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
  const invoice = parse({
    ...base(),
    payment: {
      iban: "de89 3704 0044 0532 0130 00",
      bic: "cobadeffxxx",
      account_name: "Muster GmbH",
      reference: "RE-2026-001",
    },
    logo: png,
  });
  assertEquals(invoice.payment?.iban, "DE89370400440532013000");
  assertEquals(invoice.payment?.bic, "COBADEFFXXX");
  assertEquals(invoice.logo?.mime, "image/png");
  assertEquals([invoice.logo?.width, invoice.logo?.height], [1, 1]);
  assertMatch(invoice.logo?.sha256 ?? "", /^[0-9a-f]{64}$/);
});

Deno.test("locales: every supported one has renderer labels; Accept-Language picks by weight and language", () => {
  for (const locale of SUPPORTED_LOCALES) {
    assert(is_locale(locale), locale);
  }
  assertEquals(negotiate_locale("de-AT,de;q=0.9,en;q=0.8"), "de-AT");
  assertEquals(negotiate_locale("fr-CA, en;q=0.5"), "fr-FR");
  assertEquals(negotiate_locale("sw, nl;q=0.3"), "nl-NL");
  // Locales in other scripts.
  assertEquals(negotiate_locale("ja, nl;q=0.3"), "ja-JP");
  assertEquals(negotiate_locale("zh-TW,zh;q=0.8"), "zh-TW");
  assertEquals(negotiate_locale("zh"), "zh-CN");
  assertEquals(negotiate_locale("ar"), "ar-SA");
  assertEquals(negotiate_locale("he"), "he-IL");
  assertEquals(negotiate_locale("no"), "nb-NO");
  assertEquals(negotiate_locale("en;q=0.2, cs;q=0.9"), "cs-CZ");
  assertEquals(negotiate_locale("*"), undefined);
  assertEquals(negotiate_locale("sw-KE"), undefined);
  assertEquals(parse({ ...base(), locale: "de-de" }).locale, "de-DE");
});

Deno.test("Accept-Language sets the PDF's language when the body names no locale, over HTTP and the body wins", async () => {
  // A slow shared machine must not turn a render into a 503.
  const server = await start_test_server({
    env: { RENDER_TIMEOUT_MS: "120000" },
  });
  try {
    const { key } = await server.create_account({ plan: "pro" });
    const german = await server.generate(key, { ...base(), tax_rate: 19 }, {
      headers: { "Accept-Language": "de-DE,de;q=0.9" },
    });
    assertEquals(german.status, 200, await german.clone().text());
    const german_text = await pdf_text(
      new Uint8Array(await german.arrayBuffer()),
    );
    assertStringIncludes(german_text, "Rechnung");
    assertStringIncludes(german_text, "1.249,90");

    const english = await server.generate(
      key,
      { ...base(), tax_rate: 19, locale: "en-GB" },
      { headers: { "Accept-Language": "de-DE" } },
    );
    assertEquals(english.status, 200);
    const english_text = await pdf_text(
      new Uint8Array(await english.arrayBuffer()),
    );
    assertStringIncludes(english_text, "Invoice");
    assertStringIncludes(english_text, "1,249.90");

    const bad = await server.generate(key, { ...base(), locale: "tlh" });
    assertEquals(bad.status, 400);
    const body = await bad.json();
    assertEquals(body.error.details[0].path, "locale");
  } finally {
    await server.close();
  }
});
