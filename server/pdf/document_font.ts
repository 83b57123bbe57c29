/**
 * The per-document face of a font: what one document draws in it (glyphs
 * and the text each stands for), its widths, and line wrapping.
 *
 * @module
 */

import type { PreparedFont } from "./prepared_font.ts";
import {
  measure_line,
  needs_text_layout,
  type TextLayoutOptions,
} from "./text_layout.ts";
import { wrap_paragraph } from "./line_break.ts";
import { BoundedCache } from "./bounded_cache.ts";

/** Per-document text layout settings (locale, paragraph direction). */
export interface DocumentTextSettings {
  /** Invoice locale (BCP 47): regional Han glyphs. */
  locale?: string;
  /** Paragraph direction of the layout; by default per line. */
  direction?: "ltr" | "rtl";
  /**
   * All of the document's text, asked for only when Han characters need a
   * font and there is no locale: kana anywhere makes them Japanese, hangul
   * Korean.
   */
  context?: () => string;
  /**
   * Right-to-left layout: every page is drawn mirrored (see
   * {@link finish_mirrored_pages}) and all text, Latin included, goes
   * through the text layout so it reads normally.
   */
  mirrored?: boolean;
}

/**
 * The Han hint of each document, by its text settings, which all fonts of
 * the document share: the document's text is serialized and searched once,
 * not once per font.
 */
const han_hints = new WeakMap<DocumentTextSettings, string | undefined>();

/**
 * The per-document face of a font: it records which glyphs the document
 * uses and for which characters, so `font_embedding.ts` writes only those.
 */
export class DocumentFont {
  readonly prepared: PreparedFont;
  /**
   * Glyph id → the UTF-16 code unit (Latin text) or the text (shaped
   * clusters, e.g. a lam-alef ligature) it was used for: the ToUnicode map.
   */
  readonly to_unicode: Record<number, number | string> = {};
  /**
   * Script fonts only: the document's CIDs, by glyph id and text
   * (`gid\0text`). Shaped glyphs are shared between characters (Noto Sans Arabic draws the dotless base of ب ت ث ن
   * ي once and adds the dots as marks), so one glyph can stand for
   * different text. Each distinct (glyph, text) pair gets a CID of its own;
   * `/CIDToGIDMap` maps CIDs to the font's glyph ids, which stay as the
   * shaper gave them, and ToUnicode maps each CID to its exact text.
   */
  readonly cids: Map<string, number> = new Map();
  /** Glyph id → the CID of the first text it stood for. */
  readonly first_cids: Map<number, number> = new Map();
  /** CID → glyph id (index 0: .notdef). */
  readonly cid_gids: number[] = [0];
  /** CID → text it stands for ("" for marks of a cluster already told). */
  readonly cid_texts: string[] = [""];

  /** The CID showing glyph `gid` for `text` (script fonts). */
  cid_for(gid: number, text: string): number {
    // Most glyphs stand for one text only: its CID is found by glyph id
    // and one comparison, without building and hashing a key.
    const first = this.first_cids.get(gid);
    if (first !== undefined && this.cid_texts[first] === text) return first;
    const key = `${gid}\u0000${text}`;
    let cid = this.cids.get(key);
    if (cid === undefined) {
      cid = this.cid_gids.length;
      this.cids.set(key, cid);
      if (first === undefined) this.first_cids.set(gid, cid);
      this.cid_gids.push(gid);
      this.cid_texts.push(text);
    }
    return cid;
  }
  /** Settings of the document's text layout (shared by its fonts). */
  readonly text_settings: DocumentTextSettings;

  constructor(prepared: PreparedFont, settings: DocumentTextSettings = {}) {
    this.prepared = prepared;
    this.text_settings = settings;
  }

  /** "ja" or "ko" when the document's text has kana or hangul. */
  han_hint(): string | undefined {
    const settings = this.text_settings;
    if (han_hints.has(settings)) return han_hints.get(settings);
    const text = settings.context?.() ?? "";
    const hint = /[\u3040-\u30ff\u31f0-\u31ff]/.test(text)
      ? "ja"
      : /[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]/.test(text)
      ? "ko"
      : undefined;
    han_hints.set(settings, hint);
    return hint;
  }

  /** Layout options for text in this (Latin) font. */
  layout_options(): TextLayoutOptions {
    return {
      latin: this.prepared,
      bold: this.prepared.style === "bold",
      locale: this.text_settings.locale ?? this.han_hint(),
      direction: this.text_settings.direction,
    };
  }

