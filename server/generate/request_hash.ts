/**
 * What a live request is charged under: a hash of its canonical form, so an
 * identical retry is recognised without storing its content.
 *
 * The canonical form is the validated, normalized invoice with the format,
 * written so that what a newer version adds does not change it: keys sorted,
 * absent (`undefined`, `null`) fields left out, and fields at their default
 * ({@linkcode CANONICAL_DEFAULTS}) left out. A new optional field therefore
 * hashes like its absence while it is absent or at its default; a field with
 * a default enters this table together with the field. The hash carries a
 * version prefix ({@linkcode REQUEST_HASH_VERSION}); the legacy hash (the
 * unprefixed form of receipts written before it) is looked up beside it
 * while such receipts may exist (they live for their month).
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { Invoice, InvoiceFormat } from "../../contract/mod.ts";
import { invoice_json } from "../invoice_json.ts";

/** Prefix of the canonical request hash. */
export const REQUEST_HASH_VERSION = "v2";

/**
 * Fields whose default value hashes like the field's absence: the format
 * of a request, and the invoice fields the normalization fills in.
 */
export const CANONICAL_DEFAULTS: Readonly<Record<string, unknown>> = {
  format: "pdf",
  document_type: "invoice",
};

/** SHA-256 of `text`, hex: what the generate path stores of keys and requests. */
export function sha256_hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * `keys` in the order `sort()` gives them (UTF-16 code units), in place.
 * The objects of an invoice have a few keys each, where an insertion sort
 * takes less than half of `sort()`'s time, which a 1,000-line request pays
 * a thousand times.
 */
export function sort_keys(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i];
    let j = i - 1;
    for (; j >= 0 && keys[j] > key; j--) keys[j + 1] = keys[j];
    keys[j + 1] = key;
  }
  return keys;
}

// A value in canonical form: objects with sorted keys, absent fields left
// out; `defaults` applies to the object's own keys only.
function canonical(
  value: unknown,
  defaults?: Readonly<Record<string, unknown>>,
): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const items = new Array(value.length);
    for (let i = 0; i < value.length; i++) items[i] = canonical(value[i]);
    return items;
  }
  const keys = sort_keys(Object.keys(value));
  const out: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const field = (value as Record<string, unknown>)[key];
    if (field === undefined || field === null) continue;
    if (
      defaults !== undefined && Object.hasOwn(defaults, key) &&
      defaults[key] === field
    ) continue;
    out[key] = canonical(field);
  }
  return out;
}

/** The canonical form of a request, as hashed. */
export function canonical_request(
  invoice: Invoice,
  format: InvoiceFormat,
): string {
  return JSON.stringify(
    canonical({ format, invoice: canonical(invoice, CANONICAL_DEFAULTS) }, {
      format: CANONICAL_DEFAULTS.format,
    }),
  );
}

/** The versioned hash of a live request's canonical form. */
export function request_hash(invoice: Invoice, format: InvoiceFormat): string {
  return `${REQUEST_HASH_VERSION}:${
    sha256_hex(canonical_request(invoice, format))
  }`;
}

/**
 * The legacy hash of the same request (the normalized invoice as written,
 * the format in front unless the PDF): what receipts without a version hold.
 */
export function legacy_request_hash(
  invoice: Invoice,
  format: InvoiceFormat,
): string {
  // JSON.stringify([format, invoice]) for the other formats, without
  // writing the invoice twice.
  const text = invoice_json(invoice);
  return sha256_hex(
    format === "pdf" ? text : `[${JSON.stringify(format)},${text}]`,
  );
}
