/**
 * What the description cell of an item says under the item's name: its
 * description (BT-154), identifiers (seller BT-155, buyer BT-156, standard
 * BT-157), its references (purchase order line BT-132, buyer's accounting
 * BT-133, object BT-128), classifications (BT-158) and country of origin
 * (BT-159), the period it covers (BG-26), its attributes (BG-32), the
 * line's own discounts and charges (BG-27, BG-28) and its note (BT-127).
 *
 * @module
 */

import type { InvoiceLineItem } from "../../../contract/invoice_types.ts";
import { sanitize_text } from "../sanitize.ts";
import { type Layout, present, single_line } from "../layout.ts";

/** The cell text: `name` and a line per detail the item has. */
export function item_details(
  layout: Layout,
  item: InvoiceLineItem,
  name: string,
): string {
  const { labels, formats } = layout;
  const lines = [name];
  if (present(item.item_description)) {
    lines.push(sanitize_text(item.item_description).trim());
  }
  const ids: string[] = [];
  if (present(item.item_id)) {
    ids.push(`${labels.item_id} ${single_line(item.item_id)}`);
  }
  if (present(item.buyer_item_id)) {
    ids.push(`${labels.buyer_item_id} ${single_line(item.buyer_item_id)}`);
  }
  if (item.standard_id !== undefined) {
    const scheme = item.standard_id.scheme === "0160"
      ? "GTIN"
      : single_line(item.standard_id.scheme);
    ids.push(`${scheme} ${single_line(item.standard_id.id)}`);
  }
  if (ids.length > 0) lines.push(ids.join(" \u00B7 "));
  const references = reference_parts(layout, item);
  if (references.length > 0) lines.push(references.join(" \u00B7 "));
  const origin = origin_parts(layout, item);
  if (origin.length > 0) lines.push(origin.join(" \u00B7 "));
  if (item.period !== undefined) {
    lines.push(
      `${formats.date(item.period.start)} \u2013 ${
        formats.date(item.period.end)
      }`,
    );
  }
  for (const attribute of item.attributes ?? []) {
    lines.push(
      `${single_line(attribute.name)}: ${single_line(attribute.value)}`,
    );
  }
  for (const entry of item.discounts ?? []) {
    lines.push(
      `${single_line(entry.description)} \u2212${formats.money(entry.amount)}`,
    );
  }
  for (const entry of item.charges ?? []) {
    lines.push(
      `${single_line(entry.description)} +${formats.money(entry.amount)}`,
    );
  }
  if (present(item.note)) lines.push(sanitize_text(item.note).trim());
  return lines.join("\n");
}

/** "Order line 3", "Your accounting ref. KST-4711", "Object ID Z-0815". */
function reference_parts(layout: Layout, item: InvoiceLineItem): string[] {
  const { labels } = layout;
  const parts: string[] = [];
  if (present(item.order_line_reference)) {
    parts.push(
      `${labels.order_line_reference} ${
        single_line(item.order_line_reference)
      }`,
    );
  }
  if (present(item.accounting_reference)) {
    parts.push(
      `${labels.accounting_reference} ${
        single_line(item.accounting_reference)
      }`,
    );
  }
  if (item.object_id !== undefined && present(item.object_id.id)) {
    const scheme = present(item.object_id.scheme)
      ? `${single_line(item.object_id.scheme)}: `
      : "";
    parts.push(
      `${labels.object_id} ${scheme}${single_line(item.object_id.id)}`,
    );
  }
  return parts;
}

/** "Classification STI 65434568 (2)", "Country of origin Germany". */
function origin_parts(layout: Layout, item: InvoiceLineItem): string[] {
  const { labels, formats } = layout;
  const parts: string[] = [];
  for (const entry of item.classifications ?? []) {
    const version = present(entry.version)
      ? ` (${single_line(entry.version)})`
      : "";
    parts.push(
      `${labels.classification} ${single_line(entry.scheme)} ${
        single_line(entry.code)
      }${version}`,
    );
  }
  if (present(item.origin_country)) {
    parts.push(
      `${labels.origin_country} ${
        formats.country(single_line(item.origin_country))
      }`,
    );
  }
  return parts;
}
