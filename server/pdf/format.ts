/**
 * Number formatting for invoices. Money arrives as validated decimal strings
 * and is formatted as text, never through floating point, so "0.1" + "0.2"
 * problems cannot appear on a PDF.
 *
 * @module
 */

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/** Groups an unsigned digit string in thousands: "1234567" → "1,234,567". */
function group_thousands(digits: string): string {
  const head = digits.length % 3;
  const groups: string[] = head > 0 ? [digits.slice(0, head)] : [];
  for (let i = head; i < digits.length; i += 3) {
    groups.push(digits.slice(i, i + 3));
  }
  return groups.join(",");
}

/**
 * Formats a decimal string with thousands separators and at least
 * `min_fraction_digits` decimals, keeping any further significant decimals
 * (rates such as "0.125" must not be rounded): "1234567.5" → "1,234,567.50",
 * "-20" → "-20.00", "0.1250" → "0.125".
 *
 * Strings that are not plain decimals are returned unchanged: input is
 * validated upstream, and showing it as given beats failing the invoice.
 */
export function format_decimal(value: string, min_fraction_digits = 2): string {
  const match = DECIMAL.exec(value.trim());
  if (match === null || (match[2] === "" && (match[3] ?? "") === "")) {
    return value;
  }
  const sign = match[1] === "-" ? "-" : "";
  const integer = match[2].replace(/^0+(?=\d)/, "") || "0";
  let fraction = (match[3] ?? "").replace(/0+$/, "");
  if (fraction.length < min_fraction_digits) {
    fraction = fraction.padEnd(min_fraction_digits, "0");
  }
  return `${sign}${group_thousands(integer)}${fraction ? "." + fraction : ""}`;
}

/** Formats an integer quantity with thousands separators: 12000 → "12,000". */
export function format_quantity(quantity: number): string {
  if (!Number.isSafeInteger(quantity)) return String(quantity);
  const sign = quantity < 0 ? "-" : "";
  return sign + group_thousands(String(Math.abs(quantity)));
}

/**
 * Money with an optional currency code in front: "EUR 1,234.50" or
 * "1,234.50"; `minor_units` decimals at least ("JPY 1,234" with 0).
 */
export function format_money(
  value: string,
  currency: string | undefined,
  options: { minor_units?: number } = {},
): string {
  const amount = format_decimal(value, options.minor_units ?? 2);
  return currency ? `${currency} ${amount}` : amount;
}
