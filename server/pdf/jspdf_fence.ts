/**
 * Every use of jsPDF beyond its documented API, in one place.
 *
 * The renderer needs a few things jsPDF does not offer: fonts it writes
 * itself (subset per document, exact ToUnicode), operators written straight
 * into a page, its output without keeping the document's content alive,
 * mirrored pages, cached images, PDF/A objects, and native zlib instead of
 * jsPDF's slow deflate. No jsPDF method is replaced per document except an
 * image decoder while a cached logo is added. Each is a function here, written against the jsPDF
 * version {@link JSPDF_VERSION}; `tests/render/jspdf_fence.test.ts` pins that
 * version and checks that every private member used here still exists.
 * Code outside this module uses jsPDF's public API and these functions.
 *
 * @module
 */

import { jsPDF, type jsPDFOptions } from "jspdf";
import {
  binary_string_to_bytes,
  bytes_to_binary_string,
  deflate_stream,
} from "./pdf_syntax.ts";

/** The jsPDF version this module is written against (`deno.json` pins it). */
export const JSPDF_VERSION = "4.2.1";

/** jsPDF's writer of the file's objects, as its output events get it. */
export interface JsPdfWriter {
  /** Starts a new object; returns its number. */
  newObject(): number;
  /** Writes one line of the file. */
  out(line: string): void;
  /** Writes a stream object's dictionary and data. */
  putStream(options: {
    data: string;
    objectId?: number;
    filters?: string[];
    alreadyAppliedFilters?: string[];
    additionalKeyValues?: { key: string; value: string | number }[];
  }): void;
}

/**
 * Fonts the renderer writes itself. jsPDF registers them by name; `create`
 * gives each its per-document object (jsPDF keeps it as the font's
 * `metadata`), and `write` writes it into the file, returning the object
 * number of its font dictionary.
 */
export interface FontPlugin<F extends object> {
  /** The per-document font for `postscript`, or undefined for jsPDF's own. */
  create(postscript: string): F | undefined;
  write(font: F, writer: JsPdfWriter): number;
}

/** A font of a document as jsPDF's font table holds it. */
interface JsPdfFont {
  id: string;
  postScriptName: string;
  encoding: string;
  isStandardFont: boolean;
  isAlreadyPutted?: boolean;
  objectNumber?: number;
  metadata: unknown;
}

interface JsPdfPlugin {
  events: [string, (this: jsPDF, data: never) => void][];
  processDataByFilters: (
    data: string,
    chain?: string | string[],
  ) => { data: string; reverseChain: string };
  processArabic?: unknown;
}

interface JsPdfInternals {
  getFont(family?: string, style?: string): JsPdfFont;
  write(ops: string): void;
  pages: (string[] | null)[];
  pageSize: { getWidth(): number; getHeight(): number };
  events: {
    subscribe(topic: string, callback: () => void): string;
    unsubscribe(token: string): boolean;
  };
  newObject(): number;
  out(line: string): void;
  putStream: JsPdfWriter["putStream"];
}

interface JsPdfPrivate {
  setCustomOutputDestination(destination: string[]): void;
  resetCustomOutputDestination(): void;
  buildDocument(): string;
  setPdfVersion(version: string): void;
  getDocumentProperties(): Record<string, string>;
}

function internals(doc: jsPDF): JsPdfInternals {
  return doc.internal as unknown as JsPdfInternals;
}

function hidden(doc: jsPDF): JsPdfPrivate {
  return (doc as unknown as { __private__: JsPdfPrivate }).__private__;
}

/** Each document's font plugin and the per-document fonts it created. */
const plugins = new WeakMap<jsPDF, FontPlugin<object>>();
const plugin_fonts = new WeakSet<object>();
/** jsPDF's font table of each document (id → font), from its "addFonts" event. */
const font_tables = new WeakMap<jsPDF, Record<string, JsPdfFont>>();
/** Errors raised inside jsPDF event handlers, which jsPDF itself only logs. */
const handler_errors = new WeakMap<object, unknown>();

let hooks_installed = false;

/**
 * Installs our jsPDF plugin hooks (once per process). jsPDF subscribes
 * plugin handlers in reverse order of registration, so these run before its
 * built-in TrueType handlers.
 */
