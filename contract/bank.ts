/**
 * Bank identifiers on an invoice: IBAN (ISO 13616: length per country and
 * the mod-97 check digits) and BIC (ISO 9362 format).
 */

/** IBAN length per country (SWIFT IBAN registry). */
const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BI: 27,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DJ: 27,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FK: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HN: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  LY: 25,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MN: 20,
  MR: 27,
  MT: 31,
  MU: 30,
  NI: 28,
  NL: 18,
  NO: 15,
  OM: 23,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  RU: 33,
  SA: 24,
  SC: 31,
  SD: 18,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  SO: 23,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
  YE: 30,
};

/** An IBAN without spaces, upper case. */
export function normalize_iban(text: string): string {
  return text.replace(/[\s-]+/g, "").toUpperCase();
}

/**
 * Why `iban` (normalized) is not a valid IBAN, or undefined when it is:
 * known country, that country's length, and check digits (mod 97 = 1).
 */
export function iban_problem(iban: string): string | undefined {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]+$/.test(iban)) {
    return "must be an IBAN: country code, two check digits, then letters and digits";
  }
  const country = iban.slice(0, 2);
  const length = IBAN_LENGTHS[country];
  if (length === undefined) {
    return `has an unknown IBAN country code ${country}`;
  }
  if (iban.length !== length) {
    return `must have ${length} characters for ${country} IBANs (got ${iban.length})`;
  }
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const value = char >= "A" ? char.charCodeAt(0) - 55 : Number(char);
    remainder = value >= 10
      ? (remainder * 100 + value) % 97
      : (remainder * 10 + value) % 97;
  }
  return remainder === 1
    ? undefined
    : "has wrong check digits (a typo in the IBAN?)";
}

/**
 * Why `bic` is not a valid BIC, or undefined: 4 letters (bank), 2 letters
 * (country), 2 letters or digits (location), optionally 3 more (branch).
 */
export function bic_problem(bic: string): string | undefined {
  return /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic)
    ? undefined
    : "must be a BIC of 8 or 11 characters, e.g. DEUTDEFF or DEUTDEFF500";
}
