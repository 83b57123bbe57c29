/**
 * Property test of the invoice arithmetic: 10,000 random invoices —
 * quantities with up to 4 decimals, rates with up to 3 decimals, line
 * amounts within one minor unit of the exact product, several tax categories
 * and rates, invoice defaults, fixed and percent discounts and charges (a
 * discount's percent of its tax group's lines), credit lines, amounts paid (also more
 * than the total), currencies — parsed by the contract and checked figure by figure
 * against an independent model written differently: exact rationals
 * (bigint numerator and denominator in whole currency units), rounding by
 * floor division (to whole units for JPY, KRW, ISK), and its own grouping
 * and refusal rules. No PDFs here.
 *
 * Replay a failure with PROPERTY_SEED=<seed> (the message names it).
 */
import { seeded_random } from "../helpers/random.ts";
import { assert, assertEquals } from "../assert.ts";
import {
  format_path,
  type Invoice,
  InvoiceRequestSchema,
} from "../../contract/mod.ts";

// ---------------------------------------------------------------------------
// Rationals.

interface Q {
  n: bigint;
  d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}

function q(n: bigint, d = 1n): Q {
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d);
  return { n: n / g, d: d / g };
}

const ZERO = q(0n);
const add = (a: Q, b: Q): Q => q(a.n * b.d + b.n * a.d, a.d * b.d);
const sub = (a: Q, b: Q): Q => add(a, q(-b.n, b.d));
const mul = (a: Q, b: Q): Q => q(a.n * b.n, a.d * b.d);
const less = (a: Q, b: Q): boolean => a.n * b.d < b.n * a.d;
const same = (a: Q, b: Q): boolean => a.n === b.n && a.d === b.d;

/** A decimal string ("12.5", "-0.125") as a rational. */
function parse_q(text: string): Q {
  const negative = text.startsWith("-");
  const [whole, fraction = ""] = text.replace("-", "").split(".");
  const n = BigInt(whole + fraction) * (negative ? -1n : 1n);
  return q(n, 10n ** BigInt(fraction.length));
}

/**
 * Rounds to the currency's minor unit (cents, or whole units when `minor` is
 * 0), half away from zero: sign × ⌊|x|·10^minor + ½⌋ ÷ 10^minor.
 */
function round_q(x: Q, minor = 2): Q {
  const scale = 10n ** BigInt(minor);
  const magnitude = x.n < 0n ? -x.n : x.n;
  const units = (2n * scale * magnitude + x.d) / (2n * x.d);
  return q(x.n < 0n ? -units : units, scale);
}

// ---------------------------------------------------------------------------
// Random requests and the model's expectations.

type Body = Record<string, unknown>;

interface Tax {
  category: string;
  rate: string;
}

const EXEMPT = ["E", "AE", "K", "G", "O"];
const CURRENCIES = ["EUR", "USD", "GBP", "CHF", "PLN", "SEK", "CZK", "KWD"];
/** Currencies without a minor unit: whole amounts, results rounded to whole units. */
const WHOLE_CURRENCIES = ["JPY", "KRW", "ISK"];

/** The model's result: a refusal (with the fields it must name) or every figure. */
type Expected =
  | { refused: string[] }
  | {
    refused?: undefined;
    line_taxes: (Tax | undefined)[];
    adjustments: { amount: Q; tax?: Tax }[];
    breakdown: Map<string, { taxable: Q; tax: Q }>;
    subtotal: Q;
    discount_total: Q;
    charge_total: Q;
    tax_total: Q;
    total: Q;
    amount_due: Q;
  };

function decimal_text(random: () => number, max_units: number, places: number) {
  const units = 1 + Math.floor(random() * max_units);
  const scale = 10 ** places;
  const whole = Math.floor(units / scale);
  const fraction = String(units % scale).padStart(places, "0");
  return places === 0 ? String(units) : `${whole}.${fraction}`;
}

/** A canonical key of a (category, rate) group. */
function key_of(tax: Tax): string {
  const rate = parse_q(tax.rate);
  return `${tax.category}|${rate.n}/${rate.d}`;
}

