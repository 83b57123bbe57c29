/**
 * Renders a validated invoice to a PDF: one standardized A4 layout.
 *
 * Pure and synchronous: no I/O except reading the bundled fonts once per
 * process, no clock, no randomness. Identical invoices give byte-identical
 * PDFs.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { jsPDF } from "jspdf";
import {
  autoTable,
  type CellHookData,
  type CellInput,
  type RowInput,
  type Styles,
} from "jspdf-autotable";
import type { Invoice, InvoiceParty } from "../../contract/invoice_types.ts";
import {
  create_document_with_fonts,
  font_handle,
  type FontHandle,
  INVOICE_FONT_FAMILY,
  rethrow_font_errors,
  sanitize_text,
} from "./fonts.ts";
import { format_decimal, format_money, format_quantity } from "./format.ts";
import { make_pdfa3, type PdfA3Options } from "./pdfa.ts";

/** Options of {@link render_invoice_pdf}. */
export interface RenderPdfOptions {
  /** Make the file PDF/A-3b with this embedded file (Factur-X). */
  pdfa3?: PdfA3Options;
}

/**
 * Version of the layout. Part of the document /ID hash, so a layout change
 * never produces the same /ID as an older rendering of the same invoice.
 */
const LAYOUT_VERSION = "invoice-layout-1";

type Rgb = [number, number, number];

/** Restrained palette: near-black ink, one grey for labels, hairlines. */
const INK: Rgb = [26, 31, 54];
const MUTED: Rgb = [105, 115, 134];
const RULE: Rgb = [225, 229, 235];
const RULE_STRONG: Rgb = [160, 168, 180];

// Layout in PDF points (1/72 in). A4 is 595.28 × 841.89 pt.
const MARGIN_X = 56;
const MARGIN_TOP = 56;
/** Bottom margin of the flowing content; the footer sits below it. */
const MARGIN_BOTTOM = 72;
const FOOTER_BASELINE_FROM_BOTTOM = 36;

const SIZE_TITLE = 22;
const SIZE_BODY = 9.5;
const SIZE_LABEL = 8.5;
const SIZE_NAME = 10.5;
const SIZE_TOTAL = 11;
const SIZE_FOOTER = 8;
const SIZE_AMOUNT_DUE = 16;
const LINE_HEIGHT_FACTOR = 1.3;

/** Cell padding of the items table (pt). */
const CELL_PAD_Y = 6;
const CELL_PAD_X = 10;

/**
 * Renders `invoice` as an A4 PDF.
 *
 * Layout: "INVOICE" title with number, issue and due date and the amount due;
 * sender ("From") and billed party ("Bill to") blocks; the items table
 * (Description, Qty, Rate, Amount) whose header repeats on every page, with
 * subtotal and total kept together with the last row; notes; "Page X of Y"
 * on every page.
 *
 * Text is shown in Noto Sans; characters it cannot draw (see
 * `SUPPORTED_UNICODE_RANGES`) appear as "�". Money strings are formatted
 * with thousands separators and the currency code, if any.
 *
 * The output is deterministic: the creation date is the invoice date and the
 * document /ID a hash of the invoice content. Document title is
 * "Invoice <number>", author the sender's name.
 *
 * @param invoice A validated invoice (see `contract/invoice_types.ts`).
 * @param options `pdfa3`: a PDF/A-3b file with an embedded file (same pages).
 * @returns The PDF file bytes.
 */
export function render_invoice_pdf(
  invoice: Invoice,
  options: RenderPdfOptions = {},
): Uint8Array {
  const doc = create_document_with_fonts({
    unit: "pt",
    format: "a4",
    compress: true,
    // Otherwise jsPDF writes all 14 standard fonts, which we never use.
    putOnlyUsedFonts: true,
  });
  doc.setFont(INVOICE_FONT_FAMILY, "normal");
  doc.setLineHeightFactor(LINE_HEIGHT_FACTOR);
  doc.setProperties({
    title: metadata_text(`Invoice ${invoice.invoice_number}`),
    author: metadata_text(invoice.sender.name),
    creator: "Invoice PDF service",
  });
  doc.setCreationDate(pdf_date(invoice.date));
  doc.setFileId(document_id(invoice));
  if (options.pdfa3 !== undefined) make_pdfa3(doc, options.pdfa3);

  const text = {
    number: single_line(invoice.invoice_number),
    date: single_line(invoice.date),
    due_date: single_line(invoice.due_date),
    currency: invoice.currency ? single_line(invoice.currency) : undefined,
  };
  const total = format_money(invoice.total, text.currency);

  let y = draw_header(doc, { ...text, total });
  y = draw_parties(doc, { invoice, start_y: y + 26 });
  y = draw_items(doc, { invoice, currency: text.currency, start_y: y + 24 });
  if (invoice.notes !== undefined && invoice.notes.trim() !== "") {
    draw_notes(doc, { notes: invoice.notes, start_y: y + 24 });
  }
  draw_footers(doc, `${text.number} \u00B7 ${total} due ${text.due_date}`);

  const bytes = new Uint8Array(doc.output("arraybuffer"));
  rethrow_font_errors(doc);
  return bytes;
}

