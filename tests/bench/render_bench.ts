/**
 * Benchmarks of the PDF renderer, in-process:
 *
 * ```sh
 * deno bench --allow-read --allow-env tests/bench/render_bench.ts
 * ```
 *
 * Feature rows: the 10-item Unicode seed invoice that the HTTP
 * benchmark sends, and the same invoice with one newer feature each (tax
 * breakdown, locale, logo, EPC QR code, CJK, Arabic, every business field,
 * Factur-X; see `render_cases.ts`). Each prints the CPU time per render
 * (all threads of the process, V8's garbage collection included), the
 * median wall time, the bytes V8 allocated per render (garbage) and the PDF
 * size, next to the row's target (tests/bench/README.md, "Renderer").
 *
 * Then 1, 10, 100, 300 and 1,000 items, Latin-only and mixed Unicode
 * (Polish, Romanian, Hungarian, Greek, Cyrillic); targets: 10 Unicode items
 * ≤ 5 ms median and ≤ 30 KB; 300 items ≤ 40 ms. And the all-fields pair: a
 * 10-item invoice with every business field against the 10-item seed invoice
 * in the same run (target ≤ 1.5×).
 */

import process from "node:process";
import type { Invoice } from "../../contract/invoice_types.ts";
import {
  load_invoice_fonts,
  render_invoice_pdf,
} from "../../server/pdf/mod.ts";
import { render_invoice_document } from "../../server/einvoice/mod.ts";
import { case_format, render_cases, type RenderCase } from "./render_cases.ts";
import { cpu_rounds } from "./render_rounds.ts";

const LATIN = [
  "Consulting services, March 2024",
  "Website maintenance and hosting (monthly)",
  "Design review workshop, two days on site",
];
const UNICODE = [
  "Usługi doradcze — Zażółć gęślą jaźń",
  "Mentenanță site și găzduire (lunar)",
  "Árvíztűrő tükörfúrógép, tervezési díj",
  "Υπηρεσίες σχεδιασμού και ανάπτυξης",
  "Разработка программного обеспечения",
];

function invoice(count: number, unicode: boolean): Invoice {
  const descriptions = unicode ? UNICODE : LATIN;
  const items = Array.from({ length: count }, (_, i) => {
    const quantity = (i % 9) + 1;
    const cents = quantity * 125050;
    return {
      description: `${descriptions[i % descriptions.length]} #${i + 1}`,
      quantity,
      rate: "1250.50",
      amount: `${Math.floor(cents / 100)}.${
        String(cents % 100).padStart(2, "0")
      }`,
    };
  });
  const total_cents = items.reduce(
    (sum, item) => sum + Math.round(Number(item.amount) * 100),
    0,
  );
  const total = `${Math.floor(total_cents / 100)}.${
    String(total_cents % 100).padStart(2, "0")
  }`;
  return {
    invoice_number: "INV-2024-0042",
    date: "2024-03-31",
    due_date: "2024-04-30",
    currency: "EUR",
    sender: unicode
      ? {
        name: "Zażółć Gęślą Sp. z o.o.",
        email: "billing@zazolc.example",
        address: "ul. Długa 5/7",
        city: "Łódź",
        zip: "90-001",
      }
      : {
        name: "Acme Consulting LLC",
        email: "billing@acme.example",
        address: "1 Main Street",
        city: "Springfield",
        state: "IL",
        zip: "62704",
      },
    bill_to: unicode
      ? {
        name: "Ștefan Mărgărit SRL",
        email: "stefan@margarit.example",
        city: "București",
      }
      : {
        name: "Globex Corporation",
        email: "ap@globex.example",
        city: "Cypress Creek",
      },
    items,
    notes: unicode
      ? "Płatność w ciągu 30 dni. Mulțumim! Köszönjük! Ευχαριστούμε! Спасибо!"
      : "Payment within 30 days by bank transfer. Thank you for your business!",
    subtotal: total,
    total,
    document_type: "invoice",
    has_tax: false,
    amount_due: total,
  };
}

/** The "all fields" row's invoice (see `render_cases.ts`). */
function full_featured_invoice(): Invoice {
  return render_cases().find((c) => c.name === "all fields")!.invoice;
}

// Fonts are read once per process; keep that out of the measurements.
load_invoice_fonts();

const COUNTS = [1, 10, 100, 300, 1000];

/**
 * Iterations per case: enough for V8 to reach its optimised steady state
 * (a server renders many invoices) without making the run long.
 */
function iterations(count: number): { warmup: number; n: number } {
  if (count <= 10) return { warmup: 300, n: 400 };
  if (count <= 100) return { warmup: 60, n: 100 };
  if (count <= 300) return { warmup: 25, n: 50 };
  return { warmup: 8, n: 20 };
}

/** Median wall time of `fn` in ms, measured here because `deno bench` reports no median. */
function median_ms(
  fn: () => void,
  { warmup, n }: { warmup: number; n: number },
): number {
  for (let i = 0; i < warmup; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(n / 2)];
}

