/**
 * The renderer's targets, measured in a process of its own for one
 * checkout: `deno run --node-modules-dir=auto -A
 * tests/bench/renderer_targets.ts [checkout]` prints one JSON line
 * ({@linkcode RendererTargets}). The invoices and the hand-written floor are
 * this checkout's (`render_cases.ts`, `floor_pdf.ts`); the renderer is the
 * named checkout's (default this one), so `http_load.ts` measures a before
 * and an after on the same rows.
 *
 * CPU per render, every thread, the lowest of three rounds that alternate
 * between the rows (`render_rounds.ts`).
 *
 * @module
 */
import { floor_pdf } from "./floor_pdf.ts";
import { case_format, render_cases } from "./render_cases.ts";
import { checkout_renderer, type RenderDocument } from "./checkout_renderer.ts";
import { cpu_rounds } from "./render_rounds.ts";

/** What one run prints. */
export interface RendererTargets {
  /** CPU ms per render of the seed invoice, and of the floor. */
  seed_cpu_ms: number;
  floor_cpu_ms: number;
  /** Each single-feature row's CPU over the seed row's. */
  feature_ratios: Record<string, number>;
}

/** Measures the rows with `render` (a checkout's `render_invoice_document`). */
export function measure_renderer_targets(
  render: RenderDocument,
): RendererTargets {
  const cases = render_cases();
  const seed = cases.find((c) => c.name === "seed")!;
  const features = cases.filter((c) => c.single_feature);
  const rows = [seed, ...features].map((c) => () =>
    render(c.invoice, { format: case_format(c) })
  );
  const [floor, seed_row, ...feature_rows] = cpu_rounds(
    [() => floor_pdf(seed.invoice), ...rows],
    { rounds: 3, warmup: 100, n: 200 },
  );
  return {
    seed_cpu_ms: seed_row.cpu,
    floor_cpu_ms: floor.cpu,
    feature_ratios: Object.fromEntries(
      features.map((c, i) => [c.name, feature_rows[i].cpu / seed_row.cpu]),
    ),
  };
}

if (import.meta.main) {
  const render = await checkout_renderer(Deno.args[0]);
  console.log(JSON.stringify(measure_renderer_targets(render)));
}
