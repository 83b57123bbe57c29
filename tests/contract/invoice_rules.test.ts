/**
 * The rules on the invoice request, one test per rule: every bad input
 * is a 400 naming its field (in the contract, through `POST /generate` and
 * through the tRPC caller), tax categories get their defaults, and the
 * `Accept-Language` header picks the locale when the body names none.
 */
import {
  assert,
  assertEquals,
  assertMatch,
  assertNotEquals,
  assertRejects,
  assertStringIncludes,
} from "../assert.ts";
import {
  ApiError,
  create_caller,
  type Invoice,
  InvoiceRequestSchema,
  type ServiceContext,
  SUPPORTED_LOCALES,
  to_api_error,
  validation_error,
} from "../../contract/mod.ts";
import { create_services } from "../../server/services.ts";
import { render_invoice_pdf } from "../../server/pdf/mod.ts";
import { start_test_server } from "../helpers/test_server.ts";
import { base64, png_bytes } from "../helpers/images.ts";
import { pdf_text } from "../helpers/pdf_text.ts";

type Body = Record<string, unknown>;

/** A valid German invoice without tax: 1249.90 over two lines. */
function base(): Body {
  return {
    invoice_number: "RE-2026-009",
    date: "2026-11-23",
    due_date: "2026-12-23",
    currency: "EUR",
    sender: {
      name: "Muster GmbH",
      email: "rechnung@muster.example",
      country: "DE",
      tax_id: "DE123456789",
    },
    bill_to: {
      name: "Client SARL",
      email: "ap@client.example",
      country: "FR",
      tax_id: "FR12345678901",
    },
    items: [
      { description: "Beratung", quantity: 10, rate: 120, amount: 1200 },
      { description: "Fachbuch", quantity: 2, rate: 24.95, amount: 49.9 },
    ],
  };
}

/** `base()` with `changes` merged into the body and into `items[0]`. */
function with_line(item_changes: Body, changes: Body = {}): Body {
  const body = base();
  const items = body.items as Body[];
  items[0] = { ...items[0], ...item_changes };
  return { ...body, ...changes };
}

function parse(body: Body): Invoice {
  return InvoiceRequestSchema.parse(body);
}

/** The 400 details of a body the contract refuses, as `path: message` lines. */
function problems(body: Body): string[] {
  const result = InvoiceRequestSchema.safeParse(body);
  assert(
    !result.success,
    `expected a refusal of ${JSON.stringify(body).slice(0, 300)}`,
  );
  return (validation_error(result.error.issues).details ?? []).map((d) =>
    `${d.path}: ${d.message}`
  );
}

/** Asserts that `body` is refused with a problem at `path` matching `pattern`. */
function expect_problem(body: Body, path: string, pattern: RegExp): void {
  const found = problems(body);
  assert(
    found.some((line) =>
      line.startsWith(`${path}: `) && pattern.test(line.slice(path.length + 2))
    ),
    `expected ${path} ${pattern} in ${JSON.stringify(found)}`,
  );
}

/** A minimal but structurally complete JPEG of the given size (SOI, SOF0, EOI). */
function jpeg_bytes(width: number, height: number): Uint8Array {
  return new Uint8Array([
    0xff,
    0xd8,
    // APP0 (JFIF), 16 bytes
    0xff,
    0xe0,
    0x00,
    0x10,
    ...new TextEncoder().encode("JFIF\0"),
    1,
    1,
    0,
    0,
    1,
    0,
    1,
    0,
    0,
    // SOF0: length 17, precision 8, height, width, 3 components
    0xff,
    0xc0,
    0x00,
    0x11,
    8,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    3,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
    0xff,
    0xd9,
  ]);
}

function data_url(mime: string, bytes: Uint8Array): string {
  return `data:${mime};base64,${base64(bytes)}`;
}

const white = (): [number, number, number, number] => [255, 255, 255, 255];

// ---------------------------------------------------------------------------
// One test per rule (contract level).

