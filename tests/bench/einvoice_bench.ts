/**
 * Benchmarks of the e-invoice formats, in-process:
 *
 * ```sh
 * deno bench --allow-read tests/bench/einvoice_bench.ts
 * ```
 *
 * A 10-item German VAT invoice as CII, UBL, plain PDF and Factur-X. Targets:
 * XML alone ≤ 1 ms; Factur-X ≤ 1.5× the plain PDF's render time
 * and ≤ 10 KB larger. Medians and sizes are printed first.
 */
import { load_invoice_fonts } from "../../server/pdf/mod.ts";
import {
  type DocumentFormat,
  render_invoice_document,
} from "../../server/einvoice/mod.ts";
import { german_invoice } from "../fixtures/einvoices.ts";

function ten_items() {
  const invoice = german_invoice();
  const [a, b] = invoice.items;
  // Five copies of the two lines keep every total unchanged ×5.
  invoice.items = Array.from({ length: 5 }, () => [a, b]).flat();
  invoice.subtotal = "5155.00";
  invoice.tax_breakdown = [
    {
      category: "S",
      rate: "19",
      taxable_amount: "4900.00",
      tax_amount: "931.00",
    },
    { category: "S", rate: "7", taxable_amount: "155.00", tax_amount: "10.85" },
  ];
  invoice.total_without_tax = "5055.00";
  invoice.tax_total = "941.85";
  invoice.total = "5996.85";
  invoice.amount_due = "5996.85";
  return invoice;
}

load_invoice_fonts();
const invoice = ten_items();
const FORMATS: DocumentFormat[] = [
  "cii",
  "xrechnung-ubl",
  "ubl",
  "pdf",
  "factur-x",
];

/**
 * Median wall time (ms) of each function, measured in alternation so that
 * load from other processes on a shared machine hits them alike.
 */
function alternating_medians(
  fns: Record<string, () => void>,
  n: number,
): Record<string, number> {
  const names = Object.keys(fns);
  const times: Record<string, number[]> = {};
  for (const name of names) {
    times[name] = [];
    for (let i = 0; i < n / 2; i++) fns[name]();
  }
  for (let i = 0; i < n; i++) {
    const order = i % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const start = performance.now();
      fns[name]();
      times[name].push(performance.now() - start);
    }
  }
  return Object.fromEntries(
    names.map((name) => {
      const sorted = times[name].sort((x, y) => x - y);
      return [name, sorted[Math.floor(n / 2)]];
    }),
  );
}

const sizes: Record<string, number> = {};
const run = (format: DocumentFormat) => () => {
  render_invoice_document(invoice, { format });
};
for (const format of FORMATS) {
  sizes[format] = render_invoice_document(invoice, { format }).bytes.length;
}
const xml_formats = FORMATS.filter((f) => f !== "pdf" && f !== "factur-x");
const medians: Record<string, number> = {
  ...alternating_medians(
    Object.fromEntries(xml_formats.map((f) => [f, run(f)])),
    3000,
  ),
  ...alternating_medians({ pdf: run("pdf"), "factur-x": run("factur-x") }, 400),
};
const rows = FORMATS.map((format) =>
  `${format.padEnd(14)} median ${medians[format].toFixed(3).padStart(7)} ms, ${
    String(sizes[format]).padStart(6)
  } bytes`
);
rows.push(
  `factur-x / pdf: ${
    (medians["factur-x"] / medians["pdf"]).toFixed(2)
  }× time, +${sizes["factur-x"] - sizes["pdf"]} bytes`,
);
console.log(`e-invoices, 10 items, in-process:\n  ${rows.join("\n  ")}`);

for (const format of FORMATS) {
  Deno.bench({
    name: `${format} 10 items`,
    group: format === "pdf" || format === "factur-x" ? "pdf" : "xml",
    baseline: format === "pdf" || format === "cii",
    fn: () => {
      render_invoice_document(invoice, { format });
    },
  });
}