  /** Width of `text` at font size `size`, in points. */
  width_of_string(text: string, size: number, char_space = 0): number {
    const { code_map, widths } = this.prepared;
    let width = 0;
    for (let i = 0; i < text.length; i++) {
      const gid = code_map[text.charCodeAt(i)];
      if (gid === 0) {
        // Not Latin-font text: shaped and measured by the text layout.
        width = measure_line(text, this.layout_options());
        break;
      }
      width += widths[gid];
    }
    if (char_space) width += text.length * char_space * (1000 / size);
    return (width * size) / 1000;
  }

  /**
   * Encodes sanitized text as Identity-H glyph ids in hex, recording the
   * glyphs for the font subset and the ToUnicode map.
   */
  encode_hex(text: string): string {
    const { code_map, gid_hex } = this.prepared;
    const to_unicode = this.to_unicode;
    let hex = "";
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      const gid = code_map[code];
      to_unicode[gid] = code;
      hex += gid_hex[gid];
    }
    return hex;
  }
}

/** Options of {@link wrap_text}. */
export interface WrapOptions {
  /** Font the text is set in. */
  font: DocumentFont;
  /** Font size in points. */
  size: number;
  /** Longest line, in points. */
  max_width: number;
}

/**
 * Splits text into lines no wider than `max_width` points: at "\n", then at
 * spaces; a word wider than a line (e.g. 1,500 "A"s, a long URL) is cut
 * between characters so it wraps instead of running off the page. Lines
 * joined in order give back the text, minus the spaces and newlines they
 * were broken at.
 */
export function wrap_text(
  text: string | string[],
  { font, size, max_width }: WrapOptions,
): string[] {
  const paragraphs = Array.isArray(text)
    ? text.flatMap((t) => t.split("\n"))
    : text.split("\n");
  const out: string[] = [];
  const space = font.width_of_string(" ", size);
  for (const paragraph of paragraphs) {
    if (font.width_of_string(paragraph, size) <= max_width) {
      out.push(paragraph);
      continue;
    }
    if (needs_text_layout(paragraph, font.prepared)) {
      out.push(...wrapped_paragraph(paragraph, font, size, max_width));
      continue;
    }
    let line: string | null = null;
    let line_width = 0;
    for (const word of paragraph.split(" ")) {
      const word_width = font.width_of_string(word, size);
      if (line !== null && line_width + space + word_width <= max_width) {
        line += " " + word;
        line_width += space + word_width;
        continue;
      }
      if (line !== null) out.push(line);
      if (word_width <= max_width) {
        line = word;
        line_width = word_width;
        continue;
      }
      let chunk = "";
      let chunk_width = 0;
      for (let i = 0; i < word.length; i++) {
        const ch = word[i];
        const w = font.width_of_string(ch, size);
        if (chunk !== "" && chunk_width + w > max_width) {
          out.push(chunk);
          chunk = "";
          chunk_width = 0;
        }
        chunk += ch;
        chunk_width += w;
      }
      line = chunk;
      line_width = chunk_width;
    }
    if (line !== null) out.push(line);
  }
  return out;
}

/**
 * Paragraphs in other scripts than the Latin font's, wrapped, per worker,
 * by everything their wrapping depends on: invoices of one sender repeat
 * their parties, terms and item texts, and such a paragraph is segmented
 * into pieces that are each measured.
 */
const wrapped_paragraphs = new BoundedCache<readonly string[]>({
  entries: 20_000,
  bytes: 2 * 1024 * 1024,
});

/** {@link wrap_paragraph} of `paragraph` in `font`, cached. */
function wrapped_paragraph(
  paragraph: string,
  font: DocumentFont,
  size: number,
  max_width: number,
): readonly string[] {
  const { locale, direction } = font.layout_options();
  const key = `${font.prepared.postscript}\u0000${locale ?? ""}\u0000` +
    `${direction ?? ""}\u0000${size}\u0000${max_width}\u0000${paragraph}`;
  return wrapped_paragraphs.cached(
    key,
    () =>
      wrap_paragraph(paragraph, {
        measure: (t) => font.width_of_string(t, size),
        max_width,
      }),
    (lines) => {
      let bytes = 2 * key.length + 100;
      for (const line of lines) bytes += 2 * line.length + 40;
      return bytes;
    },
  );
}