function install_hooks(): void {
  if (hooks_installed) return;
  hooks_installed = true;
  const api = jsPDF.API as unknown as JsPdfPlugin;
  // jsPDF deflates streams with fflate and then rebuilds the output string
  // one byte at a time by concatenation: the largest single cost of a small
  // invoice. Same filter and zlib format, native zlib, for every document.
  const original_filters = api.processDataByFilters;
  api.processDataByFilters = (data, chain) => {
    const only = Array.isArray(chain) && chain.length === 1 ? chain[0] : chain;
    if (only !== "FlateEncode" && only !== "/FlateEncode") {
      return original_filters(data, chain);
    }
    const packed = deflate_stream(binary_string_to_bytes(data ?? ""));
    return {
      data: bytes_to_binary_string(packed),
      reverseChain: "/FlateDecode",
    };
  };
  // Per-document set-up of jsPDF plugins the renderer never uses (canvas,
  // context2d, outline) and the Arabic pre-pass of text output (our text is
  // shaped by the text layout): a good part of creating each document.
  for (let i = api.events.length - 1; i >= 0; i--) {
    const [name, handler] = api.events[i];
    if (is_unused_plugin_event(name, handler, api)) api.events.splice(i, 1);
  }
  api.events.push([
    "addFonts",
    function (this: jsPDF, data: { fonts: Record<string, JsPdfFont> }): void {
      font_tables.set(this, data.fonts);
    },
  ]);
  api.events.push([
    "addFont",
    function (this: jsPDF, data: { font: JsPdfFont }): void {
      const font = plugins.get(this)?.create(data.font.postScriptName);
      if (font === undefined) return;
      plugin_fonts.add(font);
      data.font.metadata = font;
      // jsPDF's TrueType loader skips "standard" fonts; without this it would
      // look for a font file in its virtual file system. The flag is read
      // nowhere else.
      data.font.isStandardFont = true;
    },
  ]);
  api.events.push([
    "putFont",
    function (
      this: jsPDF,
      args: { font: JsPdfFont } & JsPdfWriter,
    ): void {
      const font = args.font.metadata;
      const plugin = plugins.get(this);
      if (plugin === undefined || !is_plugin_font(font)) return;
      try {
        args.font.objectNumber = plugin.write(font, args);
        args.font.isAlreadyPutted = true;
      } catch (error) {
        handler_errors.set(this, error);
      }
    },
  ]);
}

function is_plugin_font(value: unknown): value is object {
  return typeof value === "object" && value !== null &&
    plugin_fonts.has(value);
}

/** Whether a jsPDF plugin event handler belongs to a plugin we never use. */
function is_unused_plugin_event(
  name: string,
  handler: unknown,
  api: JsPdfPlugin,
): boolean {
  if (name === "preProcessText") return handler === api.processArabic;
  // Text output and jsPDF's own TrueType and standard-font handling: every
  // font is the plugin's and every text is written by `write_content`, so
  // these only cost each document their subscriptions.
  if (name === "postProcessText") return true;
  const source = String(handler);
  if (name === "addFont") {
    return source.includes(".metadata.Unicode={}") ||
      source.includes("Font does not exist in vFS");
  }
  if (name === "putFont") return source.includes(".API.TTFFont");
  if (
    name !== "initialized" && name !== "postPutResources" &&
    name !== "putCatalog"
  ) return false;
  return source.includes("this.canvas=new") ||
    source.includes("this.context2d=new") || source.includes(".outline");
}

/**
 * A new jsPDF document in points whose fonts are `fonts`, registered under
 * the given family and style names (jsPDF's 14 standard fonts are removed
 * from its font table: every font left there is written, so none has to be
 * marked as used by jsPDF's costly `text()`).
 */
export function create_document<F extends object>(
  options: jsPDFOptions,
  plugin: FontPlugin<F>,
  fonts: readonly { postscript: string; family: string; style: string }[],
): jsPDF {
  install_hooks();
  const doc = new jsPDF({ ...options, unit: "pt", putOnlyUsedFonts: false });
  plugins.set(doc, plugin as FontPlugin<object>);
  for (const { postscript, family, style } of fonts) {
    doc.addFont(postscript, family, style, "Identity-H");
  }
  const table = font_tables.get(doc);
  if (table === undefined) throw new Error("jsPDF font table not found");
  for (const [id, font] of Object.entries(table)) {
    if (!is_plugin_font(font.metadata)) delete table[id];
  }
  return doc;
}

/**
 * A font of the plugin registered with `doc` under `family` and `style`:
 * its resource name in page content ("F15") and its per-document object.
 */
