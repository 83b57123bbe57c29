/**
 * PDF-level property test: over many random invoices (locales, currencies,
 * tax categories and rates, discounts, charges, amounts paid), every
 * figure the invoice carries is what `pdftotext` reads from the PDF: line
 * amounts, subtotal, discounts, charges, total without tax, total tax,
 * total, amount paid, amount due and each tax breakdown row.
 *
 * The random invoices are requests normalized by the contract
 * (`InvoiceRequestSchema`): what pdftotext reads must equal what the
 * contract computed (its arithmetic has its own property test in
 * tests/contract/invoice_business.test.ts).
 *
 * Throughput: PDFs are merged in batches with `qpdf --empty --pages` and
 * each batch is read by one `pdftotext` run. Default 300 invoices;
 * `PDF_PROPERTY_COUNT=10000` for the full run (see README for timings).
 */

import { seeded_random } from "../helpers/random.ts";
import { LATIN_SCRIPT_LOCALES } from "../fixtures/locales.ts";
import { assert, assertEquals } from "../assert.ts";
import type { Invoice } from "../../contract/invoice_types.ts";
import { render_invoice_pdf } from "../../server/pdf/mod.ts";
import { fill, locale_texts } from "../../server/pdf/locales.ts";
import { formats_for } from "../../server/pdf/locale_format.ts";
import { is_vat_invoice } from "../../server/pdf/layout.ts";
import { InvoiceRequestSchema } from "../../contract/mod.ts";

const COUNT = Number(Deno.env.get("PDF_PROPERTY_COUNT") ?? "300");
const BATCH = 200;

