/**
 * Render workers load the text layout (HarfBuzz, bidi-js) on first use.
 * Invoices that the Latin font draws alone never load it; the first one that
 * needs it loads it and renders again; every script and format still comes out
 * of a worker byte for byte as rendered in-process (where `pdf/mod.ts` loads
 * the text layout up front).
 */
import { assert, assertEquals } from "../assert.ts";
import type { Invoice } from "../../contract/invoice_types.ts";
import { InvoiceRequestSchema } from "../../contract/invoice.ts";
import { INVOICE_FORMATS } from "../../contract/formats.ts";
import { RenderPool } from "../../server/render_pool.ts";
import {
  type DocumentFormat,
  render_invoice_document,
} from "../../server/einvoice/mod.ts";
import { full_invoice, invoice_with_items } from "../fixtures/invoices.ts";
import { german_invoice } from "../fixtures/einvoices.ts";
import { script_bench_invoice } from "../bench/script_invoices.ts";
import type { ProbeRender, ProbeResult } from "../helpers/text_layout_probe.ts";

const FORMATS: readonly DocumentFormat[] = INVOICE_FORMATS;

/** Latin-font invoices: none of them needs the text layout. */
function latin_invoices(): Invoice[] {
  return [
    InvoiceRequestSchema.parse(invoice_with_items(10, { unicode: true })),
    InvoiceRequestSchema.parse(full_invoice()),
    german_invoice(),
    InvoiceRequestSchema.parse({ ...full_invoice(), locale: "de-DE" }),
  ];
}

/** One invoice per script font (and right-to-left locales in Latin text). */
function script_invoices(): Invoice[] {
  const invoices = ["arabic", "japanese", "chinese", "korean", "hindi", "thai"]
    .map((script) => script_bench_invoice(script, 3));
  const written = (name: string, description: string, locale?: string) =>
    InvoiceRequestSchema.parse({
      ...full_invoice(),
      sender: { name, email: "billing@example.com" },
      items: [{ description, quantity: 1, rate: 10, amount: 10 }],
      ...(locale ? { locale } : {}),
    });
  invoices.push(
    written("חברת אלפא בע״מ", "שירותי ייעוץ"), // Hebrew
    written("আলফা কোম্পানি", "পরামর্শ পরিষেবা"), // Bengali
    written("ஆல்ஃபா நிறுவனம்", "ஆலோசனை சேவைகள்"), // Tamil
    written("Ալֆա ընկերություն", "Խորհրդատվական ծառայություններ"), // Armenian
    written("ალფა კომპანია", "საკონსულტაციო მომსახურება"), // Georgian
    written("臺灣積體電路製造公司", "顧問服務費用", "zh-TW"), // Traditional
    written("Acme Design", "Consulting services", "ar-SA"), // mirrored layout
    written("Acme Design", "Consulting services", "he-IL"),
  );
  return invoices;
}

async function probe(renders: ProbeRender[]): Promise<ProbeResult[]> {
  const worker = new Worker(
    new URL("../helpers/text_layout_probe.ts", import.meta.url).href,
    { type: "module" },
  );
  try {
    const { promise, resolve, reject } = Promise.withResolvers<
      ProbeResult[]
    >();
    worker.onmessage = (event) => resolve(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message));
    };
    worker.postMessage(renders);
    return await promise;
  } finally {
    worker.terminate();
  }
}

Deno.test("text layout: not loaded for Latin-font invoices, loaded by the first that needs it", async () => {
  const latin = latin_invoices();
  const [arabic] = script_invoices();
  const renders: ProbeRender[] = [
    ...latin.map((invoice) => ({ invoice, format: "pdf" as const })),
    { invoice: latin[2], format: "factur-x" },
    { invoice: latin[2], format: "xrechnung-ubl" },
    { invoice: arabic, format: "pdf" },
    { invoice: latin[0], format: "pdf" },
  ];
  const results = await probe(renders);
  assertEquals(
    results.map((r) => r.loaded),
    [false, false, false, false, false, false, true, true],
  );
  // The retried render is the document an eager renderer makes.
  results.forEach((result, i) => {
    const { invoice, format } = renders[i];
    assertEquals(
      result.bytes,
      render_invoice_document(invoice, { format }).bytes,
      `render ${i} (${format})`,
    );
  });
});

