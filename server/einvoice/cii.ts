/**
 * EN 16931 invoice in UN/CEFACT Cross Industry Invoice D16B syntax (CII):
 * plain EN 16931, the XML inside Factur-X (profile EN 16931) and XRechnung
 * 3.0 CII. Elements come in the order the D16B schema requires.
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
  date_102,
  EN16931_ID,
  invoice_note,
  needs_delivery_address,
  needs_exemption_reason,
  payment_means_code,
  PEPPOL_PROCESS,
  quantity_and_price,
  tax_id_role,
  type_code,
  unit_code,
  written_rate,
  XRECHNUNG_ID,
} from "./common.ts";

/** Which CII flavour to write. */
export type CiiProfile = "en16931" | "factur-x" | "xrechnung";

/** Options of {@link write_cii}. */
export interface CiiOptions {
  profile: CiiProfile;
  /**
   * Output of a test key: marked as test in the note (BT-22), the invoice
   * number (BT-1) and the seller name (BT-27).
   */
  test?: boolean;
}

const NAMESPACES = {
  "xmlns:rsm": "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
  "xmlns:ram":
    "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
  "xmlns:udt": "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
  "xmlns:qdt": "urn:un:unece:uncefact:data:standard:QualifiedDataType:100",
};

/** Writes `invoice` as CII XML. */
export function write_cii(request: Invoice, options: CiiOptions): string {
  const invoice = options.test === true ? as_test_invoice(request) : request;
  const xml = new XmlWriter();
  xml.open("rsm:CrossIndustryInvoice", NAMESPACES);

  xml.open("rsm:ExchangedDocumentContext");
  if (options.profile === "xrechnung") {
    xml.open("ram:BusinessProcessSpecifiedDocumentContextParameter")
      .leaf("ram:ID", PEPPOL_PROCESS).close(); // BT-23
  }
  xml.open("ram:GuidelineSpecifiedDocumentContextParameter") // BT-24
    .leaf("ram:ID", options.profile === "xrechnung" ? XRECHNUNG_ID : EN16931_ID)
    .close();
  xml.close();

  xml.open("rsm:ExchangedDocument");
  xml.leaf("ram:ID", invoice.invoice_number); // BT-1
  xml.leaf("ram:TypeCode", type_code(invoice)); // BT-3
  xml.open("ram:IssueDateTime"); // BT-2
  date(xml, invoice.date);
  xml.close();
  const note = invoice_note(invoice, { test: options.test === true });
  if (note !== undefined) {
    xml.open("ram:IncludedNote").leaf("ram:Content", note).close(); // BT-22
  }
  xml.close();

  xml.open("rsm:SupplyChainTradeTransaction");
  invoice.items.forEach((item, index) => {
    const { quantity, price } = quantity_and_price(item);
    xml.open("ram:IncludedSupplyChainTradeLineItem"); // BG-25
    xml.open("ram:AssociatedDocumentLineDocument")
      .leaf("ram:LineID", String(index + 1)).close(); // BT-126
    xml.open("ram:SpecifiedTradeProduct");
    xml.optional("ram:SellerAssignedID", item.item_id); // BT-155
    xml.optional("ram:BuyerAssignedID", item.buyer_item_id); // BT-156
    xml.leaf("ram:Name", item.description); // BT-153
    xml.close();
    xml.open("ram:SpecifiedLineTradeAgreement")
      .open("ram:NetPriceProductTradePrice")
      .leaf("ram:ChargeAmount", price) // BT-146
      .close().close();
    xml.open("ram:SpecifiedLineTradeDelivery")
      .leaf("ram:BilledQuantity", quantity, { unitCode: unit_code(item) }) // BT-129, BT-130
      .close();
    xml.open("ram:SpecifiedLineTradeSettlement");
    category_tax(xml, item.tax_category, item.tax_rate); // BT-151, BT-152
    xml.open("ram:SpecifiedTradeSettlementLineMonetarySummation")
      .leaf("ram:LineTotalAmount", item.amount) // BT-131
      .close();
    xml.close();
    xml.close();
  });

  xml.open("ram:ApplicableHeaderTradeAgreement");
  xml.optional("ram:BuyerReference", invoice.buyer_reference); // BT-10
  party(xml, invoice, "seller");
  party(xml, invoice, "buyer");
  if (invoice.purchase_order !== undefined) {
    xml.open("ram:BuyerOrderReferencedDocument")
      .leaf("ram:IssuerAssignedID", invoice.purchase_order) // BT-13
      .close();
  }
  xml.close();

  xml.open("ram:ApplicableHeaderTradeDelivery");
  if (needs_delivery_address(invoice)) {
    // BG-15 deliver-to address: the buyer's (see needs_delivery_address).
    xml.open("ram:ShipToTradeParty");
    postal_address(xml, invoice.bill_to);
    xml.close();
  }
  if (invoice.delivery_date !== undefined) {
    xml.open("ram:ActualDeliverySupplyChainEvent") // BT-72
      .open("ram:OccurrenceDateTime");
    date(xml, invoice.delivery_date);
    xml.close().close();
  }
  xml.close();

  settlement(xml, invoice);

  xml.close(); // SupplyChainTradeTransaction
  xml.close();
  return xml.finish();
}