Deno.test("rule locale: an unknown locale is a 400 whose message lists every supported one", () => {
  const found = problems({ ...base(), locale: "tlh-KX" });
  const line = found.find((entry) => entry.startsWith("locale: "));
  assert(line, JSON.stringify(found));
  for (const locale of SUPPORTED_LOCALES) assertStringIncludes(line, locale);
  expect_problem({ ...base(), locale: "de-XX" }, "locale", /not supported/);
  // Any case and "_" are accepted and canonicalized.
  assertEquals(parse({ ...base(), locale: "PT_br" }).locale, "pt-BR");
});

Deno.test("rule tax_rate range: below 0, above 100 or more than 2 decimals, at every level", () => {
  expect_problem(
    with_line({ tax_rate: 100.01 }),
    "items[0].tax_rate",
    /0 and 100/,
  );
  expect_problem(with_line({ tax_rate: -1 }), "items[0].tax_rate", /0 and 100/);
  expect_problem(
    with_line({ tax_rate: 7.775 }),
    "items[0].tax_rate",
    /2 decimals/,
  );
  expect_problem({ ...base(), tax_rate: 101 }, "tax_rate", /0 and 100/);
  expect_problem({ ...base(), tax_rate: 19.001 }, "tax_rate", /2 decimals/);
  expect_problem(
    {
      ...base(),
      tax_rate: 19,
      charges: [{ description: "Shipping", amount: 5, tax_rate: 7.123 }],
    },
    "charges[0].tax_rate",
    /2 decimals/,
  );
  // The edges are accepted.
  assertEquals(
    parse(with_line({ tax_rate: 99.99 }, { tax_rate: 0 })).items[0].tax_rate,
    "99.99",
  );
  assertEquals(parse({ ...base(), tax_rate: 100 }).tax_total, "1249.90");
});

Deno.test("rule non-zero rate: E, AE, K, G, O (and Z) with a rate other than 0 are refused; S needs a rate above 0", () => {
  for (const category of ["E", "AE", "K", "G", "O", "Z"]) {
    expect_problem(
      with_line({ tax_category: category, tax_rate: 19 }, {
        tax_rate: 19,
        tax_exemption_reason: "Reason",
      }),
      "items[0].tax_rate",
      new RegExp(`must be 0 for category ${category}$`),
    );
  }
  expect_problem(
    { ...base(), tax_category: "K", tax_rate: 7, tax_exemption_reason: "x" },
    "tax_rate",
    /must be 0 for category K/,
  );
  expect_problem(
    with_line({ tax_category: "S", tax_rate: 0 }, { tax_rate: 19 }),
    "items[0].tax_rate",
    /greater than 0/,
  );
  expect_problem(
    with_line({ tax_category: "S" }, { tax_rate: 19 }),
    "items[0].tax_rate",
    /required with tax_category S/,
  );
});

Deno.test("rule exemption reason: E, AE, K, G and O lines need tax_exemption_reason", () => {
  for (const category of ["E", "AE", "K", "G", "O"]) {
    expect_problem(
      { ...base(), tax_category: category },
      "tax_exemption_reason",
      /is required/,
    );
    expect_problem(
      with_line({ tax_category: category }, { tax_rate: 19 }),
      "tax_exemption_reason",
      /is required/,
    );
    const invoice = parse({
      ...base(),
      tax_category: category,
      tax_exemption_reason: "Not taxed here",
    });
    assertEquals(invoice.tax_breakdown?.[0].exemption_reason, "Not taxed here");
  }
  // Z and S need none.
  assertEquals(
    parse({ ...base(), tax_rate: 0 }).tax_breakdown?.[0].category,
    "Z",
  );
});

Deno.test("rule reverse charge: AE needs both parties' tax_id (recipient alias named as sent)", () => {
  const body: Body = {
    ...base(),
    tax_category: "AE",
    tax_exemption_reason: "Reverse charge",
  };
  assertEquals(parse(body).tax_total, "0.00");
  const no_sender = structuredClone(body);
  delete (no_sender.sender as Body).tax_id;
  expect_problem(no_sender, "sender.tax_id", /reverse charge/);
  const no_buyer = structuredClone(body);
  delete (no_buyer.bill_to as Body).tax_id;
  expect_problem(no_buyer, "bill_to.tax_id", /reverse charge/);
  assert(!problems(no_buyer).some((line) => line.startsWith("sender.")));
  const alias = structuredClone(no_buyer);
  alias.recipient = alias.bill_to;
  delete alias.bill_to;
  expect_problem(alias, "recipient.tax_id", /reverse charge/);
  // One AE line among standard-rated ones is enough to need them.
  const one_line = with_line({ tax_category: "AE" }, {
    tax_rate: 19,
    tax_exemption_reason: "Reverse charge",
  });
  delete ((one_line.bill_to as Body).tax_id);
  expect_problem(one_line, "bill_to.tax_id", /reverse charge/);
});

