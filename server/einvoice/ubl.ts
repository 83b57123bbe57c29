/**
 * EN 16931 invoice in OASIS UBL 2.1 syntax: Peppol BIS Billing 3.0 and
 * XRechnung 3.0 UBL. Credit notes are UBL `CreditNote` documents. Elements
 * come in the order the UBL 2.1 schemas require (which differs a little
 * between `Invoice` and `CreditNote`). Parties are in `ubl_parties.ts`,
 * lines in `ubl_lines.ts`.
 *
 * @module
 */
import type { AllowanceCharge, Invoice } from "../../contract/invoice_types.ts";
import { XmlWriter } from "./xml_writer.ts";
import {
  as_test_invoice,
  attached_file,
  document_notes,
  exemption_reason,
  type Flavour,
  needs_exemption_reason,
  note_with_subject,
  payment_means,
  payment_terms_text,
  PEPPOL_ID,
  PEPPOL_PROCESS,
  preceding_invoices,
  type_code,
  XRECHNUNG_ID,
} from "./common.ts";
import { delivery, party, payee, tax_representative } from "./ubl_parties.ts";
import { line_item, tax_category } from "./ubl_lines.ts";

/** Which UBL flavour to write. */
export type UblProfile = "peppol" | "xrechnung";

/** Options of {@link write_ubl}. */
export interface UblOptions {
  profile: UblProfile;
  /**
   * Output of a test key: marked as test in the note (BT-22), the invoice
   * number (BT-1) and the seller name (BT-27).
   */
  test?: boolean;
}

const CAC =
  "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2";
const CBC =
  "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2";

/** Writes `invoice` as UBL 2.1 XML (`Invoice`, or `CreditNote` for credit notes). */
export function write_ubl(request: Invoice, options: UblOptions): string {
  const invoice = options.test === true ? as_test_invoice(request) : request;
  const credit = invoice.document_type === "credit_note";
  const flavour: Flavour = options.profile;
  const root = credit ? "CreditNote" : "Invoice";
  const currency = invoice.currency ?? "";
  const xml = new XmlWriter();
  xml.open(root, {
    xmlns: `urn:oasis:names:specification:ubl:schema:xsd:${root}-2`,
    "xmlns:cac": CAC,
    "xmlns:cbc": CBC,
  });
  xml.leaf(
    "cbc:CustomizationID",
    options.profile === "xrechnung" ? XRECHNUNG_ID : PEPPOL_ID,
  ); // BT-24
  xml.leaf("cbc:ProfileID", PEPPOL_PROCESS); // BT-23
  xml.leaf("cbc:ID", invoice.invoice_number); // BT-1
  xml.leaf("cbc:IssueDate", invoice.date); // BT-2
  if (!credit) xml.leaf("cbc:DueDate", invoice.due_date); // BT-9
  if (credit) xml.optional("cbc:TaxPointDate", invoice.tax_point_date); // BT-7
  xml.leaf(
    credit ? "cbc:CreditNoteTypeCode" : "cbc:InvoiceTypeCode",
    type_code(invoice),
  ); // BT-3
  const notes = document_notes(invoice, {
    test: options.test === true,
    flavour,
  });
  for (const note of notes) xml.leaf("cbc:Note", note_with_subject(note)); // BT-21, BT-22
  if (!credit) xml.optional("cbc:TaxPointDate", invoice.tax_point_date); // BT-7
  xml.leaf("cbc:DocumentCurrencyCode", currency); // BT-5
  xml.optional("cbc:TaxCurrencyCode", invoice.tax_currency); // BT-6
  xml.optional("cbc:AccountingCost", invoice.accounting_reference); // BT-19
  xml.optional("cbc:BuyerReference", invoice.buyer_reference); // BT-10
  if (invoice.billing_period !== undefined) {
    xml.open("cac:InvoicePeriod") // BG-14
      .leaf("cbc:StartDate", invoice.billing_period.start) // BT-73
      .leaf("cbc:EndDate", invoice.billing_period.end) // BT-74
      .close();
  }
  references(xml, invoice, credit);
  xml.open("cac:AccountingSupplierParty");
  party(xml, invoice, "seller"); // BG-4
  xml.close();
  xml.open("cac:AccountingCustomerParty");
  party(xml, invoice, "buyer"); // BG-7
  xml.close();
  payee(xml, invoice); // BG-10
  tax_representative(xml, invoice); // BG-11
  delivery(xml, invoice); // BG-13
  payment(xml, invoice, flavour, credit);
  allowances_and_charges(xml, invoice, currency);
  taxes(xml, invoice, currency);
  totals(xml, invoice, currency);
  invoice.items.forEach((item, index) =>
    line_item(xml, item, index, { credit, currency })
  );
  xml.close();
  return xml.finish();
}

function document_reference(
  xml: XmlWriter,
  element: string,
  id: string | undefined,
): void {
  if (id === undefined) return;
  xml.open(element).leaf("cbc:ID", id).close();
}

