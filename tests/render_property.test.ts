/**
 * PDF-level property test: over many random invoices (locales, currencies,
 * tax categories and rates, discounts, charges, amounts paid), every
 * figure the invoice carries is what `pdftotext` reads from the PDF: line
 * amounts, subtotal, discounts, charges, total without tax, total tax,
 * total, amount paid, amount due and each tax breakdown row.
 *
 * The random invoices are normalized invoices with exact bigint arithmetic
 * (EN 16931 style: tax per (category, rate) group, rounded once per group,
 * half away from zero).
 *
 * Throughput: PDFs are merged in batches with `qpdf --empty --pages` and
 * each batch is read by one `pdftotext` run. Default 300 invoices;
 * `PDF_PROPERTY_COUNT=10000` for the full run (see README for timings).
 */

import { assert, assertEquals } from "./assert.ts";
import type { Invoice } from "../contract/invoice_types.ts";
import { render_invoice_pdf } from "../server/pdf/mod.ts";
import { fill, locale_texts, RENDERER_LOCALES } from "../server/pdf/locales.ts";
import { formats_for } from "../server/pdf/locale_format.ts";

const COUNT = Number(Deno.env.get("PDF_PROPERTY_COUNT") ?? "300");
const BATCH = 200;

/** Deterministic PRNG (mulberry32) so a failure can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function cents_string(cents: bigint): string {
  const sign = cents < 0n ? "-" : "";
  const abs = cents < 0n ? -cents : cents;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, "0")}`;
}

/** numerator / denominator rounded half away from zero. */
function div_round(numerator: bigint, denominator: bigint): bigint {
  const negative = (numerator < 0n) !== (denominator < 0n);
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const q = (2n * n + d) / (2n * d);
  return negative ? -q : q;
}

/** A rate string "7.7" as hundredths of a percent (770n). */
function rate_hundredths(rate: string): bigint {
  const [int, frac = ""] = rate.split(".");
  return BigInt(int) * 100n + BigInt(frac.padEnd(2, "0"));
}

const CURRENCIES = ["EUR", "USD", "GBP", "CHF", "CZK", "PLN", "SEK", "JPY"];
const RATES = ["19", "7", "20", "10.25", "7.7", "5.5", "21", "25"];
const UNITS = ["HUR", "DAY", "C62", "H87", "KGM", "XYZ"];

interface Random {
  invoice: Invoice;
  number: string;
}

// deno-lint-ignore no-explicit-any
type Loose = any;