Deno.test("rule discount too large: per tax group, without tax on the whole, named by amount or percent", () => {
  // Without tax: a discount above lines + charges.
  expect_problem(
    { ...base(), discounts: [{ description: "Too much", amount: 1249.91 }] },
    "discounts[0].amount",
    /larger than what it discounts: the lines and charges come to 1249\.90/,
  );
  // Equal is fine (total 0), and a charge makes room.
  assertEquals(
    parse({ ...base(), discounts: [{ description: "All", amount: 1249.9 }] })
      .total,
    "0.00",
  );
  assertEquals(
    parse({
      ...base(),
      discounts: [{ description: "D", amount: 1250 }],
      charges: [{ description: "C", amount: 0.1 }],
    }).total,
    "0.00",
  );
  // Per group: 49.90 at 7 % cannot take a 50.00 discount even though the
  // invoice as a whole could.
  expect_problem(
    with_line({}, {
      tax_rate: 19,
      items: [
        { description: "A", quantity: 10, rate: 120, amount: 1200 },
        {
          description: "B",
          quantity: 2,
          rate: 24.95,
          amount: 49.9,
          tax_rate: 7,
        },
      ],
      discounts: [
        { description: "Fine", amount: 10 },
        { description: "Book discount", amount: 50, tax_rate: 7 },
      ],
    }),
    "discounts[1].amount",
    /taxed S 7% come to 49\.90, the discounts to 50\.00/,
  );
  // A percent one is named by its percent: 100 % plus a fixed one.
  expect_problem(
    {
      ...base(),
      discounts: [
        { description: "All", percent: 100 },
        { description: "And more", amount: 1 },
      ],
    },
    "discounts[0].percent",
    /larger than what it discounts/,
  );
  // A credit line (negative amount) in its own group is not a discount.
  const credit = parse({
    ...base(),
    tax_rate: 19,
    tax_exemption_reason: "Deposit refund, not taxed",
    items: [
      { description: "Work", quantity: 1, rate: 100, amount: 100 },
      {
        description: "Deposit back",
        quantity: 1,
        rate: -20,
        amount: -20,
        tax_category: "O",
      },
    ],
  });
  assertEquals(credit.total, "99.00");
  // A percent of a negative subtotal is meaningless (of a zero one, zero).
  expect_problem(
    {
      ...base(),
      items: [{ description: "Credit", quantity: 1, rate: -5, amount: -5 }],
      discounts: [{ description: "D", percent: 10 }],
    },
    "discounts[0].percent",
    /negative \(-5\.00\)/,
  );
});

Deno.test("rule amount_paid: equal leaves 0.00 due, more leaves a negative amount due (a credit)", () => {
  const paid = parse({ ...base(), tax_rate: 19, amount_paid: 1487.38 });
  assertEquals([paid.amount_paid, paid.amount_due], ["1487.38", "0.00"]);
  const overpaid = parse({ ...base(), tax_rate: 19, amount_paid: 1500 });
  assertEquals([overpaid.total, overpaid.amount_due], ["1487.38", "-12.62"]);
  expect_problem({ ...base(), amount_paid: -1 }, "amount_paid", /negative/);
  expect_problem(
    { ...base(), amount_paid: 1.001 },
    "amount_paid",
    /2 decimals/,
  );
});

