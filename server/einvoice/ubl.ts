/**
 * EN 16931 invoice in OASIS UBL 2.1 syntax: Peppol BIS Billing 3.0 and
 * XRechnung 3.0 UBL. Credit notes are UBL `CreditNote` documents. Elements
 * come in the order the UBL 2.1 schemas require.
 *
 * @module
 */
import type {
  AllowanceCharge,
  Invoice,
  InvoiceParty,
  TaxCategory,
} from "../../contract/invoice_types.ts";
import { XmlWriter } from "./xml_writer.ts";
import {
  address_lines,
  as_test_invoice,
  invoice_note,
  needs_delivery_address,
  needs_exemption_reason,
  payment_means_code,
  PEPPOL_ID,
  PEPPOL_PROCESS,
  quantity_and_price,
  tax_id_role,
  type_code,
  unit_code,
  written_rate,
  XRECHNUNG_ID,
} from "./common.ts";

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
  const root = credit ? "CreditNote" : "Invoice";
  const currency = invoice.currency ?? "";
  const money = { currencyID: currency };
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
  xml.leaf(
    credit ? "cbc:CreditNoteTypeCode" : "cbc:InvoiceTypeCode",
    type_code(invoice),
  ); // BT-3
  const note = invoice_note(invoice, { test: options.test === true });
  if (note !== undefined) {
    xml.leaf("cbc:Note", note); // BT-22
  }
  xml.leaf("cbc:DocumentCurrencyCode", currency); // BT-5
  xml.optional("cbc:BuyerReference", invoice.buyer_reference); // BT-10
  if (invoice.billing_period !== undefined) {
    xml.open("cac:InvoicePeriod") // BG-14
      .leaf("cbc:StartDate", invoice.billing_period.start) // BT-73
      .leaf("cbc:EndDate", invoice.billing_period.end) // BT-74
      .close();
  }
  if (invoice.purchase_order !== undefined) {
    xml.open("cac:OrderReference").leaf("cbc:ID", invoice.purchase_order) // BT-13
      .close();
  }
  if (invoice.preceding_invoice_number !== undefined) {
    xml.open("cac:BillingReference").open("cac:InvoiceDocumentReference") // BG-3
      .leaf("cbc:ID", invoice.preceding_invoice_number) // BT-25
      .close().close();
  }
  xml.open("cac:AccountingSupplierParty");
  party(xml, invoice, "seller");
  xml.close();
  xml.open("cac:AccountingCustomerParty");
  party(xml, invoice, "buyer");
  xml.close();

  if (invoice.delivery_date !== undefined || needs_delivery_address(invoice)) {
    xml.open("cac:Delivery"); // BG-13
    xml.optional("cbc:ActualDeliveryDate", invoice.delivery_date); // BT-72
    if (needs_delivery_address(invoice)) {
      // BG-15 deliver-to address: the buyer's (see needs_delivery_address).
      xml.open("cac:DeliveryLocation");
      address(xml, invoice.bill_to, "cac:Address");
      xml.close();
    }
    xml.close();
  }

  const payment = invoice.payment;
  if (payment?.iban !== undefined) {
    xml.open("cac:PaymentMeans"); // BG-16
    xml.leaf("cbc:PaymentMeansCode", payment_means_code(invoice)); // BT-81
    if (credit) xml.leaf("cbc:PaymentDueDate", invoice.due_date); // BT-9
    xml.optional("cbc:PaymentID", payment.reference); // BT-83
    xml.open("cac:PayeeFinancialAccount");
    xml.leaf("cbc:ID", payment.iban); // BT-84
    xml.optional("cbc:Name", payment.account_name); // BT-85
    if (payment.bic !== undefined) {
      xml.open("cac:FinancialInstitutionBranch").leaf("cbc:ID", payment.bic) // BT-86
        .close();
    }
    xml.close();
    xml.close();
  }
  const terms = invoice.payment_terms ??
    (credit && payment?.iban === undefined
      // A credit note has no due-date element outside payment means; its
      // date then travels as payment terms text (BR-CO-25).
      ? `Due ${invoice.due_date}`
      : undefined);
  if (terms !== undefined) {
    xml.open("cac:PaymentTerms").leaf("cbc:Note", terms).close(); // BT-20
  }

  for (const entry of invoice.discounts ?? []) {
    allowance_charge(xml, entry, { charge: false, currency });
  }
  for (const entry of invoice.charges ?? []) {
    allowance_charge(xml, entry, { charge: true, currency });
  }

  xml.open("cac:TaxTotal");
  xml.leaf("cbc:TaxAmount", invoice.tax_total ?? "0.00", money); // BT-110
  for (const row of invoice.tax_breakdown ?? []) {
    xml.open("cac:TaxSubtotal"); // BG-23
    xml.leaf("cbc:TaxableAmount", row.taxable_amount, money); // BT-116
    xml.leaf("cbc:TaxAmount", row.tax_amount, money); // BT-117
    tax_category(xml, "cac:TaxCategory", {
      category: row.category,
      rate: row.rate,
      breakdown: true,
      exemption_reason: needs_exemption_reason(row.category)
        ? row.exemption_reason ?? invoice.tax_exemption_reason
        : undefined,
    });
    xml.close();
  }
  xml.close();

  const has_discounts = (invoice.discounts ?? []).length > 0;
  const has_charges = (invoice.charges ?? []).length > 0;
  xml.open("cac:LegalMonetaryTotal"); // BG-22
  xml.leaf("cbc:LineExtensionAmount", invoice.subtotal, money); // BT-106
  xml.leaf(
    "cbc:TaxExclusiveAmount",
    invoice.total_without_tax ?? invoice.subtotal,
    money,
  ); // BT-109
  xml.leaf("cbc:TaxInclusiveAmount", invoice.total, money); // BT-112
  if (has_discounts) {
    xml.leaf(
      "cbc:AllowanceTotalAmount",
      invoice.discount_total ?? "0.00",
      money,
    ); // BT-107
  }
  if (has_charges) {
    xml.leaf("cbc:ChargeTotalAmount", invoice.charge_total ?? "0.00", money); // BT-108
  }
  if (invoice.amount_paid !== undefined) {
    xml.leaf("cbc:PrepaidAmount", invoice.amount_paid, money); // BT-113
  }
  xml.leaf("cbc:PayableAmount", invoice.amount_due, money); // BT-115
  xml.close();

  invoice.items.forEach((item, index) => {
    const { quantity, price } = quantity_and_price(item);
    xml.open(credit ? "cac:CreditNoteLine" : "cac:InvoiceLine"); // BG-25
    xml.leaf("cbc:ID", String(index + 1)); // BT-126
    xml.leaf(
      credit ? "cbc:CreditedQuantity" : "cbc:InvoicedQuantity",
      quantity,
      { unitCode: unit_code(item) },
    ); // BT-129, BT-130
    xml.leaf("cbc:LineExtensionAmount", item.amount, money); // BT-131
    xml.open("cac:Item");
    xml.leaf("cbc:Name", item.description); // BT-153
    if (item.buyer_item_id !== undefined) {
      xml.open("cac:BuyersItemIdentification")
        .leaf("cbc:ID", item.buyer_item_id).close(); // BT-156
    }
    if (item.item_id !== undefined) {
      xml.open("cac:SellersItemIdentification")
        .leaf("cbc:ID", item.item_id).close(); // BT-155
    }
    tax_category(xml, "cac:ClassifiedTaxCategory", {
      category: item.tax_category ?? "S",
      rate: item.tax_rate,
    }); // BT-151, BT-152
    xml.close();
    xml.open("cac:Price").leaf("cbc:PriceAmount", price, money).close(); // BT-146
    xml.close();
  });

  xml.close();
  return xml.finish();
}

