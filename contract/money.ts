/**
 * Exact decimal arithmetic for money.
 *
 * JSON numbers arrive as IEEE doubles; their shortest round-trip form
 * (`String(n)`) is exactly the decimal the client wrote whenever it has at
 * most 15 significant digits. We parse that form into a scaled bigint so no
 * floating-point operation ever touches an amount.
 */

/** A decimal number as `units × 10^-scale`. */
export interface Decimal {
  units: bigint;
  scale: number;
}

// 10^0 … 10^15, each exact as a double.
const POWERS_OF_TEN = Array.from({ length: 16 }, (_, power) => 10 ** power);
// Below this many units, the rounding interval of a double spans less than
// a quarter unit: at most one decimal of a given scale lies in it.
const SCALED_UNITS_BOUND = 1e15;

/** A decimal as `units × 10^-scale`, its units an integer a double holds exactly. */
export interface SmallDecimal {
  units: number;
  scale: number;
}

/**
 * The decimal of a number with up to 15 significant digits (or a safe
 * integer), in double-precision units: what {@linkcode decimal_from_number}
 * gives, without a bigint. A non-integer is found without writing it out:
 * the smallest scale whose rounded multiple divides back to the very same
 * double. That multiple is the only decimal of its scale in the double's
 * rounding interval (the bound keeps the interval under a quarter unit), and
 * no shorter one round-trips, so it is the shortest form `String` writes.
 * Larger or longer numbers, and non-finite ones: undefined.
 */
export function small_decimal(value: number): SmallDecimal | undefined {
  if (Number.isSafeInteger(value)) return { units: value, scale: 0 };
  if (!Number.isFinite(value)) return undefined;
  for (let scale = 1; scale < POWERS_OF_TEN.length; scale++) {
    const power = POWERS_OF_TEN[scale];
    const units = Math.round(value * power);
    if (Math.abs(units) >= SCALED_UNITS_BOUND) return undefined;
    if (units / power === value) return { units, scale };
  }
  return undefined;
}

/** 10^`power` for `power` 0–15, exact as a double; undefined beyond. */
export function power_of_ten(power: number): number | undefined {
  return POWERS_OF_TEN[power];
}

/** Parses a finite JS number into an exact decimal of its shortest form. */
export function decimal_from_number(value: number): Decimal {
  // Amounts and quantities are parsed for every line of every request:
  // whole numbers and plain decimals skip the general pattern.
  const small = small_decimal(value);
  if (small !== undefined) {
    return { units: BigInt(small.units), scale: small.scale };
  }
  if (!Number.isFinite(value)) {
    throw new RangeError("not a finite number");
  }
  const text = String(value);
  const dot = text.indexOf(".");
  if (dot > 0 && !text.includes("e")) {
    return {
      units: BigInt(text.slice(0, dot) + text.slice(dot + 1)),
      scale: text.length - dot - 1,
    };
  }
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
  if (!match) throw new RangeError(`unexpected number form: ${text}`);
  const [, sign, whole, fraction = "", exponent = "0"] = match;
  let digits = whole + fraction;
  let scale = fraction.length - Number(exponent);
  if (scale < 0) {
    digits += "0".repeat(-scale);
    scale = 0;
  }
  const units = BigInt(digits) * (sign === "-" ? -1n : 1n);
  return { units, scale };
}

/** Number of decimal places a number has in its shortest form. */
export function decimal_places(value: number): number {
  return decimal_from_number(value).scale;
}

/** `numerator ÷ denominator` rounded to an integer, half away from zero. */
export function divide_rounded(numerator: bigint, denominator: bigint): bigint {
  const negative = (numerator < 0n) !== (denominator < 0n);
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  let quotient = n / d;
  if ((n % d) * 2n >= d) quotient += 1n;
  return negative ? -quotient : quotient;
}

/** Rounds `value` to `places` decimals, half away from zero. */
export function round_decimal(value: Decimal, places: number): bigint {
  if (value.scale <= places) {
    return value.units * 10n ** BigInt(places - value.scale);
  }
  return divide_rounded(value.units, 10n ** BigInt(value.scale - places));
}

/**
 * `cents` × `percent` ÷ 100, rounded once, half away from zero, to the
 * currency's minor unit (`minor_units` 0: whole units such as yen; 2 or
 * more, or absent: cents). The result is in cents either way.
 */
export function percent_of(
  cents: bigint,
  percent: Decimal,
  options: { minor_units?: number } = {},
): bigint {
  const step = 10n ** BigInt(Math.max(0, 2 - (options.minor_units ?? 2)));
  return divide_rounded(
    cents * percent.units,
    100n * 10n ** BigInt(percent.scale) * step,
  ) * step;
}

/** Exact product of an integer quantity and a decimal rate, in cents (rounded half away from zero). */
export function line_amount_cents(quantity: number, rate: number): bigint {
  const decimal = decimal_from_number(rate);
  return round_decimal(
    { units: decimal.units * BigInt(quantity), scale: decimal.scale },
    2,
  );
}

/** Exact value of a number given with at most two decimals, in cents. */
export function to_cents(value: number): bigint {
  return round_decimal(decimal_from_number(value), 2);
}

/** Formats cents as a plain decimal string with two places, e.g. `-1234.50`. */
export function format_cents(cents: bigint): string {
  const negative = cents < 0n;
  const magnitude = negative ? -cents : cents;
  const whole = magnitude / 100n;
  const fraction = (magnitude % 100n).toString().padStart(2, "0");
  return `${negative ? "-" : ""}${whole}.${fraction}`;
}

/** Formats a number as the plain decimal string of its shortest form (no exponent). */
export function format_decimal(value: number): string {
  return decimal_to_string(decimal_from_number(value));
}

/** A decimal as a plain string without trailing fraction zeros, e.g. "12.5". */
export function decimal_to_string(value: Decimal): string {
  let { units, scale } = value;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  if (scale === 0) return units.toString();
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(
    scale + 1,
    "0",
  );
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  return `${negative ? "-" : ""}${whole}.${fraction}`;
}

/** `a − b`, exact. */
export function subtract_decimals(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return {
    units: a.units * 10n ** BigInt(scale - a.scale) -
      b.units * 10n ** BigInt(scale - b.scale),
    scale,
  };
}