Deno.test("rule logo: only a decodable PNG or JPEG data: URL within 256 KB and 4,000 px a side", () => {
  const cases: [string, RegExp][] = [
    ["https://example.com/logo.png", /data: URL.*never fetched/],
    [
      "data:image/gif;base64,R0lGODlhAQABAAAAACw=",
      /data: URL of a PNG or JPEG/,
    ],
    ["data:image/png;base64,aGVsbG8=", /not a PNG or JPEG/],
    ["data:image/png;base64,%%%", /data: URL/],
    ["data:image/png;base64,iVBORw0KGgo", /invalid base64|truncated|header/],
    // PNG signature only.
    [
      data_url("image/png", png_bytes(1, 1, white).subarray(0, 8)),
      /without a header/,
    ],
    // Cut inside the image data.
    [
      data_url("image/png", png_bytes(20, 20, white).subarray(0, 50)),
      /truncated PNG/,
    ],
    // Too wide, too tall (the header is read before any pixel).
    [
      data_url("image/png", png_bytes(4001, 1, white)),
      /4001 × 1 px; at most 4000/,
    ],
    [
      data_url("image/jpeg", jpeg_bytes(10, 4001)),
      /10 × 4001 px; at most 4000/,
    ],
    // A JPEG without a frame header, and one cut before its end marker.
    [data_url("image/jpeg", new Uint8Array([0xff, 0xd8, 0xff, 0xd9])), /JPEG/],
    [
      data_url("image/jpeg", jpeg_bytes(10, 10).subarray(0, 30)),
      /truncated JPEG/,
    ],
  ];
  // PNG whose compressed data is garbage (the CRCs are not what is checked).
  const broken = png_bytes(4, 4, white);
  const idat = broken.findIndex((_, i) =>
    String.fromCharCode(...broken.subarray(i, i + 4)) === "IDAT"
  );
  broken.fill(0x55, idat + 4, idat + 10);
  cases.push([data_url("image/png", broken), /cannot be decompressed/]);
  for (const [logo, pattern] of cases) {
    expect_problem({ ...base(), logo }, "logo", pattern);
  }
  // Over 256 KB decoded (but a data: URL short enough to be decoded): noise.
  let state = 2463534242;
  const byte = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) & 0xff;
  };
  const noise = png_bytes(300, 220, () => [byte(), byte(), byte(), byte()]);
  assert(
    noise.length > 256 * 1024 && noise.length < 268 * 1024,
    `noise is ${noise.length} bytes`,
  );
  expect_problem(
    { ...base(), logo: data_url("image/png", noise) },
    "logo",
    /^is 2[56]\d KB; at most 256 KB decoded$/,
  );
  expect_problem(
    { ...base(), logo: `data:image/png;base64,${"A".repeat(400_000)}` },
    "logo",
    /at most 256 KB decoded/,
  );

  // Accepted and measured: a 4000 px PNG and a JPEG.
  const wide = parse({
    ...base(),
    logo: data_url("image/png", png_bytes(4000, 2, white)),
  });
  assertEquals([wide.logo?.width, wide.logo?.height], [4000, 2]);
  const jpeg = parse({
    ...base(),
    logo: data_url("image/jpeg", jpeg_bytes(320, 96)),
  });
  assertEquals(jpeg.logo?.mime, "image/jpeg");
  assertEquals([jpeg.logo?.width, jpeg.logo?.height], [320, 96]);
});

Deno.test("rule payment link: only https URLs", () => {
  for (
    const link of [
      "http://pay.example/x",
      "javascript:alert(1)",
      "ftp://pay.example/",
      "pay.example/x",
      "https://",
    ]
  ) {
    expect_problem({ ...base(), payment: { link } }, "payment.link", /https/);
  }
  assertEquals(
    parse({ ...base(), payment: { link: "https://pay.example/i/RE-2026-009" } })
      .payment?.link,
    "https://pay.example/i/RE-2026-009",
  );
});

Deno.test("rule credit note: document_type credit_note needs preceding_invoice_number", () => {
  expect_problem(
    { ...base(), document_type: "credit_note" },
    "preceding_invoice_number",
    /credit note/,
  );
  const credit = parse({
    ...base(),
    document_type: "credit_note",
    preceding_invoice_number: "RE-2026-001",
  });
  assertEquals([credit.document_type, credit.preceding_invoice_number], [
    "credit_note",
    "RE-2026-001",
  ]);
  assertEquals(parse(base()).document_type, "invoice");
});

