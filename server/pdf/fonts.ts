/**
 * The invoice fonts (Noto Sans Regular and Bold) and the documents that use
 * them.
 *
 * jsPDF's own TrueType support re-parses the whole font for every document
 * (`addFont`) and subsets it with slow array code on output; with Noto Sans
 * that was ~37 ms per font per document. Here instead:
 *
 * - the fonts are subset once, at build time (`build_fonts.ts`), to the
 *   supported characters and committed under `fonts/`;
 * - they are read and parsed once per process ({@link load_invoice_fonts});
 * - each document gets a light {@link DocumentFont} per font recording only
 *   what that document used, registered through the fence's font plugin
 *   (`jspdf_fence.ts`) so jsPDF never parses a font file itself;
 * - on output the used glyphs are copied into a small font program
 *   (`font_embedding.ts`) written with a complete ToUnicode map, so all
 *   text stays extractable.
 *
 * @module
 */

import type { jsPDF, jsPDFOptions } from "jspdf";
import { prepare_font, type PreparedFont } from "./prepared_font.ts";
import {
  load_script_font,
  SCRIPT_FONT_IDS,
  SCRIPT_FONT_SOURCES,
  type ScriptFontId,
} from "./script_fonts.ts";
import {
  layout_line,
  needs_text_layout,
  without_bidi_marks,
  without_isolates,
} from "./text_layout.ts";
import { type GlyphSink, line_operators } from "./glyph_drawing.ts";
import { DocumentFont, type DocumentTextSettings } from "./document_font.ts";
import { put_document_font } from "./font_embedding.ts";
import {
  create_document,
  output_document,
  page_size,
  plugin_font,
  write_content,
} from "./jspdf_fence.ts";
import { pdf_number } from "./pdf_syntax.ts";

/** jsPDF font family name under which the invoice fonts are registered. */
export const INVOICE_FONT_FAMILY = "NotoSans";

/** Font styles the renderer uses. */
export type InvoiceFontStyle = "normal" | "bold";

const FONT_FILES: Record<
  InvoiceFontStyle,
  { file: string; postscript: string }
> = {
  normal: {
    file: "NotoSans-Regular.subset.ttf",
    postscript: "NotoSans-Regular",
  },
  bold: { file: "NotoSans-Bold.subset.ttf", postscript: "NotoSans-Bold" },
};

/** Both invoice fonts, ready to register with documents. */
export interface InvoiceFonts {
  normal: PreparedFont;
  bold: PreparedFont;
}

let loaded: InvoiceFonts | undefined;

/**
 * Reads and parses the invoice fonts; later calls return the same objects.
 *
 * Rendering calls it lazily; call it at process (worker) start-up to keep
 * the few milliseconds of loading out of the first request. Needs read
 * access to `server/pdf/fonts/`.
 */
export function load_invoice_fonts(): InvoiceFonts {
  if (loaded === undefined) {
    loaded = {
      normal: prepare_latin_font("normal"),
      bold: prepare_latin_font("bold"),
    };
  }
  return loaded;
}

function prepare_latin_font(style: InvoiceFontStyle): PreparedFont {
  const { file, postscript } = FONT_FILES[style];
  const url = new URL(`./fonts/${file}`, import.meta.url);
  return prepare_font(Deno.readFileSync(url), { style, postscript });
}

/** A registered invoice font of one document, for direct text output. */
export interface FontHandle {
  /** Resource name of the font in page content streams, e.g. "F15". */
  readonly resource: string;
  readonly font: DocumentFont;
}

/**
 * What this module keeps of a document while it is drawn: its text
 * settings, its font handles and its glyph sink. One record per document,
 * let go at once on output ({@link output_document_with_fonts}).
 */
interface DocumentFontState {
  settings: DocumentTextSettings;
  handles: Partial<Record<InvoiceFontStyle, FontHandle>>;
  sink?: GlyphSink;
}

const document_states = new WeakMap<jsPDF, DocumentFontState>();

