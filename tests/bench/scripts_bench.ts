/**
 * Benchmark of invoices in other scripts, in-process, plus the
 * memory the script fonts cost in render workers.
 *
 * ```sh
 * deno bench --allow-read --allow-run tests/bench/scripts_bench.ts
 * ```
 *
 * Rows (medians, warm process, fonts loaded): the 10-item Latin invoice
 * (must not change), 10 items with Japanese / Chinese / Korean names and
 * descriptions (target ≤ 15 ms and ≤ 80 KB), 10 items in Arabic (target
 * ≤ 10 ms), Hindi and Thai; then the first render of each script in a
 * fresh process (font load + HarfBuzz face) and the resident memory of
 * `RENDER_WORKERS`-many workers (default 2 here) that rendered every script
 * against the same number that rendered Latin only (target ≤ 150 MB more).
 */

import { script_bench_invoice, SCRIPTS } from "./script_invoices.ts";
import {
  load_invoice_fonts,
  render_invoice_pdf,
} from "../../server/pdf/mod.ts";

function median_ms(fn: () => void, warmup = 100, n = 200): number {
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

/** Renders `script` once in a fresh process: first-use cost of its fonts. */
async function first_render_ms(script: string): Promise<number> {
  const code = `
    import { render_invoice_pdf, load_invoice_fonts } from "${
    new URL("../../server/pdf/mod.ts", import.meta.url).href
  }";
    import { script_bench_invoice } from "${
    new URL("./script_invoices.ts", import.meta.url).href
  }";
    load_invoice_fonts();
    const t = performance.now();
    render_invoice_pdf(script_bench_invoice("${script}"));
    console.log(performance.now() - t);`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", code],
    env: { BENCH_CHILD: "1" },
    stdout: "piped",
    stderr: "inherit",
  }).output();
  return Number(new TextDecoder().decode(out.stdout).trim());
}

/** Process RSS (MB) after `workers` render workers each rendered `scripts`. */
async function worker_rss_mb(
  workers: number,
  scripts: string[],
): Promise<number> {
  const code = `
    import { script_bench_invoice } from "${
    new URL("./script_invoices.ts", import.meta.url).href
  }";
    const url = "${
    new URL("../../server/render_worker.ts", import.meta.url).href
  }";
    const pool = Array.from({ length: ${workers} }, () => new Worker(url, { type: "module" }));
    for (const w of pool) {
      for (const script of ${JSON.stringify(scripts)}) {
        await new Promise((resolve) => {
          w.onmessage = resolve;
          w.postMessage({ id: 1, invoice_json: JSON.stringify(script_bench_invoice(script)) });
        });
      }
    }
    console.log(Deno.memoryUsage().rss / 1048576);
    for (const w of pool) w.terminate();`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", code],
    env: { BENCH_CHILD: "1" },
    stdout: "piped",
    stderr: "inherit",
  }).output();
  return Number(new TextDecoder().decode(out.stdout).trim());
}

if (import.meta.main || Deno.env.get("BENCH_CHILD") === undefined) {
  if (Deno.env.get("BENCH_CHILD") === undefined) {
    load_invoice_fonts();
    const report: string[] = [];
    for (const script of Object.keys(SCRIPTS)) {
      const input = script_bench_invoice(script);
      const bytes = render_invoice_pdf(input).length;
      const median = median_ms(() => render_invoice_pdf(input));
      report.push(
        `${script.padEnd(9)} 10 items: median ${
          median.toFixed(2).padStart(6)
        } ms, ${String(bytes).padStart(6)} bytes`,
      );
    }
    for (
      const script of [
        "japanese",
        "chinese",
        "korean",
        "arabic",
        "hindi",
        "thai",
      ]
    ) {
      report.push(
        `${script.padEnd(9)} first render in a fresh process (fonts load): ${
          (await first_render_ms(script)).toFixed(1)
        } ms`,
      );
    }
    const workers = Number(Deno.env.get("RENDER_WORKERS") ?? 2);
    const latin = await worker_rss_mb(workers, ["latin"]);
    const all = await worker_rss_mb(workers, Object.keys(SCRIPTS));
    report.push(
      `RSS with ${workers} workers: Latin only ${latin.toFixed(0)} MB, ` +
        `every script loaded in every worker ${all.toFixed(0)} MB ` +
        `(+${(all - latin).toFixed(0)} MB; target ≤ +150 MB)`,
    );
    console.log(report.join("\n"));

    Deno.bench("japanese 10 items", () => {
      render_invoice_pdf(script_bench_invoice("japanese"));
    });
    Deno.bench("arabic 10 items", () => {
      render_invoice_pdf(script_bench_invoice("arabic"));
    });
  }
}
