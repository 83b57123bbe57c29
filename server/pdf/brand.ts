/**
 * The brand colour (`brand_color`, `#RRGGBB`) of an invoice: the title,
 * the rule under the header and the amount due take it. Text needs a
 * contrast of at least 4.5:1 against the white page (WCAG 2 AA, contrast
 * of relative luminances); a lighter colour is darkened for text, step by
 * step towards black in its own hue, until it has it, and the rule keeps
 * the colour as given. A colour is never refused.
 *
 * @module
 */

import { BRAND_TEXT_CONTRAST, COLORS, type Rgb } from "./styles.ts";

/** The colours the brand gives: for text and for the rule. */
export interface BrandColors {
  text: Rgb;
  rule: Rgb;
}

/** Without a brand colour: ink text and a strong grey rule. */
const UNBRANDED: BrandColors = { text: COLORS.ink, rule: COLORS.rule_strong };

/** `#RRGGBB` as its three channels. */
export function parse_hex_color(hex: string): Rgb {
  const value = Number.parseInt(hex.slice(1), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

/** WCAG 2 relative luminance of an sRGB colour. */
export function relative_luminance([r, g, b]: Rgb): number {
  const linear = (channel: number): number => {
    const c = channel / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** Contrast ratio of a colour against white (1 to 21). */
export function contrast_on_white(color: Rgb): number {
  return 1.05 / (relative_luminance(color) + 0.05);
}

/**
 * `color` darkened (each channel scaled down by the same factor, so the
 * hue stays) until its contrast against white reaches
 * {@link BRAND_TEXT_CONTRAST}; a colour that has it is returned as is.
 */
export function text_color(color: Rgb): Rgb {
  if (contrast_on_white(color) >= BRAND_TEXT_CONTRAST) return color;
  for (let factor = 0.98; factor > 0; factor -= 0.02) {
    const darker = color.map((c) => Math.floor(c * factor)) as unknown as Rgb;
    if (contrast_on_white(darker) >= BRAND_TEXT_CONTRAST) return darker;
  }
  return [0, 0, 0];
}

/** The colours of an invoice's `brand_color` (none: ink and grey). */
export function brand_colors(brand_color: string | undefined): BrandColors {
  if (brand_color === undefined) return UNBRANDED;
  const rule = parse_hex_color(brand_color);
  return { text: text_color(rule), rule };
}