Deno.test("rule expected totals: a mismatch is a 400 giving both figures, a match passes", () => {
  const taxed = { ...base(), tax_rate: 19 }; // 1249.90 + 237.48 (237.481) = 1487.38
  expect_problem(
    { ...taxed, expected_total: 1487.39 },
    "expected_total",
    /^is 1487\.39 but the total is 1487\.38$/,
  );
  expect_problem(
    { ...taxed, expected_tax_total: 237.49 },
    "expected_tax_total",
    /^is 237\.49 but the tax total is 237\.48$/,
  );
  // A caller summing rounded line taxes instead of rounding once per group
  // is caught: 3 × round(0.03 × 19 %) = 0.03, round(0.09 × 19 %) = 0.02.
  expect_problem(
    {
      ...base(),
      tax_rate: 19,
      items: [1, 2, 3].map((n) => ({
        description: `L${n}`,
        quantity: 1,
        rate: 0.03,
        amount: 0.03,
      })),
      expected_tax_total: 0.03,
    },
    "expected_tax_total",
    /^is 0\.03 but the tax total is 0\.02$/,
  );
});

Deno.test("rule IBAN: country length and mod-97 check digits, spaces and case normalized", () => {
  for (
    const iban of [
      "DE89 3704 0044 0532 0130 00",
      "GB82 WEST 1234 5698 7654 32",
      "ch93 0076 2011 6238 5295 7",
      "NL91ABNA0417164300",
      "FR14 2004 1010 0505 0001 3M02 606",
      "NO9386011117947",
    ]
  ) {
    const invoice = parse({ ...base(), payment: { iban } });
    assertEquals(invoice.payment?.iban, iban.replace(/ /g, "").toUpperCase());
  }
  const cases: [string, RegExp][] = [
    ["DE89 3704 0044 0532 0130 01", /check digits/],
    ["DE88 3704 0044 0532 0130 00", /check digits/],
    ["DE89 3704 0044 0532 0130", /22 characters for DE IBANs \(got 20\)/],
    ["NO93 8601 1117 9470", /15 characters/],
    ["ZZ89 3704 0044 0532 0130 00", /unknown IBAN country code ZZ/],
    ["not an iban", /must be an IBAN/],
  ];
  for (const [iban, pattern] of cases) {
    expect_problem({ ...base(), payment: { iban } }, "payment.iban", pattern);
  }
});

Deno.test("rule BIC: 8 or 11 characters of the ISO 9362 shape", () => {
  for (const bic of ["DEUTDEFF", "deutdeff500", "COBADEFFXXX", "NDEAFIHH"]) {
    assertEquals(
      parse({ ...base(), payment: { bic } }).payment?.bic,
      bic.toUpperCase(),
    );
  }
  for (
    const bic of [
      "DEUT",
      "DEUTDEFF5",
      "DEUTDEFF50",
      "1EUTDEFF",
      "DEUT1EFF",
      "DEUTDEFF-500",
    ]
  ) {
    expect_problem({ ...base(), payment: { bic } }, "payment.bic", /8 or 11/);
  }
});

Deno.test("rule mixed tax: lines without tax next to taxed ones need a rate unless the invoice gives a default", () => {
  const mixed = with_line({ tax_rate: 19 });
  expect_problem(
    mixed,
    "items[1].tax_rate",
    /required because other lines have tax/,
  );
  assert(!problems(mixed).some((line) => line.startsWith("items[0]")));
  // A tax field only on a charge also makes the invoice taxed.
  expect_problem(
    {
      ...base(),
      charges: [{ description: "Shipping", amount: 5, tax_rate: 19 }],
    },
    "items[0].tax_rate",
    /required/,
  );
  // With an invoice default the untaxed line takes it.
  const defaulted = parse({ ...mixed, tax_rate: 7 });
  assertEquals(defaulted.items.map((item) => item.tax_rate), ["19", "7"]);
  // A discount with two groups and no default must name its rate …
  expect_problem(
    {
      ...base(),
      items: [
        { description: "A", quantity: 1, rate: 100, amount: 100, tax_rate: 19 },
        { description: "B", quantity: 1, rate: 100, amount: 100, tax_rate: 7 },
      ],
      discounts: [{ description: "D", amount: 10 }],
    },
    "discounts[0].tax_rate",
    /several tax rates/,
  );
  // … and with one group it takes that group.
  const one_group = parse({
    ...with_line({ tax_rate: 7 }),
    items: [{
      description: "A",
      quantity: 1,
      rate: 100,
      amount: 100,
      tax_rate: 7,
    }],
    discounts: [{ description: "D", amount: 10 }],
  });
  assertEquals(one_group.discounts?.[0].tax_rate, "7");
  assertEquals(one_group.tax_breakdown, [{
    category: "S",
    rate: "7",
    taxable_amount: "90.00",
    tax_amount: "6.30",
  }]);
});