function build(random: () => number, run: number): {
  body: Body;
  expected: Expected;
} {
  const pick = <T>(values: readonly T[]): T =>
    values[Math.floor(random() * values.length)];
  const random_rate = (): string =>
    random() < 0.7
      ? pick(["19", "7", "20", "5", "5.5", "7.7", "8.1", "2.5", "21", "25"])
      : decimal_text(random, 10_000, 2).replace(/\.?0+$/, "");
  const random_tax = (): Tax =>
    random() < 0.75
      ? { category: "S", rate: random_rate() }
      : { category: pick(["Z", ...EXEMPT]), rate: "0" };
  const tax_json = (tax: Tax): Body =>
    random() < 0.3 && tax.category === (Number(tax.rate) > 0 ? "S" : "Z")
      ? { tax_rate: Number(tax.rate) } // the category follows from the rate
      : random() < 0.3 && tax.category !== "S"
      ? { tax_category: tax.category } // the rate is 0
      : { tax_category: tax.category, tax_rate: Number(tax.rate) };

  const currency = random() < 0.15 ? pick(WHOLE_CURRENCIES) : pick(CURRENCIES);
  const minor = WHOLE_CURRENCIES.includes(currency) ? 0 : 2;
  const mode = pick(["none", "none", "default", "lines", "lines", "mixed"]);
  const invoice_tax = mode === "default" || mode === "mixed"
    ? random_tax()
    : undefined;
  const refused: string[] = [];

  // Lines: quantities sometimes with up to 4 decimals, prices with 0–3
  // decimals, sometimes a credit line; the amount sent is the exact product
  // rounded, or one minor unit off it (accepted within one minor unit).
  const items: Body[] = [];
  const line_amounts: Q[] = [];
  const line_taxes: (Tax | undefined)[] = [];
  const line_count = 1 + Math.floor(random() * 8);
  const unit = q(1n, 10n ** BigInt(minor));
  for (let i = 0; i < line_count; i++) {
    const quantity = random() < 0.3
      ? decimal_text(random, 400_000, pick([1, 2, 3, 4]))
      : String(1 + Math.floor(random() * 40));
    if (!less(ZERO, parse_q(quantity))) {
      i--;
      continue;
    }
    let price = decimal_text(
      random,
      3_000_000,
      minor === 0 ? 0 : pick([0, 1, 2, 2, 2, 3]),
    );
    if (random() < 0.07) price = `-${price}`;
    const exact = mul(parse_q(quantity), parse_q(price));
    const shift = random() < 0.15 ? pick([-1n, 1n]) : 0n;
    const amount = add(round_q(exact, minor), q(shift * unit.n, unit.d));
    const off = sub(amount, exact);
    if (less(unit, off) || less(off, q(-unit.n, unit.d))) {
      refused.push(`items[${i}].amount`);
    }
    const own = mode === "lines" || (mode === "mixed" && random() < 0.5)
      ? random_tax()
      : undefined;
    items.push({
      description: `Line ${i}`,
      quantity: Number(quantity),
      rate: Number(price),
      amount: Number(amount.n) / Number(amount.d),
      ...(own ? tax_json(own) : {}),
    });
    line_amounts.push(amount);
    line_taxes.push(mode === "none" ? undefined : own ?? invoice_tax);
  }
  const subtotal = line_amounts.reduce(add, ZERO);

  // Groups of the lines.
  const groups = new Map<string, { tax: Tax; lines: Q; adjust: Q }>();
  line_taxes.forEach((tax, i) => {
    if (!tax) return;
    const group = groups.get(key_of(tax)) ??
      { tax, lines: ZERO, adjust: ZERO };
    group.lines = add(group.lines, line_amounts[i]);
    groups.set(key_of(tax), group);
  });
  const line_groups = [...groups.values()].map((group) => group.tax);

  // Discounts and charges.
  const adjustments: { amount: Q; tax?: Tax }[] = [];
  const discounted = new Map<string, { amount: Q; field: string }>();
  let discount_total = ZERO;
  let charge_total = ZERO;
  const entries = (field: "discounts" | "charges"): Body[] => {
    const count = random() < 0.5 ? 0 : 1 + Math.floor(random() * 3);
    return Array.from({ length: count }, (_, index) => {
      const percent = random() < 0.5
        ? decimal_text(random, field === "discounts" ? 3_000 : 2_000, 2)
        : undefined;
      const own = mode !== "none" && random() < 0.5 ? random_tax() : undefined;
      const tax = mode === "none" ? undefined : own ?? invoice_tax ??
        (line_groups.length === 1 ? line_groups[0] : undefined);
      if (mode !== "none" && !tax) refused.push(`${field}[${index}].tax_rate`);
      // A discount's percent is of the lines of its tax group; a charge's
      // (and any without tax) of all lines.
      const base = tax && field === "discounts"
        ? groups.get(key_of(tax))?.lines ?? ZERO
        : subtotal;
      const amount = percent === undefined
        ? parse_q(decimal_text(random, 50_000, minor))
        : round_q(
          mul(base, q(parse_q(percent).n, parse_q(percent).d * 100n)),
          minor,
        );
      if (percent !== undefined && less(base, ZERO)) {
        refused.push(`${field}[${index}].percent`);
      }
      if (tax) {
        const group = groups.get(key_of(tax)) ??
          { tax, lines: ZERO, adjust: ZERO };
        group.adjust = field === "discounts"
          ? sub(group.adjust, amount)
          : add(group.adjust, amount);
        groups.set(key_of(tax), group);
      }
      if (field === "discounts") {
        discount_total = add(discount_total, amount);
      }
      if (field === "discounts" && (tax || mode === "none")) {
        const key = tax ? key_of(tax) : "";
        const seen = discounted.get(key);
        discounted.set(key, {
          amount: add(seen?.amount ?? ZERO, amount),
          field: seen?.field ??
            `discounts[${index}].${
              percent === undefined ? "amount" : "percent"
            }`,
        });
      }
      if (field === "charges") charge_total = add(charge_total, amount);
      adjustments.push({ amount, tax });
      return {
        description: `${field} ${index}`,
        ...(percent === undefined
          ? { amount: Number(amount.n) / Number(amount.d) }
          : { percent: Number(percent) }),
        ...(own ? tax_json(own) : {}),
      };
    });
  };
  const discounts = entries("discounts");
  const charges = entries("charges");

  // A discount larger than the lines and charges it discounts.
  for (const [key, { amount, field }] of discounted) {
    const group = groups.get(key);
    const base = group
      ? add(group.lines, add(group.adjust, amount))
      : add(subtotal, charge_total);
    if (less(ZERO, amount) && less(base, amount)) refused.push(field);
  }

  const any_exempt = [...groups.values()].some((g) =>
    EXEMPT.includes(g.tax.category)
  );
  const give_reason = !any_exempt || random() < 0.97;
  if (!give_reason) refused.push("tax_exemption_reason");

  const breakdown = new Map<string, { taxable: Q; tax: Q }>();
  let tax_total = ZERO;
  for (const [key, group] of groups) {
    const taxable = add(group.lines, group.adjust);
    const rate = parse_q(group.tax.rate);
    const tax = round_q(mul(taxable, q(rate.n, rate.d * 100n)), minor);
    breakdown.set(key, { taxable, tax });
    tax_total = add(tax_total, tax);
  }
  const total = add(
    sub(add(subtotal, charge_total), discount_total),
    tax_total,
  );
  let amount_paid: Q | undefined;
  if (random() < 0.3 && less(ZERO, total)) {
    // Up to the whole total, sometimes more (the amount due is then a credit).
    const scale = 10n ** BigInt(minor);
    const units = total.n * scale / total.d;
    const paid = random() < 0.1
      ? units + 1n + BigInt(Math.floor(random() * 1000))
      : BigInt(Math.floor(random() * Number(units + 1n)));
    amount_paid = q(paid, scale);
  }

  const body: Body = {
    invoice_number: `P-${run}`,
    date: "2026-11-23",
    due_date: "2026-12-23",
    currency,
    sender: { name: "S", email: "s@example.com", tax_id: "DE123456789" },
    bill_to: { name: "B", email: "b@example.com", tax_id: "FR12345678901" },
    items,
    ...(invoice_tax ? tax_json(invoice_tax) : {}),
    ...(any_exempt && give_reason ? { tax_exemption_reason: "Exempt" } : {}),
    ...(discounts.length ? { discounts } : {}),
    ...(charges.length ? { charges } : {}),
    ...(amount_paid
      ? { amount_paid: Number(amount_paid.n) / Number(amount_paid.d) }
      : {}),
  };
  // Wrong line amounts are all that is reported: totals of them say nothing.
  const line_refusals = refused.filter((field) => field.startsWith("items"));
  if (line_refusals.length > 0) {
    return { body, expected: { refused: line_refusals } };
  }
  if (refused.length > 0) return { body, expected: { refused } };
  return {
    body,
    expected: {
      line_taxes,
      adjustments,
      breakdown,
      subtotal,
      discount_total,
      charge_total,
      tax_total,
      total,
      amount_due: amount_paid ? sub(total, amount_paid) : total,
    },
  };
}

