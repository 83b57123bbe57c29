/**
 * Line totals (BT-131): quantity × rate ÷ base quantity, exactly, with the
 * line's discounts and charges; the amount sent is taken when it is within
 * one minor unit of that value. Also what every step of the computation
 * shares.
 *
 * @module
 */
import type { LineAllowanceCharge } from "./invoice_types.ts";
import {
  decimal_from_number,
  decimal_to_string,
  divide_rounded,
  format_cents,
  format_decimal,
  percent_of,
  power_of_ten,
  small_decimal,
  subtract_decimals,
  to_cents,
} from "./money.ts";
import {
  ALLOWANCE_REASON_CODES,
  CHARGE_REASON_CODES,
} from "./einvoice_codes.ts";
import { is_tax_problem, resolve_tax, type ResolvedTax } from "./tax.ts";
import type { ParsedItem, ParsedRequest } from "./invoice_request.ts";

/** A path into the request. */
export type Path = (string | number)[];

/** One problem found in a request. */
export interface Problem {
  path: Path;
  message: string;
  error_code?: "logo_too_large";
}

/** One line, computed. */
export interface LineResult {
  /** It has one rate and its amount fits it. */
  valid: boolean;
  /** The line total in cents (the `amount` sent). */
  cents: bigint;
  tax?: ResolvedTax;
  discounts: LineAllowanceCharge[];
  charges: LineAllowanceCharge[];
  /** gross_rate − |rate|, when a gross rate is given. */
  price_discount?: string;
}

/** What every step needs. */
export interface Context {
  value: ParsedRequest;
  items_key: "items" | "line_items";
  minor_units: number;
  /** The smallest amount of the currency, in cents (1, or 100 without minor unit). */
  minor_unit_cents: bigint;
  has_tax: boolean;
  default_tax?: ResolvedTax;
  problems: Problem[];
}

/** `cents` rounded to the currency's minor unit, half away from zero. */
export function to_minor_unit(cents: bigint, context: Context): bigint {
  return divide_rounded(cents, context.minor_unit_cents) *
    context.minor_unit_cents;
}

function line_tax(
  context: Context,
  item: ParsedItem,
  path: Path,
  invoice_tax: ReturnType<typeof resolve_tax>,
): ResolvedTax | undefined {
  const own = resolve_tax(item.tax_category, item.tax_rate);
  if (is_tax_problem(own)) {
    context.problems.push({ path: [...path, own.field], message: own.message });
    return undefined;
  }
  const tax = own ?? context.default_tax;
  if (context.has_tax && !tax && !is_tax_problem(invoice_tax)) {
    context.problems.push({
      path: [...path, "tax_rate"],
      message:
        "is required because other lines have tax (or set an invoice-level tax_rate)",
    });
  }
  return context.has_tax ? tax : undefined;
}

/** quantity × rate ÷ base quantity, exactly, as cents numerator / denominator. */
function exact_line_product(
  item: ParsedItem,
  rate: number,
): { numerator: bigint; denominator: bigint } {
  const quantity = decimal_from_number(item.quantity);
  const price = decimal_from_number(rate);
  const base = decimal_from_number(item.base_quantity ?? 1);
  return {
    numerator: quantity.units * price.units * 10n ** BigInt(base.scale) * 100n,
    denominator: base.units * 10n ** BigInt(quantity.scale + price.scale),
  };
}

function line_adjustments(
  context: Context,
  entries: ParsedItem["discounts"],
  path: Path,
  base: bigint,
  charge: boolean,
): { entries: LineAllowanceCharge[]; total: bigint } {
  let total = 0n;
  const out = (entries ?? []).map((entry, index) => {
    const at = [...path, index];
    check_amount_or_percent(context, entry, at);
    check_reason_code(context, entry.reason_code, at, charge);
    if (entry.percent !== undefined && base < 0n) {
      context.problems.push({
        path: [...at, "percent"],
        message: `applies to quantity × rate, which is negative (${
          format_cents(base)
        }); give an amount`,
      });
    }
    const cents = entry.percent !== undefined
      ? percent_of(base, decimal_from_number(entry.percent), context)
      : to_cents(entry.amount ?? 0);
    total += cents;
    return {
      description: entry.description,
      amount: format_cents(cents),
      ...(entry.percent !== undefined
        ? {
          percent: format_decimal(entry.percent),
          base_amount: format_cents(base),
        }
        : {}),
      ...(entry.reason_code ? { reason_code: entry.reason_code } : {}),
    };
  });
  return { entries: out, total };
}

/**
 * The cents of a plain line (no line discounts or charges, no base
 * quantity) whose amount is quantity × rate to within one minor unit, found
 * in double arithmetic; undefined for any other line, which
 * {@linkcode exact_line_amounts} answers. Most lines are plain,
 * and every product, difference and bound below is checked to be a safe
 * integer, where a double is exact, so both answer alike.
 */
