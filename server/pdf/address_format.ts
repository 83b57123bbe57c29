/**
 * Where the postcode goes on an address's locality line: that follows the
 * address's country (a Berlin address is "10115 Berlin" on an English
 * invoice too), and only an address without a country follows the
 * invoice's locale (`zip_first` of the registry).
 *
 * @module
 */

/**
 * Countries (ISO 3166-1 alpha-2) that write the postcode after the city
 * ("Springfield, IL 62701", "London SW1A 1AA", "Riyadh 12345"); every other
 * country writes it first ("10115 Berlin", "75001 Paris", "00-950
 * Warszawa").
 */
const POSTCODE_AFTER_CITY: ReadonlySet<string> = new Set([
  "AE",
  "AU",
  "BR",
  "CA",
  "CN",
  "GB",
  "HK",
  "ID",
  "IE",
  "IL",
  "IN",
  "KR",
  "MY",
  "NZ",
  "PH",
  "SA",
  "SG",
  "TH",
  "TW",
  "US",
  "ZA",
]);

/** Whether the locality line of an address puts the postcode first. */
export function postcode_first(
  country: string | undefined,
  locale_zip_first: boolean,
): boolean {
  if (country === undefined || country.trim() === "") return locale_zip_first;
  return !POSTCODE_AFTER_CITY.has(country.trim().toUpperCase());
}