/**
 * Common cell styles: our font and colours, no rules. Keys equal to
 * autotable's defaults (normal style, no fill, "linebreak", top alignment)
 * are left out on purpose: autotable merges these objects for every cell.
 */
function base_styles(overrides: Partial<Styles>): Partial<Styles> {
  return {
    font: INVOICE_FONT_FAMILY,
    fontSize: SIZE_BODY,
    textColor: INK,
    // An object (not 0) and no colour: otherwise autotable writes line width
    // and stroke colour operators for every cell. Rules are set per section.
    lineWidth: {},
    lineColor: false,
    cellPadding: 0,
    ...overrides,
  };
}

const PAGE_MARGIN = {
  top: MARGIN_TOP,
  bottom: MARGIN_BOTTOM,
  left: MARGIN_X,
  right: MARGIN_X,
};

function content_width(doc: jsPDF): number {
  return doc.internal.pageSize.getWidth() - 2 * MARGIN_X;
}

function last_table_end(doc: jsPDF): number {
  return (doc as unknown as { lastAutoTable: { finalY: number } }).lastAutoTable
    .finalY;
}

/**
 * Title, invoice facts (number, dates) on the left and the amount due on the
 * right. Returns the y below the block.
 */
function draw_header(
  doc: jsPDF,
  text: { number: string; date: string; due_date: string; total: string },
): number {
  const total = text.total;
  const width = content_width(doc);
  const right = MARGIN_X + width;
  const title_baseline = MARGIN_TOP + SIZE_TITLE * 0.75;
  doc.setFont(INVOICE_FONT_FAMILY, "bold");
  doc.setFontSize(SIZE_TITLE);
  doc.setTextColor(...INK);
  doc.text("INVOICE", MARGIN_X, title_baseline);

  // Amount due, right-aligned; shrunk (never wrapped) if it is very long.
  const due_width = width * 0.42;
  doc.setFont(INVOICE_FONT_FAMILY, "normal");
  doc.setFontSize(SIZE_LABEL);
  doc.setTextColor(...MUTED);
  doc.text("Amount due", right, MARGIN_TOP + 6, { align: "right" });
  doc.setFont(INVOICE_FONT_FAMILY, "bold");
  let size = SIZE_AMOUNT_DUE;
  doc.setFontSize(size);
  const natural = doc.getTextWidth(total);
  if (natural > due_width) {
    size = Math.max(7, (size * due_width) / natural);
    doc.setFontSize(size);
  }
  doc.setTextColor(...INK);
  const amount_baseline = MARGIN_TOP + 6 + 8 + size;
  doc.text(
    fit_line(doc, total, { max_width: due_width }),
    right,
    amount_baseline,
    {
      align: "right",
    },
  );
  doc.setFont(INVOICE_FONT_FAMILY, "normal");
  doc.setFontSize(SIZE_LABEL);
  doc.setTextColor(...MUTED);
  doc.text(
    fit_line(doc, `Due ${text.due_date}`, { max_width: due_width }),
    right,
    amount_baseline + 15,
    { align: "right" },
  );

  const label_width = 78;
  autoTable(doc, {
    theme: "plain",
    startY: title_baseline + 22,
    margin: { ...PAGE_MARGIN, right: MARGIN_X + width * 0.45 },
    tableWidth: width * 0.55,
    styles: base_styles({ cellPadding: { top: 1.5, bottom: 1.5 } }),
    columnStyles: {
      0: {
        cellWidth: label_width,
        textColor: MUTED,
        fontSize: SIZE_LABEL,
        // Smaller labels sit lower so they share the values' baseline.
        cellPadding: {
          top: 1.5 + (SIZE_BODY - SIZE_LABEL) * 0.85,
          bottom: 1.5,
        },
      },
      1: { cellWidth: width * 0.55 - label_width },
    },
    body: [
      ["Invoice number", text.number],
      ["Issue date", text.date],
      ["Due date", text.due_date],
    ],
  });
  return Math.max(last_table_end(doc), amount_baseline + 15);
}