Deno.test("rule default categories: a rate above 0 is S, a rate of 0 is Z, an item's pair replaces the default", () => {
  const invoice = parse({
    ...base(),
    tax_rate: 20,
    items: [
      { description: "A", quantity: 1, rate: 10, amount: 10 },
      { description: "B", quantity: 1, rate: 10, amount: 10, tax_rate: 0 },
      { description: "C", quantity: 1, rate: 10, amount: 10, tax_rate: 5.5 },
      {
        description: "D",
        quantity: 1,
        rate: 10,
        amount: 10,
        tax_category: "Z",
      },
    ],
  });
  assertEquals(
    invoice.items.map((item) => [item.tax_category, item.tax_rate]),
    [["S", "20"], ["Z", "0"], ["S", "5.5"], ["Z", "0"]],
  );
  assertEquals(
    invoice.tax_breakdown?.map((
      row,
    ) => [row.category, row.rate, row.taxable_amount, row.tax_amount]),
    [["S", "20", "10.00", "2.00"], ["S", "5.5", "10.00", "0.55"], [
      "Z",
      "0",
      "20.00",
      "0.00",
    ]],
  );
  // Seed-style: no tax field anywhere means no tax at all.
  const plain = parse(base());
  assertEquals(plain.has_tax, false);
  assertEquals(plain.items[0].tax_category, undefined);
});

Deno.test("zero-amount discounts and charges are accepted, negative ones refused", () => {
  const invoice = parse({
    ...base(),
    tax_rate: 19,
    discounts: [{ description: "Rabatt", amount: 0 }, {
      description: "Aktion",
      percent: 0,
    }],
    charges: [{ description: "Versand", amount: 0, reason_code: "FC" }],
  });
  assertEquals(invoice.discounts?.map((entry) => entry.amount), [
    "0.00",
    "0.00",
  ]);
  assertEquals(invoice.charges?.[0].amount, "0.00");
  assertEquals(invoice.charges?.[0].reason_code, "FC");
  assertEquals(invoice.total, "1487.38");
  expect_problem(
    { ...base(), discounts: [{ description: "D", amount: -1 }] },
    "discounts[0].amount",
    /negative/,
  );
});

Deno.test("rule field shapes: amount or percent (not both, not neither), country codes, unit codes, phone", () => {
  expect_problem(
    { ...base(), discounts: [{ description: "Both", amount: 1, percent: 5 }] },
    "discounts[0].percent",
    /either "amount" or "percent"/,
  );
  expect_problem(
    { ...base(), charges: [{ description: "Neither" }] },
    "charges[0].amount",
    /either "amount" or "percent"/,
  );
  expect_problem(
    { ...base(), sender: { ...(base().sender as Body), country: "XX" } },
    "sender.country",
    /ISO 3166-1/,
  );
  assertEquals(
    parse({ ...base(), sender: { ...(base().sender as Body), country: "at" } })
      .sender.country,
    "AT",
  );
  expect_problem(
    with_line({ unit: "hours" }),
    "items[0].unit",
    /Recommendation 20/,
  );
  expect_problem(
    { ...base(), bill_to: { ...(base().bill_to as Body), phone: "call me" } },
    "bill_to.phone",
    /phone number/,
  );
});

