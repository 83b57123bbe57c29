/**
 * Two checkouts' renderers side by side in one process, alternating call by
 * call: `deno run --node-modules-dir=auto -A tests/bench/render_ab.ts
 * <before-checkout> [rows]` renders each row with the named checkout's
 * renderer and with this one's in turn, and prints the quartile and median
 * wall time per render of each and their change.
 *
 * On a shared machine whose speed moves from second to second, runs in
 * separate processes differ by 30–50 % for the same code; alternating call
 * by call lets both renderers meet the same moments, which brings the same
 * code to within 1–3 %. `rows` is a comma-separated list of the rows of
 * `render_cases.ts` and `items100` / `items1000` (the Unicode invoice with
 * that many lines); a row ending in `_fresh` gives every item a new text on
 * each render, so the layout caches answer only the other lines (measure
 * such rows apart: their texts push the other rows' out of the caches).
 * `RENDER_AB_RENDERS` sets the renders per row and side (default 1,000).
 *
 * @module
 */
import { InvoiceRequestSchema } from "../../contract/invoice.ts";
import type { Invoice } from "../../contract/invoice_types.ts";
import { invoice_with_items } from "../fixtures/invoices.ts";
import { checkout_renderer, type RenderDocument } from "./checkout_renderer.ts";
import { case_format, render_cases } from "./render_cases.ts";
import { percentile } from "./stats.ts";

/** One row's invoice and format, as both sides render it. */
interface Row {
  name: string;
  invoice: Invoice;
  format: "pdf" | "factur-x";
  /** Every item's text new on each render. */
  fresh: boolean;
}

const SIZED_ROW = /^items(\d+)$/;

function rows_named(names: readonly string[]): Row[] {
  const cases = render_cases();
  return names.map((name) => {
    const base = name.replace(/_fresh$/, "");
    const sized = SIZED_ROW.exec(base);
    const found = cases.find((c) => c.name === base);
    const invoice = sized
      ? InvoiceRequestSchema.parse(
        invoice_with_items(Number(sized[1]), { unicode: true }),
      ) as Invoice
      : found?.invoice;
    if (invoice === undefined) throw new Error(`no row named ${base}`);
    return {
      name,
      invoice,
      format: found === undefined ? "pdf" : case_format(found),
      fresh: name.endsWith("_fresh"),
    };
  });
}

/** A render of `row` by `render`; fresh rows change every item's text. */
function renderer_of(render: RenderDocument, row: Row): () => unknown {
  const format = row.format;
  if (!row.fresh) return () => render(row.invoice, { format });
  let round = 0;
  return () => {
    round++;
    const items = row.invoice.items.map((item, index) => ({
      ...item,
      description: `${item.description} ${round}-${index}`,
    }));
    return render({ ...row.invoice, items }, { format });
  };
}

if (import.meta.main) {
  const before_dir = Deno.args[0];
  if (before_dir === undefined) {
    throw new Error("usage: render_ab.ts <before-checkout> [rows]");
  }
  const rows = rows_named((Deno.args[1] ?? "seed,cjk,arabic").split(","));
  const renders = Number(Deno.env.get("RENDER_AB_RENDERS") ?? 1000);
  const sides = [
    await checkout_renderer(before_dir),
    await checkout_renderer(),
  ].map((render) => rows.map((row) => renderer_of(render, row)));
  for (let warm = 0; warm < 100; warm++) {
    for (const side of sides) for (const fn of side) fn();
  }
  const times = rows.map(() => [[], []] as number[][]);
  for (let i = 0; i < renders; i++) {
    rows.forEach((_, k) => {
      // Each side goes first every other time.
      for (const s of i % 2 === 0 ? [0, 1] : [1, 0]) {
        const start = performance.now();
        sides[s][k]();
        times[k][s].push(performance.now() - start);
      }
    });
  }
  const change = (before: number, after: number) =>
    `${after >= before ? "+" : ""}${((after / before - 1) * 100).toFixed(1)} %`;
  console.log(
    `wall ms per render, ${renders} alternated renders per row and side (before → after):`,
  );
  rows.forEach((row, k) => {
    const [before, after] = times[k].map((side) =>
      side.toSorted((a, b) => a - b)
    );
    const cells = [0.25, 0.5].map((at) => {
      const b = percentile(before, at);
      const a = percentile(after, at);
      return `p${at * 100} ${b.toFixed(3)} → ${a.toFixed(3)} (${change(b, a)})`;
    });
    console.log(`  ${row.name.padEnd(16)} ${cells.join("   ")}`);
  });
}