export function plugin_font<F extends object>(
  doc: jsPDF,
  family: string,
  style: string,
): { resource: string; font: F } {
  const entry = internals(doc).getFont(family, style);
  if (!is_plugin_font(entry.metadata)) {
    throw new Error(`font ${family} ${style} is not registered by the plugin`);
  }
  return { resource: entry.id, font: entry.metadata as F };
}

/** Writes content-stream operators at the end of the current page. */
export function write_content(doc: jsPDF, ops: string): void {
  internals(doc).write(ops);
}

/** Width and height of the document's pages, in points. */
export function page_size(doc: jsPDF): { width: number; height: number } {
  const size = internals(doc).pageSize;
  return { width: size.getWidth(), height: size.getHeight() };
}

/** Calls `callback` whenever a page is added; returns the unsubscriber. */
export function on_page_added(doc: jsPDF, callback: () => void): () => void {
  const events = internals(doc).events;
  const token = events.subscribe("addPage", callback);
  return () => {
    events.unsubscribe(token);
  };
}

/**
 * The document's bytes, as `doc.output("arraybuffer")` gives them; throws
 * an error that a font writer met on the way. The document is emptied
 * (see {@link release_document}) and cannot be used afterwards.
 */
export function output_document(doc: jsPDF): Uint8Array {
  const parts: string[] = [];
  const output = hidden(doc);
  let bytes: Uint8Array;
  try {
    output.setCustomOutputDestination(parts);
    try {
      output.buildDocument();
    } finally {
      output.resetCustomOutputDestination();
    }
    // Joined as `output("arraybuffer")` does; the same bytes as its
    // conversion, natively (`binary_string_to_bytes`).
    bytes = binary_string_to_bytes(parts.join("\n"), { binary: true });
  } finally {
    parts.length = 0;
    release_document(doc);
  }
  const error = handler_errors.get(doc);
  if (error !== undefined) {
    handler_errors.delete(doc);
    throw error;
  }
  return bytes;
}

/**
 * Empties a finished document: its pages, its font table (and with it the
 * per-document fonts' glyph records), our plugin's entry and every property
 * of the document object itself.
 *
 * Why: V8 allocates the functions jsPDF's constructor assigns to the
 * document's properties (hundreds) in the old generation from birth. Until
 * a full collection finds them dead, each keeps the constructor's scope
 * alive, and with it the document object and everything it reaches: every
 * scavenge in between copies that state and then promotes it, so each
 * render left its document's state to the next full collection. Emptied,
 * the scope holds a few small objects.
 */
function release_document(doc: jsPDF): void {
  internals(doc).pages.length = 0;
  const table = font_tables.get(doc);
  if (table !== undefined) {
    for (const id of Object.keys(table)) delete table[id];
  }
  font_tables.delete(doc);
  plugins.delete(doc);
  const fields = doc as unknown as Record<string, unknown>;
  for (const key of Object.keys(fields)) delete fields[key];
}

/**
 * Wraps every page's content in a horizontal mirror (`-1 0 0 1 W 0 cm`), so
 * a left-to-right layout appears right to left; images are flipped back
 * within their own box. Call once, after the last drawing.
 */
export function mirror_pages(doc: jsPDF): void {
  const { pages } = internals(doc);
  const { width } = page_size(doc);
  for (const page of pages) {
    if (!Array.isArray(page)) continue;
    for (let i = 0; i + 1 < page.length; i++) {
      // jsPDF places an image as "w 0 0 h x y cm" followed by "/Ix Do".
      const m = /^(-?[\d.]+) 0 0 (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) cm$/.exec(
        page[i],
      );
      if (m !== null && /^\/\S+ Do$/.test(page[i + 1])) {
        const w = Number(m[1]);
        page[i] = `${-w} 0 0 ${m[2]} ${
          Math.round((Number(m[3]) + w) * 1000) / 1000
        } ${m[4]} cm`;
      }
    }
    page.unshift(`q -1 0 0 1 ${width} 0 cm`);
    page.push("Q");
  }
}

/** jsPDF's processed image: strings of bytes plus dictionary values. */
export interface JsPdfImage {
  data: string;
  sMask?: string;
  palette?: unknown;
  index: number;
  alias: string;
  [key: string]: unknown;
}

/** jsPDF's decoder of one image format (`processPNG`, `processJPEG`). */
export type ImageProcessor = (
  data: Uint8Array,
  index: number,
  alias: string,
  compression: string,
) => JsPdfImage | undefined;