function date(xml: XmlWriter, value: string): void {
  xml.leaf("udt:DateTimeString", date_102(value), { format: "102" });
}

function category_tax(
  xml: XmlWriter,
  category: TaxCategory | undefined,
  rate: string | undefined,
): void {
  xml.open("ram:ApplicableTradeTax")
    .leaf("ram:TypeCode", "VAT")
    .leaf("ram:CategoryCode", category ?? "S")
    .optional(
      "ram:RateApplicablePercent",
      written_rate(category, rate),
    )
    .close();
}

function postal_address(xml: XmlWriter, p: InvoiceParty): void {
  const lines = address_lines(p);
  xml.open("ram:PostalTradeAddress");
  xml.optional("ram:PostcodeCode", p.zip); // BT-38 / BT-53
  const names = ["ram:LineOne", "ram:LineTwo", "ram:LineThree"];
  lines.forEach((line, i) => xml.leaf(names[i], line)); // BT-35, BT-36, BT-162
  xml.optional("ram:CityName", p.city); // BT-37 / BT-52
  xml.optional("ram:CountryID", p.country); // BT-40 / BT-55
  xml.optional("ram:CountrySubDivisionName", p.state); // BT-39 / BT-54
  xml.close();
}

function party(
  xml: XmlWriter,
  invoice: Invoice,
  role: "seller" | "buyer",
): void {
  const p = role === "seller" ? invoice.sender : invoice.bill_to;
  xml.open(role === "seller" ? "ram:SellerTradeParty" : "ram:BuyerTradeParty");
  xml.leaf("ram:Name", p.name); // BT-27 / BT-44
  if (p.company_id !== undefined) {
    xml.open("ram:SpecifiedLegalOrganization")
      .leaf("ram:ID", p.company_id) // BT-30 / BT-47
      .close();
  }
  // BG-6 seller contact / BG-9 buyer contact.
  xml.open("ram:DefinedTradeContact");
  xml.optional("ram:PersonName", p.contact_name); // BT-41 / BT-56
  if (p.phone !== undefined) {
    xml.open("ram:TelephoneUniversalCommunication")
      .leaf("ram:CompleteNumber", p.phone) // BT-42 / BT-57
      .close();
  }
  xml.open("ram:EmailURIUniversalCommunication")
    .leaf("ram:URIID", p.email) // BT-43 / BT-58
    .close();
  xml.close();
  postal_address(xml, p);
  if (p.electronic_address !== undefined) {
    xml.open("ram:URIUniversalCommunication")
      .leaf("ram:URIID", p.electronic_address.id, { // BT-34 / BT-49
        schemeID: p.electronic_address.scheme,
      })
      .close();
  }
  const tax_role = tax_id_role(invoice, role);
  if (tax_role !== undefined && p.tax_id !== undefined) {
    // VA: VAT identifier (BT-31 / BT-48); FC: tax registration (BT-32).
    xml.open("ram:SpecifiedTaxRegistration")
      .leaf("ram:ID", p.tax_id, { schemeID: tax_role === "vat" ? "VA" : "FC" })
      .close();
  }
  xml.close();
}

function allowance_charge(
  xml: XmlWriter,
  entry: AllowanceCharge,
  is_charge: boolean,
): void {
  xml.open("ram:SpecifiedTradeAllowanceCharge"); // BG-20 / BG-21
  xml.open("ram:ChargeIndicator")
    .leaf("udt:Indicator", is_charge ? "true" : "false").close();
  xml.optional("ram:CalculationPercent", entry.percent); // BT-94 / BT-101
  xml.optional("ram:BasisAmount", entry.base_amount); // BT-93 / BT-100
  xml.leaf("ram:ActualAmount", entry.amount); // BT-92 / BT-99
  xml.leaf("ram:Reason", entry.description); // BT-97 / BT-104
  xml.open("ram:CategoryTradeTax")
    .leaf("ram:TypeCode", "VAT")
    .leaf("ram:CategoryCode", entry.tax_category ?? "S") // BT-95 / BT-102
    .optional(
      "ram:RateApplicablePercent",
      written_rate(entry.tax_category, entry.tax_rate),
    ) // BT-96 / BT-103
    .close();
  xml.close();
}

