/**
 * The parties: the sender ("From") and the billed party ("Bill to") side
 * by side, each with its name and the lines describing it.
 *
 * @module
 */

import type { InvoiceParty } from "../../../contract/invoice_types.ts";
import { sanitize_text } from "../sanitize.ts";
import { type Layout, present, single_line } from "../layout.ts";
import { isolated } from "../draw.ts";
import {
  draw_flowing_table,
  table_cell,
  table_row,
  type TableRow,
} from "../table.ts";
import {
  type CellStyle,
  PARTY_HEAD,
  PARTY_LINES,
  PARTY_NAME,
} from "../styles.ts";

/** Draws both parties from `top`. Returns the y below the block. */
export function draw_parties(layout: Layout, top: number): number {
  const { invoice, labels, width } = layout;
  const column = width / 2;
  const context = layout.table;
  const cells = (texts: string[], style: CellStyle): TableRow =>
    table_row(
      texts.map((text) => table_cell(context, text, { width: column, style })),
    );
  const names = [
    single_line(invoice.sender.name),
    single_line(invoice.bill_to.name),
  ];
  const lines = [
    party_lines(layout, invoice.sender).join("\n"),
    party_lines(layout, invoice.bill_to).join("\n"),
  ];
  // Blocks taller than what is left of the page continue on the next.
  return draw_flowing_table(context, [
    cells(names, PARTY_NAME),
    cells(lines, PARTY_LINES),
  ], {
    left: layout.x(0, width),
    top,
    head: cells([labels.from, labels.bill_to], PARTY_HEAD),
    split: "fill",
  });
}

/**
 * Lines describing a party below its name: e-mail, the address present,
 * locality, country, phone and registration numbers.
 */
function party_lines(layout: Layout, party: InvoiceParty): string[] {
  const { labels, formats } = layout;
  const lines = [single_line(party.email)];
  const address = party.address_lines ??
    (party.address !== undefined ? [party.address] : []);
  for (const entry of address) {
    if (entry.trim() === "") continue;
    for (const line of sanitize_text(entry).split("\n")) {
      if (line.trim() !== "") lines.push(line.trim());
    }
  }
  const locality = locality_line(layout, party);
  if (locality !== "") lines.push(locality);
  if (present(party.country)) {
    lines.push(formats.country(single_line(party.country)));
  }
  const numbers: [string, string | undefined][] = [
    [labels.phone, party.phone],
    [labels.tax_id, party.tax_id],
    [labels.company_id, party.company_id],
  ];
  for (const [name, value] of numbers) {
    if (present(value)) {
      lines.push(`${name} ${isolated(layout, single_line(value))}`);
    }
  }
  return lines;
}

/** "City, State ZIP" or, where the locale writes it so, "ZIP City, State". */
function locality_line(layout: Layout, party: InvoiceParty): string {
  const city = present(party.city) ? single_line(party.city) : "";
  const state = present(party.state) ? single_line(party.state) : "";
  const zip = present(party.zip) ? single_line(party.zip) : "";
  const join = (parts: string[], separator: string): string =>
    parts.filter((v) => v !== "").join(separator);
  if (!layout.texts.zip_first) {
    return join([join([city, state], ", "), zip], " ");
  }
  return join([join([zip, city], " "), state], ", ");
}
