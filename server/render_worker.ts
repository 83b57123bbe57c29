/**
 * Worker entry point: renders invoices off the request thread. Each worker
 * prepares the fonts once and then renders one invoice per message.
 */
/// <reference lib="deno.worker" />
import type { Invoice } from "../contract/mod.ts";
import type { DocumentRequest } from "./render_options.ts";

/** A render request sent to a worker (format absent: the PDF). */
export interface RenderRequest extends DocumentRequest {
  id: number;
  /** The invoice as JSON text (`invoice_json.ts`). */
  invoice_json: string;
}

/** A worker's answer to a {@link RenderRequest}. */
export type RenderReply =
  | { id: number; ok: true; bytes: Uint8Array }
  | {
    id: number;
    ok: false;
    message: string;
    /** `page_limit`: the document is too long (a 400, not a fault). */
    code?: "page_limit";
  };

/**
 * What a worker posts: answers, and once `{ ready: true }` when it has
 * loaded the renderer (its start-up is not counted in any render's time).
 */
export type WorkerMessage = RenderReply | { ready: true };

if (
  typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope
) {
  // The renderer's module graph is imported below; requests arriving
  // meanwhile wait here instead of reaching a worker without a message
  // handler (and being lost).
  const waiting: RenderRequest[] = [];
  const ready: { handle?: (request: RenderRequest) => void } = {};
  self.onmessage = (event: MessageEvent<RenderRequest>) => {
    if (ready.handle === undefined) waiting.push(event.data);
    else ready.handle(event.data);
  };
  // The renderer without its entry module (`pdf/mod.ts`), which would load
  // the text layout (HarfBuzz's WebAssembly, bidi-js) at once: most
  // invoices are drawn with the Latin font alone and never need it, so
  // `render_invoice_document_lazily` loads it when an invoice first does
  // (about 1 MB of heap and 5 MB resident less per worker until then).
  const { render_invoice_document_lazily } = await import(
    "./einvoice/document.ts"
  );
  const { load_invoice_fonts } = await import("./pdf/fonts.ts");
  const { PageLimitError } = await import("./pdf/page_budget.ts");
  load_invoice_fonts();
  const handle = async (
    { id, invoice_json, format, test, preview }: RenderRequest,
  ): Promise<void> => {
    try {
      const invoice = JSON.parse(invoice_json) as Invoice;
      const { bytes } = await render_invoice_document_lazily(invoice, {
        format: format ?? "pdf",
        test,
        preview,
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
          ...(error instanceof PageLimitError
            ? { code: "page_limit" as const }
            : {}),
        } satisfies RenderReply,
      );
    }
  };
  self.postMessage({ ready: true } satisfies WorkerMessage);
  for (const request of waiting.splice(0)) handle(request);
  ready.handle = handle;
}
