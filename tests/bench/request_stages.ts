/**
 * The request thread's own work on a `POST /generate` body, stage by
 * stage, for two checkouts side by side in one process: `deno run
 * --node-modules-dir=auto -A tests/bench/request_stages.ts [before-checkout]
 * [items]` runs each stage with the named checkout's code and with this
 * one's in turn, call by call (as `render_ab.ts` does for the renderer), and
 * prints the median time of each stage per side. Without a checkout it
 * measures this one alone.
 *
 * The stages are what the request thread does with the body before the
 * database and the render (`server/body.ts`, the contract's schema,
 * `server/generate/`): the nesting-depth scan of the bytes, `JSON.parse`,
 * the duplicate-key scan, validating and normalizing (lines computed), the
 * two request hashes (the JSON text the render worker receives included)
 * and the page estimate. The body is the Unicode invoice with `items` lines
 * (default 1,000); `REQUEST_STAGES_CALLS` sets the calls per side (default
 * 300).
 *
 * @module
 */
import type { Invoice } from "../../contract/invoice_types.ts";
import { invoice_with_items } from "../fixtures/invoices.ts";
import { median } from "./stats.ts";

/** One checkout's functions for the stages. */
interface StageCode {
  depth_scan(bytes: Uint8Array): boolean;
  duplicate_key(text: string): string | undefined;
  validate(value: unknown): Invoice;
  hashes(invoice: Invoice): unknown;
  page_estimate(invoice: Invoice): unknown;
}

const STAGES = [
  "depth scan",
  "JSON.parse",
  "duplicate keys",
  "validate",
  "hashes",
  "page estimate",
] as const;

/** The stage functions of the checkout at `dir` (default this one). */
async function stage_code(
  dir = new URL("../../", import.meta.url).pathname,
): Promise<StageCode> {
  const root = dir.replace(/\/$/, "");
  const [depth, duplicates, invoice, hash, budget] = await Promise.all([
    import(`${root}/server/json_depth.ts`),
    import(`${root}/server/json_duplicates.ts`),
    import(`${root}/contract/invoice.ts`),
    import(`${root}/server/generate/request_hash.ts`),
    import(`${root}/server/pdf/page_budget.ts`),
  ]);
  return {
    depth_scan: (bytes) => new depth.JsonDepthScanner().push(bytes),
    duplicate_key: duplicates.find_duplicate_key,
    validate: (value) =>
      (invoice.GenerateRequestSchema.parse(value) as { invoice: Invoice })
        .invoice,
    hashes: (invoice) => [
      hash.request_hash(invoice, "pdf"),
      hash.legacy_request_hash(invoice, "pdf"),
    ],
    page_estimate: budget.estimate_document,
  };
}

/** Runs every stage once on `text` / `bytes`; returns each stage's ms. */
function run_stages(
  code: StageCode,
  text: string,
  bytes: Uint8Array,
): number[] {
  const times: number[] = [];
  let start = performance.now();
  const lap = () => {
    const now = performance.now();
    times.push(now - start);
    start = now;
  };
  if (!code.depth_scan(bytes)) throw new Error("the body nests too deep");
  lap();
  const value = JSON.parse(text);
  lap();
  if (code.duplicate_key(text) !== undefined) throw new Error("duplicate key");
  lap();
  // Each call validates a new parse, so no per-object cache answers.
  const invoice = code.validate(value);
  lap();
  code.hashes(invoice);
  lap();
  code.page_estimate(invoice);
  lap();
  return times;
}

if (import.meta.main) {
  const before_dir = Deno.args[0];
  const items = Number(Deno.args[1] ?? 1000);
  const calls = Number(Deno.env.get("REQUEST_STAGES_CALLS") ?? 300);
  const text = JSON.stringify(invoice_with_items(items, { unicode: true }));
  const bytes = new TextEncoder().encode(text);
  const sides = [
    ...(before_dir === undefined ? [] : [await stage_code(before_dir)]),
    await stage_code(),
  ];
  for (let warm = 0; warm < 50; warm++) {
    for (const code of sides) run_stages(code, text, bytes);
  }
  const times = sides.map(() => STAGES.map(() => [] as number[]));
  for (let call = 0; call < calls; call++) {
    // Each side goes first every other time.
    const order = sides.map((_, side) => side);
    if (call % 2 === 1) order.reverse();
    for (const side of order) {
      run_stages(sides[side], text, bytes).forEach((ms, stage) =>
        times[side][stage].push(ms)
      );
    }
  }
  const medians = times.map((side) => side.map(median));
  const total = (side: number[]) => side.reduce((sum, ms) => sum + ms, 0);
  console.log(
    `median ms per stage, ${items}-item Unicode body (${bytes.length} bytes), ` +
      `${calls} calls per side${sides.length > 1 ? " (before → after)" : ""}:`,
  );
  const cell = (stage: number) =>
    medians.map((side) => side[stage].toFixed(3)).join(" → ");
  STAGES.forEach((name, stage) =>
    console.log(`  ${name.padEnd(16)} ${cell(stage)}`)
  );
  console.log(
    `  ${"sum".padEnd(16)} ${
      medians.map((side) => total(side).toFixed(3)).join(" → ")
    }`,
  );
}
