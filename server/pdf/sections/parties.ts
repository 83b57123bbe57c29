/**
 * The parties beside the details column: the sender ("From") and the
 * billed party ("Bill to"), then, when the invoice has them, where the
 * goods go ("Deliver to"), who is paid ("Payee") and the seller's tax
 * representative — two blocks a row, each a heading, a name and the lines
 * describing it.
 *
 * @module
 */

import type {
  InvoiceAddress,
  InvoiceParty,
  SchemeIdentifier,
} from "../../../contract/invoice_types.ts";
import { sanitize_text } from "../sanitize.ts";
import { type Layout, present, single_line } from "../layout.ts";
import { isolated } from "../draw.ts";
import { postcode_first } from "../address_format.ts";
import {
  draw_flowing_table,
  table_cell,
  table_row,
  type TableRow,
} from "../table.ts";
import {
  type CellStyle,
  HEADER,
  PARTY_HEAD,
  PARTY_LINES,
  PARTY_NAME,
} from "../styles.ts";

/** One printed party block. */
interface Block {
  heading: string;
  name: string;
  lines: string[];
}

/** Draws the party blocks from `top`. Returns the y below them. */
export function draw_parties(layout: Layout, top: number): number {
  const context = layout.table;
  const column = layout.width * HEADER.party_share;
  const cells = (texts: string[], style: CellStyle): TableRow =>
    table_row(
      texts.map((text) => table_cell(context, text, { width: column, style })),
    );
  const blocks = party_blocks(layout);
  let y = top;
  for (let i = 0; i < blocks.length; i += 2) {
    const pair = blocks.slice(i, i + 2);
    // Blocks taller than what is left of the page continue on the next.
    y = draw_flowing_table(context, [
      cells(pair.map((b) => b.name), PARTY_NAME),
      cells(pair.map((b) => b.lines.join("\n")), PARTY_LINES),
    ], {
      left: layout.x(0, column * pair.length),
      top: y + (i === 0 ? 0 : PARTY_ROW_GAP),
      head: cells(pair.map((b) => b.heading), PARTY_HEAD),
      split: "fill",
    });
  }
  return y;
}

/** Space between rows of blocks. */
const PARTY_ROW_GAP = 10;

function party_blocks(layout: Layout): Block[] {
  const { invoice, labels } = layout;
  const blocks: Block[] = [
    {
      heading: labels.from,
      name: single_line(invoice.sender.name),
      lines: party_lines(layout, invoice.sender),
    },
    {
      heading: labels.bill_to,
      name: single_line(invoice.bill_to.name),
      lines: party_lines(layout, invoice.bill_to),
    },
  ];
  const deliver_to = invoice.deliver_to;
  if (deliver_to !== undefined) {
    blocks.push({
      heading: labels.deliver_to,
      name: present(deliver_to.name) ? single_line(deliver_to.name) : "",
      lines: [
        ...address_lines(layout, deliver_to),
        ...identifier_lines(layout, [deliver_to.location_id]),
      ],
    });
  }
  const payee = invoice.payee;
  if (payee !== undefined) {
    blocks.push({
      heading: labels.payee,
      name: single_line(payee.name),
      lines: [
        ...identifier_lines(layout, [payee.identifier]),
        ...numbered(layout, [[labels.company_id, payee.company_id]]),
      ],
    });
  }
  const representative = invoice.tax_representative;
  if (representative !== undefined) {
    blocks.push({
      heading: labels.tax_representative,
      name: single_line(representative.name),
      lines: [
        ...address_lines(layout, representative),
        ...numbered(layout, [[labels.tax_id, representative.vat_id]]),
      ],
    });
  }
  return blocks;
}

/** "Label value" lines of the values present. */
function numbered(
  layout: Layout,
  entries: readonly (readonly [string, string | undefined])[],
): string[] {
  const lines: string[] = [];
  for (const [name, value] of entries) {
    if (present(value)) {
      lines.push(`${name} ${isolated(layout, single_line(value))}`);
    }
  }
  return lines;
}

/** Identifiers as "scheme id" (or the id alone). */
function identifier_lines(
  layout: Layout,
  identifiers: readonly (SchemeIdentifier | undefined)[],
): string[] {
  const lines: string[] = [];
  for (const identifier of identifiers) {
    if (identifier === undefined || !present(identifier.id)) continue;
    const id = isolated(layout, single_line(identifier.id));
    lines.push(
      present(identifier.scheme)
        ? `${single_line(identifier.scheme)}: ${id}`
        : id,
    );
  }
  return lines;
}

/** Address lines, the locality and the country's name. */
function address_lines(
  layout: Layout,
  party:
    & Pick<InvoiceAddress, "address" | "address_lines" | "city" | "zip">
    & { state?: string; country?: string },
): string[] {
  const lines: string[] = [];
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
    lines.push(layout.formats.country(single_line(party.country)));
  }
  return lines;
}

/**
 * Lines describing a party below its name: trading name, contact person,
 * e-mail, the address, phone, registration numbers, identifiers and the
 * electronic address (BT-34, BT-49).
 */
function party_lines(
  layout: Layout,
  party: InvoiceParty,
): string[] {
  const { labels } = layout;
  const lines: string[] = [];
  if (present(party.trading_name)) lines.push(single_line(party.trading_name));
  lines.push(...numbered(layout, [[labels.contact, party.contact_name]]));
  lines.push(single_line(party.email));
  lines.push(...address_lines(layout, party));
  lines.push(
    ...numbered(layout, [
      [labels.phone, party.phone],
      [labels.tax_id, party.tax_id],
      [labels.tax_number, party.tax_number],
      [labels.company_id, party.company_id],
    ]),
  );
  lines.push(...identifier_lines(layout, party.identifiers ?? []));
  for (const address of identifier_lines(layout, [party.electronic_address])) {
    lines.push(`${labels.electronic_address} ${address}`);
  }
  return lines.filter((line) => line !== "");
}

/**
 * "City, State ZIP" or "ZIP City, State": the order of the address's
 * country (`address_format.ts`), else of the locale.
 */
function locality_line(
  layout: Layout,
  party: { city?: string; state?: string; zip?: string; country?: string },
): string {
  const city = present(party.city) ? single_line(party.city) : "";
  const state = present(party.state) ? single_line(party.state) : "";
  const zip = present(party.zip) ? single_line(party.zip) : "";
  const join = (parts: string[], separator: string): string =>
    parts.filter((v) => v !== "").join(separator);
  if (!postcode_first(party.country, layout.texts.zip_first)) {
    return join([join([city, state], ", "), zip], " ");
  }
  return join([join([zip, city], " "), state], ", ");
}