/** Lines describing a party below its name: e-mail and the address present. */
function party_lines(party: InvoiceParty): string[] {
  const lines = [single_line(party.email)];
  if (party.address !== undefined && party.address.trim() !== "") {
    for (const line of sanitize_text(party.address).split("\n")) {
      if (line.trim() !== "") lines.push(line.trim());
    }
  }
  const city = [party.city, party.state]
    .filter((v): v is string => v !== undefined && v.trim() !== "")
    .map(single_line)
    .join(", ");
  const zip = party.zip !== undefined && party.zip.trim() !== ""
    ? single_line(party.zip)
    : "";
  const locality = [city, zip].filter((v) => v !== "").join(" ");
  if (locality !== "") lines.push(locality);
  return lines;
}

/** "From" and "Bill to" side by side. Returns the y below the block. */
function draw_parties(
  doc: jsPDF,
  { invoice, start_y }: { invoice: Invoice; start_y: number },
): number {
  const width = content_width(doc);
  const column = width / 2;
  autoTable(doc, {
    theme: "plain",
    startY: start_y,
    margin: PAGE_MARGIN,
    tableWidth: width,
    showHead: "firstPage",
    styles: base_styles({ cellPadding: { right: 20 } }),
    headStyles: {
      fontStyle: "normal",
      fontSize: SIZE_LABEL,
      textColor: MUTED,
      cellPadding: { bottom: 5, right: 20 },
    },
    columnStyles: { 0: { cellWidth: column }, 1: { cellWidth: column } },
    head: [["From", "Bill to"]],
    body: [
      [single_line(invoice.sender.name), single_line(invoice.bill_to.name)].map(
        (content) => ({
          content,
          styles: {
            fontStyle: "bold",
            fontSize: SIZE_NAME,
            cellPadding: { bottom: 3, right: 20 },
          },
        }),
      ),
      [
        party_lines(invoice.sender).join("\n"),
        party_lines(invoice.bill_to).join("\n"),
      ],
    ],
  });
  return last_table_end(doc);
}

/** Width a single line needs in the given style. */
function text_width(
  doc: jsPDF,
  value: string,
  { style, size }: { style: "normal" | "bold"; size: number },
): number {
  doc.setFont(INVOICE_FONT_FAMILY, style);
  doc.setFontSize(size);
  return doc.getTextWidth(value);
}

/**
 * The items table with subtotal and total as its footer. autotable draws a
 * `lastPage` footer right after the last row and, when they do not fit
 * together, moves the last row to the next page with it, so totals never
 * stand alone at the top of a page.
 */
