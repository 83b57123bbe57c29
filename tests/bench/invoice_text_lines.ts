/**
 * The invoice as plain positioned text lines, for the peers benchmark
 * (`peers_bench.ts`): number, dates, parties, one line per item
 * (description, quantity, amount) and the totals. The hand-written floor
 * (`floor_pdf.ts`) and the pdfkit row draw exactly these lines, so both
 * write the same text the renderer writes, without its layout.
 *
 * @module
 */
import type { Invoice, InvoiceParty } from "../../contract/invoice_types.ts";

/** One piece of text at a horizontal position, in PDF points. */
export interface TextCell {
  x: number;
  text: string;
}

/** One line of text: its baseline from the page's bottom edge, font and cells. */
export interface TextLine {
  y: number;
  size: number;
  bold: boolean;
  cells: TextCell[];
}

/** A4 in PDF points. */
export const A4 = { width: 595.28, height: 841.89 } as const;

const LEFT = 50;
const QUANTITY_X = 400;
const AMOUNT_X = 470;
const TOP = 790;

function money(amount: string, currency: string | undefined): string {
  return currency ? `${amount} ${currency}` : amount;
}

function party_lines(title: string, party: InvoiceParty): string[] {
  const place = [party.zip, party.city].filter(Boolean).join(" ");
  return [title, party.name, party.email, party.address ?? "", place]
    .filter((line) => line !== "");
}

/** The text lines of `invoice`, top to bottom, on one A4 page. */
export function invoice_text_lines(invoice: Invoice): TextLine[] {
  const lines: TextLine[] = [];
  let y = TOP;
  const add = (size: number, bold: boolean, cells: TextCell[]) => {
    lines.push({ y, size, bold, cells });
    y -= size + 5;
  };
  const text = (size: number, bold: boolean, value: string) =>
    add(size, bold, [{ x: LEFT, text: value }]);
  const currency = invoice.currency;

  text(18, true, `Invoice ${invoice.invoice_number}`);
  text(10, false, `Date ${invoice.date}  Due ${invoice.due_date}`);
  y -= 10;
  for (
    const [title, party] of [["From", invoice.sender], [
      "Bill to",
      invoice.bill_to,
    ]] as const
  ) {
    party_lines(title, party).forEach((line, i) => text(10, i === 0, line));
    y -= 6;
  }
  add(10, true, [
    { x: LEFT, text: "Description" },
    { x: QUANTITY_X, text: "Qty" },
    { x: AMOUNT_X, text: "Amount" },
  ]);
  for (const item of invoice.items) {
    add(9, false, [
      { x: LEFT, text: item.description },
      { x: QUANTITY_X, text: String(item.quantity) },
      { x: AMOUNT_X, text: money(item.amount, currency) },
    ]);
  }
  y -= 6;
  const total = (label: string, amount: string, bold = false) =>
    add(10, bold, [
      { x: QUANTITY_X - 60, text: label },
      { x: AMOUNT_X, text: money(amount, currency) },
    ]);
  total("Subtotal", invoice.subtotal);
  if (invoice.tax_total !== undefined) total("Tax", invoice.tax_total);
  total("Total", invoice.total, true);
  total("Amount due", invoice.amount_due, true);
  return lines;
}
