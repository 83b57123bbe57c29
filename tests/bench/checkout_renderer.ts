/**
 * A checkout's renderer, imported from its directory, so that a benchmark
 * measures another checkout's code on this checkout's rows.
 *
 * @module
 */
import type { Invoice } from "../../contract/invoice_types.ts";

/** `render_invoice_document` of a checkout. */
export type RenderDocument = (
  invoice: Invoice,
  options: { format: "pdf" | "factur-x" },
) => { bytes: Uint8Array };

/**
 * The renderer of the checkout at `dir` (default this one). Its entry
 * (`server/einvoice/mod.ts`) loads the text layout, so every script draws.
 */
export async function checkout_renderer(
  dir = new URL("../../", import.meta.url).pathname,
): Promise<RenderDocument> {
  const { render_invoice_document } = await import(
    `${dir.replace(/\/$/, "")}/server/einvoice/mod.ts`
  ) as { render_invoice_document: RenderDocument };
  return render_invoice_document;
}