function random_invoice(index: number): Random {
  const random = prng(index + 1);
  const int = (min: number, max: number): number =>
    min + Math.floor(random() * (max - min + 1));
  const pick = <T>(list: readonly T[]): T => list[int(0, list.length - 1)];
  const locale = random() < 0.15 ? undefined : pick(RENDERER_LOCALES);
  const currency = random() < 0.1 ? undefined : pick(CURRENCIES);
  const has_tax = random() < 0.75;
  const group_choices: [string, string][] = [];
  if (has_tax) {
    const groups = int(1, 3);
    for (let g = 0; g < groups; g++) {
      const r = random();
      if (r < 0.7) group_choices.push(["S", pick(RATES)]);
      else if (r < 0.8) group_choices.push(["Z", "0"]);
      else group_choices.push([pick(["E", "AE", "K", "G", "O"]), "0"]);
    }
  }
  const items: Loose[] = [];
  const line_count = int(1, 5);
  for (let i = 0; i < line_count; i++) {
    const quantity = int(1, 40);
    const rate_cents = BigInt(int(1, 2_000_000)) * (random() < 0.05 ? -1n : 1n);
    const amount = rate_cents * BigInt(quantity);
    const item: Loose = {
      description: `Item ${i + 1}`,
      quantity,
      rate: cents_string(rate_cents),
      amount: cents_string(amount),
      _cents: amount,
    };
    if (random() < 0.4) item.unit = pick(UNITS);
    if (has_tax) {
      const [category, rate] = pick(group_choices);
      item.tax_category = category;
      item.tax_rate = rate;
    }
    items.push(item);
  }
  const subtotal = items.reduce((s, i) => s + i._cents, 0n);
  const positive_base = subtotal > 0n ? subtotal : 0n;
  const adjust = (kind: "discount" | "charge", k: number): Loose => {
    const entry: Loose = { description: `${kind} ${k + 1}` };
    if (random() < 0.5 && positive_base > 0n) {
      const percent = pick(["2", "5", "2.5", "10", "3.33"]);
      entry.percent = percent;
      entry.base_amount = cents_string(subtotal);
      entry._cents = div_round(subtotal * rate_hundredths(percent), 10000n);
    } else {
      entry._cents = BigInt(int(0, 5000));
    }
    entry.amount = cents_string(entry._cents);
    if (has_tax) {
      // Only groups that have lines: a discount never exceeds its group.
      const item = pick(items);
      entry.tax_category = item.tax_category;
      entry.tax_rate = item.tax_rate;
    }
    return entry;
  };
  const discounts = random() < 0.35
    ? Array.from({ length: int(1, 2) }, (_, k) => adjust("discount", k))
    : undefined;
  const charges = random() < 0.35
    ? Array.from({ length: int(1, 2) }, (_, k) => adjust("charge", k))
    : undefined;
  const discount_total = (discounts ?? []).reduce((s, d) => s + d._cents, 0n);
  const charge_total = (charges ?? []).reduce((s, c) => s + c._cents, 0n);
  const net = subtotal - discount_total + charge_total;
  let tax_total = 0n;
  const breakdown: Loose[] = [];
  if (has_tax) {
    const groups = new Map<
      string,
      { category: string; rate: string; taxable: bigint }
    >();
    const add = (category: string, rate: string, cents: bigint): void => {
      const key = `${category}|${rate}`;
      const group = groups.get(key) ?? { category, rate, taxable: 0n };
      group.taxable += cents;
      groups.set(key, group);
    };
    for (const item of items) {
      add(item.tax_category, item.tax_rate, item._cents);
    }
    for (const d of discounts ?? []) {
      add(d.tax_category, d.tax_rate, -(d._cents as bigint));
    }
    for (const c of charges ?? []) add(c.tax_category, c.tax_rate, c._cents);
    for (const group of groups.values()) {
      const tax = div_round(
        group.taxable * rate_hundredths(group.rate),
        10000n,
      );
      tax_total += tax;
      const row: Loose = {
        category: group.category,
        rate: group.rate,
        taxable_amount: cents_string(group.taxable),
        tax_amount: cents_string(tax),
      };
      if (!["S", "Z"].includes(group.category)) {
        row.exemption_reason = `Reason ${group.category}`;
      }
      breakdown.push(row);
    }
  }
  const total = net + tax_total;
  const paid = random() < 0.3 && total > 0n
    ? BigInt(int(0, Number(total)))
    : undefined;
  const number = `P-${index}`;
  const invoice: Loose = {
    invoice_number: number,
    date: "2026-11-23",
    due_date: "2026-12-23",
    currency,
    locale,
    document_type: "invoice",
    sender: { name: "Seller", email: "s@seller.example" },
    bill_to: { name: "Buyer", email: "b@buyer.example" },
    items: items.map(({ _cents, ...rest }) => rest),
    discounts: discounts?.map(({ _cents, ...rest }) => rest),
    charges: charges?.map(({ _cents, ...rest }) => rest),
    subtotal: cents_string(subtotal),
    has_tax,
    total: cents_string(total),
    amount_due: cents_string(total - (paid ?? 0n)),
  };
  if (has_tax) {
    invoice.tax_breakdown = breakdown;
    invoice.total_without_tax = cents_string(net);
    invoice.tax_total = cents_string(tax_total);
  }
  if (paid !== undefined) invoice.amount_paid = cents_string(paid);
  for (const key of Object.keys(invoice)) {
    if (invoice[key] === undefined) delete invoice[key];
  }
  return { invoice: invoice as Invoice, number };
}

/**
 * The lines every rendered invoice must show, as pdftotext reads them, and
 * text that may wrap (compare with whitespace squeezed).
 */
