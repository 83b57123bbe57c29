/**
 * What the CII and UBL mappings share: reading the normalized invoice the
 * way EN 16931 sees it. No syntax here.
 *
 * @module
 */
import type {
  DeliverTo,
  Invoice,
  InvoiceAddress,
  InvoiceAttachment,
  InvoiceLineItem,
  InvoiceParty,
  TaxBreakdownRow,
  TaxCategory,
} from "../../contract/invoice_types.ts";
import { vat_identifier } from "../../contract/tax.ts";
import { payment_means_code } from "../../contract/format_rules.ts";
import { decimal_from_number, format_decimal } from "../../contract/money.ts";

/** EN 16931 specification identifier (BT-24) of a plain EN 16931 invoice. */
export const EN16931_ID = "urn:cen.eu:en16931:2017";
/** BT-24 of XRechnung 3.0. */
export const XRECHNUNG_ID =
  "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0";
/** BT-24 of Peppol BIS Billing 3.0. */
export const PEPPOL_ID =
  "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";
/** Business process type (BT-23) of Peppol BIS Billing, also used by XRechnung. */
export const PEPPOL_PROCESS = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0";

/** The rule set an XML is written for: what differs between them. */
export type Flavour = "en16931" | "xrechnung" | "peppol";

const TYPE_CODES = {
  invoice: "380",
  credit_note: "381",
  corrected_invoice: "384",
  self_billed_invoice: "389",
} as const;

/** UNTDID 1001 invoice type code (BT-3): 380 invoice, 381 credit note, 384, 389. */
export function type_code(invoice: Invoice): string {
  return TYPE_CODES[invoice.document_type] ?? "380";
}

/** Whether any line, allowance or charge is in category `category`. */
export function uses_category(
  invoice: Invoice,
  category: TaxCategory,
): boolean {
  return (invoice.tax_breakdown ?? []).some((row) => row.category === category);
}

/**
 * A party's VAT identifier (BT-31 / BT-48) as written: compacted, and none
 * on invoices "not subject to VAT" (O), which must not carry one (BR-O-02).
 */
export function vat_id_of(
  invoice: Invoice,
  party: InvoiceParty,
): string | undefined {
  if (party.tax_id === undefined || uses_category(invoice, "O")) {
    return undefined;
  }
  return vat_identifier(party.tax_id);
}

/**
 * The seller's tax registration (BT-32): its `tax_number`, else a `tax_id`
 * that is not written as VAT identifier (a local tax number, or any id on
 * an invoice not subject to VAT).
 */
export function seller_tax_registration(invoice: Invoice): string | undefined {
  const { sender } = invoice;
  if (sender.tax_number !== undefined) return sender.tax_number;
  if (sender.tax_id === undefined || sender.tax_id === "") return undefined;
  return vat_id_of(invoice, sender) === undefined ? sender.tax_id : undefined;
}

/** The tax representative's VAT identifier (BT-63), compacted. */
export function representative_vat_id(invoice: Invoice): string | undefined {
  const representative = invoice.tax_representative;
  if (representative === undefined) return undefined;
  return vat_identifier(representative.vat_id) ?? representative.vat_id;
}

/**
 * The tax rate of a line, allowance or charge as written in the XML: none
 * for "not subject to VAT" (BR-O-05, BR-O-06, BR-O-07). The breakdown
 * always states its rate, 0 for O (XRechnung requires it, BR-DE-14).
 */
export function written_rate(
  category: TaxCategory | undefined,
  rate: string | undefined,
): string | undefined {
  if (category === "O") return undefined;
  return rate ?? "0";
}

/**
 * The exemption reason text (BT-120) of a breakdown row: its own, else the
 * invoice's `tax_exemption_reason` unless the row has a code.
 */
export function exemption_reason(
  invoice: Invoice,
  row: TaxBreakdownRow,
): string | undefined {
  if (row.exemption_reason !== undefined) return row.exemption_reason;
  return row.exemption_reason_code === undefined
    ? invoice.tax_exemption_reason
    : undefined;
}

/** Categories whose breakdown carries an exemption reason (BR-E-10, BR-AE-10…). */
export function needs_exemption_reason(category: TaxCategory): boolean {
  return category !== "S" && category !== "Z";
}

/**
 * Quantity and net price of a line. EN 16931 forbids negative prices
 * (BR-27), so a negative rate (a credit line) becomes a negative quantity
 * at the positive price; quantity × price still equals the line amount.
 */