/** Targets of the feature rows: CPU ms per render on the 2-core dev VM. */
const CPU_TARGETS_MS: Record<string, number> = {
  seed: 2,
  tax: 2.5,
  locale: 2.5,
  logo: 2.5,
  qr: 3,
  cjk: 6,
  arabic: 6,
  "all fields": 5,
  "factur-x": 5,
  "factur-x, all fields": 5,
};

function render_case(c: RenderCase): Uint8Array {
  return render_invoice_document(c.invoice, {
    format: case_format(c),
  }).bytes;
}

const report: string[] = [];
{
  const cases = render_cases();
  const rows = cpu_rounds(cases.map((c) => () => render_case(c)), {
    rounds: 3,
    warmup: 100,
    n: 200,
  });
  const seed_cpu = rows[0].cpu;
  report.push(
    "feature rows (CPU per render incl. GC, lowest of 3 alternating rounds):",
  );
  cases.forEach((c, i) => {
    const { cpu, median, kb } = rows[i];
    const bytes = render_case(c).length;
    const target = CPU_TARGETS_MS[c.name];
    report.push(
      `  ${c.name.padEnd(20)} CPU ${cpu.toFixed(2).padStart(5)} ms ` +
        `(${(cpu / seed_cpu).toFixed(2)}× seed; target ≤ ${target} ms ` +
        `${cpu <= target ? "met" : "MISSED"}), median ${
          median.toFixed(2).padStart(5)
        } ms, ${kb.toFixed(0).padStart(5)} KB allocated, ${
          String(bytes).padStart(6)
        } bytes: ${c.what}`,
    );
  });
}
for (const unicode of [false, true]) {
  for (const count of COUNTS) {
    const input = invoice(count, unicode);
    const bytes = render_invoice_pdf(input).length;
    const median = median_ms(
      () => render_invoice_pdf(input),
      iterations(count),
    );
    report.push(
      `${unicode ? "unicode" : "latin  "} ${
        String(count).padStart(4)
      } items: ` +
        `median ${median.toFixed(2).padStart(7)} ms, ${
          String(bytes).padStart(6)
        } bytes`,
    );
  }
}
{
  const seed = invoice(10, false);
  const full = full_featured_invoice();
  const logo_bytes = atob(
    (full as unknown as { logo: { base64: string } }).logo.base64,
  ).length;
  // Interleaved rounds so both see the same machine load; CPU time per
  // render too, which other load on a shared machine disturbs less.
  const seed_medians: number[] = [];
  const full_medians: number[] = [];
  const seed_cpu: number[] = [];
  const full_cpu: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (
      const [input, medians, cpu] of [[seed, seed_medians, seed_cpu], [
        full,
        full_medians,
        full_cpu,
      ]] as const
    ) {
      const before = process.cpuUsage();
      medians.push(
        median_ms(() => render_invoice_pdf(input), iterations(10)),
      );
      const used = process.cpuUsage(before);
      const { warmup, n } = iterations(10);
      cpu.push((used.user + used.system) / 1000 / (warmup + n));
    }
  }
  const seed_ms = Math.min(...seed_medians);
  const full_ms = Math.min(...full_medians);
  const seed_cpu_ms = Math.min(...seed_cpu);
  const full_cpu_ms = Math.min(...full_cpu);
  report.push(
    `seed       10 items: median ${seed_ms.toFixed(2).padStart(7)} ms, ${
      String(render_invoice_pdf(seed).length).padStart(6)
    } bytes, CPU ${seed_cpu_ms.toFixed(2)} ms per render`,
    `all fields 10 items: median ${full_ms.toFixed(2).padStart(7)} ms, ${
      String(render_invoice_pdf(full).length).padStart(6)
    } bytes, CPU ${full_cpu_ms.toFixed(2)} ms per render (every new field, ${
      Math.round(logo_bytes / 1000)
    } KB logo, 2 tax rates, QR): ${(full_ms / seed_ms).toFixed(2)}× (CPU ${
      (full_cpu_ms / seed_cpu_ms).toFixed(2)
    }×) the seed invoice (target ≤ 1.5×)`,
  );
}
console.log(`render_invoice_pdf, in-process:\n  ${report.join("\n  ")}`);

for (const c of render_cases()) {
  Deno.bench({
    name: `feature: ${c.name}`,
    group: "feature rows",
    baseline: c.name === "seed",
    ...iterations(10),
    fn: () => {
      render_case(c);
    },
  });
}

Deno.bench({
  name: "seed 10 items",
  group: "all fields",
  baseline: true,
  ...iterations(10),
  fn: () => {
    render_invoice_pdf(invoice(10, false));
  },
});
{
  const full = full_featured_invoice();
  Deno.bench({
    name: "every business field, 40 KB logo, 2 tax rates, QR, 10 items",
    group: "all fields",
    ...iterations(10),
    fn: () => {
      render_invoice_pdf(full);
    },
  });
}

for (const unicode of [false, true]) {
  for (const count of COUNTS) {
    const input = invoice(count, unicode);
    Deno.bench({
      name: `${unicode ? "unicode" : "latin"} ${count} items`,
      group: `${count} items`,
      baseline: !unicode,
      ...iterations(count),
      fn: () => {
        render_invoice_pdf(input);
      },
    });
  }
}