function settlement(xml: XmlWriter, invoice: Invoice): void {
  const currency = invoice.currency ?? "";
  xml.open("ram:ApplicableHeaderTradeSettlement");
  xml.optional("ram:PaymentReference", invoice.payment?.reference); // BT-83
  xml.leaf("ram:InvoiceCurrencyCode", currency); // BT-5
  const payment = invoice.payment;
  if (payment?.iban !== undefined) {
    xml.open("ram:SpecifiedTradeSettlementPaymentMeans"); // BG-16
    xml.leaf("ram:TypeCode", payment_means_code(invoice)); // BT-81
    xml.open("ram:PayeePartyCreditorFinancialAccount");
    xml.leaf("ram:IBANID", payment.iban); // BT-84
    xml.optional("ram:AccountName", payment.account_name); // BT-85
    xml.close();
    if (payment.bic !== undefined) {
      xml.open("ram:PayeeSpecifiedCreditorFinancialInstitution")
        .leaf("ram:BICID", payment.bic) // BT-86
        .close();
    }
    xml.close();
  }
  for (const row of invoice.tax_breakdown ?? []) { // BG-23
    xml.open("ram:ApplicableTradeTax");
    xml.leaf("ram:CalculatedAmount", row.tax_amount); // BT-117
    xml.leaf("ram:TypeCode", "VAT");
    if (needs_exemption_reason(row.category)) {
      xml.optional(
        "ram:ExemptionReason",
        row.exemption_reason ?? invoice.tax_exemption_reason,
      ); // BT-120
    }
    xml.leaf("ram:BasisAmount", row.taxable_amount); // BT-116
    xml.leaf("ram:CategoryCode", row.category); // BT-118
    xml.leaf("ram:RateApplicablePercent", row.rate); // BT-119
    xml.close();
  }
  if (invoice.billing_period !== undefined) {
    xml.open("ram:BillingSpecifiedPeriod"); // BG-14
    xml.open("ram:StartDateTime");
    date(xml, invoice.billing_period.start); // BT-73
    xml.close().open("ram:EndDateTime");
    date(xml, invoice.billing_period.end); // BT-74
    xml.close().close();
  }
  for (const entry of invoice.discounts ?? []) {
    allowance_charge(xml, entry, false);
  }
  for (const entry of invoice.charges ?? []) allowance_charge(xml, entry, true);
  xml.open("ram:SpecifiedTradePaymentTerms");
  xml.optional("ram:Description", invoice.payment_terms); // BT-20
  xml.open("ram:DueDateDateTime"); // BT-9
  date(xml, invoice.due_date);
  xml.close().close();

  const has_discounts = (invoice.discounts ?? []).length > 0;
  const has_charges = (invoice.charges ?? []).length > 0;
  xml.open("ram:SpecifiedTradeSettlementHeaderMonetarySummation");
  xml.leaf("ram:LineTotalAmount", invoice.subtotal); // BT-106
  if (has_charges) {
    xml.leaf("ram:ChargeTotalAmount", invoice.charge_total ?? "0.00"); // BT-108
  }
  if (has_discounts) {
    xml.leaf("ram:AllowanceTotalAmount", invoice.discount_total ?? "0.00"); // BT-107
  }
  xml.leaf(
    "ram:TaxBasisTotalAmount",
    invoice.total_without_tax ?? invoice.subtotal,
  ); // BT-109
  xml.leaf("ram:TaxTotalAmount", invoice.tax_total ?? "0.00", {
    currencyID: currency,
  }); // BT-110
  xml.leaf("ram:GrandTotalAmount", invoice.total); // BT-112
  if (invoice.amount_paid !== undefined) {
    xml.leaf("ram:TotalPrepaidAmount", invoice.amount_paid); // BT-113
  }
  xml.leaf("ram:DuePayableAmount", invoice.amount_due); // BT-115
  xml.close();

  if (invoice.preceding_invoice_number !== undefined) {
    xml.open("ram:InvoiceReferencedDocument") // BG-3
      .leaf("ram:IssuerAssignedID", invoice.preceding_invoice_number) // BT-25
      .close();
  }
  xml.close();
}
