/**
 * The cost bound of one document: at most {@link MAX_PAGES} pages. A cheap
 * lower bound of the page count is checked before rendering, so a body built
 * to be slow (thousands of line breaks) is refused in microseconds; the
 * renderer stops at the limit as a backstop.
 *
 * @module
 */
import type { Invoice } from "../../contract/invoice_types.ts";

/** Most pages a document may have. */
export const MAX_PAGES = 100;

/** Thrown when a document would exceed {@link MAX_PAGES}. */
export class PageLimitError extends Error {
  /** Builds the error for a document of at least `pages` pages. */
  constructor(readonly pages: number) {
    super(
      `The invoice would have at least ${pages} pages; at most ${MAX_PAGES} are allowed ` +
        "(shorten descriptions and notes, or split it into several invoices)",
    );
    this.name = "PageLimitError";
  }
}

// Deliberately generous to the document, so the estimate never exceeds the
// real page count: more characters per line and less height per line and
// row than the layout really uses, and the whole page height as usable.
const MAX_CHARACTERS_PER_LINE = 160;
const MIN_LINE_HEIGHT = 12;
const MIN_ROW_PADDING = 10;
const MAX_USABLE_HEIGHT = 760;

function min_lines(text: string): number {
  let lines = 0;
  for (const segment of text.split("\n")) {
    lines += Math.max(1, Math.ceil(segment.length / MAX_CHARACTERS_PER_LINE));
  }
  return lines;
}

/** A lower bound of the number of pages `invoice` renders to. */
export function estimate_min_pages(invoice: Invoice): number {
  let height = 0;
  for (const item of invoice.items) {
    height += min_lines(item.description) * MIN_LINE_HEIGHT + MIN_ROW_PADDING;
  }
  if (invoice.notes) height += min_lines(invoice.notes) * MIN_LINE_HEIGHT;
  return Math.max(1, Math.ceil(height / MAX_USABLE_HEIGHT));
}

/** Throws a {@link PageLimitError} when `invoice` surely exceeds the page limit. */
export function check_page_budget(invoice: Invoice): void {
  const pages = estimate_min_pages(invoice);
  if (pages > MAX_PAGES) throw new PageLimitError(pages);
}