Deno.test("arithmetic: in a currency without a minor unit, tax and percents are rounded once, to whole units", () => {
  const yen = parse({
    ...base(),
    currency: "JPY",
    items: [{ description: "A", quantity: 1, rate: 209, amount: 209 }],
    tax_rate: 5.5,
    // 5.5 % of 209 = 11.495: 11, not 11.50 → 12 (rounding twice).
    charges: [{ description: "C", percent: 0.05, tax_rate: 0 }],
  });
  assertEquals(yen.tax_breakdown?.[0].tax_amount, "11.00");
  // 0.05 % of 990 = 0.495 … of 209 = 0.1045: 0.
  assertEquals(yen.charges?.[0].amount, "0.00");
  const big = parse({
    ...base(),
    currency: "JPY",
    items: [{ description: "A", quantity: 1, rate: 990, amount: 990 }],
    discounts: [{ description: "D", percent: 0.05 }],
  });
  assertEquals(big.discounts?.[0].amount, "0.00"); // 0.495 → 0, not 0.50 → 1
  assertEquals(big.total, "990.00");
});

// ---------------------------------------------------------------------------
// The same rules through the public faces.

/** One bad body per rule and the field its 400 must name. */
function bad_bodies(): [string, Body, string][] {
  const no_buyer_id = structuredClone<Body>({
    ...base(),
    tax_category: "AE",
    tax_exemption_reason: "Reverse charge",
  });
  delete (no_buyer_id.bill_to as Body).tax_id;
  return [
    ["unknown locale", { ...base(), locale: "xx-YY" }, "locale"],
    ["rate out of range", with_line({ tax_rate: 120 }), "items[0].tax_rate"],
    ["rate with 3 decimals", { ...base(), tax_rate: 7.775 }, "tax_rate"],
    ["exempt with a rate", {
      ...base(),
      tax_category: "E",
      tax_rate: 19,
      tax_exemption_reason: "x",
    }, "tax_rate"],
    [
      "no exemption reason",
      { ...base(), tax_category: "G" },
      "tax_exemption_reason",
    ],
    ["reverse charge without buyer tax id", no_buyer_id, "bill_to.tax_id"],
    ["discount too large", {
      ...base(),
      tax_rate: 19,
      discounts: [{ description: "D", amount: 2000 }],
    }, "discounts[0].amount"],
    [
      "negative amount_paid",
      { ...base(), amount_paid: -5 },
      "amount_paid",
    ],
    [
      "logo not an image",
      { ...base(), logo: "data:image/png;base64,aGVsbG8=" },
      "logo",
    ],
    ["logo too wide", {
      ...base(),
      logo: data_url("image/png", png_bytes(4001, 1, white)),
    }, "logo"],
    ["http payment link", {
      ...base(),
      payment: { link: "http://pay.example" },
    }, "payment.link"],
    ["credit note without preceding invoice", {
      ...base(),
      document_type: "credit_note",
    }, "preceding_invoice_number"],
    [
      "expected_total mismatch",
      { ...base(), expected_total: 1 },
      "expected_total",
    ],
    ["expected_tax_total mismatch", {
      ...base(),
      tax_rate: 19,
      expected_tax_total: 1,
    }, "expected_tax_total"],
    [
      "bad IBAN",
      { ...base(), payment: { iban: "DE00370400440532013000" } },
      "payment.iban",
    ],
    ["bad BIC", { ...base(), payment: { bic: "XX" } }, "payment.bic"],
    [
      "mixed tax without default",
      with_line({ tax_rate: 19 }),
      "items[1].tax_rate",
    ],
  ];
}

/** A server rendering in-process with the real renderer, recording what it was given. */
async function recording_server() {
  const rendered: Invoice[] = [];
  const render_document = (invoice: Invoice) => {
    rendered.push(invoice);
    return Promise.resolve(render_invoice_pdf(invoice));
  };
  const server = await start_test_server({ render_document });
  const services = create_services(server.test_database.database, {
    render_document,
  });
  const { key } = await server.create_account({ plan: "pro" });
  const caller = (accept_language?: string) =>
    create_caller(
      {
        authorization: `Bearer ${key}`,
        session: null,
        binary_document: false,
        accept_language,
        response: { headers: new Headers() },
        services,
      } satisfies ServiceContext,
    );
  return { server, key, rendered, caller };
}

