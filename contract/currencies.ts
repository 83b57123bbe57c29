/**
 * ISO 4217 currency codes in current use (List One) and their minor units.
 *
 * Codes without a minor unit in ISO 4217 (precious metals XAU/XAG/XPT/XPD,
 * bond-market units XBA–XBD, XDR, XSU, XUA, the testing code XTS and XXX "no
 * currency") are left out: nobody invoices in them. Withdrawn codes (HRK,
 * CUC, SLL, ZWL, VEF, …) are left out too.
 *
 * @module
 */

/** Minor-unit digits that differ from the usual 2. */
const OTHER_MINOR_UNITS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/** Active codes with two minor-unit digits. */
const TWO_DIGIT_CODES = (
  "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV " +
  "BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF CHW CNY COP COU CRC CUP CVE CZK " +
  "DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL " +
  "HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL " +
  "MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO " +
  "NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK " +
  "SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS " +
  "UAH USD USN UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG"
).split(" ");

const MINOR_UNITS: ReadonlyMap<string, number> = new Map([
  ...TWO_DIGIT_CODES.map((code) => [code, 2] as const),
  ...Object.entries(OTHER_MINOR_UNITS),
]);

/** Every accepted currency code, sorted. */
export const CURRENCY_CODES: readonly string[] = [...MINOR_UNITS.keys()].sort();

/**
 * Digits after the decimal point of `code`'s minor unit (JPY 0, EUR 2,
 * KWD 3), or undefined when `code` is not an accepted ISO 4217 code.
 */
export function currency_minor_units(code: string): number | undefined {
  return MINOR_UNITS.get(code);
}
