/**
 * How the invoice looks: colours, type sizes, spacing, the page's margins
 * and the styles of table cells, in one place. Sections read these; none
 * has a size or colour of its own.
 *
 * All lengths are PDF points (1/72 in). A4 is 595.28 × 841.89 pt.
 *
 * @module
 */

import type { Rgb } from "./pdf_syntax.ts";

export type { Rgb };

/** Restrained palette: near-black ink, one grey for labels, hairlines. */
export const COLORS = {
  ink: [26, 31, 54],
  muted: [105, 115, 134],
  rule: [225, 229, 235],
  rule_strong: [160, 168, 180],
  link: [29, 78, 216],
  /** The "not valid for accounting" line of marked documents. */
  mark: [214, 64, 64],
} as const satisfies Record<string, Rgb>;

/** Type sizes. */
export const SIZES = {
  title: 22,
  amount_due: 16,
  total: 11,
  name: 10.5,
  body: 9.5,
  /** Party lines under the name. */
  party: 9,
  label: 8.5,
  footer: 8,
  /** The caption under the QR code. */
  caption: 7,
} as const;

/** Line height as a multiple of the type size. */
export const LINE_HEIGHT_FACTOR = 1.3;

/**
 * Where the first baseline of a text block lies below its top, in type
 * sizes (autotable's text placement, which every table keeps).
 */
export const BASELINE_FACTOR = 0.85;

/** Paper sizes (`page_size`: the invoice's, else the locale's). */
export const PAGE_SIZES = {
  a4: { width: 595.28, height: 841.89 },
  letter: { width: 612, height: 792 },
} as const;

/** The page's margins. */
export const MARGINS = {
  x: 48,
  /** Top of page 1 (the header). */
  top: 36,
  /**
   * Bottom margin of the flowing content without a legal footer; the page
   * line sits below it, the legal footer adds its lines.
   */
  bottom: 48,
  /** The footer's baseline above the page's bottom edge. */
  footer_baseline: 28,
} as const;

/** Continuation pages: the running header above the flowing content. */
export const RUNNING_HEADER = {
  /** Its baseline below the page's top edge. */
  baseline: 36,
  /** From its baseline to its rule. */
  rule_gap: 7,
  /** From its rule to the flowing content. */
  content_gap: 14,
  /** Its rule's line width (colour: `COLORS.rule`). */
  rule_width: 0.5,
} as const;

/** The legal footer (`sender.legal_info`) above the page line. */
export const LEGAL_FOOTER = {
  size: 6.5,
  /** At most this many lines; longer text is set smaller to fit. */
  max_lines: 3,
  /** From its last baseline to the page line's baseline. */
  gap: 12,
  /** Smallest size it is shrunk to. */
  min_size: 4,
} as const;

/** The page footer: the invoice reference on the left, "Page X of Y" right. */
export const FOOTER = {
  /** Share of the content width the reference may take. */
  reference_share: 0.7,
} as const;

/** Vertical space between the sections, above the second one. */
export const SECTION_GAPS = {
  /** From the rule under the title to the parties and details. */
  parties: 14,
  items: 18,
  payment: 16,
  notes: 14,
} as const;

/**
 * Header of page 1: the logo and the title on one row, a rule under them;
 * below, the parties in two columns and a third with the amount due and
 * the invoice details.
 */
export const HEADER = {
  logo: { width: 150, height: 40 },
  /** Share of the content width the title may take beside the logo. */
  title_share: 0.55,
  /** The title's baseline below its top, in title sizes. */
  title_baseline: 0.75,
  /** From the row's bottom to the rule under it. */
  rule_gap: 8,
  /** The rule under the header: line width (colour: the brand's). */
  rule_width: 1.25,
  /** Share of the content width of each party column (the rest: details). */
  party_share: 0.3,
  /** Room between the details column and the parties. */
  details_gap: 12,
  /** The amount due is shrunk to fit, never below this size. */
  amount_min_size: 7,
  /** From the top of the column to the amount-due label's baseline. */
  amount_label_baseline: 7,
  /** From the label's baseline to the top of the amount. */
  amount_gap: 4,
  /** From the amount's baseline to the top of the details. */
  facts_gap: 8,
  /** The details' labels take at most this share of the column (longer ones wrap). */
  facts_label_share: 0.5,
} as const;

/** The smallest contrast against white of brand-coloured text (WCAG AA). */
export const BRAND_TEXT_CONTRAST = 4.5;

/** Label/value lists (details, payment): label column bounds and spacing. */
export const KEY_VALUES = {
  label_min: 78,
  label_max: 150,
  /** Room after the widest label. */
  label_gap: 10,
  /** Labels wrap this much before the value column. */
  label_wrap_gap: 6,
  /** Padding above a row's text; a row is its lines plus `row_gap`. */
  row_top: 1.5,
  row_gap: 3,
} as const;

