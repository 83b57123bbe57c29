/**
 * The document's identity and metadata: its `/ID` (a hash of the invoice),
 * creation date and information strings, all derived from the invoice so
 * identical invoices give identical files.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { Invoice, InvoiceParty } from "../../contract/invoice_types.ts";
import type { PageMark } from "./page_marks.ts";

/**
 * Version of the layout. Part of the document /ID hash, so a layout change
 * never produces the same /ID as an older rendering of the same invoice.
 */
const LAYOUT_VERSION = "invoice-layout-2";

/** The /ID of a marked copy: another document than the real invoice. */
export function marked_id(id: string, mark: PageMark): string {
  return createHash("sha256").update(`${id}:${mark.watermark}`).digest("hex")
    .slice(0, 32).toUpperCase();
}

/**
 * Document-information strings: kept as given (jsPDF encodes them as
 * UTF-16 when needed, which holds any character) minus control characters
 * and unpaired surrogates, which are not meaningful there.
 */
export function metadata_text(value: string): string {
  // deno-lint-ignore no-control-regex
  return value.toWellFormed().replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
    .trim();
}

/**
 * PDF date for the invoice date at midnight UTC. jsPDF accepts years
 * 1970–2037 only; other (implausible) years are clamped rather than failing
 * the invoice.
 */
export function pdf_date(date: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (match === null) return "D:19700101000000+00'00'";
  const year = Math.min(2037, Math.max(1970, Number(match[1])));
  const month = Math.min(12, Math.max(1, Number(match[2])));
  const day = Math.min(31, Math.max(1, Number(match[3])));
  const pad = (n: number): string => String(n).padStart(2, "0");
  return `D:${year}${pad(month)}${pad(day)}000000+00'00'`;
}

/**
 * Fields hashed in the base layout's fixed order; any other field is
 * appended to the hash only when present (see `document_id`).
 */
const LEGACY_INVOICE_KEYS = new Set([
  "invoice_number",
  "date",
  "due_date",
  "currency",
  "sender",
  "bill_to",
  "items",
  "notes",
  "subtotal",
  "total",
  // Derived from other fields or equal to the default: not content.
  "has_tax",
  "amount_due",
]);

/**
 * JSON with object keys sorted, the logo replaced by its hash. The sorted
 * copy is serialized without a replacer, which keeps `JSON.stringify` on
 * its fast path: a replacer makes it call back for every value.
 */
function canonical_json(value: unknown): string {
  return JSON.stringify(sorted_copy(value));
}

/** `value` with every object's keys in sorted order (the logo as its hash). */
function sorted_copy(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  // As `JSON.stringify` does before it looks at a value.
  const to_json = (value as { toJSON?: unknown }).toJSON;
  if (typeof to_json === "function") return sorted_copy(to_json.call(value));
  if (Array.isArray(value)) return value.map(sorted_copy);
  if ("base64" in value && "sha256" in value) {
    return { sha256: sorted_copy(value.sha256) };
  }
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    copy[key] = sorted_copy((value as Record<string, unknown>)[key]);
  }
  return copy;
}

/** The fields of `value` outside `known`, or null when there are none. */
function extra_fields(
  value: object,
  known: ReadonlySet<string>,
): Record<string, unknown> | null {
  let extra: Record<string, unknown> | null = null;
  for (const key in value) {
    if (known.has(key)) continue;
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined) continue;
    (extra ??= {})[key] = v;
  }
  return extra;
}

/** `address_lines` is hashed through the address slot above. */
const LEGACY_PARTY_KEYS = new Set([
  "name",
  "email",
  "address",
  "address_lines",
  "city",
  "state",
  "zip",
]);
const LEGACY_ITEM_KEYS = new Set(["description", "quantity", "rate", "amount"]);

/**
 * Document /ID: the first 128 bits of a SHA-256 over every field of the
 * invoice in a fixed order (so key order in the input does not matter) and
 * the layout version. Fields added after the first layout are appended only
 * when present, so older invoices keep their /ID.
 */
export function document_id(invoice: Invoice): string {
  // A multi-line address arrives as `address_lines` only; joined, it is
  // the string the first layout hashed.
  const party = (p: InvoiceParty): (string | null)[] => [
    p.name,
    p.email,
    p.address ?? p.address_lines?.join("\n") ?? null,
    p.city ?? null,
    p.state ?? null,
    p.zip ?? null,
  ];
  const fields: unknown[] = [
    LAYOUT_VERSION,
    invoice.invoice_number,
    invoice.date,
    invoice.due_date,
    invoice.currency ?? null,
    party(invoice.sender),
    party(invoice.bill_to),
    invoice.items.map((i) => [i.description, i.quantity, i.rate, i.amount]),
    invoice.notes ?? null,
    invoice.subtotal,
    invoice.total,
  ];
  const extra = extra_fields(invoice, LEGACY_INVOICE_KEYS);
  if (extra?.document_type === "invoice") delete extra.document_type;
  const parties = [invoice.sender, invoice.bill_to].map((p) =>
    extra_fields(p, LEGACY_PARTY_KEYS)
  );
  const items = invoice.items.map((i) => extra_fields(i, LEGACY_ITEM_KEYS));
  const has_extra = (extra !== null && Object.keys(extra).length > 0) ||
    parties.some((p) => p !== null) || items.some((i) => i !== null);
  if (has_extra) fields.push(canonical_json([extra, parties, items]));
  return createHash("sha256").update(JSON.stringify(fields)).digest("hex")
    .slice(0, 32)
    .toUpperCase();
}