function draw_items(
  doc: jsPDF,
  { invoice, currency, start_y }: {
    invoice: Invoice;
    currency: string | undefined;
    start_y: number;
  },
): number {
  const width = content_width(doc);
  const body_font = font_handle(doc, "normal");
  const rows = invoice.items.map((item) => [
    sanitize_text(item.description),
    format_quantity(item.quantity),
    format_decimal(item.rate),
    format_decimal(item.amount),
  ]);
  const subtotal = format_money(invoice.subtotal, currency);
  const total = format_money(invoice.total, currency);

  // Numeric columns are as wide as their widest entry, so numbers do not
  // wrap; the description takes the rest. Only absurdly long numbers, which
  // would leave the description less than ~38% of the width, make the
  // numeric columns share that budget and wrap.
  const measure = (index: number, header: string, minimum: number): number => {
    let max = text_width(doc, header, { style: "normal", size: SIZE_LABEL });
    doc.setFont(INVOICE_FONT_FAMILY, "normal");
    doc.setFontSize(SIZE_BODY);
    for (const row of rows) max = Math.max(max, doc.getTextWidth(row[index]));
    return Math.max(minimum, max + 2 * CELL_PAD_X);
  };
  const totals_width = Math.max(
    text_width(doc, subtotal, { style: "normal", size: SIZE_BODY }),
    text_width(doc, total, { style: "bold", size: SIZE_TOTAL }),
  ) + 2 * CELL_PAD_X;
  const natural = [
    measure(1, "Qty", 44),
    measure(2, "Rate", 70),
    Math.max(measure(3, "Amount", 84), totals_width),
  ];
  const budget = width * 0.62;
  const sum = natural.reduce((a, b) => a + b, 0);
  const [qty_width, rate_width, amount_width] = sum <= budget
    ? natural
    : natural.map((w) => (w * budget) / sum);

  const pad = {
    top: CELL_PAD_Y,
    bottom: CELL_PAD_Y,
    left: CELL_PAD_X,
    right: CELL_PAD_X,
  };
  const first = { ...pad, left: 0 };
  const last = { ...pad, right: 0 };
  const foot_cell = (
    content: string,
    style: Partial<Styles>,
    col_span = 1,
  ): CellInput => ({
    content,
    colSpan: col_span,
    styles: { halign: "right", ...style },
  });
  const subtotal_rule: Partial<Styles> = {
    lineWidth: { top: 0.5 },
    lineColor: RULE,
  };
  const total_rule: Partial<Styles> = {
    lineWidth: { top: 0.75 },
    lineColor: RULE_STRONG,
  };
  const foot: RowInput[] = [
    [
      "",
      foot_cell("Subtotal", { ...subtotal_rule, textColor: MUTED }, 2),
      foot_cell(subtotal, { ...subtotal_rule, cellPadding: last }),
    ],
    [
      "",
      foot_cell("Total", {
        ...total_rule,
        fontStyle: "bold",
        fontSize: SIZE_TOTAL,
      }, 2),
      foot_cell(total, {
        ...total_rule,
        fontStyle: "bold",
        fontSize: SIZE_TOTAL,
        cellPadding: last,
      }),
    ],
  ];

  autoTable(doc, {
    theme: "plain",
    startY: start_y,
    margin: PAGE_MARGIN,
    tableWidth: width,
    showHead: "everyPage",
    showFoot: "lastPage",
    rowPageBreak: "auto",
    styles: base_styles({ cellPadding: pad }),
    headStyles: {
      fontStyle: "normal",
      fontSize: SIZE_LABEL,
      textColor: MUTED,
      cellPadding: { ...pad, top: 0, bottom: 6 },
      lineWidth: { bottom: 0.75 },
      lineColor: RULE_STRONG,
    },
    willDrawCell: (data) => {
      if (data.section !== "body") return true;
      // autotable did the layout (widths, wrapping, row heights, page
      // breaks); the body cells, hundreds per document, are written here
      // with a few operators each instead of jsPDF's general text path.
      draw_body_cell(doc, { data, handle: body_font });
      return false;
    },
    footStyles: { fontStyle: "normal", cellPadding: pad },
    columnStyles: {
      0: { cellWidth: "auto", cellPadding: first },
      1: { cellWidth: qty_width, halign: "right" },
      2: { cellWidth: rate_width, halign: "right" },
      3: { cellWidth: amount_width, halign: "right", cellPadding: last },
    },
    head: [[
      {
        content: "Description",
        styles: { cellPadding: { ...first, top: 0, bottom: 6 } },
      },
      { content: "Qty", styles: { halign: "right" } },
      { content: "Rate", styles: { halign: "right" } },
      {
        content: "Amount",
        styles: {
          halign: "right",
          cellPadding: { ...last, top: 0, bottom: 6 },
        },
      },
    ]],
    body: rows,
    foot,
  });
  return last_table_end(doc);
}

/** PDF number: at most two decimals, no exponent, no "-0". */
function num(value: number): string {
  const rounded = Math.round(value * 100) / 100;
  return rounded === 0 ? "0" : String(rounded);
}

function rgb_fill(color: Rgb): string {
  return color.map((c) => num(c / 255)).join(" ") + " rg";
}

const INK_FILL = rgb_fill(INK);
const RULE_STROKE = RULE.map((c) => num(c / 255)).join(" ") + " RG";

/**
 * Draws one items-table body cell: its text lines (placed exactly as
 * autotable's own text routine would) and, once per row, the hairline
 * under the row across the whole table.
 */
function draw_body_cell(
  doc: jsPDF,
  { data, handle }: { data: CellHookData; handle: FontHandle },
): void {
  const cell = data.cell;
  const page_height = doc.internal.pageSize.getHeight();
  const size = cell.styles.fontSize;
  const line_height = size * LINE_HEIGHT_FACTOR;
  // autotable: first baseline = top padding + fontSize × (2 − 1.15).
  let y = cell.y + cell.padding("top") + size * 0.85;
  const right = cell.styles.halign === "right";
  const x_left = cell.x + cell.padding("left");
  const x_right = cell.x + cell.width - cell.padding("right");
  let ops = "";
  if (data.column.index === 0) {
    const rule_y = num(page_height - (cell.y + data.row.height));
    const table = data.table.settings.margin.left;
    ops += `q ${RULE_STROKE} 0.5 w ${num(table)} ${rule_y} m ` +
      `${num(table + content_width(doc))} ${rule_y} l S Q\n`;
  }
  ops += `BT /${handle.resource} ${num(size)} Tf ${INK_FILL}\n`;
  for (const line of cell.text) {
    if (line !== "") {
      const x = right
        ? x_right - handle.font.widthOfString(line, size)
        : x_left;
      ops += `1 0 0 1 ${num(x)} ${num(page_height - y)} Tm <` +
        `${handle.font.encode_hex(line)}> Tj\n`;
    }
    y += line_height;
  }
  (doc.internal as unknown as { write(ops: string): void }).write(ops + "ET");
}

