/**
 * The renderer alone on a large invoice, as a process of its own so that it
 * runs under the V8 flags it is started with: `deno run -A
 * [--v8-flags=…] tests/bench/large_render.ts <items> [renders] [checkout]`
 * prints one JSON line, the CPU per render of every thread (V8's garbage
 * collection included) and the wall time, over `renders` renders of the
 * Unicode invoice with `items` lines after a warm-up, by the named
 * checkout's renderer (default this one). `http_load.ts` runs it for each
 * measured checkout with its start task's V8 flags, and for the last one
 * without them too, for the large-invoice targets.
 *
 * @module
 */
import process from "node:process";
import { InvoiceRequestSchema } from "../../contract/invoice.ts";
import type { Invoice } from "../../contract/invoice_types.ts";
import { invoice_with_items } from "../fixtures/invoices.ts";
import { checkout_renderer, type RenderDocument } from "./checkout_renderer.ts";

/** What one run prints. */
export interface LargeRenderResult {
  items: number;
  renders: number;
  cpu_ms: number;
  wall_ms: number;
}

function measure(
  render: RenderDocument,
  items: number,
  renders: number,
): LargeRenderResult {
  const invoice = InvoiceRequestSchema.parse(
    invoice_with_items(items, { unicode: true }),
  ) as Invoice;
  const render_pdf = (invoice: Invoice) => render(invoice, { format: "pdf" });
  const warm_up = Math.max(5, Math.ceil(renders / 2));
  for (let index = 0; index < warm_up; index++) render_pdf(invoice);
  const cpu_before = process.cpuUsage();
  const started = performance.now();
  for (let index = 0; index < renders; index++) {
    render_pdf({ ...invoice, invoice_number: `L-${index}` });
  }
  const cpu = process.cpuUsage(cpu_before);
  return {
    items,
    renders,
    cpu_ms: (cpu.user + cpu.system) / 1000 / renders,
    wall_ms: (performance.now() - started) / renders,
  };
}

if (import.meta.main) {
  const items = Number(Deno.args[0] ?? 1000);
  const renders = Number(Deno.args[1] ?? 20);
  const render = await checkout_renderer(Deno.args[2]);
  console.log(JSON.stringify(measure(render, items, renders)));
}
