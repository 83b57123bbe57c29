/**
 * The locales an invoice can be printed in, and how a request's
 * `Accept-Language` header picks one.
 *
 * The ids listed here are the keys of the renderer's locale registry
 * (`server/pdf/locales.ts`, typed `Record<Locale, LocaleTexts>`): a locale
 * added here and missing there is a type error.
 */

/** BCP 47 tags a request's `locale` may name. */
export const SUPPORTED_LOCALES = [
  "en-US",
  "en-GB",
  "en-CA",
  "de-DE",
  "de-AT",
  "de-CH",
  "fr-FR",
  "fr-BE",
  "es-ES",
  "it-IT",
  "nl-NL",
  "pt-PT",
  "pt-BR",
  "pl-PL",
  "sv-SE",
  "da-DK",
  "nb-NO",
  "fi-FI",
  "cs-CZ",
  "zh-CN",
  "zh-TW",
  "ja-JP",
  "ko-KR",
  "ar-SA",
  "ar-AE",
  "he-IL",
  "hi-IN",
  "th-TH",
] as const;

/** A supported locale tag. */
export type SupportedLocale = typeof SUPPORTED_LOCALES[number];

/**
 * The locale of an invoice without `locale` (and without an
 * `Accept-Language` the service supports): English words, ISO 8601 dates,
 * amounts after their ISO 4217 code ("EUR 1,234.50"). An ordinary entry of
 * the renderer's registry; not a tag a request can name.
 */
export const DEFAULT_LOCALE = "default";

/** Every locale the renderer prints in: the default and the supported ones. */
export const LOCALES = [DEFAULT_LOCALE, ...SUPPORTED_LOCALES] as const;

/** A locale of the renderer's registry. */
export type Locale = typeof LOCALES[number];

const BY_LOWER_CASE = new Map<string, SupportedLocale>(
  SUPPORTED_LOCALES.map((tag) => [tag.toLowerCase(), tag]),
);

/**
 * What a bare language (or a region we lack) falls back to: the language's
 * first listed locale, e.g. `de` → `de-DE`, `fr-CA` → `fr-FR`, `no` → `nb-NO`.
 */
const BY_LANGUAGE = new Map<string, SupportedLocale>();
for (const tag of SUPPORTED_LOCALES) {
  const language = tag.slice(0, tag.indexOf("-"));
  if (!BY_LANGUAGE.has(language)) BY_LANGUAGE.set(language, tag);
}
BY_LANGUAGE.set("no", "nb-NO");
BY_LANGUAGE.set("nn", "nb-NO");

/** The supported tag for `tag` written in any case (`de-de` → `de-DE`), or undefined. */
export function supported_locale(tag: string): SupportedLocale | undefined {
  return BY_LOWER_CASE.get(tag.trim().replace(/_/g, "-").toLowerCase());
}

/**
 * The best supported locale for an `Accept-Language` header (RFC 9110:
 * ranges by q-value, then by order; `*` ignored), or undefined when nothing in
 * it is supported. A range whose region we lack falls back to its language.
 */
export function negotiate_locale(
  accept_language: string | null | undefined,
): SupportedLocale | undefined {
  if (!accept_language) return undefined;
  const ranges = accept_language.slice(0, 1000).split(",").map(
    (part, index) => {
      const [range, ...params] = part.trim().split(";");
      const q_param = params.map((p) => p.trim()).find((p) =>
        p.startsWith("q=")
      );
      const q = q_param ? Number(q_param.slice(2)) : 1;
      return {
        range: range.trim().toLowerCase(),
        q: Number.isFinite(q) ? q : 0,
        index,
      };
    },
  ).filter((entry) => entry.range !== "" && entry.range !== "*" && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { range } of ranges) {
    const exact = BY_LOWER_CASE.get(range);
    if (exact) return exact;
    const language = BY_LANGUAGE.get(range.split("-")[0]);
    if (language) return language;
  }
  return undefined;
}

/** Paper sizes of the PDF (`page_size`). */
export const PAGE_SIZES = ["a4", "letter"] as const;

/** One of {@link PAGE_SIZES}. */
export type PageSize = typeof PAGE_SIZES[number];
