/**
 * How a document is rendered, in one type: what the document is (format
 * and marks, `DocumentOptions` of the e-invoice writers) and how its render
 * is scheduled. The services, the render pool and its workers read it.
 *
 * @module
 */
import type { DocumentOptions } from "./einvoice/document.ts";

/** How to render: the format (default the PDF), its marks, its scheduling. */
export interface RenderOptions extends Partial<DocumentOptions> {
  /** The account rendering (fair sharing of render workers). */
  account_id?: string;
  /** Estimated expensive (the pool keeps a worker free of such renders). */
  expensive?: boolean;
  /**
   * Told the render's own time in seconds (queue wait excluded), however it
   * ended; a renderer that never calls it is timed around the call.
   */
  on_render_time?: (seconds: number) => void;
}

/** What a document is: its format and marks, as a worker receives them. */
export type DocumentRequest = Pick<
  RenderOptions,
  "format" | "test" | "preview"
>;