/** The tax breakdown's columns and rows. */
export const TAX_BREAKDOWN = {
  /** Money columns are at least this wide. */
  money_min: 64,
  /** A money column grows to fit its header up to this width; beyond, the header wraps. */
  money_header_max: 104,
  /** Space above a row's text; a row has `row_padding` in all. */
  row_top: 3,
  row_padding: 6,
  /** From the header's last line to its rule. */
  head_gap: 3,
  /** Space under an exemption reason. */
  reason_gap: 2,
  /** The rule under the header: [line width, colour]. */
  head_rule: [0.5, COLORS.rule_strong],
} as const;

/** Least widths of the items table's numeric columns. */
export const ITEM_COLUMN_MIN = {
  quantity: 44,
  unit: 40,
  unit_price: 70,
  tax_rate: 40,
  amount: 84,
} as const;

/** Items table cell padding. */
export const CELL_PADDING = { x: 8, y: 3.5 } as const;

/** The totals on the right under the items, the tax breakdown at their left. */
export const TOTALS = {
  /** Share of the content width the totals take. */
  share: 0.38,
  /** Air between the last item row and the totals (and the breakdown beside them). */
  top_gap: 8,
  /** From the breakdown to the notes beside the totals. */
  notes_gap: 12,
  /** Room between the tax breakdown and the totals. */
  gap: 18,
  /** The breakdown's first column needs at least this much, else it goes under the totals. */
  breakdown_first_min: 64,
} as const;

/**
 * The "How to pay" box: bank details on the left, terms and early-payment
 * discounts under them, the EPC QR code on the right; never split.
 */
export const PAYMENT = {
  /** Side of the EPC QR code, quiet zone excluded: about 2.4 cm. */
  qr_size: 68,
  /** Room between the details and the QR code (and under the code). */
  qr_gap: 16,
  /** Padding inside the box. */
  box_padding: 10,
  /** The box's border: [line width, colour]. */
  box_rule: [0.75, [225, 229, 235]],
  /** From the rows to the terms under them. */
  terms_gap: 4,
  /** From the heading's line to the first row. */
  heading_gap: 5,
  /** The caption under the code may be this much wider than the code. */
  caption_overhang: 24,
  /** From the code's bottom to the caption's first baseline. */
  caption_gap: 10,
} as const;

