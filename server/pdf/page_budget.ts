/**
 * The cost bound of one document: at most {@link MAX_PAGES} pages, checked
 * before rendering with a lower bound of the page count, and an estimate
 * of the render time that the render pool uses to keep expensive documents
 * from taking every worker. The renderer stops at the limit as a backstop.
 *
 * The lower bound counts what each script takes on a line: every character
 * is given the narrowest advance its font has in its block (measured from
 * the fonts and checked against shaped text in `tests/render/page_budget.test.ts`),
 * so CJK text (a full em a character) wraps in the estimate as it does on
 * the page, while the estimate stays below the real count for any text.
 *
 * @module
 */
import type { Invoice } from "../../contract/invoice_types.ts";
import {
  CELL_PADDING,
  ITEM_COLUMN_MIN,
  MARGINS,
  PAGE_SIZES,
  RUNNING_HEADER,
  SIZES,
} from "./styles.ts";
import { locale_texts, type PageSize } from "./locales.ts";

/** Most pages a document may have. */
export const MAX_PAGES = 100;

/** Thrown when a document would exceed {@link MAX_PAGES}. */
export class PageLimitError extends Error {
  /** Builds the error for a document of at least `pages` pages. */
  constructor(readonly pages: number) {
    super(
      `The invoice would have at least ${pages} pages; at most ${MAX_PAGES} are allowed ` +
        "(shorten descriptions and notes, or split it into several invoices)",
    );
    this.name = "PageLimitError";
  }
}

// The layout of the renderer (`styles.ts`) on each paper, each figure on
// the document's side: the widest a description's text can be (page width
// less margins, the narrowest numeric columns and the cell's right
// padding), the notes' full width, the body size, the line and row heights
// and the page height less the top of a continuation page's content and
// the bottom margin.
const FONT_SIZE = SIZES.body;
const LINE_HEIGHT = 12.3;
const ROW_PADDING = 2 * CELL_PADDING.y;
const CONTENT_TOP = RUNNING_HEADER.baseline + RUNNING_HEADER.rule_gap +
  RUNNING_HEADER.content_gap;

/** The figures of one paper. */
interface PaperFigures {
  notes_width: number;
  description_width: number;
  usable_height: number;
}

function paper_figures(size: PageSize): PaperFigures {
  const notes_width = PAGE_SIZES[size].width - 2 * MARGINS.x;
  return {
    notes_width,
    description_width: notes_width -
      (ITEM_COLUMN_MIN.quantity + ITEM_COLUMN_MIN.unit_price +
        ITEM_COLUMN_MIN.amount) -
      CELL_PADDING.x,
    usable_height: PAGE_SIZES[size].height - CONTENT_TOP - MARGINS.bottom,
  };
}

const PAPERS: Record<PageSize, PaperFigures> = {
  a4: paper_figures("a4"),
  letter: paper_figures("letter"),
};

/** The figures of the paper `invoice` is printed on. */
function figures_of(invoice: Invoice): PaperFigures {
  return PAPERS[invoice.page_size ?? locale_texts(invoice.locale).page_size];
}

/** Width of a space (1/1000 em): a line may drop one where it breaks. */
const SPACE = 260;

/**
 * The narrowest advance (1/1000 em) of a character that takes room, by
 * block, and whether the block is drawn by a script font (shaped, about
 * five times the work of Latin text). Combining marks, format and control
 * characters take no room; blocks not listed count as 0 (narrowest
 * possible).
 */
