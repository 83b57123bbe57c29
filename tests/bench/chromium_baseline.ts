/**
 * The Chromium baseline of the load benchmark: how long a headless-Chromium
 * HTML-to-PDF service needs for the same invoice, measured on this machine
 * in the same run. The page is reused (`page.setContent` + `page.pdf`), the
 * cheapest way such a service can work; browser start-up is not counted.
 *
 * Only a Chromium already installed at `/usr/bin/chromium` is used (Debian
 * package `chromium`); playwright never downloads a browser here.
 *
 * @module
 */
import type { Buffer } from "node:buffer";
import type { Page } from "playwright-core";
import type { Invoice } from "../../contract/mod.ts";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../helpers/browser.ts";
import { invoice_html } from "./invoice_html.ts";

export { CHROMIUM_PATH } from "../helpers/browser.ts";

// "Page X of Y" like our PDF; Chromium fills in the two spans.
const FOOTER =
  `<div style="font-size:7pt;width:100%;text-align:center;color:#6b7280">
Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>`;

/** Result of {@link measure_chromium}. */
export interface ChromiumResult {
  /** Chromium's version string. */
  version: string;
  /** Measured renders (after warm-up). */
  runs: number;
  /** Median, p95 and mean of `setContent` + `pdf`, in ms. */
  median_ms: number;
  p95_ms: number;
  mean_ms: number;
  /** Size of the last PDF, in bytes. */
  pdf_bytes: number;
}

/** Prints `html` to an A4 PDF on `page` (loaded with `setContent`). */
export async function print_html(page: Page, html: string): Promise<Buffer> {
  await page.setContent(html, { waitUntil: "load" });
  return await page.pdf({
    format: "A4",
    printBackground: true,
    displayHeaderFooter: true,
    headerTemplate: "<span></span>",
    footerTemplate: FOOTER,
    margin: { top: "18mm", bottom: "20mm", left: "16mm", right: "16mm" },
  });
}

/** True when the Debian Chromium is installed. */
export function chromium_available(): boolean {
  try {
    return Deno.statSync(CHROMIUM_PATH).isFile;
  } catch {
    return false;
  }
}

/**
 * Prints `invoice` to PDF `runs` times on one reused page (after `warmup`
 * unmeasured renders) and returns the timings.
 */
export async function measure_chromium(
  invoice: Invoice,
  options: { runs: number; warmup: number },
): Promise<ChromiumResult> {
  // Loaded only when measuring: the rest of the benchmark runs without it.
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  try {
    const page = await browser.newPage();
    const times: number[] = [];
    let pdf_bytes = 0;
    for (let index = 0; index < options.warmup + options.runs; index++) {
      // A new invoice number each time, as a service would see.
      const html = invoice_html({
        ...invoice,
        invoice_number: `${invoice.invoice_number}-${index}`,
      });
      const started = performance.now();
      const pdf = await print_html(page, html);
      const elapsed = performance.now() - started;
      if (index >= options.warmup) times.push(elapsed);
      pdf_bytes = pdf.length;
    }
    times.sort((a, b) => a - b);
    const at = (share: number) =>
      times[Math.min(times.length - 1, Math.floor(share * times.length))];
    return {
      version: browser.version(),
      runs: times.length,
      median_ms: at(0.5),
      p95_ms: at(0.95),
      mean_ms: times.reduce((sum, time) => sum + time, 0) / times.length,
      pdf_bytes,
    };
  } finally {
    await browser.close();
  }
}
