/**
 * CII invoice lines (BG-25): item (BG-31, BG-32), price (BG-29), quantity,
 * line period (BG-26), allowances and charges (BG-27, BG-28), references.
 *
 * @module
 */
import type { InvoiceLineItem } from "../../contract/invoice_types.ts";
import type { XmlWriter } from "./xml_writer.ts";
import { base_quantity, quantity_and_price, unit_code } from "./common.ts";
import { allowance_charge, category_tax, date } from "./cii_elements.ts";

function product(xml: XmlWriter, item: InvoiceLineItem): void {
  xml.open("ram:SpecifiedTradeProduct");
  if (item.standard_id !== undefined) {
    xml.leaf("ram:GlobalID", item.standard_id.id, {
      schemeID: item.standard_id.scheme,
    }); // BT-157
  }
  xml.optional("ram:SellerAssignedID", item.item_id); // BT-155
  xml.optional("ram:BuyerAssignedID", item.buyer_item_id); // BT-156
  xml.leaf("ram:Name", item.description); // BT-153
  xml.optional("ram:Description", item.item_description); // BT-154
  for (const attribute of item.attributes ?? []) { // BG-32
    xml.open("ram:ApplicableProductCharacteristic")
      .leaf("ram:Description", attribute.name) // BT-160
      .leaf("ram:Value", attribute.value) // BT-161
      .close();
  }
  for (const classification of item.classifications ?? []) {
    xml.open("ram:DesignatedProductClassification")
      .leaf("ram:ClassCode", classification.code, { // BT-158
        listID: classification.scheme, // BT-158-1
        listVersionID: classification.version, // BT-158-2
      })
      .close();
  }
  if (item.origin_country !== undefined) {
    xml.open("ram:OriginTradeCountry")
      .leaf("ram:ID", item.origin_country) // BT-159
      .close();
  }
  xml.close();
}

function agreement(xml: XmlWriter, item: InvoiceLineItem): void {
  const { price } = quantity_and_price(item);
  const base = base_quantity(item);
  const unit = { unitCode: unit_code(item) };
  xml.open("ram:SpecifiedLineTradeAgreement");
  if (item.order_line_reference !== undefined) {
    xml.open("ram:BuyerOrderReferencedDocument")
      .leaf("ram:LineID", item.order_line_reference) // BT-132
      .close();
  }
  if (item.gross_rate !== undefined) {
    xml.open("ram:GrossPriceProductTradePrice");
    xml.leaf("ram:ChargeAmount", item.gross_rate); // BT-148
    if (base !== undefined) xml.leaf("ram:BasisQuantity", base, unit); // BT-149
    if (item.price_discount !== undefined && item.price_discount !== "0") {
      xml.open("ram:AppliedTradeAllowanceCharge");
      xml.open("ram:ChargeIndicator").leaf("udt:Indicator", "false").close();
      xml.leaf("ram:ActualAmount", item.price_discount); // BT-147
      xml.close();
    }
    xml.close();
  }
  xml.open("ram:NetPriceProductTradePrice");
  xml.leaf("ram:ChargeAmount", price); // BT-146
  if (base !== undefined) xml.leaf("ram:BasisQuantity", base, unit); // BT-149, BT-150
  xml.close();
  xml.close();
}

function settlement(xml: XmlWriter, item: InvoiceLineItem): void {
  xml.open("ram:SpecifiedLineTradeSettlement");
  category_tax(xml, "ram:ApplicableTradeTax", item.tax_category, item.tax_rate); // BT-151, BT-152
  if (item.period !== undefined) {
    xml.open("ram:BillingSpecifiedPeriod"); // BG-26
    xml.open("ram:StartDateTime");
    date(xml, item.period.start); // BT-134
    xml.close().open("ram:EndDateTime");
    date(xml, item.period.end); // BT-135
    xml.close().close();
  }
  for (const entry of item.discounts ?? []) { // BG-27
    allowance_charge(xml, entry, { charge: false, document: false });
  }
  for (const entry of item.charges ?? []) { // BG-28
    allowance_charge(xml, entry, { charge: true, document: false });
  }
  xml.open("ram:SpecifiedTradeSettlementLineMonetarySummation")
    .leaf("ram:LineTotalAmount", item.amount) // BT-131
    .close();
  if (item.object_id !== undefined) {
    xml.open("ram:AdditionalReferencedDocument");
    xml.leaf("ram:IssuerAssignedID", item.object_id.id); // BT-128
    xml.leaf("ram:TypeCode", "130");
    xml.optional("ram:ReferenceTypeCode", item.object_id.scheme); // BT-128-1
    xml.close();
  }
  if (item.accounting_reference !== undefined) {
    xml.open("ram:ReceivableSpecifiedTradeAccountingAccount")
      .leaf("ram:ID", item.accounting_reference) // BT-133
      .close();
  }
  xml.close();
}

/** Writes one invoice line (BG-25). */
export function line_item(
  xml: XmlWriter,
  item: InvoiceLineItem,
  index: number,
): void {
  const { quantity } = quantity_and_price(item);
  xml.open("ram:IncludedSupplyChainTradeLineItem"); // BG-25
  xml.open("ram:AssociatedDocumentLineDocument");
  xml.leaf("ram:LineID", String(index + 1)); // BT-126
  if (item.note !== undefined) {
    xml.open("ram:IncludedNote").leaf("ram:Content", item.note).close(); // BT-127
  }
  xml.close();
  product(xml, item);
  agreement(xml, item);
  xml.open("ram:SpecifiedLineTradeDelivery")
    .leaf("ram:BilledQuantity", quantity, { unitCode: unit_code(item) }) // BT-129, BT-130
    .close();
  settlement(xml, item);
  xml.close();
}
