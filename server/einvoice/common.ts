/**
 * What the CII and UBL mappings share: reading the normalized invoice the
 * way EN 16931 sees it. No syntax here.
 *
 * @module
 */
import type {
  Invoice,
  InvoiceLineItem,
  InvoiceParty,
  TaxCategory,
} from "../../contract/invoice_types.ts";

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

/** UNTDID 1001 invoice type code (BT-3): 380 commercial invoice, 381 credit note. */
export function type_code(invoice: Invoice): "380" | "381" {
  return invoice.document_type === "credit_note" ? "381" : "380";
}

/** A VAT identifier starts with a country prefix (BR-CO-09); others are tax numbers. */
export function is_vat_identifier(tax_id: string): boolean {
  return /^[A-Z]{2}[0-9A-Za-z+*.]{2,}$/.test(tax_id);
}

/** Whether any line, allowance or charge is in category `category`. */
export function uses_category(
  invoice: Invoice,
  category: TaxCategory,
): boolean {
  return (invoice.tax_breakdown ?? []).some((row) => row.category === category);
}

/**
 * How a party's tax id is written: as VAT identifier (BT-31 / BT-48), as
 * the seller's tax registration (BT-32), or not at all. Invoices "not
 * subject to VAT" (O) must not carry VAT identifiers (BR-O-02).
 */
export function tax_id_role(
  invoice: Invoice,
  party: "seller" | "buyer",
): "vat" | "tax_registration" | undefined {
  const tax_id = (party === "seller" ? invoice.sender : invoice.bill_to).tax_id;
  if (tax_id === undefined || tax_id === "") return undefined;
  const outside_scope = uses_category(invoice, "O");
  if (!outside_scope && is_vat_identifier(tax_id)) return "vat";
  return party === "seller" ? "tax_registration" : undefined;
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
  if (item.rate.startsWith("-")) {
    return { quantity: `-${item.quantity}`, price: item.rate.slice(1) };
  }
  return { quantity: String(item.quantity), price: item.rate };
}

/** UN/ECE Rec 20 unit (BT-130); C62 ("one") when the request gave none. */
export function unit_code(item: InvoiceLineItem): string {
  return item.unit ?? "C62";
}

/** Address lines of a party: at most three (CII has three line elements). */
export function address_lines(party: InvoiceParty): string[] {
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

/** Payment means code (BT-81): SEPA credit transfer for EUR, else credit transfer. */
export function payment_means_code(invoice: Invoice): "58" | "30" {
  return invoice.currency === "EUR" ? "58" : "30";
}

/**
 * Where goods went (BT-80): intra-community supplies must name the
 * delivery country (BR-IC-12); we deliver to the buyer's address.
 */
export function needs_delivery_address(invoice: Invoice): boolean {
  return uses_category(invoice, "K");
}

/**
 * The invoice note (BT-22): the request's notes, after a test marker for
 * output of test keys. One note, because Peppol allows only one
 * (PEPPOL-EN16931-R002).
 */
export function invoice_note(
  invoice: Invoice,
  options: { test: boolean },
): string | undefined {
  const parts: string[] = [];
  if (options.test) parts.push(TEST_NOTE);
  if (invoice.notes !== undefined && invoice.notes.trim() !== "") {
    parts.push(invoice.notes);
  }
  return parts.length === 0 ? undefined : parts.join("\n\n");
}

/** The note that marks output of test keys. */
export const TEST_NOTE = "TEST – not valid for accounting";

/** Start of the invoice number (BT-1) of output of test keys. */
export const TEST_INVOICE_NUMBER_PREFIX = "TEST-";

/** End of the seller name (BT-27) of output of test keys. */
export const TEST_SELLER_NAME_SUFFIX = " (TEST)";

/**
 * The invoice as output of a test key states it: besides the note (see
 * {@link invoice_note}), the invoice number (BT-1) starts with `TEST-` and
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
