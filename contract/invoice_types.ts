/**
 * Types of a validated, normalised invoice: what the renderer receives.
 *
 * The zod schemas in `invoice.ts` produce exactly this shape; money is carried
 * as decimal strings so no floating-point sum ever reaches a PDF.
 */

/** A party on the invoice (sender or billed party). */
export interface InvoiceParty {
  name: string;
  email: string;
  address?: string;
  city?: string;
  state?: string;
  zip?: string;
}

/** One validated line item. */
export interface InvoiceLineItem {
  description: string;
  /** Integer > 0. */
  quantity: number;
  /** Price per unit as a plain decimal string, e.g. "1250.5", "0.125", "-20". */
  rate: string;
  /** quantity × rate rounded to cents, always two decimals, e.g. "2501.00". */
  amount: string;
}

/** A validated invoice, ready to render. */
export interface Invoice {
  invoice_number: string;
  /** YYYY-MM-DD */
  date: string;
  /** YYYY-MM-DD, never before `date`. */
  due_date: string;
  /** Optional ISO 4217 code, upper case, e.g. "EUR". */
  currency?: string;
  sender: InvoiceParty;
  bill_to: InvoiceParty;
  items: InvoiceLineItem[];
  notes?: string;
  /** Sum of the item amounts, two decimals. */
  subtotal: string;
  /** Amount due, two decimals (equal to subtotal: the spec has no taxes). */
  total: string;
}
