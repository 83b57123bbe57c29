/**
 * A worker for `tests/render/worker_lazy.test.ts`: imports the renderer as
 * the render worker does (without `pdf/mod.ts`, so without the text
 * layout), renders each invoice it is sent in turn and answers, per
 * invoice, the bytes and whether the text layout was loaded afterwards.
 * Module state is per isolate, so the test's own (eager) imports do not
 * count here.
 */
/// <reference lib="deno.worker" />
import type { Invoice } from "../../contract/invoice_types.ts";
import {
  type DocumentFormat,
  render_invoice_document_lazily,
} from "../../server/einvoice/document.ts";
import { text_layout_loaded } from "../../server/pdf/text_layout.ts";

/** One render asked of the probe. */
export interface ProbeRender {
  invoice: Invoice;
  format: DocumentFormat;
}

/** The probe's answer for one render. */
export interface ProbeResult {
  bytes: Uint8Array;
  /** Whether the text layout was loaded after this render. */
  loaded: boolean;
}

self.onmessage = async (event: MessageEvent<ProbeRender[]>) => {
  const results: ProbeResult[] = [];
  for (const { invoice, format } of event.data) {
    const { bytes } = await render_invoice_document_lazily(invoice, {
      format,
    });
    results.push({ bytes, loaded: text_layout_loaded() });
  }
  self.postMessage(results);
};