Deno.test("render pool: every script and format from a lazily loading worker, byte-identical to in-process", async () => {
  // One worker, so the Latin invoices run before its text layout is
  // loaded and every script invoice after the first one that loads it.
  const pool = new RenderPool({ size: 1, max_queue: 100, timeout_ms: 60_000 });
  try {
    const invoices = [...latin_invoices(), ...script_invoices()];
    for (const [i, invoice] of invoices.entries()) {
      const bytes = await pool.render(invoice);
      assertEquals(
        bytes,
        render_invoice_document(invoice, { format: "pdf" }).bytes,
        `invoice ${i}`,
      );
    }
    // Every format, for a Latin and a script invoice, in a fresh worker
    // (the first render of each kind takes the loading path).
    await pool.close();
    const fresh = new RenderPool({
      size: 1,
      max_queue: 100,
      timeout_ms: 60_000,
    });
    try {
      for (const invoice of [script_invoices()[0], german_invoice()]) {
        for (const format of FORMATS) {
          const bytes = await fresh.render(invoice, { format });
          assert(bytes.length > 0);
          assertEquals(
            bytes,
            render_invoice_document(invoice, { format }).bytes,
            format,
          );
        }
      }
    } finally {
      await fresh.close();
    }
  } finally {
    await pool.close();
  }
});

/** npm packages a module loads when evaluated: static imports only, except
 * the root's own dynamic imports when `root_dynamic` (the render worker
 * imports the renderer dynamically at start, on purpose). */
async function loaded_at_start(
  path: string,
  { root_dynamic }: { root_dynamic: boolean },
): Promise<{ npm: Set<string>; local: Set<string> }> {
  const output = await new Deno.Command(Deno.execPath(), {
    // npm imports as npm: specifiers, as the tasks resolve them.
    args: ["info", "--json", "--node-modules-dir=auto", path],
    cwd: new URL("../..", import.meta.url),
    stdout: "piped",
    stderr: "null",
  }).output();
  assert(output.success, `deno info ${path} failed`);
  const graph = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    roots: string[];
    modules: {
      specifier: string;
      dependencies?: {
        code?: { specifier: string };
        isDynamic?: boolean;
      }[];
    }[];
  };
  const modules = new Map(graph.modules.map((m) => [m.specifier, m]));
  const root = graph.roots[0];
  const npm = new Set<string>();
  const local = new Set<string>();
  const stack = [root];
  while (stack.length > 0) {
    const specifier = stack.pop()!;
    if (local.has(specifier)) continue;
    local.add(specifier);
    for (const dependency of modules.get(specifier)?.dependencies ?? []) {
      const target = dependency.code?.specifier;
      if (target === undefined) continue; // a type-only import
      if (dependency.isDynamic && !(root_dynamic && specifier === root)) {
        continue;
      }
      if (target.startsWith("npm:")) npm.add(target.replace(/@[^@/]*$/, ""));
      else stack.push(target);
    }
  }
  return { npm, local };
}

Deno.test("module graphs: a render worker starts without the text layout or zod; the request thread without the renderer", async () => {
  const worker = await loaded_at_start("server/render_worker.ts", {
    root_dynamic: true,
  });
  assert(worker.npm.has("npm:jspdf"), "the worker loads the renderer");
  for (const name of ["npm:harfbuzzjs", "npm:bidi-js", "npm:zod"]) {
    assert(!worker.npm.has(name), `the worker loads ${name} at start`);
  }
  // Of the contract, only plain modules: data, the format table and the
  // format rules the e-invoice writers read (no schemas).
  const contract = [...worker.local].filter((s) => s.includes("/contract/"))
    .map((s) => s.slice(s.indexOf("/contract/") + 1)).sort();
  assertEquals(contract, [
    "contract/currencies.ts",
    "contract/einvoice_codes.ts",
    "contract/format_rules.ts",
    "contract/formats.ts",
    "contract/locales.ts",
    "contract/money.ts",
    "contract/peppol_rules.ts",
    "contract/rec20_units.ts",
    "contract/tax.ts",
  ]);

  const main = await loaded_at_start("main.ts", { root_dynamic: false });
  assert(main.npm.has("npm:zod"));
  for (const name of ["npm:jspdf", "npm:harfbuzzjs", "npm:bidi-js"]) {
    assert(!main.npm.has(name), `the request thread loads ${name} at start`);
  }
});
