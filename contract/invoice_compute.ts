/**
 * The arithmetic of an invoice request, once and exact (bigint cents): line
 * totals with their allowances and charges, document discounts and charges,
 * the tax breakdown, totals, amount due and early-payment discounts, and
 * the problems each step finds.
 *
 * @module
 */
import type {
  AllowanceCharge,
  DiscountTerm,
  TaxBreakdownRow,
  TaxCategory,
} from "./invoice_types.ts";
import {
  type Decimal,
  decimal_from_number,
  format_cents,
  format_decimal,
  percent_of,
  to_cents,
} from "./money.ts";
import { currency_minor_units } from "./currencies.ts";
import {
  EXEMPT_CATEGORIES,
  format_rate,
  group_key,
  is_tax_problem,
  resolve_tax,
  type ResolvedTax,
  TAX_CATEGORY_ORDER,
} from "./tax.ts";
import type { ParsedRequest } from "./invoice_request.ts";
import {
  check_amount_or_percent,
  check_reason_code,
  compute_line,
  type Context,
  type LineResult,
  type Path,
  type Problem,
} from "./line_amounts.ts";

export type { LineResult, Path, Problem } from "./line_amounts.ts";

/** Everything computed from a request, once. */
export interface Computation {
  /** Problems of line amounts; when there are any, the totals mean nothing. */
  line_problems: Problem[];
  /** Every line has a rate and an amount that fits it. */
  lines_valid: boolean;
  problems: Problem[];
  has_tax: boolean;
  lines: LineResult[];
  discounts: AllowanceCharge[];
  charges: AllowanceCharge[];
  breakdown: TaxBreakdownRow[];
  subtotal: bigint;
  discount_total: bigint;
  charge_total: bigint;
  tax_total: bigint;
  total: bigint;
  amount_paid?: bigint;
  rounding?: bigint;
  amount_due: bigint;
  discount_terms?: DiscountTerm[];
}

const computations = new WeakMap<ParsedRequest, Computation>();

/** The request's computation; computed once per parsed request. */
export function compute(value: ParsedRequest): Computation {
  let computation = computations.get(value);
  if (!computation) {
    computation = compute_uncached(value);
    computations.set(value, computation);
  }
  return computation;
}

function any_tax_given(value: ParsedRequest): boolean {
  const given = (entry: { tax_rate?: number; tax_category?: TaxCategory }) =>
    entry.tax_rate !== undefined || entry.tax_category !== undefined;
  return given(value) || (value.items ?? value.line_items ?? []).some(given) ||
    (value.discounts ?? []).some(given) || (value.charges ?? []).some(given);
}

function compute_uncached(value: ParsedRequest): Computation {
  const minor_units = value.currency === undefined
    ? 2
    : currency_minor_units(value.currency) ?? 2;
  const context: Context = {
    value,
    items_key: value.items !== undefined ? "items" : "line_items",
    minor_units,
    minor_unit_cents: 10n ** BigInt(Math.max(0, 2 - minor_units)),
    has_tax: any_tax_given(value),
    problems: [],
  };
  // The invoice-level pair is the default of every line and discount/charge
  // that gives no tax field of its own.
  const invoice_tax = resolve_tax(value.tax_category, value.tax_rate);
  if (is_tax_problem(invoice_tax)) {
    context.problems.push({
      path: [invoice_tax.field],
      message: invoice_tax.message,
    });
  } else {
    context.default_tax = invoice_tax;
  }
  const line_problems: Problem[] = [];
  const lines = (value.items ?? value.line_items ?? []).map((item, index) =>
    compute_line(context, item, index, line_problems, invoice_tax)
  );
  const groups = tax_groups(lines);
  const adjusted = document_adjustments(context, groups);
  check_discount_limits(context, groups, adjusted);
  const breakdown = tax_breakdown(context, groups);
  const tax_total = breakdown.rows.reduce(
    (sum, row) => sum + to_cents_text(row.tax_amount),
    0n,
  );
  const total_without_tax = groups.subtotal - adjusted.discounts.total +
    adjusted.charges.total;
  const total = total_without_tax + tax_total;
  const amount_paid = value.amount_paid !== undefined
    ? to_cents(value.amount_paid)
    : undefined;
  const rounding = value.rounding_amount !== undefined
    ? to_cents(value.rounding_amount)
    : undefined;
  const amount_due = total - (amount_paid ?? 0n) + (rounding ?? 0n);
  check_expected(context, total, tax_total);
  return {
    line_problems,
    lines_valid: lines.every((line) => line.valid),
    problems: context.problems,
    has_tax: context.has_tax,
    lines,
    discounts: adjusted.discounts.entries,
    charges: adjusted.charges.entries,
    breakdown: breakdown.rows,
    subtotal: groups.subtotal,
    discount_total: adjusted.discounts.total,
    charge_total: adjusted.charges.total,
    tax_total,
    total,
    amount_paid,
    rounding,
    amount_due,
    discount_terms: discount_terms(context, amount_due),
  };
}