export function quantity_and_price(
  item: InvoiceLineItem,
): { quantity: string; price: string } {
  const quantity = format_decimal(item.quantity);
  if (item.rate.startsWith("-")) {
    return { quantity: `-${quantity}`, price: item.rate.slice(1) };
  }
  return { quantity, price: item.rate };
}

/** The price base quantity (BT-149), when the rate is not per one unit. */
export function base_quantity(item: InvoiceLineItem): string | undefined {
  if (item.base_quantity === undefined) return undefined;
  const base = decimal_from_number(item.base_quantity);
  return base.units === 1n && base.scale === 0
    ? undefined
    : format_decimal(item.base_quantity);
}

/** UN/ECE Rec 20 unit (BT-130); C62 ("one") when the request gave none. */
export function unit_code(item: InvoiceLineItem): string {
  return item.unit ?? "C62";
}

/** Address lines of a party or address: at most three (CII has three line elements). */
export function address_lines(
  party: Pick<InvoiceAddress, "address" | "address_lines">,
): string[] {
  const lines = (party.address_lines ??
    (party.address === undefined ? [] : party.address.split("\n")))
    .map((line) => line.trim()).filter((line) => line !== "");
  if (lines.length <= 3) return lines;
  return [lines[0], lines[1], lines.slice(2).join(", ")];
}

/** YYYYMMDD, CII's date format 102. */
export function date_102(date: string): string {
  return date.replaceAll("-", "");
}

/**
 * Where goods went (BG-13, BG-15): the request's `deliver_to`; else, for
 * intra-community supplies, which must name the delivery country
 * (BR-IC-12), the buyer's address.
 */
export function deliver_to(invoice: Invoice): DeliverTo | undefined {
  if (invoice.deliver_to !== undefined) return invoice.deliver_to;
  if (!uses_category(invoice, "K")) return undefined;
  const { address, address_lines, city, zip, state, country } = invoice.bill_to;
  return {
    ...(address !== undefined ? { address } : {}),
    ...(address_lines !== undefined ? { address_lines } : {}),
    ...(city !== undefined ? { city } : {}),
    ...(zip !== undefined ? { zip } : {}),
    ...(state !== undefined ? { state } : {}),
    country: country ?? "",
  };
}

/** Every preceding invoice (BG-3): `preceding_invoice_number` first, then the list. */
export function preceding_invoices(
  invoice: Invoice,
): { number: string; date?: string }[] {
  const out: { number: string; date?: string }[] = [];
  if (invoice.preceding_invoice_number !== undefined) {
    out.push({ number: invoice.preceding_invoice_number });
  }
  for (const entry of invoice.preceding_invoices ?? []) {
    const same = out.find((seen) => seen.number === entry.number);
    if (same === undefined) out.push(entry);
    else if (same.date === undefined && entry.date !== undefined) {
      same.date = entry.date;
    }
  }
  return out;
}

/** One document note (BG-1): subject code (BT-21) and text (BT-22). */
export interface DocumentNote {
  subject_code?: string;
  text: string;
}

/**
 * The invoice notes (BG-1): the request's `notes` (after a test marker for
 * output of test keys) as one note, then `additional_notes`. Peppol allows
 * one note unless seller and buyer are German (PEPPOL-EN16931-R002): then
 * they are joined, each subject code kept as a `#code#` prefix.
 */
export function document_notes(
  invoice: Invoice,
  options: { test: boolean; flavour: Flavour },
): DocumentNote[] {
  const first: string[] = [];
  if (options.test) first.push(TEST_NOTE);
  if (invoice.notes !== undefined && invoice.notes.trim() !== "") {
    first.push(invoice.notes);
  }
  const notes: DocumentNote[] = first.length > 0
    ? [{ text: first.join("\n\n") }]
    : [];
  notes.push(...invoice.additional_notes ?? []);
  const german = invoice.sender.country === "DE" &&
    invoice.bill_to.country === "DE";
  if (options.flavour !== "peppol" || german || notes.length <= 1) {
    return notes;
  }
  return [{ text: notes.map(note_with_subject).join("\n\n") }];
}

/** A note's text with its subject code as UBL carries it: `#code#text`. */
export function note_with_subject(note: DocumentNote): string {
  return note.subject_code === undefined
    ? note.text
    : `#${note.subject_code}#${note.text}`;
}