const CHARACTER_WIDTHS: readonly [
  start: number,
  end: number,
  width: number,
  script: boolean,
][] = [
  [0x0021, 0x007e, 225, false],
  [0x00a1, 0x024f, 225, false],
  [0x0370, 0x03ff, 160, false],
  [0x0400, 0x052f, 250, false],
  [0x0530, 0x058f, 140, true], // Armenian
  [0x0590, 0x05ff, 170, true], // Hebrew
  [0x0600, 0x06ff, 130, true], // Arabic (ligatures: about half a glyph)
  [0x0750, 0x077f, 130, true],
  [0x0870, 0x08ff, 130, true],
  [0x0900, 0x097f, 250, true], // Devanagari (conjuncts: see VIRAMAS)
  [0x0980, 0x09ff, 250, true], // Bengali
  [0x0b80, 0x0bff, 250, true], // Tamil
  [0x0e00, 0x0e7f, 280, true], // Thai
  [0x10a0, 0x10ff, 340, true], // Georgian
  [0x1c90, 0x1cbf, 340, true],
  [0x1e00, 0x1eff, 250, false],
  [0x1f00, 0x1fff, 230, false],
  [0x2d00, 0x2d2f, 340, true],
  // CJK: a full em (or one "�", also an em), less what kerning between
  // kana (e.g. "ティ": 60) or hangul may take.
  [0x3040, 0x30ff, 900, true], // kana
  [0x3400, 0x4dbf, 950, true], // CJK ideographs
  [0x4e00, 0x9fff, 950, true],
  [0xac00, 0xd7af, 850, true], // hangul syllables
  [0xf900, 0xfaff, 950, true],
  [0xfb13, 0xfb17, 140, true],
  [0xfb1d, 0xfb4f, 170, true],
  [0xfb50, 0xfdff, 130, true],
  [0xfe70, 0xfeff, 130, true],
  [0xff01, 0xffef, 500, true], // full- and half-width forms
  [0x20000, 0x3134f, 950, true],
];

/**
 * Signs that join the consonant before them to the next one (a conjunct,
 * a half form or a reph may take no room of its own): that consonant
 * counts 0.
 */
const VIRAMAS = new Set([0x094d, 0x09cd, 0x0bcd]);

const NOT_SPACING = /[\p{M}\p{Cf}\p{Cc}]/u;

function block_of(cp: number): number {
  let low = 0;
  let high = CHARACTER_WIDTHS.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const [start, end] = CHARACTER_WIDTHS[mid];
    if (cp < start) high = mid - 1;
    else if (cp > end) low = mid + 1;
    else return mid;
  }
  return -1;
}

// Every BMP character's entry, built on first use (a few ms): its width,
// and whether it is drawn by a script font.
const WIDTH_MASK = 0x3fff;
const VIRAMA_FLAG = 0x4000;
const SCRIPT_FLAG = 0x8000;
let bmp_entries: Uint16Array | undefined;

function bmp_table(): Uint16Array {
  if (bmp_entries === undefined) {
    bmp_entries = new Uint16Array(0x10000);
    for (const [start, end, width, script] of CHARACTER_WIDTHS) {
      for (let c = start; c <= Math.min(end, 0xffff); c++) {
        const spacing = !NOT_SPACING.test(String.fromCharCode(c));
        bmp_entries[c] = (spacing ? width : 0) | (script ? SCRIPT_FLAG : 0);
      }
    }
    for (const virama of VIRAMAS) bmp_entries[virama] |= VIRAMA_FLAG;
  }
  return bmp_entries;
}

function astral_entry_of(cp: number): number {
  const block = block_of(cp);
  if (block < 0) return 0;
  const [, , width, script] = CHARACTER_WIDTHS[block];
  return width | (script ? SCRIPT_FLAG : 0);
}

/** What a text costs: its narrowest width, and characters by kind. */
interface TextMeasure {
  /** Lower bound of the drawn width, 1/1000 em (spaces included). */
  width: number;
  latin: number;
  script: number;
}

/**
 * The lower bound of `text`'s width (no line breaks in it) and how many of
 * its characters are Latin-font and script-font ones.
 */
export function measure_min_width(text: string): TextMeasure {
  let width = 0;
  let latin = 0;
  let script = 0;
  // Width of the last character that took room, taken back when a virama
  // follows it (marks in between, e.g. a nukta, do not change that).
  let previous_width = 0;
  const entries = bmp_table();
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      cp = text.codePointAt(i)!;
      i++;
    }
    if (cp === 0x20) {
      width += SPACE;
      latin++;
      previous_width = SPACE;
      continue;
    }
    // Every virama is in the BMP: its entry carries the flag.
    const entry = cp > 0xffff ? astral_entry_of(cp) : entries[cp];
    if (entry & VIRAMA_FLAG) {
      width -= previous_width;
      script++;
      previous_width = 0;
      continue;
    }
    if (entry & SCRIPT_FLAG) script++;
    else latin++;
    const drawn = entry & WIDTH_MASK;
    if (drawn > 0) {
      width += drawn;
      previous_width = drawn;
    }
  }
  return { width, latin, script };
}