function check(
  invoice: Invoice,
  expected: Exclude<Expected, { refused: string[] }>,
  context: string,
): void {
  const equal = (actual: string | undefined, value: Q, what: string) => {
    assert(actual !== undefined, `${context}: ${what} missing`);
    assertEquals(
      actual,
      actual.includes(".") ? actual : `${actual}.00`,
      `${context}: ${what} has two decimals`,
    );
    assertEquals(
      actual.split(".")[1].length,
      2,
      `${context}: ${what} has two decimals`,
    );
    assert(
      same(parse_q(actual), value),
      `${context}: ${what} is ${actual}, expected ${value.n}/${value.d}`,
    );
  };
  const has_tax = expected.line_taxes.some((tax) => tax !== undefined);
  assertEquals(invoice.has_tax, has_tax, context);
  equal(invoice.subtotal, expected.subtotal, "subtotal");
  equal(invoice.total, expected.total, "total");
  equal(invoice.amount_due, expected.amount_due, "amount_due");
  invoice.items.forEach((item, i) => {
    const tax = expected.line_taxes[i];
    assertEquals(item.tax_category, tax?.category, `${context}: items[${i}]`);
    if (tax) {
      assert(
        same(parse_q(item.tax_rate!), parse_q(tax.rate)),
        `${context}: items[${i}].tax_rate`,
      );
    }
  });
  const adjustments = [
    ...(invoice.discounts ?? []),
    ...(invoice.charges ?? []),
  ];
  assertEquals(adjustments.length, expected.adjustments.length, context);
  adjustments.forEach((entry, i) => {
    equal(entry.amount, expected.adjustments[i].amount, `adjustment ${i}`);
    assertEquals(
      entry.tax_category,
      expected.adjustments[i].tax?.category,
      context,
    );
  });
  if (invoice.discounts) {
    equal(invoice.discount_total, expected.discount_total, "discount_total");
  }
  if (invoice.charges) {
    equal(invoice.charge_total, expected.charge_total, "charge_total");
  }
  if (has_tax || adjustments.length > 0) {
    equal(
      invoice.total_without_tax,
      sub(
        add(expected.subtotal, expected.charge_total),
        expected.discount_total,
      ),
      "total_without_tax",
    );
  }
  if (!has_tax) {
    assertEquals(invoice.tax_breakdown, undefined, context);
    return;
  }
  equal(invoice.tax_total, expected.tax_total, "tax_total");
  const rows = invoice.tax_breakdown ?? [];
  assertEquals(rows.length, expected.breakdown.size, `${context}: groups`);
  for (const row of rows) {
    const group = expected.breakdown.get(
      key_of({ category: row.category, rate: row.rate }),
    );
    assert(group, `${context}: unexpected group ${row.category} ${row.rate}`);
    equal(
      row.taxable_amount,
      group.taxable,
      `taxable ${row.category} ${row.rate}`,
    );
    equal(row.tax_amount, group.tax, `tax ${row.category} ${row.rate}`);
    assertEquals(
      row.exemption_reason !== undefined,
      EXEMPT.includes(row.category),
      context,
    );
  }
}

