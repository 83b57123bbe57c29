/**
 * Small CII D16B building blocks the CII writer's parts share: dates,
 * identifiers, addresses, tax categories, allowances and charges, trade
 * parties.
 *
 * @module
 */
import type {
  Invoice,
  InvoiceAddress,
  SchemeIdentifier,
  TaxCategory,
} from "../../contract/invoice_types.ts";
import type { XmlWriter } from "./xml_writer.ts";
import {
  address_lines,
  date_102,
  representative_vat_id,
  seller_tax_registration,
  vat_id_of,
  written_rate,
} from "./common.ts";

/** `<udt:DateTimeString format="102">` of a YYYY-MM-DD date. */
export function date(xml: XmlWriter, value: string): void {
  xml.leaf("udt:DateTimeString", date_102(value), { format: "102" });
}

/** Party identifiers: `ram:ID` without scheme, `ram:GlobalID` with one. */
export function party_identifiers(
  xml: XmlWriter,
  identifiers: readonly SchemeIdentifier[],
): void {
  for (const id of identifiers) {
    if (id.scheme === undefined) xml.leaf("ram:ID", id.id);
  }
  for (const id of identifiers) {
    if (id.scheme !== undefined) {
      xml.leaf("ram:GlobalID", id.id, { schemeID: id.scheme });
    }
  }
}

/** A CII address (BG-5, BG-8, BG-12, BG-15); the country is required. */
export function postal_address(
  xml: XmlWriter,
  p: Omit<InvoiceAddress, "country"> & { country?: string },
): void {
  const lines = address_lines(p);
  xml.open("ram:PostalTradeAddress");
  xml.optional("ram:PostcodeCode", p.zip); // BT-38 / BT-53 / BT-67 / BT-78
  const names = ["ram:LineOne", "ram:LineTwo", "ram:LineThree"];
  lines.forEach((line, i) => xml.leaf(names[i], line)); // BT-35, BT-36, BT-162 …
  xml.optional("ram:CityName", p.city); // BT-37 / BT-52 / BT-66 / BT-77
  xml.optional("ram:CountryID", p.country); // BT-40 / BT-55 / BT-69 / BT-80
  xml.optional("ram:CountrySubDivisionName", p.state); // BT-39 / BT-54 / BT-68 / BT-79
  xml.close();
}

/** A line's, allowance's or charge's tax category and rate. */
export function category_tax(
  xml: XmlWriter,
  element: "ram:ApplicableTradeTax" | "ram:CategoryTradeTax",
  category: TaxCategory | undefined,
  rate: string | undefined,
): void {
  xml.open(element)
    .leaf("ram:TypeCode", "VAT")
    .leaf("ram:CategoryCode", category ?? "S") // BT-151 / BT-95 / BT-102
    .optional("ram:RateApplicablePercent", written_rate(category, rate)) // BT-152 / BT-96 / BT-103
    .close();
}

/** A discount or charge of the document (BG-20, BG-21) or a line (BG-27, BG-28). */
export function allowance_charge(
  xml: XmlWriter,
  entry: {
    description: string;
    amount: string;
    percent?: string;
    base_amount?: string;
    reason_code?: string;
    tax_category?: TaxCategory;
    tax_rate?: string;
  },
  options: { charge: boolean; document: boolean },
): void {
  xml.open("ram:SpecifiedTradeAllowanceCharge");
  xml.open("ram:ChargeIndicator")
    .leaf("udt:Indicator", options.charge ? "true" : "false").close();
  xml.optional("ram:CalculationPercent", entry.percent); // BT-94 / BT-101 / BT-138 / BT-143
  xml.optional("ram:BasisAmount", entry.base_amount); // BT-93 / BT-100 / BT-137 / BT-142
  xml.leaf("ram:ActualAmount", entry.amount); // BT-92 / BT-99 / BT-136 / BT-141
  xml.optional("ram:ReasonCode", entry.reason_code); // BT-98 / BT-105 / BT-140 / BT-145
  xml.leaf("ram:Reason", entry.description); // BT-97 / BT-104 / BT-139 / BT-144
  if (options.document) {
    category_tax(
      xml,
      "ram:CategoryTradeTax",
      entry.tax_category,
      entry.tax_rate,
    );
  }
  xml.close();
}

/** The seller (BG-4) or buyer (BG-7) as a CII trade party. */
export function trade_party(
  xml: XmlWriter,
  invoice: Invoice,
  role: "seller" | "buyer",
): void {
  const p = role === "seller" ? invoice.sender : invoice.bill_to;
  xml.open(role === "seller" ? "ram:SellerTradeParty" : "ram:BuyerTradeParty");
  party_identifiers(xml, p.identifiers ?? []); // BT-29 / BT-46
  xml.leaf("ram:Name", p.name); // BT-27 / BT-44
  if (role === "seller") xml.optional("ram:Description", p.legal_info); // BT-33
  if (p.company_id !== undefined || p.trading_name !== undefined) {
    xml.open("ram:SpecifiedLegalOrganization");
    xml.optional("ram:ID", p.company_id, { schemeID: p.company_id_scheme }); // BT-30 / BT-47
    xml.optional("ram:TradingBusinessName", p.trading_name); // BT-28 / BT-45
    xml.close();
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
  const vat_id = vat_id_of(invoice, p);
  if (vat_id !== undefined) {
    xml.open("ram:SpecifiedTaxRegistration")
      .leaf("ram:ID", vat_id, { schemeID: "VA" }) // BT-31 / BT-48
      .close();
  }
  const registration = role === "seller"
    ? seller_tax_registration(invoice)
    : undefined;
  if (registration !== undefined) {
    xml.open("ram:SpecifiedTaxRegistration")
      .leaf("ram:ID", registration, { schemeID: "FC" }) // BT-32
      .close();
  }
  xml.close();
}

/** The seller's tax representative (BG-11). */
export function tax_representative(xml: XmlWriter, invoice: Invoice): void {
  const representative = invoice.tax_representative;
  if (representative === undefined) return;
  xml.open("ram:SellerTaxRepresentativeTradeParty");
  xml.leaf("ram:Name", representative.name); // BT-62
  postal_address(xml, representative); // BG-12
  xml.open("ram:SpecifiedTaxRegistration")
    .leaf("ram:ID", representative_vat_id(invoice) ?? "", { schemeID: "VA" }) // BT-63
    .close();
  xml.close();
}
