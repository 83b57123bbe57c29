/**
 * EN 16931 invoice in UN/CEFACT Cross Industry Invoice D16B syntax (CII):
 * plain EN 16931, the XML inside Factur-X (profile EN 16931) and XRechnung
 * 3.0 CII. Elements come in the order the D16B schema requires; no element
 * is written empty. Lines are in `cii_lines.ts`, the settlement in
 * `cii_settlement.ts`.
 *
 * @module
 */
import type { Invoice } from "../../contract/invoice_types.ts";
import { XmlWriter } from "./xml_writer.ts";
import {
  as_test_invoice,
  attached_file,
  deliver_to,
  document_notes,
  EN16931_ID,
  type Flavour,
  PEPPOL_PROCESS,
  type_code,
  XRECHNUNG_ID,
} from "./common.ts";
import {
  date,
  party_identifiers,
  postal_address,
  tax_representative,
  trade_party,
} from "./cii_elements.ts";
import { line_item } from "./cii_lines.ts";
import { settlement } from "./cii_settlement.ts";

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
  const flavour: Flavour = options.profile === "xrechnung"
    ? "xrechnung"
    : "en16931";
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
  const notes = document_notes(invoice, {
    test: options.test === true,
    flavour,
  });
  for (const note of notes) { // BG-1
    xml.open("ram:IncludedNote");
    xml.leaf("ram:Content", note.text); // BT-22
    xml.optional("ram:SubjectCode", note.subject_code); // BT-21
    xml.close();
  }
  xml.close();

  xml.open("rsm:SupplyChainTradeTransaction");
  invoice.items.forEach((item, index) => line_item(xml, item, index));
  agreement(xml, invoice);
  delivery(xml, invoice);
  settlement(xml, invoice, flavour);
  xml.close(); // SupplyChainTradeTransaction
  xml.close();
  return xml.finish();
}

function referenced_document(
  xml: XmlWriter,
  element: string,
  id: string | undefined,
): void {
  if (id === undefined) return;
  xml.open(element).leaf("ram:IssuerAssignedID", id).close();
}

function agreement(xml: XmlWriter, invoice: Invoice): void {
  xml.open("ram:ApplicableHeaderTradeAgreement");
  xml.optional("ram:BuyerReference", invoice.buyer_reference); // BT-10
  trade_party(xml, invoice, "seller"); // BG-4
  trade_party(xml, invoice, "buyer"); // BG-7
  tax_representative(xml, invoice); // BG-11
  referenced_document(
    xml,
    "ram:SellerOrderReferencedDocument",
    invoice.sales_order_reference,
  ); // BT-14
  referenced_document(
    xml,
    "ram:BuyerOrderReferencedDocument",
    invoice.purchase_order,
  ); // BT-13
  referenced_document(
    xml,
    "ram:ContractReferencedDocument",
    invoice.contract_reference,
  ); // BT-12
  for (const attachment of invoice.attachments ?? []) {
    const file = attached_file(attachment);
    xml.open("ram:AdditionalReferencedDocument"); // BG-24
    xml.leaf("ram:IssuerAssignedID", attachment.id); // BT-122
    xml.optional("ram:URIID", attachment.url); // BT-124
    xml.leaf("ram:TypeCode", "916");
    xml.optional("ram:Name", attachment.description); // BT-123
    if (file !== undefined) {
      xml.leaf("ram:AttachmentBinaryObject", file.data, {
        mimeCode: file.mime_type, // BT-125-1
        filename: file.filename, // BT-125-2
      }); // BT-125
    }
    xml.close();
  }
  if (invoice.tender_reference !== undefined) {
    xml.open("ram:AdditionalReferencedDocument")
      .leaf("ram:IssuerAssignedID", invoice.tender_reference) // BT-17
      .leaf("ram:TypeCode", "50")
      .close();
  }
  if (invoice.invoiced_object !== undefined) {
    xml.open("ram:AdditionalReferencedDocument");
    xml.leaf("ram:IssuerAssignedID", invoice.invoiced_object.id); // BT-18
    xml.leaf("ram:TypeCode", "130");
    xml.optional("ram:ReferenceTypeCode", invoice.invoiced_object.scheme); // BT-18-1
    xml.close();
  }
  if (invoice.project_reference !== undefined) {
    xml.open("ram:SpecifiedProcuringProject")
      .leaf("ram:ID", invoice.project_reference) // BT-11
      .leaf("ram:Name", "Project reference")
      .close();
  }
  xml.close();
}

function delivery(xml: XmlWriter, invoice: Invoice): void {
  const target = deliver_to(invoice);
  const has_content = target !== undefined ||
    invoice.delivery_date !== undefined ||
    invoice.despatch_advice_reference !== undefined ||
    invoice.receiving_advice_reference !== undefined;
  xml.open("ram:ApplicableHeaderTradeDelivery"); // BG-13
  if (target !== undefined) {
    xml.open("ram:ShipToTradeParty");
    party_identifiers(xml, target.location_id ? [target.location_id] : []); // BT-71
    xml.optional("ram:Name", target.name); // BT-70
    postal_address(xml, target); // BG-15
    xml.close();
  } else if (!has_content) {
    // The schema requires this element and Factur-X warns of empty ones
    // (PEPPOL-EN16931-R008): without other delivery information, the goods
    // or services went to the buyer, named as deliver-to party (BT-70).
    xml.open("ram:ShipToTradeParty")
      .leaf("ram:Name", invoice.bill_to.name) // BT-70
      .close();
  }
  if (invoice.delivery_date !== undefined) {
    xml.open("ram:ActualDeliverySupplyChainEvent") // BT-72
      .open("ram:OccurrenceDateTime");
    date(xml, invoice.delivery_date);
    xml.close().close();
  }
  referenced_document(
    xml,
    "ram:DespatchAdviceReferencedDocument",
    invoice.despatch_advice_reference,
  ); // BT-16
  referenced_document(
    xml,
    "ram:ReceivingAdviceReferencedDocument",
    invoice.receiving_advice_reference,
  ); // BT-15
  xml.close();
}