/**
 * The payment terms (BT-20): the request's text and its early-payment
 * discounts. XRechnung reads discounts from `#SKONTO#` lines, each ending
 * with a line break, the last one too (BR-DE-18); other formats get a
 * sentence per discount.
 */
export function payment_terms_text(
  invoice: Invoice,
  flavour: Flavour,
): string | undefined {
  const lines: string[] = [];
  if (invoice.payment_terms !== undefined && invoice.payment_terms !== "") {
    lines.push(invoice.payment_terms);
  }
  for (const term of invoice.payment?.discount_terms ?? []) {
    lines.push(
      flavour === "xrechnung"
        ? `#SKONTO#TAGE=${term.days}#PROZENT=${term.percent}#BASISBETRAG=${term.base_amount}#`
        : `Early payment discount ${term.percent} % of ${term.base_amount} (${term.amount}) if paid by ${term.date}.`,
    );
  }
  if (lines.length === 0) return undefined;
  const text = lines.join("\n");
  // A coded line (#…#) as the last line needs its line break.
  const last = text.slice(text.lastIndexOf("\n") + 1).trim();
  return /^#.*#$/.test(last) ? text + "\n" : text;
}

/** One account to pay into (BG-17). */
export interface CreditAccount {
  iban?: string;
  account_id?: string;
  bic?: string;
  account_name?: string;
}

/** One payment means element (BG-16) as written: the code and what it holds. */
export interface PaymentMeans {
  /** UNTDID 4461 (BT-81), the same in every element (UBL-SR-47, CII-SR-467). */
  code: string;
  /** BT-82 */
  text?: string;
  account?: CreditAccount;
  card?: { last4: string; holder?: string };
  /** The debited account (BT-91). */
  debtor_iban?: string;
}

/**
 * The payment means elements: one per account to pay into (BG-17), the
 * first also holding the card (BG-18) and the debited account (BG-19); one
 * element without an account when there is none. All have one code, as
 * both syntaxes require.
 */
export function payment_means(invoice: Invoice): PaymentMeans[] {
  const payment = invoice.payment;
  const code = payment_means_code(invoice);
  if (payment === undefined || code === undefined) return [];
  const accounts: CreditAccount[] = [];
  if (payment.iban !== undefined || payment.account_id !== undefined) {
    accounts.push({
      iban: payment.iban,
      account_id: payment.account_id,
      bic: payment.bic,
      account_name: payment.account_name,
    });
  }
  accounts.push(...payment.additional_accounts ?? []);
  const first: PaymentMeans = {
    code,
    ...(payment.means_text !== undefined ? { text: payment.means_text } : {}),
    ...(payment.card !== undefined ? { card: payment.card } : {}),
    ...(payment.direct_debit?.debtor_iban !== undefined
      ? { debtor_iban: payment.direct_debit.debtor_iban }
      : {}),
  };
  if (accounts.length === 0) return [first];
  return accounts.map((account, index) =>
    index === 0 ? { ...first, account } : { code, account }
  );
}

/** An attached file of a supporting document (BG-24). */
export interface AttachedFile {
  filename: string;
  mime_type: string;
  data: string;
}

/** The file of a supporting document, when one is attached. */
export function attached_file(
  attachment: InvoiceAttachment,
): AttachedFile | undefined {
  const { filename, mime_type, data } = attachment;
  return filename !== undefined && mime_type !== undefined &&
      data !== undefined
    ? { filename, mime_type, data }
    : undefined;
}

/** The note that marks output of test keys. */
export const TEST_NOTE = "TEST – not valid for accounting";

/** Start of the invoice number (BT-1) of output of test keys. */
export const TEST_INVOICE_NUMBER_PREFIX = "TEST-";

/** End of the seller name (BT-27) of output of test keys. */
export const TEST_SELLER_NAME_SUFFIX = " (TEST)";

/**
 * The invoice as output of a test key states it: besides the note (see
 * {@link document_notes}), the invoice number (BT-1) starts with `TEST-` and
 * the seller name (BT-27) ends with ` (TEST)`, so one deleted note does not
 * make a test document pass for a real one.
 */
export function as_test_invoice(invoice: Invoice): Invoice {
  return {
    ...invoice,
    invoice_number: TEST_INVOICE_NUMBER_PREFIX + invoice.invoice_number,
    sender: {
      ...invoice.sender,
      name: invoice.sender.name + TEST_SELLER_NAME_SUFFIX,
    },
  };
}