function to_cents_text(text: string): bigint {
  const negative = text.startsWith("-");
  const [whole, fraction = ""] = text.replace("-", "").split(".");
  const cents = BigInt(whole) * 100n + BigInt(fraction.padEnd(2, "0"));
  return negative ? -cents : cents;
}

interface TaxGroups {
  subtotal: bigint;
  /** Per group key: the group's line total. */
  lines: Map<string, bigint>;
  groups: Map<string, ResolvedTax>;
  /** The one group when all taxed lines share one. */
  single?: ResolvedTax;
  /** Per group key: its discounts (negative) and charges. */
  adjustments: Map<string, bigint>;
}

function tax_groups(lines: LineResult[]): TaxGroups {
  let subtotal = 0n;
  const totals = new Map<string, bigint>();
  const groups = new Map<string, ResolvedTax>();
  for (const line of lines) {
    subtotal += line.cents;
    if (line.tax) {
      const key = group_key(line.tax);
      groups.set(key, line.tax);
      totals.set(key, (totals.get(key) ?? 0n) + line.cents);
    }
  }
  return {
    subtotal,
    lines: totals,
    groups,
    single: groups.size === 1 ? [...groups.values()][0] : undefined,
    adjustments: new Map(),
  };
}

interface Adjusted {
  entries: AllowanceCharge[];
  total: bigint;
}

/** Per group key ("" without tax): discounted cents and the first discount's path. */
type GroupDiscounts = Map<string, { cents: bigint; path: Path }>;

function document_adjustments(
  context: Context,
  groups: TaxGroups,
): { discounts: Adjusted; charges: Adjusted; group_discounts: GroupDiscounts } {
  const group_discounts: GroupDiscounts = new Map();
  const discounts = adjustments_of(
    context,
    groups,
    "discounts",
    group_discounts,
  );
  const charges = adjustments_of(context, groups, "charges", group_discounts);
  return { discounts, charges, group_discounts };
}

function adjustment_tax(
  context: Context,
  groups: TaxGroups,
  entry: { tax_rate?: number; tax_category?: TaxCategory },
  path: Path,
): ResolvedTax | undefined {
  const own = resolve_tax(entry.tax_category, entry.tax_rate);
  if (is_tax_problem(own)) {
    context.problems.push({ path: [...path, own.field], message: own.message });
    return undefined;
  }
  const tax = own ?? context.default_tax ?? groups.single;
  if (!tax) {
    context.problems.push({
      path: [...path, "tax_rate"],
      message:
        "is required because the lines have several tax rates (or set an invoice-level tax_rate)",
    });
  }
  return tax;
}

function adjustments_of(
  context: Context,
  groups: TaxGroups,
  field: "discounts" | "charges",
  group_discounts: GroupDiscounts,
): Adjusted {
  const sign = field === "discounts" ? -1n : 1n;
  let total = 0n;
  const entries = (context.value[field] ?? []).map((entry, index) => {
    const path: Path = [field, index];
    check_amount_or_percent(context, entry, path);
    check_reason_code(context, entry.reason_code, path, sign > 0n);
    const tax = context.has_tax
      ? adjustment_tax(context, groups, entry, path)
      : undefined;
    const key = tax ? group_key(tax) : "";
    // A percent applies to its base: the amount given; else, for a discount,
    // the lines it discounts (those of its tax group); else all lines.
    const group_base = sign < 0n && tax !== undefined;
    const base = entry.base_amount !== undefined
      ? to_cents(entry.base_amount)
      : group_base
      ? groups.lines.get(key) ?? 0n
      : groups.subtotal;
    if (entry.base_amount !== undefined && entry.percent === undefined) {
      context.problems.push({
        path: [...path, "base_amount"],
        message: 'is the base of "percent": give it with a percent',
      });
    }
    if (entry.percent !== undefined && base < 0n) {
      context.problems.push({
        path: [...path, "percent"],
        message: `applies to ${
          entry.base_amount !== undefined
            ? "base_amount"
            : group_base
            ? "the lines of its tax rate"
            : "the line subtotal"
        }, which is negative (${format_cents(base)}); give an amount`,
      });
    }
    const cents = entry.percent !== undefined
      ? percent_of(base, decimal_from_number(entry.percent), context)
      : to_cents(entry.amount ?? 0);
    total += cents;
    if (tax) {
      groups.groups.set(key, tax);
      groups.adjustments.set(
        key,
        (groups.adjustments.get(key) ?? 0n) + sign * cents,
      );
    }
    if (sign < 0n && (tax || !context.has_tax)) {
      const seen = group_discounts.get(key);
      group_discounts.set(key, {
        cents: (seen?.cents ?? 0n) + cents,
        path: seen?.path ??
          [...path, entry.percent !== undefined ? "percent" : "amount"],
      });
    }
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
      ...(tax
        ? { tax_category: tax.category, tax_rate: format_rate(tax.rate) }
        : {}),
    };
  });
  return { entries, total };
}

