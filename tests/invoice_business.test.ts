/**
 * The business invoice in the contract (issue 9): tax per (category, rate)
 * group, discounts and charges, amounts paid and due, payment details, logo,
 * locale, credit notes and expected totals — each bad input a 400 naming its
 * field — and a property test of the arithmetic over 10,000 random invoices
 * against an independent computation.
 */
import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
} from "./assert.ts";
import {
  type Invoice,
  InvoiceRequestSchema,
  negotiate_locale,
  SUPPORTED_LOCALES,
  validation_error,
} from "../contract/mod.ts";
import { RENDERER_LOCALES } from "../server/pdf/locales.ts";
import { start_test_server } from "./helpers/test_server.ts";
import { pdf_text } from "./helpers/pdf_text.ts";

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

Deno.test("a seed-style invoice has no tax and normalizes as before", () => {
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

Deno.test("German VAT: two rates, a percent discount and shipping, tax rounded once per group", () => {
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
  // Subtotal 110.05; 10 % of it is 11.005 → 11.01 (half away from zero).
  assertEquals(invoice.subtotal, "110.05");
  assertEquals(invoice.discounts?.[0], {
    description: "Treuerabatt",
    amount: "11.01",
    percent: "10",
    base_amount: "110.05",
    tax_category: "S",
    tax_rate: "19",
  });
  assertEquals(invoice.charges?.[0].tax_rate, "19");
  // S 19 %: 99.99 + 0.01 − 11.01 + 4.90 = 93.89 → 17.8391 → 17.84.
  // S 7 %: 10.05 → 0.7035 → 0.70.
  assertEquals(invoice.tax_breakdown, [
    {
      category: "S",
      rate: "19",
      taxable_amount: "93.89",
      tax_amount: "17.84",
    },
    { category: "S", rate: "7", taxable_amount: "10.05", tax_amount: "0.70" },
  ]);
  assertEquals(invoice.total_without_tax, "103.94");
  assertEquals(invoice.tax_total, "18.54");
  assertEquals(invoice.total, "122.48");
  assertEquals(invoice.amount_paid, "50.00");
  assertEquals(invoice.amount_due, "72.48");
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

Deno.test("every bad business input is a 400 naming the field", () => {
  const cases: [Body, string, RegExp][] = [
    [{ ...base(), locale: "xx-YY" }, "locale", /en-US, en-GB, de-DE/],
    [{ ...base(), tax_rate: 101 }, "tax_rate", /between 0 and 100/],
    [{ ...base(), tax_rate: 7.775 }, "tax_rate", /at most 2 decimals/],
    [
      { ...base(), tax_category: "E", tax_rate: 19 },
      "tax_rate",
      /must be 0 for category E/,
    ],
    [
      { ...base(), tax_category: "S", tax_rate: 0 },
      "tax_rate",
      /greater than 0/,
    ],
    [{ ...base(), tax_category: "K" }, "tax_exemption_reason", /is required/],
    [
      {
        ...base(),
        tax_rate: 19,
        discounts: [{ description: "Too much", amount: 5000 }],
      },
      "discounts[0].amount",
      /larger than what it discounts/,
    ],
    [
      { ...base(), discounts: [{ description: "Too much", amount: 5000 }] },
      "discounts[0].amount",
      /larger than what they discount/,
    ],
    [
      {
        ...base(),
        discounts: [{ description: "Both", amount: 1, percent: 5 }],
      },
      "discounts[0].percent",
      /either "amount" or "percent"/,
    ],
    [{ ...base(), amount_paid: 1249.91 }, "amount_paid", /more than the total/],
    [{ ...base(), logo: "https://example.com/logo.png" }, "logo", /data: URL/],
    [
      { ...base(), logo: "data:image/png;base64,aGVsbG8=" },
      "logo",
      /not a PNG or JPEG/,
    ],
    [
      { ...base(), payment: { link: "http://pay.example/x" } },
      "payment.link",
      /https/,
    ],
    [
      { ...base(), payment: { iban: "DE89 3704 0044 0532 0130 01" } },
      "payment.iban",
      /check digits/,
    ],
    [
      { ...base(), payment: { iban: "DE89 3704 0044 0532 0130" } },
      "payment.iban",
      /22 characters/,
    ],
    [{ ...base(), payment: { bic: "DEUT" } }, "payment.bic", /8 or 11/],
    [
      { ...base(), document_type: "credit_note" },
      "preceding_invoice_number",
      /credit note/,
    ],
    [
      { ...base(), expected_total: 1250 },
      "expected_total",
      /1250\.00 but the total is 1249\.90/,
    ],
    [
      { ...base(), tax_rate: 19, expected_tax_total: 237.48 },
      "expected_tax_total",
      /237\.48 but the tax total is 237\.48|237\.48 but the tax total is 237\.4[0-9]/,
    ],
    [
      {
        ...base(),
        items: [
          { description: "A", quantity: 1, rate: 1, amount: 1, tax_rate: 19 },
          { description: "B", quantity: 1, rate: 1, amount: 1 },
        ],
      },
      "items[1].tax_rate",
      /other lines have tax/,
    ],
    [
      { ...base(), sender: { ...(base().sender as Body), country: "XX" } },
      "sender.country",
      /ISO 3166-1/,
    ],
    [
      {
        ...base(),
        items: [{
          description: "A",
          quantity: 1,
          rate: 1,
          amount: 1,
          unit: "hours",
        }],
      },
      "items[0].unit",
      /Recommendation 20/,
    ],
  ];
  for (const [body, path, pattern] of cases) {
    if (path === "expected_tax_total") {
      // 1249.90 × 19 % = 237.481 → 237.48: an equal figure is accepted.
      assertEquals(parse(body).tax_total, "237.48");
      expect_problem(
        { ...body, expected_tax_total: 237.49 },
        path,
        /237\.49 but the tax total is 237\.48/,
      );
      continue;
    }
    expect_problem(body, path, pattern);
  }
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
    assert(RENDERER_LOCALES.includes(locale), locale);
  }
  assertEquals(negotiate_locale("de-AT,de;q=0.9,en;q=0.8"), "de-AT");
  assertEquals(negotiate_locale("fr-CA, en;q=0.5"), "fr-FR");
  assertEquals(negotiate_locale("sw, nl;q=0.3"), "nl-NL");
  // Issue 11's locales.
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
  const server = await start_test_server();
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

// ---------------------------------------------------------------------------
// Property test: 10,000 random invoices against an independent computation.

/** A tiny seeded PRNG (mulberry32), so a failure can be replayed. */
function random_source(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Exact rational p/q with bigints, rounded to cents half away from zero by floor arithmetic. */
function round_rational_to_cents(p: bigint, q: bigint): bigint {
  // x = p/q in cents; round half away from zero = sign × floor(|x| + 1/2).
  const sign = (p < 0n) !== (q < 0n) ? -1n : 1n;
  const ap = p < 0n ? -p : p;
  const aq = q < 0n ? -q : q;
  return sign * ((2n * ap + aq) / (2n * aq));
}

function cents_of(text: string): bigint {
  const negative = text.startsWith("-");
  const [whole, fraction = ""] = text.replace("-", "").split(".");
  const cents = BigInt(whole) * 100n + BigInt(fraction.padEnd(2, "0"));
  return negative ? -cents : cents;
}

Deno.test("property: totals and tax breakdown are exact for 10,000 random invoices", () => {
  const seed = Number(Deno.env.get("PROPERTY_SEED") ?? 20261123);
  const random = random_source(seed);
  const pick = <T>(values: readonly T[]): T =>
    values[Math.floor(random() * values.length)];
  const RATES = [19, 7, 20, 5, 5.5, 7.7, 8.1, 2.5, 10, 21, 25, 0.01, 99.99];
  for (let run = 0; run < 10_000; run++) {
    const line_count = 1 + Math.floor(random() * 6);
    const with_tax = random() < 0.8;
    const lines: {
      rate_cents: bigint;
      quantity: number;
      tax?: { category: string; rate: number };
    }[] = [];
    const items = [];
    for (let i = 0; i < line_count; i++) {
      const quantity = 1 + Math.floor(random() * 20);
      const rate_cents = BigInt(Math.floor(random() * 200_000) - 10_000);
      const rate = Number(rate_cents) / 100;
      const exempt = random() < 0.15;
      const tax = with_tax
        ? exempt
          ? { category: pick(["E", "K", "G", "O", "Z"]), rate: 0 }
          : { category: "S", rate: pick(RATES) }
        : undefined;
      lines.push({ rate_cents, quantity, tax });
      items.push({
        description: `Line ${i}`,
        quantity,
        rate,
        amount: Number(rate_cents * BigInt(quantity)) / 100,
        ...(tax ? { tax_category: tax.category, tax_rate: tax.rate } : {}),
      });
    }
    const subtotal = lines.reduce(
      (sum, line) => sum + line.rate_cents * BigInt(line.quantity),
      0n,
    );
    if (subtotal <= 0n) continue;
    const first_tax = lines[0].tax;
    const discount_percent = random() < 0.4
      ? (1 + Math.floor(random() * 3000)) / 100
      : undefined;
    const charge_cents = random() < 0.4
      ? BigInt(1 + Math.floor(random() * 5000))
      : undefined;
    const body: Body = {
      invoice_number: `P-${run}`,
      date: "2026-11-23",
      due_date: "2026-11-30",
      currency: pick(["EUR", "USD", "GBP", "CHF", "PLN"]),
      sender: { name: "S", email: "s@example.com", tax_id: "DE1" },
      bill_to: { name: "B", email: "b@example.com", tax_id: "FR2" },
      items,
      ...(lines.some((l) =>
          l.tax && l.tax.category !== "S" && l.tax.category !== "Z"
        )
        ? { tax_exemption_reason: "Exempt" }
        : {}),
      ...(discount_percent !== undefined
        ? {
          discounts: [{
            description: "D",
            percent: discount_percent,
            ...(first_tax
              ? { tax_category: first_tax.category, tax_rate: first_tax.rate }
              : {}),
          }],
        }
        : {}),
      ...(charge_cents !== undefined
        ? {
          charges: [{
            description: "C",
            amount: Number(charge_cents) / 100,
            ...(first_tax
              ? { tax_category: first_tax.category, tax_rate: first_tax.rate }
              : {}),
          }],
        }
        : {}),
    };
    const result = InvoiceRequestSchema.safeParse(body);
    // Independent computation.
    const discount = discount_percent !== undefined
      ? round_rational_to_cents(
        subtotal * BigInt(Math.round(discount_percent * 100)),
        10_000n,
      )
      : 0n;
    const groups = new Map<string, { rate: number; taxable: bigint }>();
    for (const line of lines) {
      if (!line.tax) continue;
      const key = `${line.tax.category}:${line.tax.rate}`;
      const group = groups.get(key) ?? { rate: line.tax.rate, taxable: 0n };
      group.taxable += line.rate_cents * BigInt(line.quantity);
      groups.set(key, group);
    }
    if (first_tax) {
      const group = groups.get(`${first_tax.category}:${first_tax.rate}`)!;
      group.taxable += (charge_cents ?? 0n) - discount;
    }
    const negative_group = [...groups.values()].some((g) => g.taxable < 0n);
    const without_tax = subtotal - discount + (charge_cents ?? 0n);
    if ((first_tax && negative_group) || (!first_tax && without_tax < 0n)) {
      assert(!result.success, `run ${run} (seed ${seed}) should be refused`);
      continue;
    }
    assert(
      result.success,
      `run ${run} (seed ${seed}): ${JSON.stringify(result.error?.issues)}`,
    );
    const invoice = result.data;
    let tax_total = 0n;
    for (const group of groups.values()) {
      tax_total += round_rational_to_cents(
        group.taxable * BigInt(Math.round(group.rate * 100)),
        10_000n,
      );
    }
    const context = `run ${run} (seed ${seed})`;
    assertEquals(cents_of(invoice.subtotal), subtotal, context);
    assertEquals(cents_of(invoice.total), without_tax + tax_total, context);
    assertEquals(
      cents_of(invoice.amount_due),
      without_tax + tax_total,
      context,
    );
    assertEquals(invoice.has_tax, with_tax, context);
    if (with_tax) {
      assertEquals(cents_of(invoice.tax_total!), tax_total, context);
      assertEquals(invoice.tax_breakdown!.length, groups.size, context);
      const breakdown_sum = invoice.tax_breakdown!.reduce(
        (sum, row) => sum + cents_of(row.tax_amount),
        0n,
      );
      assertEquals(breakdown_sum, tax_total, context);
      const taxable_sum = invoice.tax_breakdown!.reduce(
        (sum, row) => sum + cents_of(row.taxable_amount),
        0n,
      );
      assertEquals(taxable_sum, without_tax, context);
    }
  }
});
