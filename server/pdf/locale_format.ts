/**
 * How numbers, money, dates, percentages and countries are written on an
 * invoice, as the locale's registry entry says (`locales.ts`): through
 * `Intl` in its tag, or as codes (ISO 8601 dates, "EUR 1,234.50").
 *
 * Intl formatters are costly to build (tens of microseconds each) and cheap
 * to use, so each (locale, currency) set is built once per process and kept.
 * Money stays a decimal string end to end: `Intl.NumberFormat.format`
 * accepts decimal strings and formats them exactly, without floating point.
 *
 * @module
 */

import { currency_minor_units } from "../../contract/currencies.ts";
import { format_decimal, format_money, format_quantity } from "./format.ts";
import { locale_texts } from "./locales.ts";

/** The formatting functions one invoice uses. */
export interface Formats {
  /** Money with its currency (totals): "1.234,56 €", or "EUR 1,234.56" without locale. */
  money(value: string): string;
  /** An amount without currency (table cells): "1.234,56". */
  amount(value: string): string;
  /** A unit price: at least two decimals, more kept ("0,125"). */
  price(value: string): string;
  quantity(value: number): string;
  /** A YYYY-MM-DD date. */
  date(value: string): string;
  /** A percent rate given as "19", "7.7": "19 %", "7.7%". */
  percent(value: string): string;
  /** An ISO 3166-1 alpha-2 code as the country's name. */
  country(code: string): string;
}

const cache = new Map<string, Formats>();

/**
 * The formats of `locale` (an id of the registry; without one, the
 * default's) and `currency` (ISO 4217 code), built once per process and
 * pair.
 */
export function formats_for(
  locale: string | undefined,
  currency: string | undefined,
): Formats {
  const texts = locale_texts(locale);
  const key = `${texts.formats}|${texts.intl}|${currency ?? ""}`;
  let formats = cache.get(key);
  if (formats === undefined) {
    formats = texts.formats === "iso"
      ? code_formats(texts.intl, currency)
      : intl_formats(texts.intl, currency, texts.direction === "rtl");
    cache.set(key, formats);
  }
  return formats;
}

/** Intl accepts exact decimal strings; its TypeScript types do not say so yet. */
type DecimalFormatter = { format(value: string | number): string };

function decimal_formatter(
  locale: string,
  options: Intl.NumberFormatOptions,
): DecimalFormatter {
  return new Intl.NumberFormat(locale, options) as unknown as DecimalFormatter;
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** Formats a decimal string, or returns it unchanged if it is not one. */
function exact(formatter: DecimalFormatter, value: string): string {
  return DECIMAL.test(value) ? formatter.format(value) : value;
}

/** Intl's invisible direction marks (the layout drops them). */
const DIRECTION_MARKS = /[\u061c\u200e\u200f]/g;
/** The signed number in a formatted amount: "-1,234.50". */
const SIGNED_NUMBER = /[-\u2212]\d(?:[\d.,\u00a0\u202f\u066b\u066c']*\d)?/;

/**
 * A negative amount of a right-to-left locale with its sign before the
 * digits, as the locale writes it ("-100.00 ر.س."): Intl keeps the minus
 * there with a left-to-right mark, which the text layout drops, so the
 * number goes into a left-to-right isolate (LRI … PDI) instead. Other
 * amounts are returned as Intl formats them.
 */
function signed(
  formatter: DecimalFormatter,
  value: string,
  rtl: boolean,
): string {
  const text = exact(formatter, value);
  if (!rtl || !value.startsWith("-")) return text;
  return text.replace(DIRECTION_MARKS, "").replace(
    SIGNED_NUMBER,
    (number) => `\u2066${number}\u2069`,
  );
}

const region_names = new Map<string, Intl.DisplayNames>();

function country_name(locale: string, code: string): string {
  let names = region_names.get(locale);
  if (names === undefined) {
    names = new Intl.DisplayNames(locale, { type: "region" });
    region_names.set(locale, names);
  }
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * Decimals amounts show: the currency's minor unit (JPY 0, KWD 3), 2 without
 * a currency or for a code outside ISO 4217. Amounts are never rounded to it:
 * the contract only lets through amounts that fit it.
 */
function minor_units_of(currency: string | undefined): number {
  return currency === undefined ? 2 : currency_minor_units(currency) ?? 2;
}

/** ISO 8601 dates and amounts after their currency code; names in `names`. */
function code_formats(names: string, currency: string | undefined): Formats {
  const minor_units = minor_units_of(currency);
  return {
    money: (value) => format_money(value, currency, { minor_units }),
    amount: (value) => format_decimal(value, minor_units),
    price: (value) => format_decimal(value, minor_units),
    quantity: format_quantity,
    date: (value) => value,
    percent: (value) => `${format_decimal(value, 0)}%`,
    country: (code) => country_name(names, code),
  };
}

function intl_formats(
  locale: string,
  currency: string | undefined,
  rtl: boolean,
): Formats {
  // The ISO 4217 minor unit, not CLDR's (which differs for a few currencies);
  // at most never fewer than the two decimals an invoice carries, so a stray
  // fraction still prints exactly instead of being rounded away.
  // Grouping always: es, it, pl and pt write 4-digit amounts without a
  // separator by default ("3703,68"), so a column would mix "3703,68" and
  // "11.851,80".
  const digits = {
    minimumFractionDigits: minor_units_of(currency),
    maximumFractionDigits: Math.max(2, minor_units_of(currency)),
    useGrouping: "always",
  } as const;
  const money = currency === undefined
    ? decimal_formatter(locale, digits)
    : decimal_formatter(locale, { style: "currency", currency, ...digits });
  const amount = decimal_formatter(locale, digits);
  const price = decimal_formatter(locale, {
    minimumFractionDigits: minor_units_of(currency),
    maximumFractionDigits: 20,
    useGrouping: "always",
  });
  const quantity = decimal_formatter(locale, {
    maximumFractionDigits: 20,
    useGrouping: "always",
  });
  const percent = decimal_formatter(locale, {
    style: "unit",
    unit: "percent",
    maximumFractionDigits: 2,
  });
  const date = new Intl.DateTimeFormat(locale, {
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    timeZone: "UTC",
  });
  return {
    money: (value) => signed(money, value, rtl),
    amount: (value) => signed(amount, value, rtl),
    price: (value) => signed(price, value, rtl),
    quantity: (value) => quantity.format(value),
    date: (value) => {
      const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
      if (match === null) return value;
      const time = Date.UTC(
        Number(match[1]),
        Number(match[2]) - 1,
        Number(match[3]),
      );
      return Number.isFinite(time) ? date.format(time) : value;
    },
    percent: (value) => exact(percent, value),
    country: (code) => country_name(locale, code),
  };
}