function plain_line_cents(
  context: Context,
  item: ParsedItem,
  rate: number,
): number | undefined {
  if (
    item.base_quantity !== undefined || item.discounts?.length ||
    item.charges?.length
  ) return undefined;
  const quantity = small_decimal(item.quantity);
  const price = small_decimal(rate);
  const amount = small_decimal(item.amount);
  if (
    quantity === undefined || price === undefined || amount === undefined ||
    amount.scale > 2
  ) return undefined;
  const denominator = power_of_ten(quantity.scale + price.scale);
  if (denominator === undefined) return undefined;
  const product = quantity.units * price.units;
  const numerator = product * 100;
  const cents = amount.units * power_of_ten(2 - amount.scale)!;
  const scaled_cents = cents * denominator;
  const off = scaled_cents - numerator;
  const bound = Number(context.minor_unit_cents) * denominator;
  const exact = Number.isSafeInteger(product) &&
    Number.isSafeInteger(numerator) && Number.isSafeInteger(cents) &&
    Number.isSafeInteger(scaled_cents) && Number.isSafeInteger(off) &&
    Number.isSafeInteger(bound);
  return exact && Math.abs(off) <= bound ? cents : undefined;
}

export function compute_line(
  context: Context,
  item: ParsedItem,
  index: number,
  line_problems: Problem[],
  invoice_tax: ReturnType<typeof resolve_tax>,
): LineResult {
  const path: Path = [context.items_key, index];
  const tax = line_tax(context, item, path, invoice_tax);
  const rate = item.rate ?? item.unit_price;
  const valid_rate = rate !== undefined &&
    (item.rate === undefined || item.unit_price === undefined);
  const plain = valid_rate ? plain_line_cents(context, item, rate) : undefined;
  const amounts: LineAmounts = plain !== undefined
    ? { valid: true, cents: BigInt(plain), discounts: [], charges: [] }
    : exact_line_amounts(context, item, {
      path,
      rate: valid_rate ? rate : undefined,
      line_problems,
    });
  return {
    valid: amounts.valid,
    cents: amounts.cents,
    tax,
    discounts: amounts.discounts,
    charges: amounts.charges,
    ...(item.gross_rate !== undefined && valid_rate
      ? { price_discount: price_discount(context, item, rate, path) }
      : {}),
  };
}

/** What a line's amount check gives: its cents, adjustments and validity. */
type LineAmounts = Pick<
  LineResult,
  "valid" | "cents" | "discounts" | "charges"
>;

/**
 * A line's amount checked on bigints, exactly, with its line discounts and
 * charges; `rate` undefined when the line gives neither or both of `rate`
 * and `unit_price`, and the amount is then not held against it.
 */
function exact_line_amounts(
  context: Context,
  item: ParsedItem,
  { path, rate, line_problems }: {
    path: Path;
    rate: number | undefined;
    line_problems: Problem[];
  },
): LineAmounts {
  const product = exact_line_product(item, rate ?? 0);
  const base = to_minor_unit(
    divide_rounded(product.numerator, product.denominator),
    context,
  );
  const discounts = line_adjustments(
    context,
    item.discounts,
    [...path, "discounts"],
    base,
    false,
  );
  const charges = line_adjustments(
    context,
    item.charges,
    [...path, "charges"],
    base,
    true,
  );
  const adjustment = charges.total - discounts.total;
  const cents = to_cents(item.amount);
  const exact_cents = decimal_from_number(item.amount).scale <= 2;
  const off = (cents - adjustment) * product.denominator - product.numerator;
  const within = (off < 0n ? -off : off) <=
    context.minor_unit_cents * product.denominator;
  if (rate !== undefined && (!exact_cents || !within)) {
    const terms = item.base_quantity !== undefined
      ? "quantity × rate ÷ base_quantity"
      : "quantity × rate";
    const adjusted = item.discounts?.length || item.charges?.length
      ? " − line discounts + line charges"
      : "";
    line_problems.push({
      path: [...path, "amount"],
      message: `must equal ${terms}${adjusted} = ${
        format_cents(base + adjustment)
      } (got ${format_decimal(item.amount)})`,
    });
  }
  return {
    valid: rate !== undefined && exact_cents && within,
    cents,
    discounts: discounts.entries,
    charges: charges.entries,
  };
}

/** gross_rate − |rate|: EN 16931 has price discounts, not price charges (BT-147). */
function price_discount(
  context: Context,
  item: ParsedItem,
  rate: number,
  path: Path,
): string {
  const gross = decimal_from_number(item.gross_rate!);
  const net = decimal_from_number(Math.abs(rate));
  const difference = subtract_decimals(gross, net);
  if (difference.units < 0n) {
    context.problems.push({
      path: [...path, "gross_rate"],
      message: `must not be below the rate (${format_decimal(Math.abs(rate))})`,
    });
  }
  return decimal_to_string(difference);
}

export function check_amount_or_percent(
  context: Context,
  entry: { amount?: number; percent?: number },
  path: Path,
): void {
  if ((entry.amount === undefined) === (entry.percent === undefined)) {
    context.problems.push({
      path: [...path, entry.amount === undefined ? "amount" : "percent"],
      message: 'give either "amount" or "percent"',
    });
  }
}

export function check_reason_code(
  context: Context,
  code: string | undefined,
  path: Path,
  charge: boolean,
): void {
  if (code === undefined) return;
  const list = charge ? CHARGE_REASON_CODES : ALLOWANCE_REASON_CODES;
  if (!list.has(code)) {
    context.problems.push({
      path: [...path, "reason_code"],
      message: charge
        ? "must be a UNTDID 7161 charge reason code such as FC (freight) or ABL (packaging)"
        : "must be a UNTDID 5189 allowance reason code such as 95 (discount) or 100 (special rebate)",
    });
  }
}
