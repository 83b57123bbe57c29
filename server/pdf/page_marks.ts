/**
 * The "not valid for accounting" marks of previews and test documents,
 * drawn so that they do not come off with one edit of the file:
 *
 * - the words are glyph outlines (paths), not text: deleting text objects
 *   leaves them;
 * - they repeat: a light tiling of small words under each page's content,
 *   and one large diagonal word filled under the content and outlined over
 *   it, each copy and each letter its own small block;
 * - they are interleaved with the page's content: the tiling starts every
 *   page, and the large word's outlines are drawn letter by letter between
 *   the sections, not as one block at the end;
 * - they use the content's own operators (DeviceRGB `rg`/`RG`, paths), in
 *   several tints and reds, so no one colour selects them all.
 *
 * The fills lie under the content (the invoice stays readable, without
 * transparency, which PDF/A forbids); only thin outlines cross it.
 *
 * @module
 */

import type { jsPDF } from "jspdf";
import { load_invoice_fonts } from "./fonts.ts";
import { word_outline, type WordOutline } from "./glyph_outlines.ts";
import { on_page_added, page_size, write_content } from "./jspdf_fence.ts";
import { pdf_number, rgb_operands } from "./pdf_syntax.ts";
import { MARKS } from "./styles.ts";

/** A mark on every page saying the document is not a real invoice. */
export interface PageMark {
  /** A large diagonal word across each page, e.g. "PREVIEW". */
  watermark: string;
  /** A line above each page's footer, e.g. "PREVIEW — not valid for accounting". */
  footer: string;
}

/** The mark of the dashboard's free previews. */
export const PREVIEW_MARK: PageMark = {
  watermark: "PREVIEW",
  footer: "PREVIEW \u2014 not valid for accounting",
};

/** The mark of documents made with a test key. */
export const TEST_MARK: PageMark = {
  watermark: "TEST",
  footer: "Test invoice \u2014 not valid for accounting",
};

const {
  watermark_fill: WATERMARK_FILL,
  tile_fills: TILE_FILLS,
  outline_strokes: OUTLINE_STROKES,
  watermark_size: WATERMARK_SIZE,
  outline_width: OUTLINE_WIDTH,
  tile_width: TILE_WIDTH,
  tile_max_size: TILE_MAX_SIZE,
  tile_gap: TILE_GAP,
  tile_row_step: TILE_ROW_STEP,
  tile_inset: TILE_INSET,
} = MARKS;
const ANGLE = Math.PI / 4;

/** DeviceRGB colour operands, as the renderer writes its own colours. */
const rgb = rgb_operands;

function num(value: number): string {
  return pdf_number(value, 3);
}

/** Where and how large one copy of a word is drawn. */
interface Placement {
  /** Centre of the word on the page (PDF user space, y up). */
  x: number;
  y: number;
  /** Font size (pt). */
  size: number;
}

/** The `cm` operands drawing `outline` at `placement`, rotated 45°. */
function word_matrix(outline: WordOutline, placement: Placement): string {
  const s = placement.size / outline.units_per_em;
  const cos = Math.cos(ANGLE) * s;
  const sin = Math.sin(ANGLE) * s;
  // The word's centre (half its advance, half the cap height) goes to x, y.
  const cx = outline.advance / 2;
  const cy = outline.cap_height / 2;
  const e = placement.x - (cx * cos - cy * sin);
  const f = placement.y - (cx * sin + cy * cos);
  return `${num(cos)} ${num(sin)} ${num(-sin)} ${num(cos)} ${num(e)} ${
    num(f)
  } cm`;
}

/** Centres of the tiling on a page of `width` × `height`. */
function tile_centres(
  width: number,
  height: number,
  tile_width: number,
): Array<{ x: number; y: number }> {
  const along = tile_width + TILE_GAP;
  const ux = Math.cos(ANGLE);
  const uy = Math.sin(ANGLE);
  const reach = Math.ceil(
    Math.hypot(width, height) / 2 / Math.min(
      along,
      TILE_ROW_STEP,
    ),
  ) + 1;
  const centres: Array<{ x: number; y: number }> = [];
  for (let row = -reach; row <= reach; row++) {
    const shift = row % 2 === 0 ? 0 : along / 2;
    for (let step = -reach; step <= reach; step++) {
      const a = step * along + shift;
      const b = row * TILE_ROW_STEP;
      const x = width / 2 + a * ux - b * uy;
      const y = height / 2 + a * uy + b * ux;
      if (
        x >= TILE_INSET && x <= width - TILE_INSET && y >= TILE_INSET &&
        y <= height - TILE_INSET
      ) centres.push({ x, y });
    }
  }
  return centres;
}