function tax_category(
  xml: XmlWriter,
  element: string,
  { category, rate, exemption_reason, breakdown }: {
    category: TaxCategory;
    rate: string | undefined;
    exemption_reason?: string;
    /** BT-119 is always written (see written_rate). */
    breakdown?: boolean;
  },
): void {
  xml.open(element);
  xml.leaf("cbc:ID", category);
  xml.optional(
    "cbc:Percent",
    breakdown ? rate ?? "0" : written_rate(category, rate),
  );
  xml.optional("cbc:TaxExemptionReason", exemption_reason); // BT-120
  xml.open("cac:TaxScheme").leaf("cbc:ID", "VAT").close();
  xml.close();
}

function address(xml: XmlWriter, p: InvoiceParty, element: string): void {
  const lines = address_lines(p);
  xml.open(element);
  xml.optional("cbc:StreetName", lines[0]); // BT-35 / BT-50
  xml.optional("cbc:AdditionalStreetName", lines[1]); // BT-36 / BT-51
  xml.optional("cbc:CityName", p.city); // BT-37 / BT-52
  xml.optional("cbc:PostalZone", p.zip); // BT-38 / BT-53
  xml.optional("cbc:CountrySubentity", p.state); // BT-39 / BT-54
  if (lines[2] !== undefined) {
    xml.open("cac:AddressLine").leaf("cbc:Line", lines[2]).close(); // BT-162 / BT-163
  }
  if (p.country !== undefined) {
    xml.open("cac:Country").leaf("cbc:IdentificationCode", p.country).close(); // BT-40 / BT-55
  }
  xml.close();
}

function party(
  xml: XmlWriter,
  invoice: Invoice,
  role: "seller" | "buyer",
): void {
  const p = role === "seller" ? invoice.sender : invoice.bill_to;
  xml.open("cac:Party");
  if (p.electronic_address !== undefined) {
    xml.leaf("cbc:EndpointID", p.electronic_address.id, {
      schemeID: p.electronic_address.scheme,
    }); // BT-34 / BT-49
  }
  address(xml, p, "cac:PostalAddress");
  const tax_role = tax_id_role(invoice, role);
  if (tax_role !== undefined && p.tax_id !== undefined) {
    xml.open("cac:PartyTaxScheme");
    xml.leaf("cbc:CompanyID", p.tax_id); // BT-31 / BT-48, or BT-32
    xml.open("cac:TaxScheme")
      .leaf("cbc:ID", tax_role === "vat" ? "VAT" : "FC").close();
    xml.close();
  }
  xml.open("cac:PartyLegalEntity");
  xml.leaf("cbc:RegistrationName", p.name); // BT-27 / BT-44
  xml.optional("cbc:CompanyID", p.company_id); // BT-30 / BT-47
  xml.close();
  xml.open("cac:Contact"); // BG-6 / BG-9
  xml.optional("cbc:Name", p.contact_name); // BT-41 / BT-56
  xml.optional("cbc:Telephone", p.phone); // BT-42 / BT-57
  xml.leaf("cbc:ElectronicMail", p.email); // BT-43 / BT-58
  xml.close();
  xml.close();
}

function allowance_charge(
  xml: XmlWriter,
  entry: AllowanceCharge,
  { charge, currency }: { charge: boolean; currency: string },
): void {
  const money = { currencyID: currency };
  xml.open("cac:AllowanceCharge"); // BG-20 / BG-21
  xml.leaf("cbc:ChargeIndicator", charge ? "true" : "false");
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