function cents_string(cents: bigint): string {
  const sign = cents < 0n ? "-" : "";
  const abs = cents < 0n ? -cents : cents;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, "0")}`;
}

const CURRENCIES = ["EUR", "USD", "GBP", "CHF", "CZK", "PLN", "SEK", "JPY"];
const RATES = [19, 7, 20, 10.25, 7.7, 5.5, 21, 25];
const UNITS = ["HUR", "DAY", "C62", "H87", "KGM", "XYZ"];

interface Random {
  /** The contract's normalized invoice, or null when it refused the request. */
  invoice: Invoice | null;
  number: string;
}

// deno-lint-ignore no-explicit-any
type Loose = any;

/**
 * A random invoice request (locale, currency, tax groups, units,
 * discounts, charges, amount paid) normalized by the contract: the figures
 * the PDF must show are the contract's.
 */
function random_invoice(index: number): Random {
  const random = seeded_random(index + 1);
  const int = (min: number, max: number): number =>
    min + Math.floor(random() * (max - min + 1));
  const pick = <T>(list: readonly T[]): T => list[int(0, list.length - 1)];
  const number = `P-${index}`;
  const has_tax = random() < 0.75;
  const groups: [string, number][] = [];
  if (has_tax) {
    for (let g = int(1, 3); g > 0; g--) {
      const r = random();
      if (r < 0.7) groups.push(["S", pick(RATES)]);
      else if (r < 0.8) groups.push(["Z", 0]);
      else groups.push([pick(["E", "AE", "K", "G", "O"]), 0]);
    }
  }
  const items: Loose[] = [];
  for (let i = int(1, 5); i > 0; i--) {
    const quantity = int(1, 40);
    const rate_cents = BigInt(int(1, 2_000_000));
    const item: Loose = {
      description: `Item ${items.length + 1}`,
      quantity,
      rate: Number(cents_string(rate_cents)),
      amount: Number(cents_string(rate_cents * BigInt(quantity))),
    };
    if (random() < 0.4) item.unit = pick(UNITS);
    if (has_tax) {
      const [category, rate] = pick(groups);
      item.tax_category = category;
      item.tax_rate = rate;
    }
    items.push(item);
  }
  const adjustment = (kind: string, k: number): Loose => {
    // Attached to one line's group and small, so it never exceeds it.
    const line = pick(items);
    const entry: Loose = { description: `${kind} ${k + 1}` };
    if (random() < 0.5) entry.percent = pick([1, 2, 2.5, 3.33]);
    else entry.amount = int(1, Math.max(1, Math.floor(line.amount * 10))) / 100;
    if (has_tax) {
      entry.tax_category = line.tax_category;
      entry.tax_rate = line.tax_rate;
    }
    return entry;
  };
  const request: Loose = {
    invoice_number: number,
    date: "2026-11-23",
    due_date: "2026-12-23",
    sender: {
      name: "Seller",
      email: "s@seller.example",
      tax_id: "DE123456789",
    },
    bill_to: {
      name: "Buyer",
      email: "b@buyer.example",
      tax_id: "FR40123456824",
    },
    items,
  };
  if (random() < 0.85) request.locale = pick(LATIN_SCRIPT_LOCALES);
  if (random() < 0.9) request.currency = pick(CURRENCIES);
  if (groups.some(([c]) => !["S", "Z"].includes(c))) {
    request.tax_exemption_reason = "Reason for no tax";
  }
  if (random() < 0.35) {
    request.discounts = Array.from(
      { length: int(1, 2) },
      (_, k) => adjustment("discount", k),
    );
  }
  if (random() < 0.35) {
    request.charges = Array.from(
      { length: int(1, 2) },
      (_, k) => adjustment("charge", k),
    );
  }
  if (request.currency === "JPY") {
    // No minor unit: whole yen only (the contract refuses decimals).
    for (const item of items) {
      item.rate = Math.max(1, Math.round(item.rate));
      item.amount = item.rate * item.quantity;
    }
    for (
      const entry of [...(request.discounts ?? []), ...(request.charges ?? [])]
    ) {
      if (entry.amount !== undefined) {
        entry.amount = Math.max(1, Math.floor(entry.amount));
      }
    }
  }
  const first = InvoiceRequestSchema.safeParse(request);
  if (!first.success) return { invoice: null, number };
  if (random() < 0.3) {
    const total_cents = Math.round(Number(first.data.total) * 100);
    if (total_cents > 0) {
      const paid = int(0, total_cents) / 100;
      request.amount_paid = request.currency === "JPY"
        ? Math.floor(paid)
        : paid;
      const second = InvoiceRequestSchema.safeParse(request);
      return { invoice: second.success ? second.data : null, number };
    }
  }
  return { invoice: first.data, number };
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
  // A VAT invoice (the random sellers have VAT ids) takes the locale's
  // name of VAT where its default name is another tax's.
  const tax = (is_vat_invoice(invoice) ? texts.vat_label : undefined) ??
    texts.tax_label;
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
      // A long category name may wrap in its cell, beside the amounts:
      // the amounts compared squeezed, the name's words each.
      wrapped.push(
        `${f.money(row.taxable_amount)} ${f.money(row.tax_amount)}`,
        ...first.split(" "),
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
  let refused = 0;
  try {
    for (let start = 0; start < COUNT; start += BATCH) {
      const batch: Random[] = [];
      const files: string[] = [];
      for (let i = start; i < Math.min(COUNT, start + BATCH); i++) {
        const random = random_invoice(i);
        if (random.invoice === null) {
          refused++;
          continue;
        }
        const t = performance.now();
        const pdf = render_invoice_pdf(random.invoice);
        render_ms += performance.now() - t;
        const file = `${dir}/${i}.pdf`;
        await Deno.writeFile(file, pdf);
        batch.push(random);
        files.push(file);
      }
      if (files.length === 0) continue;
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
      for (const { invoice: normalized, number } of batch) {
        const invoice = normalized as Invoice;
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
    `${COUNT} invoices (${refused} refused by the contract), ${checked_lines} lines checked in ${
      seconds.toFixed(1)
    } s (rendering ${(render_ms / 1000).toFixed(1)} s)`,
  );
  // The generator makes valid requests: the contract refuses almost none.
  assert(refused <= COUNT * 0.02, `${refused} of ${COUNT} requests refused`);
  assertEquals(COUNT > 0, true);
});