/**
 * Draws a {@link PageMark}'s graphics on a document while the document is
 * drawn: create it right after the document (it marks page 1 and every page
 * added later at their start), call {@link PageMarker.between_sections}
 * after each section and {@link PageMarker.finish} after the last drawing.
 */
export class PageMarker {
  readonly #doc: jsPDF;
  readonly #word: WordOutline;
  /** The whole underlay of a page (same on every page). */
  readonly #underlay: string;
  /** The large word's outline blocks, one per letter. */
  readonly #outlines: string[];
  /** Outline blocks drawn so far, per page (index 0: page 1). */
  readonly #drawn: number[] = [];
  readonly #stop_marking: () => void;

  /**
   * @param mirrored The pages are mirrored at the end (right-to-left
   *   layouts): the marks mirror back, so the words read normally.
   */
  constructor(doc: jsPDF, mark: PageMark, options: { mirrored?: boolean }) {
    this.#doc = doc;
    const font = load_invoice_fonts().bold.ttf;
    this.#word = word_outline(font, mark.watermark);
    const { width, height } = page_size(doc);
    const unmirror = options.mirrored ? `-1 0 0 1 ${num(width)} 0 cm ` : "";
    const centre: Placement = {
      x: width / 2,
      y: height / 2,
      size: WATERMARK_SIZE,
    };
    const centre_matrix = word_matrix(this.#word, centre);
    const tile_size = Math.min(
      TILE_MAX_SIZE,
      (TILE_WIDTH * this.#word.units_per_em) / this.#word.advance,
    );
    const tile_width = (this.#word.advance * tile_size) /
      this.#word.units_per_em;
    const tiles = tile_centres(width, height, tile_width).map((at, index) =>
      `q ${unmirror}${rgb(TILE_FILLS[index % TILE_FILLS.length])} rg ${
        word_matrix(this.#word, { ...at, size: tile_size })
      }\n${this.#word.path}f Q`
    );
    this.#underlay = [
      ...tiles,
      `q ${unmirror}${
        rgb(WATERMARK_FILL)
      } rg ${centre_matrix}\n${this.#word.path}f Q`,
    ].join("\n");
    const line_width = num(
      (OUTLINE_WIDTH * this.#word.units_per_em) / WATERMARK_SIZE,
    );
    this.#outlines = this.#word.letters.map((letter, index) =>
      `q ${unmirror}${
        rgb(OUTLINE_STROKES[index % OUTLINE_STROKES.length])
      } RG ${line_width} w 1 j ${centre_matrix}\n${letter}S Q`
    );
    this.#mark_page(1);
    this.#stop_marking = on_page_added(doc, () => {
      this.#mark_page(this.#doc.getNumberOfPages());
    });
  }

  /** The underlay at the start of a new page (the current one). */
  #mark_page(page: number): void {
    this.#drawn[page - 1] = 0;
    write_content(this.#doc, this.#underlay);
  }

  /** Draws one more letter's outline over every page's content so far. */
  between_sections(): void {
    this.#each_page((page) => this.#draw_outlines(page, 1));
  }

  /** Draws what is left of the marks on every page; stops marking new pages. */
  finish(): void {
    this.#stop_marking();
    this.#each_page((page) => this.#draw_outlines(page, this.#outlines.length));
  }

  #each_page(draw: (page: number) => void): void {
    const current = this.#doc.getCurrentPageInfo().pageNumber;
    const pages = this.#doc.getNumberOfPages();
    for (let page = 1; page <= pages; page++) {
      this.#doc.setPage(page);
      draw(page);
    }
    this.#doc.setPage(current);
  }

  #draw_outlines(page: number, count: number): void {
    const from = this.#drawn[page - 1] ?? 0;
    const to = Math.min(this.#outlines.length, from + count);
    for (let index = from; index < to; index++) {
      write_content(this.#doc, this.#outlines[index]);
    }
    this.#drawn[page - 1] = to;
  }
}
