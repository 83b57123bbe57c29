/**
 * UBL parties: seller, buyer, payee, tax representative and delivery, with
 * their addresses, identifiers and tax schemes.
 *
 * @module
 */
import type {
  Invoice,
  InvoiceAddress,
  SchemeIdentifier,
} from "../../contract/invoice_types.ts";
import type { XmlWriter } from "./xml_writer.ts";
import {
  address_lines,
  deliver_to,
  representative_vat_id,
  seller_tax_registration,
  vat_id_of,
} from "./common.ts";

/** A UBL address (BG-5, BG-8, BG-12, BG-15). */
export function address(
  xml: XmlWriter,
  p: Omit<InvoiceAddress, "country"> & { country?: string },
  element: string,
): void {
  const lines = address_lines(p);
  xml.open(element);
  xml.optional("cbc:StreetName", lines[0]); // BT-35 / BT-50 / BT-64 / BT-75
  xml.optional("cbc:AdditionalStreetName", lines[1]); // BT-36 / BT-51 / BT-65 / BT-76
  xml.optional("cbc:CityName", p.city); // BT-37 / BT-52 / BT-66 / BT-77
  xml.optional("cbc:PostalZone", p.zip); // BT-38 / BT-53 / BT-67 / BT-78
  xml.optional("cbc:CountrySubentity", p.state); // BT-39 / BT-54 / BT-68 / BT-79
  if (lines[2] !== undefined) {
    xml.open("cac:AddressLine").leaf("cbc:Line", lines[2]).close(); // BT-162 / BT-163 / BT-164 / BT-165
  }
  if (p.country !== undefined && p.country !== "") {
    xml.open("cac:Country").leaf("cbc:IdentificationCode", p.country).close(); // BT-40 / BT-55 / BT-69 / BT-80
  }
  xml.close();
}

function identification(xml: XmlWriter, id: SchemeIdentifier): void {
  xml.open("cac:PartyIdentification")
    .leaf("cbc:ID", id.id, { schemeID: id.scheme })
    .close();
}

function tax_scheme(xml: XmlWriter, company_id: string, scheme: string): void {
  xml.open("cac:PartyTaxScheme");
  xml.leaf("cbc:CompanyID", company_id);
  xml.open("cac:TaxScheme").leaf("cbc:ID", scheme).close();
  xml.close();
}

/** The seller (BG-4) or buyer (BG-7) as a UBL party. */
export function party(
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
  for (const id of p.identifiers ?? []) identification(xml, id); // BT-29 / BT-46
  const creditor_id = invoice.payment?.direct_debit?.creditor_id;
  if (role === "seller" && creditor_id !== undefined) {
    identification(xml, { scheme: "SEPA", id: creditor_id }); // BT-90
  }
  if (p.trading_name !== undefined) {
    xml.open("cac:PartyName").leaf("cbc:Name", p.trading_name).close(); // BT-28 / BT-45
  }
  address(xml, p, "cac:PostalAddress");
  const vat_id = vat_id_of(invoice, p);
  if (vat_id !== undefined) tax_scheme(xml, vat_id, "VAT"); // BT-31 / BT-48
  const registration = role === "seller"
    ? seller_tax_registration(invoice)
    : undefined;
  if (registration !== undefined) tax_scheme(xml, registration, "FC"); // BT-32
  xml.open("cac:PartyLegalEntity");
  xml.leaf("cbc:RegistrationName", p.name); // BT-27 / BT-44
  xml.optional("cbc:CompanyID", p.company_id, {
    schemeID: p.company_id_scheme,
  }); // BT-30 / BT-47
  if (role === "seller") xml.optional("cbc:CompanyLegalForm", p.legal_info); // BT-33
  xml.close();
  xml.open("cac:Contact"); // BG-6 / BG-9
  xml.optional("cbc:Name", p.contact_name); // BT-41 / BT-56
  xml.optional("cbc:Telephone", p.phone); // BT-42 / BT-57
  xml.leaf("cbc:ElectronicMail", p.email); // BT-43 / BT-58
  xml.close();
  xml.close();
}

/** The payee (BG-10). */
export function payee(xml: XmlWriter, invoice: Invoice): void {
  const payee = invoice.payee;
  if (payee === undefined) return;
  xml.open("cac:PayeeParty");
  if (payee.identifier !== undefined) identification(xml, payee.identifier); // BT-60
  xml.open("cac:PartyName").leaf("cbc:Name", payee.name).close(); // BT-59
  if (payee.company_id !== undefined) {
    xml.open("cac:PartyLegalEntity")
      .leaf("cbc:CompanyID", payee.company_id, {
        schemeID: payee.company_id_scheme,
      }) // BT-61
      .close();
  }
  xml.close();
}

/** The seller's tax representative (BG-11). */
export function tax_representative(xml: XmlWriter, invoice: Invoice): void {
  const representative = invoice.tax_representative;
  if (representative === undefined) return;
  xml.open("cac:TaxRepresentativeParty");
  xml.open("cac:PartyName").leaf("cbc:Name", representative.name).close(); // BT-62
  address(xml, representative, "cac:PostalAddress"); // BG-12
  tax_scheme(xml, representative_vat_id(invoice) ?? "", "VAT"); // BT-63
  xml.close();
}

/** Delivery information (BG-13): date, deliver-to location and party. */
export function delivery(xml: XmlWriter, invoice: Invoice): void {
  const target = deliver_to(invoice);
  if (invoice.delivery_date === undefined && target === undefined) return;
  xml.open("cac:Delivery");
  xml.optional("cbc:ActualDeliveryDate", invoice.delivery_date); // BT-72
  if (target !== undefined) {
    xml.open("cac:DeliveryLocation");
    if (target.location_id !== undefined) {
      xml.leaf("cbc:ID", target.location_id.id, {
        schemeID: target.location_id.scheme,
      }); // BT-71
    }
    address(xml, target, "cac:Address"); // BG-15
    xml.close();
    if (target.name !== undefined) {
      xml.open("cac:DeliveryParty").open("cac:PartyName")
        .leaf("cbc:Name", target.name) // BT-70
        .close().close();
    }
  }
  xml.close();
}