// Line breaks every text path of the renderer honours ("\u2028" and the
// like break lines only in text that needs the script pipeline).
const PARAGRAPH_BREAK = /\r\n?|\n/;

/** Lower bound of the lines `text` wraps to at `max_width` pt. */
function min_lines(
  text: string,
  max_width: number,
  totals: TextMeasure,
): number {
  let lines = 0;
  // A line holds at most max_width of text plus the space it broke at.
  const line_em = (max_width / FONT_SIZE) * 1000 + SPACE;
  // Below U+0300 every text is in NFC already (nothing there combines).
  const normalized = /[\u0300-\uffff]/.test(text)
    ? text.normalize("NFC")
    : text;
  // Most texts are one paragraph: no split (and no array) for them.
  const paragraphs = normalized.includes("\n") || normalized.includes("\r")
    ? normalized.split(PARAGRAPH_BREAK)
    : [normalized];
  for (const paragraph of paragraphs) {
    const measure = measure_min_width(paragraph);
    totals.latin += measure.latin;
    totals.script += measure.script;
    lines += Math.max(1, Math.ceil(measure.width / line_em));
  }
  return lines;
}

/** What a document will cost, estimated before rendering it. */
export interface DocumentEstimate {
  /** A lower bound of its page count. */
  min_pages: number;
  /**
   * Rough render time in milliseconds of one core (characters by kind,
   * rows, a large PNG logo to scale): what the render pool weighs.
   */
  cost_ms: number;
}

// Measured on a 2-core machine (warm worker): about 1.5 µs a Latin
// character, 8 µs a shaped one, 20 µs a row; a 4-megapixel PNG logo about
// 0.1-0.2 s to scale, once per worker (cached).
const COST_BASE_MS = 2;
const COST_PER_ROW_MS = 0.02;
const COST_PER_LATIN_MS = 0.0015;
const COST_PER_SCRIPT_MS = 0.008;
const COST_PER_LOGO_MEGAPIXEL_MS = 20;

/** Render cost (estimated ms) from which a document counts as expensive. */
export const EXPENSIVE_RENDER_MS = 100;

const estimates = new WeakMap<Invoice, DocumentEstimate>();

/** The page bound and cost estimate of `invoice` (computed once per object). */
export function estimate_document(invoice: Invoice): DocumentEstimate {
  const cached = estimates.get(invoice);
  if (cached !== undefined) return cached;
  const totals: TextMeasure = { width: 0, latin: 0, script: 0 };
  const paper = figures_of(invoice);
  let height = 0;
  for (const item of invoice.items) {
    height += min_lines(item.description, paper.description_width, totals) *
        LINE_HEIGHT + ROW_PADDING;
  }
  if (invoice.notes) {
    height += min_lines(invoice.notes, paper.notes_width, totals) *
      LINE_HEIGHT;
  }
  const logo = invoice.logo;
  const logo_megapixels = logo?.mime === "image/png"
    ? logo.width * logo.height / 1e6
    : 0;
  const estimate = {
    min_pages: Math.max(1, Math.ceil(height / paper.usable_height)),
    cost_ms: COST_BASE_MS + invoice.items.length * COST_PER_ROW_MS +
      totals.latin * COST_PER_LATIN_MS + totals.script * COST_PER_SCRIPT_MS +
      logo_megapixels * COST_PER_LOGO_MEGAPIXEL_MS,
  };
  estimates.set(invoice, estimate);
  return estimate;
}

/** A lower bound of the number of pages `invoice` renders to. */
export function estimate_min_pages(invoice: Invoice): number {
  return estimate_document(invoice).min_pages;
}

/** Throws a {@link PageLimitError} when `invoice` surely exceeds the page limit. */
export function check_page_budget(invoice: Invoice): void {
  const pages = estimate_min_pages(invoice);
  if (pages > MAX_PAGES) throw new PageLimitError(pages);
}