/** Notes under the table; long notes continue on further pages. */
function draw_notes(
  doc: jsPDF,
  { notes, start_y }: { notes: string; start_y: number },
): void {
  const paragraphs = sanitize_text(notes).split("\n").map((
    p,
  ) => [p === "" ? " " : p]);
  autoTable(doc, {
    theme: "plain",
    startY: start_y,
    margin: PAGE_MARGIN,
    tableWidth: content_width(doc),
    showHead: "firstPage",
    styles: base_styles({ cellPadding: { bottom: 2 } }),
    headStyles: {
      fontStyle: "normal",
      fontSize: SIZE_LABEL,
      textColor: MUTED,
      cellPadding: { bottom: 5 },
    },
    head: [["Notes"]],
    body: paragraphs,
  });
}

/** "Page X of Y" (and the invoice reference) at the bottom of every page. */
function draw_footers(doc: jsPDF, reference: string): void {
  const pages = doc.getNumberOfPages();
  const width = content_width(doc);
  const baseline = doc.internal.pageSize.getHeight() -
    FOOTER_BASELINE_FROM_BOTTOM;
  doc.setFont(INVOICE_FONT_FAMILY, "normal");
  doc.setFontSize(SIZE_FOOTER);
  doc.setTextColor(...MUTED);
  const ref = fit_line(doc, reference, { max_width: width * 0.7 });
  for (let page = 1; page <= pages; page++) {
    doc.setPage(page);
    doc.text(ref, MARGIN_X, baseline);
    doc.text(`Page ${page} of ${pages}`, MARGIN_X + width, baseline, {
      align: "right",
    });
  }
}

/** Cuts a single line to `max_width` with an ellipsis (current font and size). */
function fit_line(
  doc: jsPDF,
  value: string,
  { max_width }: { max_width: number },
): string {
  if (doc.getTextWidth(value) <= max_width) return value;
  let low = 0;
  let high = value.length;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (doc.getTextWidth(value.slice(0, mid) + "\u2026") <= max_width) {
      low = mid;
    } else high = mid - 1;
  }
  return value.slice(0, low) + "\u2026";
}

/** Sanitized text with line breaks folded into spaces, for one-line fields. */
function single_line(value: string): string {
  return sanitize_text(value).replace(/\s*\n\s*/g, " ").trim();
}

/**
 * Document-information strings: kept as given (jsPDF encodes them as
 * UTF-16 when needed, which holds any character) minus control characters
 * and unpaired surrogates, which are not meaningful there.
 */
function metadata_text(value: string): string {
  // deno-lint-ignore no-control-regex
  return value.toWellFormed().replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
    .trim();
}

/**
 * PDF date for the invoice date at midnight UTC. jsPDF accepts years
 * 1970–2037 only; other (implausible) years are clamped rather than failing
 * the invoice.
 */
function pdf_date(date: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (match === null) return "D:19700101000000+00'00'";
  const year = Math.min(2037, Math.max(1970, Number(match[1])));
  const month = Math.min(12, Math.max(1, Number(match[2])));
  const day = Math.min(31, Math.max(1, Number(match[3])));
  const pad = (n: number): string => String(n).padStart(2, "0");
  return `D:${year}${pad(month)}${pad(day)}000000+00'00'`;
}

/**
 * Document /ID: the first 128 bits of a SHA-256 over every field of the
 * invoice in a fixed order (so key order in the input does not matter) and
 * the layout version.
 */
function document_id(invoice: Invoice): string {
  const party = (p: InvoiceParty): (string | null)[] => [
    p.name,
    p.email,
    p.address ?? null,
    p.city ?? null,
    p.state ?? null,
    p.zip ?? null,
  ];
  const canonical = JSON.stringify([
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
  ]);
  return createHash("sha256").update(canonical).digest("hex").slice(0, 32)
    .toUpperCase();
}