/**
 * A discount may not exceed what it discounts: the lines (and charges) of
 * its tax group, or without tax all lines and charges. Lines that are
 * negative by themselves (credits) are not a discount's fault.
 */
function check_discount_limits(
  context: Context,
  groups: TaxGroups,
  adjusted: ReturnType<typeof document_adjustments>,
): void {
  for (const [key, discounted] of adjusted.group_discounts) {
    const tax = groups.groups.get(key);
    const base = tax
      ? (groups.lines.get(key) ?? 0n) + (groups.adjustments.get(key) ?? 0n) +
        discounted.cents
      : groups.subtotal + adjusted.charges.total;
    if (discounted.cents > 0n && discounted.cents > base) {
      const what = tax
        ? `the lines and charges taxed ${tax.category} ${
          format_rate(tax.rate)
        }% come to ${format_cents(base)}`
        : `the lines and charges come to ${format_cents(base)}`;
      context.problems.push({
        path: discounted.path,
        message: `is larger than what it discounts: ${what}, the discounts to ${
          format_cents(discounted.cents)
        }`,
      });
    }
  }
}

/** The exemption reason and code of an exempt category's group. */
function exemption_of(
  context: Context,
  category: TaxCategory,
): { exemption_reason?: string; exemption_reason_code?: string } {
  if (!EXEMPT_CATEGORIES.includes(category)) return {};
  const own = (context.value.tax_exemptions ?? []).find((entry) =>
    entry.tax_category === category
  );
  if (own) {
    return {
      ...(own.reason ? { exemption_reason: own.reason } : {}),
      ...(own.reason_code ? { exemption_reason_code: own.reason_code } : {}),
    };
  }
  return context.value.tax_exemption_reason
    ? { exemption_reason: context.value.tax_exemption_reason }
    : {};
}

function tax_breakdown(
  context: Context,
  groups: TaxGroups,
): { rows: TaxBreakdownRow[] } {
  const ordered = [...groups.groups.entries()].sort(([, a], [, b]) =>
    TAX_CATEGORY_ORDER.indexOf(a.category) -
      TAX_CATEGORY_ORDER.indexOf(b.category) ||
    Number(
      b.rate.units * 10n ** BigInt(4 - b.rate.scale) -
        a.rate.units * 10n ** BigInt(4 - a.rate.scale),
    )
  );
  const rows = ordered.map(([key, tax]) => {
    const taxable = (groups.lines.get(key) ?? 0n) +
      (groups.adjustments.get(key) ?? 0n);
    const tax_amount = percent_of(taxable, tax.rate, context);
    return {
      category: tax.category,
      rate: format_rate(tax.rate),
      taxable_amount: format_cents(taxable),
      tax_amount: format_cents(tax_amount),
      ...exemption_of(context, tax.category),
    };
  });
  return { rows };
}

function check_expected(
  context: Context,
  total: bigint,
  tax_total: bigint,
): void {
  const { value, problems } = context;
  if (
    value.expected_total !== undefined &&
    to_cents(value.expected_total) !== total
  ) {
    problems.push({
      path: ["expected_total"],
      message: `is ${
        format_cents(to_cents(value.expected_total))
      } but the total is ${format_cents(total)}`,
    });
  }
  if (
    value.expected_tax_total !== undefined &&
    to_cents(value.expected_tax_total) !== tax_total
  ) {
    problems.push({
      path: ["expected_tax_total"],
      message: `is ${
        format_cents(to_cents(value.expected_tax_total))
      } but the tax total is ${format_cents(tax_total)}`,
    });
  }
}

/** The day `days` after `date` (YYYY-MM-DD). */
export function add_days(date: string, days: number): string {
  const [year, month, day] = date.split("-").map(Number);
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(
    0,
    10,
  );
}

function discount_terms(
  context: Context,
  amount_due: bigint,
): DiscountTerm[] | undefined {
  const terms = context.value.payment?.discount_terms;
  if (terms === undefined || terms.length === 0) return undefined;
  return terms.map((term) => {
    const base = term.base_amount !== undefined
      ? to_cents(term.base_amount)
      : amount_due;
    const percent: Decimal = decimal_from_number(term.percent);
    return {
      days: term.days,
      date: add_days(context.value.date, term.days),
      percent: format_cents(to_cents(term.percent)),
      base_amount: format_cents(base),
      amount: format_cents(percent_of(base, percent, context)),
    };
  });
}
