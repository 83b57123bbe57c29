/**
 * The streams deflated for each document (page content, ToUnicode maps, the
 * XML inside Factur-X) are written at the renderer's stream level, which the
 * zlib header of each stream records (RFC 1950 FLEVEL), and inflate to what
 * the document means.
 */
import { inflateSync } from "node:zlib";
import { assert, assertEquals } from "../assert.ts";
import { german_invoice } from "../fixtures/einvoices.ts";
import { invoice_with_items } from "../fixtures/invoices.ts";
import { InvoiceRequestSchema } from "../../contract/invoice.ts";
import type { Invoice } from "../../contract/invoice_types.ts";
import {
  invoice_xml,
  render_invoice_document,
} from "../../server/einvoice/mod.ts";
import { STREAM_DEFLATE_LEVEL } from "../../server/pdf/pdf_syntax.ts";

interface FlateStream {
  /** The stream's dictionary, as written. */
  dict: string;
  /** The stream's bytes, still deflated. */
  data: Uint8Array;
}

/** Every `/FlateDecode` stream of the file whose `/Length` is direct. */
function flate_streams(bytes: Uint8Array): FlateStream[] {
  const text = new TextDecoder("latin1").decode(bytes);
  const streams: FlateStream[] = [];
  for (
    const match of text.matchAll(/<<((?:(?!>>\s*stream).)*)>>\s*stream\r?\n/gs)
  ) {
    const dict = match[1];
    const length = /\/Length (\d+)(?! \d+ R)/.exec(dict);
    if (!dict.includes("/FlateDecode") || length === null) continue;
    const start = match.index! + match[0].length;
    streams.push({
      dict,
      data: bytes.subarray(start, start + Number(length[1])),
    });
  }
  return streams;
}

/** RFC 1950's FLEVEL for a zlib level, as zlib writes it. */
function header_level(level: number): number {
  if (level < 2) return 0;
  if (level < 6) return 1;
  return level === 6 ? 2 : 3;
}

function per_document_streams(bytes: Uint8Array): Map<string, Uint8Array[]> {
  const kinds = new Map<string, Uint8Array[]>();
  for (const stream of flate_streams(bytes)) {
    const [cmf, flags] = stream.data;
    assertEquals((cmf * 256 + flags) % 31, 0, "a zlib header");
    const text = new TextDecoder("latin1").decode(inflateSync(stream.data));
    const kind = text.startsWith("<?xml")
      ? "xml"
      : text.includes("begincmap")
      ? "to_unicode"
      : /\bBT\b/.test(text) && text.includes(" Tf")
      ? "page"
      : undefined;
    if (kind === undefined) continue;
    assertEquals(
      flags >> 6,
      header_level(STREAM_DEFLATE_LEVEL),
      `the ${kind} stream's zlib level`,
    );
    kinds.set(kind, [...(kinds.get(kind) ?? []), inflateSync(stream.data)]);
  }
  return kinds;
}

Deno.test("page content and ToUnicode maps are deflated at the stream level", () => {
  const invoice = InvoiceRequestSchema.parse(
    invoice_with_items(10, { unicode: true }),
  ) as Invoice;
  const { bytes } = render_invoice_document(invoice, { format: "pdf" });
  const kinds = per_document_streams(bytes);
  assertEquals(kinds.get("page")?.length, 1);
  assert((kinds.get("to_unicode")?.length ?? 0) >= 1);
});

Deno.test("the XML inside Factur-X is deflated at the stream level and inflates to the invoice's XML", () => {
  const invoice = german_invoice();
  const { bytes } = render_invoice_document(invoice, { format: "factur-x" });
  const kinds = per_document_streams(bytes);
  assertEquals(kinds.get("xml")?.length, 1);
  assertEquals(
    new TextDecoder().decode(kinds.get("xml")![0]),
    invoice_xml(invoice, { format: "factur-x" }),
  );
  assert((kinds.get("page")?.length ?? 0) >= 1);
});
