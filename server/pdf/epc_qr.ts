/**
 * EPC QR code ("GiroCode", EPC069-12 version 002): a SEPA credit transfer
 * that banking apps read from the invoice. Printed for EUR invoices with an
 * IBAN and an amount due between 0.01 and 999,999,999.99.
 *
 * The QR matrix comes from `qr_code.ts` (Nayuki's QR algorithm, byte mode
 * at level M); the payload and the drawing are ours.
 *
 * @module
 */

import { qr_code_m, type QrMatrix } from "./qr_code.ts";
import { pdf_number } from "./pdf_syntax.ts";

/** What the EPC payload is built from (all normalized by the contract). */
export interface EpcTransfer {
  /** Beneficiary name (the account name, else the sender); at most 70 characters kept. */
  name: string;
  /** IBAN, upper case without spaces. */
  iban: string;
  bic?: string;
  /** Amount in euro, a decimal string with two decimals. */
  amount: string;
  /**
   * Remittance information: an ISO 11649 creditor reference ("RF…") goes
   * into the structured field, anything else into the unstructured one
   * (at most 140 characters kept).
   */
  reference?: string;
}

const CREDITOR_REFERENCE = /^RF\d{2}[A-Z0-9]{1,21}$/;
const MAX_AMOUNT_CENTS = 99_999_999_999n;

/** Cuts to at most `max` characters (code points) and drops line breaks. */
function field(value: string, max: number): string {
  return Array.from(value.replace(/[\r\n]+/g, " ").trim()).slice(0, max)
    .join("");
}

/** Amount as integer cents, or undefined when not a plain decimal. */
function cents(amount: string): bigint | undefined {
  const match = /^(\d+)\.(\d{2})$/.exec(amount);
  return match === null ? undefined : BigInt(match[1] + match[2]);
}

/**
 * The EPC069-12 v002 payload: lines separated by "\n", UTF-8 (character
 * set 1), trailing empty fields left out. `undefined` when the amount is
 * outside what a GiroCode may carry (zero, negative, ≥ 1 billion).
 */
export function epc_payload(transfer: EpcTransfer): string | undefined {
  const value = cents(transfer.amount);
  if (value === undefined || value < 1n || value > MAX_AMOUNT_CENTS) {
    return undefined;
  }
  const amount = `EUR${value / 100n}.${String(value % 100n).padStart(2, "0")}`;
  const reference = transfer.reference?.trim() ?? "";
  const compact = reference.replace(/\s+/g, "").toUpperCase();
  const structured = CREDITOR_REFERENCE.test(compact) ? compact : "";
  const unstructured = structured === "" ? field(reference, 140) : "";
  const lines = [
    "BCD",
    "002",
    "1",
    "SCT",
    transfer.bic ?? "",
    field(transfer.name, 70),
    transfer.iban,
    amount,
    "", // purpose code
    structured,
    unstructured,
  ];
  while (lines[lines.length - 1] === "") lines.pop();
  return lines.join("\n");
}

/** QR mask pattern used for every code (see `qr_matrix`). */
const QR_MASK = 2;

/**
 * The QR code of `payload` at error correction level M (as EPC069-12
 * requires), without quiet zone.
 */
export function qr_matrix(payload: string): QrMatrix {
  // A fixed mask: choosing the best of the eight by penalty score costs
  // ~1.7 ms per code (half a seed invoice's render); any mask is valid QR
  // and scanners read a fixed-mask code as well.
  return qr_code_m(new TextEncoder().encode(payload.toWellFormed()), QR_MASK);
}

/**
 * The dark modules as one filled path, in a square of `size` points whose
 * top-left corner is at (`x`, `top`) in PDF user space (y up), with the
 * current fill colour. The path is drawn in module units (a `cm` maps one
 * unit to one module, rows downwards), so each horizontal run of dark
 * modules is a rectangle of small integers (`column row length 1 re`):
 * a third of the text of the same rectangles in points, which makes the
 * QR code less to write, deflate and store.
 */
export function qr_path(
  matrix: QrMatrix,
  { x, top, size }: { x: number; top: number; size: number },
): string {
  const module = pdf_number(size / matrix.size, 6);
  // Each number's text made once: a code has hundreds of runs but only
  // `matrix.size` distinct columns, rows and lengths.
  const numbers: string[] = [];
  for (let i = 0; i <= matrix.size; i++) numbers.push(String(i));
  let runs = "";
  for (let row = 0; row < matrix.size; row++) {
    const line = matrix.modules[row];
    const middle = ` ${row} `;
    let col = 0;
    while (col < matrix.size) {
      if (!line[col]) {
        col++;
        continue;
      }
      const start = col;
      while (col < matrix.size && line[col]) col++;
      runs += numbers[start] + middle + numbers[col - start] + " 1 re\n";
    }
  }
  return `q ${module} 0 0 -${module} ${pdf_number(x, 6)} ${
    pdf_number(top, 6)
  } cm\n${runs}f Q`;
}
