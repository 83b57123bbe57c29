/**
 * What the description cell of an item says under the item's name: its
 * description (BT-154), identifiers (seller BT-155, buyer BT-156, standard
 * BT-157), the period it covers (BG-26), its attributes (BG-32), the line's
 * own discounts and charges (BG-27, BG-28) and its note (BT-127).
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
