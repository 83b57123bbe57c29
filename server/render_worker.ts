/**
 * Worker entry point: renders invoices off the request thread. Each worker
 * prepares the fonts once and then renders one invoice per message.
 */
/// <reference lib="deno.worker" />
import { load_invoice_fonts, render_invoice_pdf } from "./pdf/mod.ts";
import type { Invoice } from "../contract/mod.ts";

/** A render request sent to a worker. */
export interface RenderRequest {
  id: number;
  invoice: Invoice;
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
    const { id, invoice } = event.data;
    try {
      const bytes = render_invoice_pdf(invoice);
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