/** The state of `doc` (text settings empty unless it was made here). */
function state_of(doc: jsPDF): DocumentFontState {
  let state = document_states.get(doc);
  if (state === undefined) {
    state = { settings: {}, handles: {} };
    document_states.set(doc, state);
  }
  return state;
}

/** The handle of an invoice font registered with `doc`, for direct text output. */
export function font_handle(doc: jsPDF, style: InvoiceFontStyle): FontHandle {
  const { handles } = state_of(doc);
  const known = handles[style];
  if (known !== undefined) return known;
  const { resource, font } = plugin_font<DocumentFont>(
    doc,
    INVOICE_FONT_FAMILY,
    style,
  );
  const handle = { resource, font };
  handles[style] = handle;
  return handle;
}

const STYLE_BY_POSTSCRIPT = new Map<string, InvoiceFontStyle>(
  (Object.keys(FONT_FILES) as InvoiceFontStyle[]).map((s) => [
    FONT_FILES[s].postscript,
    s,
  ]),
);

const SCRIPT_BY_POSTSCRIPT = new Map<string, ScriptFontId>(
  SCRIPT_FONT_IDS.map((id) => [SCRIPT_FONT_SOURCES[id].postscript, id]),
);

/**
 * Creates a jsPDF document with the invoice fonts registered (cheap: no
 * parsing) under {@link INVOICE_FONT_FAMILY}, styles "normal" and "bold";
 * script fonts are added on first use.
 */
export function create_document_with_fonts(
  options: jsPDFOptions,
  text_settings: DocumentTextSettings = {},
): jsPDF {
  load_invoice_fonts();
  const doc = create_document(
    options,
    {
      create(postscript: string): DocumentFont | undefined {
        const style = STYLE_BY_POSTSCRIPT.get(postscript);
        const script = SCRIPT_BY_POSTSCRIPT.get(postscript);
        if (style === undefined && script === undefined) return undefined;
        return new DocumentFont(
          style !== undefined
            ? load_invoice_fonts()[style]
            : load_script_font(script!).prepared,
          text_settings,
        );
      },
      write: (font, writer) => put_document_font(writer, font),
    },
    (Object.keys(FONT_FILES) as InvoiceFontStyle[]).map((style) => ({
      postscript: FONT_FILES[style].postscript,
      family: INVOICE_FONT_FAMILY,
      style,
    })),
  );
  document_states.set(doc, { settings: text_settings, handles: {} });
  return doc;
}

/**
 * The bytes of a document made by {@link create_document_with_fonts}
 * (`output_document`); this module's state of the document is let go with
 * it, so that nothing of it outlives the render (see `output_document` in
 * `jspdf_fence.ts`).
 */
export function output_document_with_fonts(doc: jsPDF): Uint8Array {
  try {
    return output_document(doc);
  } finally {
    document_states.delete(doc);
  }
}

/** Horizontal alignment of text at its x. */
export type TextAlign = "left" | "right" | "center";

/** Options of {@link draw_text_lines}. */
export interface TextLinesOptions {
  /** The alignment point and the first baseline, from the page's top left. */
  x: number;
  y: number;
  align: TextAlign;
  font: DocumentFont;
  /** The font's resource name in the page's content. */
  resource: string;
  size: number;
  line_height: number;
  /** Fill colour operator. */
  fill: string;
}

function needs_layout(font: DocumentFont, lines: readonly string[]): boolean {
  let layout = font.text_settings.mirrored === true;
  for (let i = 0; !layout && i < lines.length; i++) {
    layout = needs_text_layout(lines[i], font.prepared);
  }
  return layout;
}

/**
 * Draws lines of text one under the other. When any line needs the text
 * layout (other scripts: shaping, bidi, script fonts; every line of a
 * mirrored page), all are drawn through it ({@link draw_text_line});
 * otherwise they are written directly, one text matrix and one hex string
 * of glyph ids per line.
 */
