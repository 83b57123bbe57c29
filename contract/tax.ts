/**
 * Tax, discounts, charges and totals, EN 16931 style and exact: bigint
 * cents throughout, percentages rounded half away from zero, tax rounded
 * once per (category, rate) group — never per line, never from floats.
 */
import { type Decimal, decimal_from_number } from "./money.ts";
import type { TaxCategory } from "./invoice_types.ts";
import { COUNTRY_CODES } from "./einvoice_codes.ts";

/** Categories whose rate is always 0 and which need an exemption reason. */
export const EXEMPT_CATEGORIES: readonly TaxCategory[] = [
  "E",
  "AE",
  "K",
  "G",
  "O",
];

/** Printing and grouping order of the categories. */
export const TAX_CATEGORY_ORDER: readonly TaxCategory[] = [
  "S",
  "Z",
  "E",
  "AE",
  "K",
  "G",
  "O",
];

/** A resolved tax: category and exact rate. */
export interface ResolvedTax {
  category: TaxCategory;
  rate: Decimal;
}

/** The problem with a tax pair, and which of the two fields it concerns. */
export interface TaxProblem {
  field: "tax_rate" | "tax_category";
  message: string;
}

/**
 * Resolves a `tax_category` / `tax_rate` pair as given (either may be
 * absent): a rate alone is S (or Z at 0 %); a category alone has rate 0
 * unless it is S, which needs a rate. Returns undefined when both are absent.
 */
export function resolve_tax(
  category: TaxCategory | undefined,
  rate: number | undefined,
): ResolvedTax | TaxProblem | undefined {
  if (category === undefined && rate === undefined) return undefined;
  const resolved_category = category ?? ((rate ?? 0) > 0 ? "S" : "Z");
  if (rate === undefined && resolved_category === "S") {
    return {
      field: "tax_rate",
      message: "is required with tax_category S (standard rate)",
    };
  }
  const value = rate ?? 0;
  if (resolved_category === "S" && value === 0) {
    return {
      field: "tax_rate",
      message: "must be greater than 0 for category S (use Z for zero rated)",
    };
  }
  if (resolved_category !== "S" && value !== 0) {
    return {
      field: "tax_rate",
      message: `must be 0 for category ${resolved_category}`,
    };
  }
  return { category: resolved_category, rate: decimal_from_number(value) };
}

/** True for a {@link TaxProblem}. */
export function is_tax_problem(
  value: ResolvedTax | TaxProblem | undefined,
): value is TaxProblem {
  return value !== undefined && "field" in value;
}

/** A plain decimal string of a rate, e.g. "19", "7.7", "0". */
export function format_rate(rate: Decimal): string {
  if (rate.scale === 0) return rate.units.toString();
  const digits = rate.units.toString().padStart(rate.scale + 1, "0");
  const whole = digits.slice(0, digits.length - rate.scale);
  const fraction = digits.slice(digits.length - rate.scale).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}

/** Key of a (category, rate) group. */
export function group_key(tax: ResolvedTax): string {
  return `${tax.category}:${format_rate(tax.rate)}`;
}

const VAT_SEPARATORS = /[\s.\-]+/g;
const VAT_SHAPE = /^[A-Z]{2}[0-9A-Z+*]{2,}$/;

/**
 * The VAT identifier in `tax_id`, compacted (`"DE 123 456 789"` →
 * `"DE123456789"`), or undefined when it is none: after removing spaces,
 * dots and dashes it must start with a country code (or EL, Greece's VAT
 * prefix) followed by letters, digits, + or * (BR-CO-09). Tax numbers such
 * as `12/345/67890` are not VAT identifiers.
 */
export function vat_identifier(tax_id: string): string | undefined {
  const compact = tax_id.replace(VAT_SEPARATORS, "").toUpperCase();
  if (!VAT_SHAPE.test(compact)) return undefined;
  const prefix = compact.slice(0, 2);
  return prefix === "EL" || COUNTRY_CODES.has(prefix) ? compact : undefined;
}