/** References to other documents, in the order of `Invoice` or `CreditNote`. */
function references(xml: XmlWriter, invoice: Invoice, credit: boolean): void {
  if (
    invoice.purchase_order !== undefined ||
    invoice.sales_order_reference !== undefined
  ) {
    xml.open("cac:OrderReference");
    // The order id is required in UBL: "NA" when only the seller's order is known.
    xml.leaf("cbc:ID", invoice.purchase_order ?? "NA"); // BT-13
    xml.optional("cbc:SalesOrderID", invoice.sales_order_reference); // BT-14
    xml.close();
  }
  for (const preceding of preceding_invoices(invoice)) {
    xml.open("cac:BillingReference").open("cac:InvoiceDocumentReference"); // BG-3
    xml.leaf("cbc:ID", preceding.number); // BT-25
    xml.optional("cbc:IssueDate", preceding.date); // BT-26
    xml.close().close();
  }
  document_reference(
    xml,
    "cac:DespatchDocumentReference",
    invoice.despatch_advice_reference,
  ); // BT-16
  document_reference(
    xml,
    "cac:ReceiptDocumentReference",
    invoice.receiving_advice_reference,
  ); // BT-15
  if (!credit) {
    document_reference(
      xml,
      "cac:OriginatorDocumentReference",
      invoice.tender_reference,
    ); // BT-17
  }
  document_reference(
    xml,
    "cac:ContractDocumentReference",
    invoice.contract_reference,
  ); // BT-12
  additional_documents(xml, invoice, credit);
  if (credit) {
    document_reference(
      xml,
      "cac:OriginatorDocumentReference",
      invoice.tender_reference,
    ); // BT-17
  } else {
    document_reference(xml, "cac:ProjectReference", invoice.project_reference); // BT-11
  }
}

function additional_documents(
  xml: XmlWriter,
  invoice: Invoice,
  credit: boolean,
): void {
  if (invoice.invoiced_object !== undefined) {
    xml.open("cac:AdditionalDocumentReference");
    xml.leaf("cbc:ID", invoice.invoiced_object.id, {
      schemeID: invoice.invoiced_object.scheme,
    }); // BT-18, BT-18-1
    xml.leaf("cbc:DocumentTypeCode", "130");
    xml.close();
  }
  if (credit && invoice.project_reference !== undefined) {
    // A CreditNote has no ProjectReference: the project is a document of type 50.
    xml.open("cac:AdditionalDocumentReference")
      .leaf("cbc:ID", invoice.project_reference) // BT-11
      .leaf("cbc:DocumentTypeCode", "50")
      .close();
  }
  for (const attachment of invoice.attachments ?? []) {
    const file = attached_file(attachment);
    xml.open("cac:AdditionalDocumentReference"); // BG-24
    xml.leaf("cbc:ID", attachment.id); // BT-122
    xml.optional("cbc:DocumentDescription", attachment.description); // BT-123
    if (file !== undefined || attachment.url !== undefined) {
      xml.open("cac:Attachment");
      if (file !== undefined) {
        xml.leaf("cbc:EmbeddedDocumentBinaryObject", file.data, {
          mimeCode: file.mime_type, // BT-125-1
          filename: file.filename, // BT-125-2
        }); // BT-125
      }
      if (attachment.url !== undefined) {
        xml.open("cac:ExternalReference")
          .leaf("cbc:URI", attachment.url) // BT-124
          .close();
      }
      xml.close();
    }
    xml.close();
  }
}

function payment(
  xml: XmlWriter,
  invoice: Invoice,
  flavour: Flavour,
  credit: boolean,
): void {
  const means = payment_means(invoice);
  means.forEach((entry, index) => {
    xml.open("cac:PaymentMeans"); // BG-16
    xml.leaf("cbc:PaymentMeansCode", entry.code, { name: entry.text }); // BT-81, BT-82
    if (credit) xml.leaf("cbc:PaymentDueDate", invoice.due_date); // BT-9
    xml.optional("cbc:PaymentID", invoice.payment?.reference); // BT-83
    if (entry.card !== undefined) {
      xml.open("cac:CardAccount"); // BG-18
      xml.leaf("cbc:PrimaryAccountNumberID", entry.card.last4); // BT-87
      // UBL requires a card network, which EN 16931 does not carry.
      xml.leaf("cbc:NetworkID", "NA");
      xml.optional("cbc:HolderName", entry.card.holder); // BT-88
      xml.close();
    }
    const account = entry.account;
    if (account !== undefined) {
      xml.open("cac:PayeeFinancialAccount"); // BG-17
      xml.leaf("cbc:ID", account.iban ?? account.account_id ?? ""); // BT-84
      xml.optional("cbc:Name", account.account_name); // BT-85
      if (account.bic !== undefined) {
        xml.open("cac:FinancialInstitutionBranch")
          .leaf("cbc:ID", account.bic) // BT-86
          .close();
      }
      xml.close();
    }
    const mandate = index === 0 ? invoice.payment?.direct_debit : undefined;
    if (mandate !== undefined) {
      xml.open("cac:PaymentMandate"); // BG-19
      xml.leaf("cbc:ID", mandate.mandate_reference); // BT-89
      if (entry.debtor_iban !== undefined) {
        xml.open("cac:PayerFinancialAccount")
          .leaf("cbc:ID", entry.debtor_iban) // BT-91
          .close();
      }
      xml.close();
    }
    xml.close();
  });
  const terms = payment_terms_text(invoice, flavour) ??
    (credit && means.length === 0
      // A credit note has no due-date element outside payment means; its
      // date then travels as payment terms text (BR-CO-25).
      ? `Due ${invoice.due_date}`
      : undefined);
  if (terms !== undefined) {
    xml.open("cac:PaymentTerms").leaf("cbc:Note", terms).close(); // BT-20
  }
}

