/**
 * The invoice as an HTML page, for the Chromium baseline of the load
 * benchmark: the same content and layout as our PDF (header, parties, items
 * table with a repeating header, totals, notes), in the way an HTML-to-PDF
 * service would print it. System fonts only, nothing loaded from outside,
 * so Chromium's time is spent on layout and printing, never on fetching.
 *
 * @module
 */
import type { Invoice, InvoiceParty } from "../../contract/mod.ts";

function escape_html(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

function money(amount: string, currency: string | undefined): string {
  const [whole, fraction = ""] = amount.replace("-", "").split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const text = `${amount.startsWith("-") ? "-" : ""}${grouped}.${
    fraction.padEnd(2, "0")
  }`;
  return currency ? `${text} ${currency}` : text;
}

function party(title: string, value: InvoiceParty): string {
  const lines = [
    value.name,
    value.address,
    [value.zip, value.city].filter(Boolean).join(" "),
    value.state,
    value.email,
  ].filter((line): line is string => Boolean(line));
  return `<section class="party"><h2>${title}</h2>${
    lines.map((line, index) =>
      index === 0
        ? `<strong>${escape_html(line)}</strong>`
        : `<div>${escape_html(line)}</div>`
    ).join("")
  }</section>`;
}

const STYLE = `
@page { size: A4; margin: 18mm 16mm 20mm; }
* { box-sizing: border-box; }
body { font-family: "Noto Sans", "DejaVu Sans", sans-serif; font-size: 9.5pt;
  color: #1f2933; margin: 0; }
header { display: flex; justify-content: space-between; align-items: flex-start;
  margin-bottom: 10mm; }
h1 { font-size: 22pt; letter-spacing: 0.08em; margin: 0; color: #111827; }
.meta { text-align: right; line-height: 1.5; }
.meta b { display: inline-block; min-width: 24mm; color: #6b7280; font-weight: normal; }
.parties { display: flex; gap: 12mm; margin-bottom: 8mm; }
.party { flex: 1; line-height: 1.45; }
.party h2 { font-size: 8pt; text-transform: uppercase; letter-spacing: 0.1em;
  color: #6b7280; margin: 0 0 2mm; }
table { width: 100%; border-collapse: collapse; }
thead { display: table-header-group; }
th { background: #1f2933; color: #fff; font-weight: bold; text-align: left;
  padding: 2mm 2.5mm; }
td { padding: 1.8mm 2.5mm; border-bottom: 0.3mm solid #e5e7eb; vertical-align: top; }
tr { break-inside: avoid; }
.num { text-align: right; white-space: nowrap; }
tbody tr:nth-child(even) td { background: #f9fafb; }
.totals { margin-left: auto; margin-top: 5mm; width: 70mm; }
.totals div { display: flex; justify-content: space-between; padding: 1.2mm 0; }
.totals .due { font-weight: bold; font-size: 11pt; border-top: 0.4mm solid #1f2933; }
.notes { margin-top: 10mm; white-space: pre-wrap; color: #374151; }
`;

/** A complete HTML document for `invoice`, ready for `page.setContent` and `page.pdf`. */
export function invoice_html(invoice: Invoice): string {
  const currency = invoice.currency;
  const rows = invoice.items.map((item) =>
    `<tr><td>${
      escape_html(item.description)
    }</td><td class="num">${item.quantity}</td>` +
    `<td class="num">${money(item.rate, currency)}</td>` +
    `<td class="num">${money(item.amount, currency)}</td></tr>`
  ).join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Invoice ${
    escape_html(invoice.invoice_number)
  }</title><style>${STYLE}</style></head>
<body>
<header><h1>INVOICE</h1><div class="meta">
<div><b>Number</b> ${escape_html(invoice.invoice_number)}</div>
<div><b>Date</b> ${invoice.date}</div><div><b>Due</b> ${invoice.due_date}</div></div></header>
<div class="parties">${party("From", invoice.sender)}${
    party("Bill to", invoice.bill_to)
  }</div>
<table><thead><tr><th>Description</th><th class="num">Qty</th><th class="num">Rate</th>
<th class="num">Amount</th></tr></thead><tbody>${rows}</tbody></table>
<div class="totals"><div><span>Subtotal</span><span>${
    money(invoice.subtotal, currency)
  }</span></div>
<div class="due"><span>Total due</span><span>${
    money(invoice.total, currency)
  }</span></div></div>
${invoice.notes ? `<div class="notes">${escape_html(invoice.notes)}</div>` : ""}
</body></html>`;
}
