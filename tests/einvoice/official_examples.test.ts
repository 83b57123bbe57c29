/**
 * The official example invoices — the KoSIT XRechnung test suite's business
 * cases (UBL and CII) and the EN 16931 examples — each written as our
 * request (tests/fixtures/official_examples/requests/), give the original's
 * totals and VAT breakdown (the original XML is parsed here), and are
 * written in every e-invoice format with no schema error and no fatal rule.
 */
import { assert, assertEquals } from "../assert.ts";
import {
  GenerateRequestSchema,
  type Invoice,
  type InvoiceFormat,
  InvoiceRequestSchema,
} from "../../contract/mod.ts";
import { invoice_xml } from "../../server/einvoice/mod.ts";
import { validate_xml } from "../helpers/einvoice_kit.ts";
import { read_totals, type Totals } from "../official_examples/totals.ts";
import { fill_for_format } from "../official_examples/format_fill.ts";
import type { Request } from "../official_examples/request_parts.ts";

const FIXTURES = new URL("../fixtures/official_examples/", import.meta.url);
const SUITES = ["kosit", "en16931"] as const;

/**
 * Examples whose totals we compute differently, and why (the fixtures'
 * README lists every difference between an example and its request).
 */
const OTHER_TOTALS: Record<string, string> = {
  // Rounds each VAT amount to whole forints; HUF has two minor digits
  // (ISO 4217) and we round tax to them: 18678.60, not 18679.
  "en16931/huf_example_cii": "tax rounded to whole forints",
};

interface Example {
  name: string;
  request: Request;
  original: Totals;
}

function examples(): Example[] {
  const out: Example[] = [];
  for (const suite of SUITES) {
    const folder = new URL(`${suite}/`, FIXTURES);
    for (const entry of Deno.readDirSync(folder)) {
      if (!/\.xml$/i.test(entry.name)) continue;
      const base = entry.name.replace(/\.xml$/i, "");
      out.push({
        name: `${suite}/${base}`,
        request: JSON.parse(
          Deno.readTextFileSync(
            new URL(`requests/${suite}/${base}.json`, FIXTURES),
          ),
        ),
        original: read_totals(
          Deno.readTextFileSync(new URL(entry.name, folder)),
        ),
      });
    }
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

const EXAMPLES = examples();

/** Our normalized invoice's totals and breakdown in the shape of {@link Totals}. */
function our_totals(invoice: Invoice): Totals {
  return {
    line_total: invoice.subtotal,
    allowance_total: invoice.discount_total ?? "0.00",
    charge_total: invoice.charge_total ?? "0.00",
    tax_basis_total: invoice.total_without_tax ?? invoice.subtotal,
    tax_total: invoice.tax_total ?? "0.00",
    grand_total: invoice.total,
    prepaid: invoice.amount_paid ?? "0.00",
    rounding: invoice.rounding_amount ?? "0.00",
    due: invoice.amount_due,
    breakdown: (invoice.tax_breakdown ?? []).map((row) => ({
      category: row.category,
      rate: row.rate,
      taxable: row.taxable_amount,
      tax: row.tax_amount,
    })),
  };
}

/** Totals with the breakdown in a fixed order (the syntaxes do not order it). */
function comparable(totals: Totals): Totals {
  return {
    ...totals,
    breakdown: [...totals.breakdown].sort((a, b) =>
      `${a.category}:${a.rate}` < `${b.category}:${b.rate}` ? -1 : 1
    ),
  };
}

Deno.test("every official example has its request, and its totals and VAT breakdown are the original's", () => {
  const kosit = EXAMPLES.filter((e) => e.name.startsWith("kosit/"));
  const en16931 = EXAMPLES.filter((e) => e.name.startsWith("en16931/"));
  assertEquals(kosit.length, 66); // 33 business cases, UBL and CII
  assertEquals(en16931.length, 33);
  for (const example of EXAMPLES) {
    const invoice = InvoiceRequestSchema.parse(example.request);
    const ours = comparable(our_totals(invoice));
    if (example.name in OTHER_TOTALS) {
      assert(
        JSON.stringify(ours) !== JSON.stringify(comparable(example.original)),
      );
      assertEquals(ours.line_total, example.original.line_total);
      continue;
    }
    assertEquals(ours, comparable(example.original), example.name);
  }
});

const FORMATS: [InvoiceFormat, string][] = [
  ["factur-x", "cii+facturx"],
  ["cii", "cii"],
  ["ubl", "ubl+peppol"],
  ["xrechnung-cii", "cii+xr-cii"],
  ["xrechnung-ubl", "ubl+xr-ubl"],
];

for (const [format, ruleset] of FORMATS) {
  Deno.test({
    name:
      `official examples as ${format}: the original's totals, no schema error, no fatal rule`,
    async fn() {
      const files = new Map<string, string>();
      for (const example of EXAMPLES) {
        const { request } = fill_for_format(example.request, format);
        const { invoice } = GenerateRequestSchema.parse({ ...request, format });
        const xml = invoice_xml(invoice, { format });
        assertEquals(
          comparable(read_totals(xml)),
          comparable(
            example.name in OTHER_TOTALS
              ? our_totals(invoice)
              : example.original,
          ),
          `${example.name} as ${format}`,
        );
        files.set(example.name.replace("/", "-"), xml);
      }
      const run = await validate_xml(ruleset, files);
      console.log(`  ${format}: ${run.output.trim().split("\n").pop()}`);
      const fatal = run.output.split("\n").filter((line) =>
        /^(fatal|error|schema)/.test(line)
      );
      assertEquals(fatal, []);
      assertEquals(run.invalid_files, 0, run.output);
      assert(run.ok, run.output);
    },
  });
}
