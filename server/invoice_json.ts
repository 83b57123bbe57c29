/**
 * The normalized invoice as JSON text, written once per request: the legacy
 * request hash hashes it, and the render worker receives it. A string
 * crosses to a worker as one copy, where the invoice's object graph would be
 * cloned field by field on the request thread (about 1 ms at 1,000 lines).
 * The invoice is data parsed from JSON and normalized into strings, numbers,
 * booleans, arrays and plain objects, so its JSON text carries all of it.
 *
 * @module
 */
import type { Invoice } from "../contract/mod.ts";

const texts = new WeakMap<Invoice, string>();

/** `JSON.stringify(invoice)`, once per invoice object. */
export function invoice_json(invoice: Invoice): string {
  let text = texts.get(invoice);
  if (text === undefined) {
    text = JSON.stringify(invoice);
    texts.set(invoice, text);
  }
  return text;
}