export function draw_text_lines(
  doc: jsPDF,
  lines: readonly string[],
  { x, y, align, font, resource, size, line_height, fill }: TextLinesOptions,
): void {
  const layout = needs_layout(font, lines);
  const page_height = page_size(doc).height;
  let ops = "";
  let baseline = y;
  for (const line of lines) {
    if (line !== "") {
      const width = font.width_of_string(line, size);
      const left = align === "right"
        ? x - width
        : align === "center"
        ? x - width / 2
        : x;
      if (layout) {
        draw_text_line(doc, line, { x: left, y: baseline, fill, font, size });
      } else {
        ops += `1 0 0 1 ${pdf_number(left, 6)} ${
          pdf_number(page_height - baseline, 6)
        } Tm <${font.encode_hex(line)}> Tj\n`;
      }
    }
    baseline += line_height;
  }
  if (ops !== "") {
    write_content(
      doc,
      `BT /${resource} ${pdf_number(size, 6)} Tf ${fill}\n${ops}ET`,
    );
  }
}

/** Options of {@link draw_text_line}. */
export interface DrawTextLineOptions {
  /** Left end and baseline, in points from the page's top-left corner. */
  x: number;
  y: number;
  /** Fill colour operator, e.g. `"0.1 0.12 0.21 rg"`. */
  fill: string;
  /** The invoice font and size the line is set in. */
  font: DocumentFont;
  size: number;
}

/**
 * Draws one line that needs the text layout (see `needs_text_layout`):
 * shaped, bidi-ordered glyph runs in the script fonts it needs (registered
 * with `doc` on first use), wrapped in ActualText so extraction returns
 * `line` as written.
 */
export function draw_text_line(
  doc: jsPDF,
  line: string,
  { x, y, fill, font, size }: DrawTextLineOptions,
): void {
  line = without_bidi_marks(line);
  const layout = layout_line(line, font.layout_options());
  write_content(
    doc,
    line_operators(layout, {
      x,
      y: page_size(doc).height - y,
      size,
      fill,
      text: without_isolates(line),
      sink: document_glyph_sink(doc),
      mirrored: font.text_settings.mirrored,
    }),
  );
}

/** Whether the document's pages are mirrored (right-to-left layout). */
export function is_mirrored(doc: jsPDF): boolean {
  return document_states.get(doc)?.settings.mirrored === true;
}

/**
 * The document's font resources for drawn glyph runs. Script fonts are
 * registered with the document the first time one of its lines needs them,
 * so a PDF embeds only the scripts it uses.
 */
function document_glyph_sink(doc: jsPDF): GlyphSink {
  const state = state_of(doc);
  if (state.sink !== undefined) return state.sink;
  const by_font = new Map<
    PreparedFont,
    { resource: string; record(gid: number, text: string): number }
  >();
  const sink: GlyphSink = {
    font_resource(prepared) {
      let entry = by_font.get(prepared);
      if (entry !== undefined) return entry;
      const script = SCRIPT_BY_POSTSCRIPT.get(prepared.postscript);
      const family = script === undefined
        ? INVOICE_FONT_FAMILY
        : prepared.postscript;
      const style = script === undefined ? prepared.style : "normal";
      if (script !== undefined) {
        doc.addFont(prepared.postscript, family, "normal", "Identity-H");
      }
      const { resource, font: metadata } = plugin_font<DocumentFont>(
        doc,
        family,
        style,
      );
      entry = {
        resource,
        record(gid: number, text: string): number {
          if (script !== undefined) return metadata.cid_for(gid, text);
          // Latin font: one glyph per character, CID = glyph id.
          if (text.length === 1) metadata.to_unicode[gid] = text.charCodeAt(0);
          else if (text !== "") metadata.to_unicode[gid] ??= text;
          return gid;
        },
      };
      by_font.set(prepared, entry);
      return entry;
    },
  };
  state.sink = sink;
  return sink;
}
