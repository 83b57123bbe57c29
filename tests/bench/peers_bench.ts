/**
 * The renderer next to its peers, on the 10-item Unicode seed invoice of
 * `render_bench.ts` (`render_cases.ts`, case "seed"), in one run:
 *
 * ```sh
 * deno bench --node-modules-dir=auto -A tests/bench/peers_bench.ts
 * ```
 *
 * - "our renderer": `render_invoice_document(invoice, { format: "pdf" })`;
 * - "floor: hand-written PDF": the invoice's text lines in a PDF written as
 *   one string, Helvetica not embedded (`floor_pdf.ts`), the least a PDF of
 *   the invoice can cost;
 * - "pdfkit, Noto Sans embedded": the same text lines by pdfkit with the
 *   renderer's Noto Sans Regular and Bold (`pdfkit_invoice.ts`);
 * - "Chromium, page reused": the invoice as HTML (`invoice_html.ts`)
 *   printed by `/usr/bin/chromium` on one page, launched at the row's first
 *   call (skipped without it).
 *
 * After the rows it prints the renderer's median over the floor's, against
 * the target (≤ 3×), and each peer's median over the renderer's. The
 * medians are taken from the same calls `deno bench` measures, the first
 * quarter of each row's calls left out as warm-up.
 *
 * @module
 */
import type { Browser, Page } from "playwright-core";
import { render_invoice_document } from "../../server/einvoice/mod.ts";
import { load_invoice_fonts } from "../../server/pdf/mod.ts";
import { chromium_available, print_html } from "./chromium_baseline.ts";
import { floor_pdf } from "./floor_pdf.ts";
import { invoice_html } from "./invoice_html.ts";
import { load_noto_sans, pdfkit_pdf } from "./pdfkit_invoice.ts";
import { render_cases } from "./render_cases.ts";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../helpers/browser.ts";

/** Target: the renderer alone at most this many times the floor. */
const FLOOR_RATIO_TARGET = 3;

const invoice = render_cases().find((c) => c.name === "seed")!.invoice;

// Fonts are read once per process; keep that out of the measurements.
load_invoice_fonts();
const noto_sans = load_noto_sans();

/** Wall time of every call of each row, in ms. */
const times = new Map<string, number[]>();

function timed(row: string, fn: () => unknown): () => void {
  const list: number[] = [];
  times.set(row, list);
  return () => {
    const started = performance.now();
    fn();
    list.push(performance.now() - started);
  };
}

function timed_async(
  row: string,
  fn: () => Promise<unknown>,
): () => Promise<void> {
  const list: number[] = [];
  times.set(row, list);
  return async () => {
    const started = performance.now();
    await fn();
    list.push(performance.now() - started);
  };
}

/** Median of a row's calls after its first quarter (warm-up). */
function median_ms(row: string): number {
  const list = times.get(row) ?? [];
  const measured = list.slice(Math.floor(list.length / 4))
    .sort((a, b) => a - b);
  return measured[Math.floor(measured.length / 2)] ?? NaN;
}

const RENDERER = "our renderer";
const FLOOR = "floor: hand-written PDF";
const PDFKIT = "pdfkit, Noto Sans embedded";
const CHROMIUM = "Chromium, page reused";

Deno.bench({
  name: RENDERER,
  group: "peers",
  baseline: true,
  fn: timed(
    RENDERER,
    () => render_invoice_document(invoice, { format: "pdf" }),
  ),
});

Deno.bench({
  name: FLOOR,
  group: "peers",
  fn: timed(FLOOR, () => floor_pdf(invoice)),
});

Deno.bench({
  name: PDFKIT,
  group: "peers",
  fn: timed_async(PDFKIT, () => pdfkit_pdf(invoice, noto_sans)),
});

if (chromium_available()) {
  const html = invoice_html(invoice);
  let chromium: Promise<ReusedPage> | undefined;
  Deno.bench({
    name: CHROMIUM,
    group: "peers",
    fn: timed_async(CHROMIUM, async () => {
      // Launched on the first call, a warm-up call left out of the figures.
      chromium ??= launch_chromium();
      const { page, close_when_idle } = await chromium;
      const pdf = await print_html(page, html);
      close_when_idle();
      return pdf;
    }),
  });
} else {
  console.log(`No ${CHROMIUM_PATH}: the Chromium row is skipped`);
}

/** One Chromium page, reused for every call. */
interface ReusedPage {
  page: Page;
  close_when_idle: () => void;
}

/**
 * Chromium with one page. `deno bench` has no hook after a row's last call
 * and a running browser keeps the process alive, so the browser closes
 * itself once no call has come for a second.
 */
async function launch_chromium(): Promise<ReusedPage> {
  const { chromium } = await import("playwright-core");
  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  const page = await browser.newPage();
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    page,
    close_when_idle: () => {
      clearTimeout(timer);
      timer = setTimeout(() => browser.close(), 1000);
    },
  };
}

globalThis.addEventListener("unload", () => {
  const renderer = median_ms(RENDERER);
  const ratio = renderer / median_ms(FLOOR);
  const peers = [PDFKIT, CHROMIUM].filter((row) => times.get(row)?.length)
    .map((row) =>
      `${row} ${median_ms(row).toFixed(2)} ms (${
        (median_ms(row) / renderer).toFixed(1)
      }× the renderer)`
    );
  console.log(
    `peers, medians: renderer ${renderer.toFixed(3)} ms ÷ floor ${
      median_ms(FLOOR).toFixed(3)
    } ms = ${ratio.toFixed(1)}× (target ≤ ${FLOOR_RATIO_TARGET}×: ${
      ratio <= FLOOR_RATIO_TARGET ? "met" : "MISSED"
    }); ${peers.join("; ")}`,
  );
});