function allowance_charge(
  xml: XmlWriter,
  entry: AllowanceCharge,
  { charge, currency }: { charge: boolean; currency: string },
): void {
  const money = { currencyID: currency };
  xml.open("cac:AllowanceCharge"); // BG-20 / BG-21
  xml.leaf("cbc:ChargeIndicator", charge ? "true" : "false");
  xml.optional("cbc:AllowanceChargeReasonCode", entry.reason_code); // BT-98 / BT-105
  xml.leaf("cbc:AllowanceChargeReason", entry.description); // BT-97 / BT-104
  xml.optional("cbc:MultiplierFactorNumeric", entry.percent); // BT-94 / BT-101
  xml.leaf("cbc:Amount", entry.amount, money); // BT-92 / BT-99
  if (entry.base_amount !== undefined) {
    xml.leaf("cbc:BaseAmount", entry.base_amount, money); // BT-93 / BT-100
  }
  tax_category(xml, "cac:TaxCategory", {
    category: entry.tax_category ?? "S",
    rate: entry.tax_rate,
  }); // BT-95, BT-96 / BT-102, BT-103
  xml.close();
}

function allowances_and_charges(
  xml: XmlWriter,
  invoice: Invoice,
  currency: string,
): void {
  for (const entry of invoice.discounts ?? []) {
    allowance_charge(xml, entry, { charge: false, currency });
  }
  for (const entry of invoice.charges ?? []) {
    allowance_charge(xml, entry, { charge: true, currency });
  }
}

function taxes(xml: XmlWriter, invoice: Invoice, currency: string): void {
  const money = { currencyID: currency };
  xml.open("cac:TaxTotal");
  xml.leaf("cbc:TaxAmount", invoice.tax_total ?? "0.00", money); // BT-110
  for (const row of invoice.tax_breakdown ?? []) {
    xml.open("cac:TaxSubtotal"); // BG-23
    xml.leaf("cbc:TaxableAmount", row.taxable_amount, money); // BT-116
    xml.leaf("cbc:TaxAmount", row.tax_amount, money); // BT-117
    const exempt = needs_exemption_reason(row.category);
    tax_category(xml, "cac:TaxCategory", {
      category: row.category,
      rate: row.rate,
      breakdown: true,
      exemption_reason: exempt ? exemption_reason(invoice, row) : undefined,
      exemption_reason_code: exempt ? row.exemption_reason_code : undefined,
    }); // BT-118, BT-119, BT-120, BT-121
    xml.close();
  }
  xml.close();
  if (
    invoice.tax_currency !== undefined &&
    invoice.tax_total_in_tax_currency !== undefined
  ) {
    xml.open("cac:TaxTotal")
      .leaf("cbc:TaxAmount", invoice.tax_total_in_tax_currency, {
        currencyID: invoice.tax_currency,
      }) // BT-111
      .close();
  }
}

function totals(xml: XmlWriter, invoice: Invoice, currency: string): void {
  const money = { currencyID: currency };
  xml.open("cac:LegalMonetaryTotal"); // BG-22
  xml.leaf("cbc:LineExtensionAmount", invoice.subtotal, money); // BT-106
  xml.leaf(
    "cbc:TaxExclusiveAmount",
    invoice.total_without_tax ?? invoice.subtotal,
    money,
  ); // BT-109
  xml.leaf("cbc:TaxInclusiveAmount", invoice.total, money); // BT-112
  if ((invoice.discounts ?? []).length > 0) {
    xml.leaf(
      "cbc:AllowanceTotalAmount",
      invoice.discount_total ?? "0.00",
      money,
    ); // BT-107
  }
  if ((invoice.charges ?? []).length > 0) {
    xml.leaf("cbc:ChargeTotalAmount", invoice.charge_total ?? "0.00", money); // BT-108
  }
  if (invoice.amount_paid !== undefined) {
    xml.leaf("cbc:PrepaidAmount", invoice.amount_paid, money); // BT-113
  }
  if (invoice.rounding_amount !== undefined) {
    xml.leaf("cbc:PayableRoundingAmount", invoice.rounding_amount, money); // BT-114
  }
  xml.leaf("cbc:PayableAmount", invoice.amount_due, money); // BT-115
  xml.close();
}
