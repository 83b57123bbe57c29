/**
 * UBL invoice and credit note lines (BG-25): note, quantity, references,
 * period (BG-26), allowances and charges (BG-27, BG-28), item (BG-31,
 * BG-32) and price (BG-29).
 *
 * @module
 */
import type {
  InvoiceLineItem,
  LineAllowanceCharge,
  TaxCategory,
} from "../../contract/invoice_types.ts";
import type { XmlWriter } from "./xml_writer.ts";
import {
  base_quantity,
  quantity_and_price,
  unit_code,
  written_rate,
} from "./common.ts";

/** A tax category (BT-151 / BT-95 / BT-102 / BT-118 and their rates). */
export function tax_category(
  xml: XmlWriter,
  element: string,
  { category, rate, exemption_reason, exemption_reason_code, breakdown }: {
    category: TaxCategory;
    rate: string | undefined;
    exemption_reason?: string;
    exemption_reason_code?: string;
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
  xml.optional("cbc:TaxExemptionReasonCode", exemption_reason_code); // BT-121
  xml.optional("cbc:TaxExemptionReason", exemption_reason); // BT-120
  xml.open("cac:TaxScheme").leaf("cbc:ID", "VAT").close();
  xml.close();
}

/** A line discount (BG-27) or charge (BG-28). */
function line_allowance_charge(
  xml: XmlWriter,
  entry: LineAllowanceCharge,
  charge: boolean,
  money: { currencyID: string },
): void {
  xml.open("cac:AllowanceCharge");
  xml.leaf("cbc:ChargeIndicator", charge ? "true" : "false");
  xml.optional("cbc:AllowanceChargeReasonCode", entry.reason_code); // BT-140 / BT-145
  xml.leaf("cbc:AllowanceChargeReason", entry.description); // BT-139 / BT-144
  xml.optional("cbc:MultiplierFactorNumeric", entry.percent); // BT-138 / BT-143
  xml.leaf("cbc:Amount", entry.amount, money); // BT-136 / BT-141
  if (entry.base_amount !== undefined) {
    xml.leaf("cbc:BaseAmount", entry.base_amount, money); // BT-137 / BT-142
  }
  xml.close();
}

function item_details(xml: XmlWriter, item: InvoiceLineItem): void {
  xml.open("cac:Item");
  xml.optional("cbc:Description", item.item_description); // BT-154
  xml.leaf("cbc:Name", item.description); // BT-153
  if (item.buyer_item_id !== undefined) {
    xml.open("cac:BuyersItemIdentification")
      .leaf("cbc:ID", item.buyer_item_id).close(); // BT-156
  }
  if (item.item_id !== undefined) {
    xml.open("cac:SellersItemIdentification")
      .leaf("cbc:ID", item.item_id).close(); // BT-155
  }
  if (item.standard_id !== undefined) {
    xml.open("cac:StandardItemIdentification")
      .leaf("cbc:ID", item.standard_id.id, {
        schemeID: item.standard_id.scheme,
      }) // BT-157
      .close();
  }
  if (item.origin_country !== undefined) {
    xml.open("cac:OriginCountry")
      .leaf("cbc:IdentificationCode", item.origin_country) // BT-159
      .close();
  }
  for (const classification of item.classifications ?? []) {
    xml.open("cac:CommodityClassification")
      .leaf("cbc:ItemClassificationCode", classification.code, { // BT-158
        listID: classification.scheme, // BT-158-1
        listVersionID: classification.version, // BT-158-2
      })
      .close();
  }
  tax_category(xml, "cac:ClassifiedTaxCategory", {
    category: item.tax_category ?? "S",
    rate: item.tax_rate,
  }); // BT-151, BT-152
  for (const attribute of item.attributes ?? []) { // BG-32
    xml.open("cac:AdditionalItemProperty")
      .leaf("cbc:Name", attribute.name) // BT-160
      .leaf("cbc:Value", attribute.value) // BT-161
      .close();
  }
  xml.close();
}

function price(
  xml: XmlWriter,
  item: InvoiceLineItem,
  money: { currencyID: string },
): void {
  const { price } = quantity_and_price(item);
  const base = base_quantity(item);
  xml.open("cac:Price");
  xml.leaf("cbc:PriceAmount", price, money); // BT-146
  if (base !== undefined) {
    xml.leaf("cbc:BaseQuantity", base, { unitCode: unit_code(item) }); // BT-149, BT-150
  }
  if (item.gross_rate !== undefined) {
    xml.open("cac:AllowanceCharge");
    xml.leaf("cbc:ChargeIndicator", "false");
    xml.leaf("cbc:Amount", item.price_discount ?? "0", money); // BT-147
    xml.leaf("cbc:BaseAmount", item.gross_rate, money); // BT-148
    xml.close();
  }
  xml.close();
}

/** Writes one invoice line (`cac:InvoiceLine`) or credit note line. */
export function line_item(
  xml: XmlWriter,
  item: InvoiceLineItem,
  index: number,
  { credit, currency }: { credit: boolean; currency: string },
): void {
  const money = { currencyID: currency };
  const { quantity } = quantity_and_price(item);
  xml.open(credit ? "cac:CreditNoteLine" : "cac:InvoiceLine"); // BG-25
  xml.leaf("cbc:ID", String(index + 1)); // BT-126
  xml.optional("cbc:Note", item.note); // BT-127
  xml.leaf(
    credit ? "cbc:CreditedQuantity" : "cbc:InvoicedQuantity",
    quantity,
    { unitCode: unit_code(item) },
  ); // BT-129, BT-130
  xml.leaf("cbc:LineExtensionAmount", item.amount, money); // BT-131
  xml.optional("cbc:AccountingCost", item.accounting_reference); // BT-133
  if (item.period !== undefined) {
    xml.open("cac:InvoicePeriod") // BG-26
      .leaf("cbc:StartDate", item.period.start) // BT-134
      .leaf("cbc:EndDate", item.period.end) // BT-135
      .close();
  }
  if (item.order_line_reference !== undefined) {
    xml.open("cac:OrderLineReference")
      .leaf("cbc:LineID", item.order_line_reference) // BT-132
      .close();
  }
  if (item.object_id !== undefined) {
    xml.open("cac:DocumentReference");
    xml.leaf("cbc:ID", item.object_id.id, { schemeID: item.object_id.scheme }); // BT-128
    xml.leaf("cbc:DocumentTypeCode", "130");
    xml.close();
  }
  for (const entry of item.discounts ?? []) {
    line_allowance_charge(xml, entry, false, money); // BG-27
  }
  for (const entry of item.charges ?? []) {
    line_allowance_charge(xml, entry, true, money); // BG-28
  }
  item_details(xml, item);
  price(xml, item, money);
  xml.close();
}