Deno.test("HTTP and tRPC: every bad-input rule answers 400 invalid_request naming its field", async () => {
  const { server, key, rendered, caller } = await recording_server();
  try {
    for (const [rule, body, path] of bad_bodies()) {
      const response = await server.generate(key, body);
      const answer = await response.json();
      assertEquals(response.status, 400, `${rule}: ${JSON.stringify(answer)}`);
      assertEquals(answer.error.code, "invalid_request", rule);
      assert(
        answer.error.details.some((d: { path: string }) => d.path === path),
        `${rule}: ${JSON.stringify(answer.error.details)}`,
      );
      assertStringIncludes(answer.error.message, path, rule);

      const error = await assertRejects(() =>
        caller().invoice.generate(body as never)
      );
      const api_error = to_api_error(error);
      assert(api_error instanceof ApiError);
      assertEquals(api_error.status, 400, rule);
      assert(
        api_error.details?.some((d) => d.path === path),
        `${rule} (tRPC): ${JSON.stringify(api_error.details)}`,
      );
    }
    assertEquals(rendered.length, 0, "nothing bad reaches the renderer");
  } finally {
    await server.close();
  }
});

Deno.test("Accept-Language over HTTP: q-values, language fallback, the body's locale wins, no header means the default output", async () => {
  const { server, key, rendered } = await recording_server();
  try {
    const body = { ...base(), tax_rate: 19 };
    const cases: [Record<string, string>, Body, string | undefined][] = [
      [{ "Accept-Language": "fr-CH, de;q=0.8" }, body, "fr-FR"],
      [{ "Accept-Language": "eo;q=1, de;q=0.5, fr;q=0.4" }, body, "de-DE"],
      [{ "Accept-Language": "en-GB;q=0.3, es-ES;q=0.9" }, body, "es-ES"],
      [{ "Accept-Language": "de-DE" }, { ...body, locale: "it-IT" }, "it-IT"],
      [{ "Accept-Language": "eo, tlh, *;q=0.5" }, body, undefined],
      [{ "Accept-Language": "de;q=0" }, body, undefined],
      [{}, body, undefined],
    ];
    const pdfs: Uint8Array[] = [];
    for (const [index, [headers, request, locale]] of cases.entries()) {
      const response = await server.generate(key, request, { headers });
      assertEquals(response.status, 200, await response.clone().text());
      // The same body in another language is another document, not a replay;
      // the last two resolve to no locale, like the fifth: replays of it.
      const replay = index >= 5;
      assertEquals(
        response.headers.get("Idempotent-Replayed"),
        replay ? "true" : null,
        JSON.stringify(headers),
      );
      pdfs.push(new Uint8Array(await response.arrayBuffer()));
      assertEquals(rendered.at(-1)?.locale, locale, JSON.stringify(headers));
    }
    assertEquals(pdfs[6], pdfs[4]);
    const french = await pdf_text(pdfs[0]);
    assertMatch(french, /1\s?249,90/);
    const untagged = await pdf_text(pdfs[4]);
    assertStringIncludes(untagged, "1,249.90");
  } finally {
    await server.close();
  }
});

Deno.test("Accept-Language through the tRPC caller and /trpc: the renderer receives the resolved locale", async () => {
  const { server, key, rendered, caller } = await recording_server();
  try {
    const body = { ...base(), invoice_number: "T-1" };
    const german = await caller("de-CH;q=0.9, de;q=0.8").invoice.generate(
      body as never,
    );
    assertEquals(german.content_type, "application/pdf");
    assertEquals(rendered.at(-1)?.locale, "de-CH");
    const none = await caller(undefined).invoice.generate(
      { ...body, invoice_number: "T-2" } as never,
    );
    assertEquals(rendered.at(-1)?.locale, undefined);
    assertNotEquals(german.pdf_base64, none.pdf_base64);
    const own = await caller("de").invoice.generate(
      { ...body, invoice_number: "T-3", locale: "pl-PL" } as never,
    );
    assertEquals(own.content_type, "application/pdf");
    assertEquals(rendered.at(-1)?.locale, "pl-PL");

    // Over HTTP to /trpc, the header is the request's.
    const response = await fetch(`${server.url}/trpc/invoice.generate`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${key}`,
        "Content-Type": "application/json",
        "Accept-Language": "sv",
      },
      body: JSON.stringify({ ...body, invoice_number: "T-4" }),
    });
    assertEquals(response.status, 200, await response.clone().text());
    await response.arrayBuffer();
    assertEquals(rendered.at(-1)?.locale, "sv-SE");
  } finally {
    await server.close();
  }
});