/** Cell padding in points. */
export interface Padding {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/** How one table cell looks. */
export interface CellStyle {
  bold: boolean;
  size: number;
  color: Rgb;
  right: boolean;
  padding: Padding;
  /** A rule along the cell's top or bottom edge: [line width, colour]. */
  rule_top?: readonly [number, Rgb];
  rule_bottom?: readonly [number, Rgb];
}

/** Padding with the sides not given at 0. */
export function padding(sides: Partial<Padding>): Padding {
  return { top: 0, right: 0, bottom: 0, left: 0, ...sides };
}

/** A table cell style: regular, body size, ink, left-aligned, no padding. */
export function cell_style(overrides: Partial<CellStyle>): CellStyle {
  return {
    bold: false,
    size: SIZES.body,
    color: COLORS.ink,
    right: false,
    padding: padding({}),
    ...overrides,
  };
}

/** Header details: labels and values (see `sections/details.ts`). */
export const FACT_LABEL = cell_style({
  size: SIZES.label,
  color: COLORS.muted,
  // Smaller labels sit lower so they share the values' baseline.
  padding: padding({
    top: 1.5 + (SIZES.body - SIZES.label) * 0.85,
    bottom: 1.5,
  }),
});
export const FACT_VALUE = cell_style({
  padding: padding({ top: 1.5, bottom: 1.5 }),
});

/** Party blocks: heading, name, lines (see `sections/parties.ts`). */
export const PARTY_HEAD = cell_style({
  size: SIZES.label,
  color: COLORS.muted,
  padding: padding({ bottom: 4, right: 14 }),
});
export const PARTY_NAME = cell_style({
  bold: true,
  size: SIZES.name,
  padding: padding({ bottom: 2, right: 14 }),
});
export const PARTY_LINES = cell_style({
  size: SIZES.party,
  padding: padding({ right: 14 }),
});

/** Notes: heading and paragraphs (see `sections/notes.ts`). */
export const NOTES_HEAD = cell_style({
  size: SIZES.label,
  color: COLORS.muted,
  padding: padding({ bottom: 4 }),
});
export const NOTES_BODY = cell_style({ padding: padding({ bottom: 1 }) });

const ITEM_PAD = padding({
  top: CELL_PADDING.y,
  bottom: CELL_PADDING.y,
  left: CELL_PADDING.x,
  right: CELL_PADDING.x,
});
const ITEM_HEAD = cell_style({
  size: SIZES.label,
  color: COLORS.muted,
  padding: { ...ITEM_PAD, top: 0, bottom: 5 },
  rule_bottom: [0.75, COLORS.rule_strong],
});
const ITEM_BODY = cell_style({ padding: ITEM_PAD });

/**
 * Items table cells by column position: the first column (the
 * description) is flush left, the last flush right, numbers right-aligned.
 */
export const ITEM_CELLS = {
  head: {
    first: { ...ITEM_HEAD, padding: { ...ITEM_HEAD.padding, left: 0 } },
    middle: { ...ITEM_HEAD, right: true },
    last: {
      ...ITEM_HEAD,
      right: true,
      padding: { ...ITEM_HEAD.padding, right: 0 },
    },
  },
  body: {
    first: { ...ITEM_BODY, padding: { ...ITEM_PAD, left: 0 } },
    middle: { ...ITEM_BODY, right: true },
    last: { ...ITEM_BODY, right: true, padding: { ...ITEM_PAD, right: 0 } },
  },
} as const satisfies Record<string, Record<string, CellStyle>>;

/** The hairline under each items-table row: [line width, colour]. */
export const ITEM_ROW_RULE = [0.5, COLORS.rule] as const;

const TIGHT_PAD = { ...ITEM_PAD, top: 1.5, bottom: 1.5 };
const TOTAL_RULE = [0.75, COLORS.rule_strong] as const;

/**
 * Kinds of totals rows: the first (subtotal), plain lines, strong totals,
 * and a note under them across the label and the value (small, muted).
 */
export type TotalKind = "first" | "plain" | "strong" | "note";

/** Totals cells by row kind: [empty first cell, label, value]. */
export const TOTAL_CELLS: Record<TotalKind, [CellStyle, CellStyle, CellStyle]> =
  {
    first: [
      ITEM_BODY,
      cell_style({
        right: true,
        color: COLORS.muted,
        padding: ITEM_PAD,
      }),
      cell_style({ right: true, padding: { ...ITEM_PAD, right: 0 } }),
    ],
    strong: [
      ITEM_BODY,
      cell_style({
        right: true,
        bold: true,
        size: SIZES.total,
        padding: ITEM_PAD,
        rule_top: TOTAL_RULE,
      }),
      cell_style({
        right: true,
        bold: true,
        size: SIZES.total,
        padding: { ...ITEM_PAD, right: 0 },
        rule_top: TOTAL_RULE,
      }),
    ],
    // Discounts, charges and tax lines sit closer together.
    plain: [
      cell_style({ padding: TIGHT_PAD }),
      cell_style({ right: true, color: COLORS.muted, padding: TIGHT_PAD }),
      cell_style({ right: true, padding: { ...TIGHT_PAD, right: 0 } }),
    ],
    // One cell across label and value: the note's style is the second.
    note: [
      cell_style({ padding: TIGHT_PAD }),
      cell_style({
        right: true,
        size: SIZES.label,
        color: COLORS.muted,
        padding: { ...TIGHT_PAD, right: 0 },
      }),
      cell_style({ right: true, padding: { ...TIGHT_PAD, right: 0 } }),
    ],
  };

/** Text styles of text drawn outside tables. */
export interface TextStyle {
  bold: boolean;
  size: number;
  color: Rgb;
}

export const TEXT = {
  title: { bold: true, size: SIZES.title, color: COLORS.ink },
  amount_due: { bold: true, size: SIZES.amount_due, color: COLORS.ink },
  body: { bold: false, size: SIZES.body, color: COLORS.ink },
  link: { bold: false, size: SIZES.body, color: COLORS.link },
  label: { bold: false, size: SIZES.label, color: COLORS.muted },
  caption: { bold: false, size: SIZES.caption, color: COLORS.muted },
  footer: { bold: false, size: SIZES.footer, color: COLORS.muted },
  mark_footer: { bold: true, size: SIZES.footer, color: COLORS.mark },
} as const satisfies Record<string, TextStyle>;

/** The marks of previews and test documents (see `page_marks.ts`). */
export const MARKS = {
  /** Fill of the large word (under the content). */
  watermark_fill: [244, 200, 200],
  /** Fills of the tiling, in turn: light, so the content reads over them. */
  tile_fills: [
    [247, 218, 218],
    [245, 222, 212],
    [242, 216, 226],
  ],
  /** Outline colours of the large word's letters, in turn. */
  outline_strokes: [
    [214, 64, 64],
    [196, 56, 92],
    [222, 96, 56],
  ],
  watermark_size: 110,
  outline_width: 0.9,
  /** Width a tile word is scaled to, and its size at most. */
  tile_width: 150,
  tile_max_size: 44,
  /** Tiling steps along the diagonal and across it. */
  tile_gap: 90,
  tile_row_step: 150,
  /** Tiles whose centre lies this close to the page edge are left out. */
  tile_inset: 24,
  /** The footer line's baseline above the page footer's, in footer sizes. */
  footer_raise: 1.8,
} as const;