function expected_lines(
  invoice: Loose,
): { lines: string[]; wrapped: string[] } {
  const wrapped: string[] = [];
  const texts = locale_texts(invoice.locale);
  const tax = texts.tax_label;
  const l = (key: keyof typeof texts.labels): string =>
    fill(texts.labels[key], { tax });
  const f = formats_for(invoice.locale, invoice.currency);
  const neg = (v: string): string =>
    v.startsWith("-") ? v.slice(1) : (/^0\.00$/.test(v) ? v : `-${v}`);
  const lines = [`${l("subtotal")} ${f.money(invoice.subtotal)}`];
  for (const d of invoice.discounts ?? []) {
    const label = d.percent !== undefined
      ? `${d.description} (${f.percent(d.percent)})`
      : d.description;
    lines.push(`${label} ${f.money(neg(d.amount))}`);
  }
  for (const c of invoice.charges ?? []) {
    const label = c.percent !== undefined
      ? `${c.description} (${f.percent(c.percent)})`
      : c.description;
    lines.push(`${label} ${f.money(c.amount)}`);
  }
  if (invoice.has_tax) {
    lines.push(
      `${l("total_without_tax")} ${f.money(invoice.total_without_tax)}`,
      `${l("tax_total")} ${f.money(invoice.tax_total)}`,
      `${l("total_with_tax")} ${f.money(invoice.total)}`,
    );
    for (const row of invoice.tax_breakdown) {
      const name = row.category === "S" ? "" : fill(
        (texts.labels as unknown as Record<string, string>)[
          `category_${row.category}`
        ],
        { tax },
      );
      const first = [f.percent(row.rate), name].filter((v) => v !== "").join(
        " \u00B7 ",
      );
      // A long category name may wrap in its cell: compared squeezed.
      wrapped.push(
        `${first} ${f.money(row.taxable_amount)} ${f.money(row.tax_amount)}`,
      );
      if (row.exemption_reason) lines.push(row.exemption_reason);
    }
  } else {
    lines.push(`${l("total")} ${f.money(invoice.total)}`);
  }
  if (invoice.amount_paid !== undefined) {
    lines.push(
      `${l("amount_paid")} ${f.money(neg(invoice.amount_paid))}`,
      `${l("amount_due")} ${f.money(invoice.amount_due)}`,
    );
  }
  const plain = (line: string): string => line.replace(/[\u00A0\u202F]/g, " ");
  return { lines: lines.map(plain), wrapped: wrapped.map(plain) };
}

async function run_ok(command: string, args: string[]): Promise<Uint8Array> {
  const out = await new Deno.Command(command, {
    args,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.code !== 0 && !(command === "qpdf" && out.code === 3)) {
    throw new Error(
      `${command} failed: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return out.stdout;
}

Deno.test(`${COUNT} random invoices: pdftotext reads every figure the invoice carries`, async () => {
  const dir = await Deno.makeTempDir({ prefix: "invoice-property-" });
  const started = performance.now();
  let render_ms = 0;
  let checked_lines = 0;
  try {
    for (let start = 0; start < COUNT; start += BATCH) {
      const batch: Random[] = [];
      const files: string[] = [];
      for (let i = start; i < Math.min(COUNT, start + BATCH); i++) {
        const random = random_invoice(i);
        const t = performance.now();
        const pdf = render_invoice_pdf(random.invoice);
        render_ms += performance.now() - t;
        const file = `${dir}/${i}.pdf`;
        await Deno.writeFile(file, pdf);
        batch.push(random);
        files.push(file);
      }
      const merged = `${dir}/batch.pdf`;
      await run_ok("qpdf", ["--empty", "--pages", ...files, "--", merged]);
      const text = new TextDecoder().decode(
        await run_ok("pdftotext", ["-raw", "-enc", "UTF-8", merged, "-"]),
      );
      // Pages of each invoice, found by the invoice number in the footer.
      const pages = new Map<string, string[]>();
      for (const page of text.split("\f")) {
        const match = /^(P-\d+) \u00B7 /m.exec(page);
        if (match === null) continue;
        const list = pages.get(match[1]) ?? [];
        list.push(page);
        pages.set(match[1], list);
      }
      for (const { invoice, number } of batch) {
        const own = pages.get(number);
        assert(own !== undefined, `${number}: no pages found`);
        const lines = new Set(own.join("\n").split("\n"));
        const f = formats_for(
          (invoice as Loose).locale,
          (invoice as Loose).currency,
        );
        const all = own.join("\n");
        for (const [k, item] of invoice.items.entries()) {
          const amount = f.amount(item.amount).replace(/[\u00A0\u202F]/g, " ");
          const row = [...lines].find((line) =>
            line.startsWith(`Item ${k + 1} `)
          );
          assert(row !== undefined, `${number}: row of item ${k + 1}\n${all}`);
          assert(
            row.endsWith(` ${amount}`),
            `${number}: item ${k + 1} "${row}" should end with ${amount}`,
          );
          checked_lines++;
        }
        const expected = expected_lines(invoice);
        for (const line of expected.lines) {
          assert(
            lines.has(line),
            `${number} (${JSON.stringify(invoice)}): "${line}" in\n${all}`,
          );
          checked_lines++;
        }
        const squeezed = all.replace(/\s+/g, " ");
        for (const text of expected.wrapped) {
          assert(
            squeezed.includes(text.replace(/\s+/g, " ")),
            `${number} (${JSON.stringify(invoice)}): "${text}" in\n${all}`,
          );
          checked_lines++;
        }
      }
      for (const file of files) await Deno.remove(file);
    }
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${COUNT} invoices, ${checked_lines} lines checked in ${
      seconds.toFixed(1)
    } s (rendering ${(render_ms / 1000).toFixed(1)} s)`,
  );
  assertEquals(COUNT > 0, true);
});
