/**
 * Worker entry point: renders invoices off the request thread. Each worker
 * prepares the fonts once and then renders one invoice per message.
 */
/// <reference lib="deno.worker" />
import { load_invoice_fonts } from "./pdf/mod.ts";
import { render_invoice_document } from "./einvoice/mod.ts";
import type { Invoice, InvoiceFormat } from "../contract/mod.ts";

/** A render request sent to a worker. */
export interface RenderRequest {
  id: number;
  invoice: Invoice;
  /** Output format; absent: the PDF. */
  format?: InvoiceFormat;
  /** Output of a test key (marked as test in e-invoices). */
  test?: boolean;
}

/** A worker's answer. */
export type RenderReply =
  | { id: number; ok: true; bytes: Uint8Array }
  | { id: number; ok: false; message: string };

if (
  typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope
) {
  load_invoice_fonts();
  self.onmessage = (event: MessageEvent<RenderRequest>) => {
    const { id, invoice, format, test } = event.data;
    try {
      const { bytes } = render_invoice_document(invoice as never, {
        format: format ?? "pdf",
        test,
      });
      self.postMessage({ id, ok: true, bytes } satisfies RenderReply, [
        bytes.buffer as ArrayBuffer,
      ]);
    } catch (error) {
      self.postMessage(
        {
          id,
          ok: false,
          message: error instanceof Error ? error.message : String(error),
        } satisfies RenderReply,
      );
    }
  };
}