Deno.test("property: 10,000 random invoices — every total, discount, charge and tax group equals an independent rational computation", () => {
  const seed = Number(Deno.env.get("PROPERTY_SEED") ?? 9_2026);
  const random = seeded_random(seed);
  let accepted = 0;
  const refusals = new Map<string, number>();
  for (let run = 0; run < 10_000; run++) {
    const { body, expected } = build(random, run);
    const context = `run ${run} (PROPERTY_SEED=${seed})`;
    const result = InvoiceRequestSchema.safeParse(body);
    if (expected.refused) {
      assert(
        !result.success,
        `${context}: expected a refusal at ${expected.refused}`,
      );
      const paths = result.error.issues.map((issue) => format_path(issue.path));
      for (const field of expected.refused) {
        assert(
          paths.includes(field),
          `${context}: ${field} not in ${JSON.stringify(paths)}`,
        );
      }
      assertEquals(
        paths.filter((path) => !expected.refused.includes(path)),
        [],
        `${context}: refused for more than expected`,
      );
      for (const field of expected.refused) {
        const kind = field.replace(/\[\d+\]/g, "[]");
        refusals.set(kind, (refusals.get(kind) ?? 0) + 1);
      }
      continue;
    }
    assert(
      result.success,
      `${context}: ${JSON.stringify(result.error?.issues)}\n${
        JSON.stringify(body)
      }`,
    );
    check(result.data, expected, context);
    accepted++;
  }
  // The generator reaches both sides: mostly valid invoices, and each refusal.
  assert(accepted > 5_000, `only ${accepted} accepted`);
  for (
    const kind of [
      "discounts[].amount",
      "discounts[].tax_rate",
      "charges[].tax_rate",
      "items[].amount",
      "tax_exemption_reason",
    ]
  ) {
    assert(
      (refusals.get(kind) ?? 0) > 0,
      `no refusal at ${kind}: ${JSON.stringify([...refusals])}`,
    );
  }
});