/**
 * Runs `add` (an `addImage` call) with jsPDF's decoder of `format` replaced,
 * for this document only, by `wrap(original)`.
 */
export function with_image_processor(
  doc: jsPDF,
  format: "PNG" | "JPEG",
  wrap: (original: ImageProcessor) => ImageProcessor,
  add: () => void,
): void {
  const method = `process${format}`;
  const processors = doc as unknown as Record<string, ImageProcessor>;
  const original = processors[method].bind(doc);
  // An own property on this document only; jsPDF calls
  // `this["process" + format]`.
  processors[method] = wrap(original);
  try {
    add();
  } finally {
    delete processors[method];
  }
}

/** Hooks into the writing of a document's file (PDF/A objects). */
export interface OutputHooks extends JsPdfWriter {
  /** Calls `callback` after the resources, where extra objects go. */
  after_resources(callback: () => void): void;
  /** Calls `callback` inside the catalog dictionary, for extra entries. */
  in_catalog(callback: () => void): void;
  /** Passes every string jsPDF writes into the file through `edit`. */
  edit_output(edit: (text: string) => string): void;
  set_pdf_version(version: "1.7"): void;
  /** The document information dictionary's entries (title, author…). */
  document_properties(): Record<string, string>;
  /** The creation date as written into the file (`D:…`). */
  creation_date(): string;
}

/** {@link OutputHooks} of `doc`. */
export function output_hooks(doc: jsPDF): OutputHooks {
  const internal = internals(doc);
  const output = hidden(doc);
  return {
    newObject: () => internal.newObject(),
    out: (line) => internal.out(line),
    putStream: (options) => internal.putStream(options),
    after_resources(callback) {
      internal.events.subscribe("postPutResources", callback);
    },
    in_catalog(callback) {
      internal.events.subscribe("putCatalog", callback);
    },
    edit_output(edit) {
      internal.events.subscribe("buildDocument", () => {
        const write = internal.write as (...values: unknown[]) => unknown;
        internal.write = ((...values: unknown[]) =>
          write(
            ...values.map((value) =>
              typeof value === "string" ? edit(value) : value
            ),
          )) as JsPdfInternals["write"];
      });
    },
    set_pdf_version: (version) => output.setPdfVersion(version),
    document_properties: () => output.getDocumentProperties(),
    creation_date: () => String(doc.getCreationDate("pdf") as unknown),
  };
}

/** The private members of jsPDF this module relies on that are missing. */
export function missing_jspdf_members(): string[] {
  const doc = new jsPDF({ unit: "pt" });
  const internal = doc.internal as unknown as Record<string, unknown>;
  const output = (doc as unknown as { __private__: Record<string, unknown> })
    .__private__;
  const api = jsPDF.API as unknown as Record<string, unknown>;
  const checks: [string, unknown][] = [
    ["API.events", Array.isArray(api.events)],
    ["API.processDataByFilters", typeof api.processDataByFilters],
    ["API.processArabic", typeof api.processArabic],
    [
      "processPNG",
      typeof (doc as unknown as Record<string, unknown>).processPNG,
    ],
    [
      "processJPEG",
      typeof (doc as unknown as Record<string, unknown>).processJPEG,
    ],
    ["internal.getFont", typeof internal.getFont],
    ["internal.write", typeof internal.write],
    ["internal.pages", Array.isArray(internal.pages)],
    ["internal.newObject", typeof internal.newObject],
    ["internal.out", typeof internal.out],
    ["internal.putStream", typeof internal.putStream],
    [
      "internal.events.subscribe",
      typeof (internal.events as Record<string, unknown>)?.subscribe,
    ],
    [
      "internal.events.unsubscribe",
      typeof (internal.events as Record<string, unknown>)?.unsubscribe,
    ],
    ["__private__.buildDocument", typeof output.buildDocument],
    [
      "__private__.setCustomOutputDestination",
      typeof output.setCustomOutputDestination,
    ],
    [
      "__private__.resetCustomOutputDestination",
      typeof output.resetCustomOutputDestination,
    ],
    ["__private__.setPdfVersion", typeof output.setPdfVersion],
    ["__private__.getDocumentProperties", typeof output.getDocumentProperties],
  ];
  return checks.filter(([, found]) => found !== "function" && found !== true)
    .map(([name]) => name);
}
