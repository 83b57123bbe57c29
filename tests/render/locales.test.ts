/**
 * Locales of the PDF renderer: every locale has every label, and each
 * supported locale prints its labels, dates and amounts as `pdftotext`
 * reads them from the PDF (poppler-utils). pdftotext turns the no-break
 * spaces Intl puts in numbers into plain spaces.
 */

import { LATIN_SCRIPT_LOCALES } from "../fixtures/locales.ts";
import {
  assert,
  assertEquals,
  assertStringIncludes,
  assertThrows,
} from "../assert.ts";
import { pdf_text } from "../helpers/pdf_text.ts";
import type { Invoice } from "../../contract/invoice_types.ts";
import { render_invoice_pdf } from "../../server/pdf/mod.ts";
import {
  fill,
  type LabelKey,
  LOCALE_TEXTS,
  locale_texts,
  UNIT_CODES,
} from "../../server/pdf/locales.ts";
import { formats_for } from "../../server/pdf/locale_format.ts";
import {
  DEFAULT_LOCALE,
  LOCALES,
  SUPPORTED_LOCALES,
} from "../../contract/locales.ts";

/**
 * The locales in other scripts (their PDF text is checked in
 * tests/render/scripts.test.ts, in pdftotext's reading order).
 */
const SCRIPT_LOCALES = [
  "zh-CN",
  "zh-TW",
  "ja-JP",
  "ko-KR",
  "ar-SA",
  "ar-AE",
  "he-IL",
  "hi-IN",
  "th-TH",
];

/**
 * Per locale: the currency used in the test and how 1234.56 of it and
 * 2026-11-23 read on the PDF (CLDR conventions, checked by hand).
 */
const EXPECTED: Record<
  string,
  { currency: string; money: string; date: string; table: string }
> = {
  "en-US": {
    currency: "USD",
    money: "$1,234.56",
    date: "11/23/2026",
    table: "1,234.56",
  },
  "en-GB": {
    currency: "GBP",
    money: "£1,234.56",
    date: "23/11/2026",
    table: "1,234.56",
  },
  "en-CA": {
    currency: "CAD",
    money: "$1,234.56",
    date: "2026-11-23",
    table: "1,234.56",
  },
  "de-DE": {
    currency: "EUR",
    money: "1.234,56 €",
    date: "23.11.2026",
    table: "1.234,56",
  },
  "de-AT": {
    currency: "EUR",
    money: "€ 1.234,56",
    date: "23.11.2026",
    table: "1 234,56",
  },
  "de-CH": {
    currency: "CHF",
    money: "CHF 1’234.56",
    date: "23.11.2026",
    table: "1’234.56",
  },
  "fr-FR": {
    currency: "EUR",
    money: "1 234,56 €",
    date: "23/11/2026",
    table: "1 234,56",
  },
  "fr-BE": {
    currency: "EUR",
    money: "1 234,56 €",
    date: "23/11/2026",
    table: "1 234,56",
  },
  "es-ES": {
    currency: "EUR",
    money: "1.234,56 €",
    date: "23/11/2026",
    table: "1.234,56",
  },
  "it-IT": {
    currency: "EUR",
    money: "1.234,56 €",
    date: "23/11/2026",
    table: "1.234,56",
  },
  "nl-NL": {
    currency: "EUR",
    money: "€ 1.234,56",
    date: "23-11-2026",
    table: "1.234,56",
  },
  "pt-PT": {
    currency: "EUR",
    money: "1 234,56 €",
    date: "23/11/2026",
    table: "1 234,56",
  },
  "pt-BR": {
    currency: "BRL",
    money: "R$ 1.234,56",
    date: "23/11/2026",
    table: "1.234,56",
  },
  "pl-PL": {
    currency: "PLN",
    money: "1 234,56 zł",
    date: "23.11.2026",
    table: "1 234,56",
  },
  "sv-SE": {
    currency: "SEK",
    money: "1 234,56 kr",
    date: "2026-11-23",
    table: "1 234,56",
  },
  "da-DK": {
    currency: "DKK",
    money: "1.234,56 kr.",
    date: "23.11.2026",
    table: "1.234,56",
  },
  "nb-NO": {
    currency: "NOK",
    money: "1 234,56 kr",
    date: "23.11.2026",
    table: "1 234,56",
  },
  "fi-FI": {
    currency: "EUR",
    money: "1 234,56 €",
    date: "23.11.2026",
    table: "1 234,56",
  },
  "cs-CZ": {
    currency: "CZK",
    money: "1 234,56 Kč",
    date: "23. 11. 2026",
    table: "1 234,56",
  },
};

function placeholders(template: string): string[] {
  return [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
}

Deno.test("every required locale is supported, every locale has every label and unit", () => {
  assertEquals(
    [...SUPPORTED_LOCALES].sort(),
    [...LATIN_SCRIPT_LOCALES, ...SCRIPT_LOCALES].sort(),
  );
  // The registry has exactly the contract's locales, the default included.
  assertEquals(Object.keys(LOCALE_TEXTS).sort(), [...LOCALES].sort());
  const reference = LOCALE_TEXTS["en-US"];
  const keys = Object.keys(reference.labels) as LabelKey[];
  assert(keys.length >= 50, "the label table has every label");
  for (const locale of LOCALES) {
    const texts = LOCALE_TEXTS[locale];
    assertEquals(
      Object.keys(texts.labels).sort(),
      [...keys].sort(),
      `${locale}: same label keys`,
    );
    for (const key of keys) {
      const value = texts.labels[key];
      assert(value.trim() !== "", `${locale}.${key} is empty`);
      // Same placeholders as English, except that a locale may leave the
      // tax name out of a label ("Sats") where its accountants do.
      const allowed = new Set(placeholders(reference.labels[key]));
      allowed.add("tax");
      for (const name of placeholders(value)) {
        assert(allowed.has(name), `${locale}.${key}: unknown {${name}}`);
      }
      for (const name of placeholders(reference.labels[key])) {
        if (name !== "tax") {
          assert(
            placeholders(value).includes(name),
            `${locale}.${key} lacks {${name}}`,
          );
        }
      }
    }
    assert(texts.tax_label.trim() !== "", `${locale}: tax label`);
    for (const code of UNIT_CODES) {
      assert(texts.units[code]?.trim(), `${locale}: unit ${code}`);
    }
  }
});

Deno.test("non-English locales are translated, not copied", () => {
  const english = LOCALE_TEXTS["en-US"].labels;
  for (const locale of SUPPORTED_LOCALES) {
    if (locale.startsWith("en-")) continue;
    const labels = LOCALE_TEXTS[locale].labels;
    for (
      const key of [
        "invoice",
        "invoice_number",
        "issue_date",
        "due_date",
        "amount_due",
        "bill_to",
        "description",
        "page_of",
      ] as LabelKey[]
    ) {
      assert(labels[key] !== english[key], `${locale}.${key} is English`);
    }
  }
});

Deno.test("the words accountants sign: German, French, Polish samples", () => {
  const de = LOCALE_TEXTS["de-DE"];
  assertEquals(de.labels.invoice, "Rechnung");
  assertEquals(de.labels.invoice_number, "Rechnungsnummer");
  assertEquals(de.labels.issue_date, "Rechnungsdatum");
  assertEquals(de.labels.due_date, "Fälligkeitsdatum");
  assertEquals(de.labels.tax_id, "USt-IdNr.");
  assertEquals(de.labels.subtotal, "Zwischensumme");
  assertEquals(de.labels.total_without_tax, "Nettobetrag");
  assertEquals(de.labels.total_with_tax, "Gesamtbetrag");
  assertEquals(de.labels.amount_paid, "Bereits bezahlt");
  assertEquals(de.labels.amount_due, "Zahlbetrag");
  assertEquals(
    de.labels.category_AE,
    "Steuerschuldnerschaft des Leistungsempfängers",
  );
  assertEquals(de.tax_label, "USt.");
  assertEquals(de.units.HUR, "Std.");
  const fr = LOCALE_TEXTS["fr-FR"];
  assertEquals(fr.labels.invoice, "Facture");
  assertEquals(fr.labels.credit_note, "Avoir");
  assertEquals(fr.labels.category_AE, "Autoliquidation");
  assertEquals(fr.tax_label, "TVA");
  assertEquals(LOCALE_TEXTS["pl-PL"].labels.category_AE, "Odwrotne obciążenie");
  assertEquals(LOCALE_TEXTS["en-GB"].tax_label, "VAT");
  assertEquals(LOCALE_TEXTS["en-US"].tax_label, "Sales tax");
  assertEquals(LOCALE_TEXTS["cs-CZ"].tax_label, "DPH");
});

Deno.test("Intl formats are made once per locale and currency", () => {
  const a = formats_for("de-DE", "EUR");
  assert(a === formats_for("de-DE", "EUR"), "cached");
  assert(a !== formats_for("de-DE", "CHF"), "per currency");
  assertEquals(a.money("1234.56"), "1.234,56\u00A0€");
  assertEquals(
    formats_for("de-CH", "CHF").money("1234.56"),
    "CHF\u00A01’234.56",
  );
  assertEquals(formats_for("cs-CZ", "CZK").money("100.00"), "100,00\u00A0Kč");
  // Exact decimals, never through floating point.
  assertEquals(
    formats_for("en-US", "USD").money("90071992547409.93"),
    "$90,071,992,547,409.93",
  );
  assertEquals(formats_for("de-DE", undefined).percent("7.7"), "7,7\u00A0%");
  assertEquals(formats_for("de-DE", undefined).price("0.125"), "0,125");
  // Without locale: the default entry's formats.
  const codes = formats_for(undefined, "EUR");
  assert(codes === formats_for(DEFAULT_LOCALE, "EUR"), "the default entry");
  assertEquals(codes.money("1234.5"), "EUR 1,234.50");
  assertEquals(codes.date("2026-11-23"), "2026-11-23");
});

Deno.test("the default locale is an ordinary entry; an unknown locale is an error, not English", () => {
  const fallback = LOCALE_TEXTS[DEFAULT_LOCALE];
  assert(locale_texts(undefined) === fallback, "no locale: the default entry");
  assertEquals(fallback.labels, LOCALE_TEXTS["en-US"].labels);
  assertEquals(fallback.formats, "iso");
  assertEquals(fallback.page_size, "a4");
  assertEquals(fallback.direction, "ltr");
  assertThrows(() => locale_texts("xx-XX"), RangeError, "xx-XX");
  assertThrows(() => formats_for("xx-XX", "EUR"), RangeError, "xx-XX");
});

Deno.test("the registry says each locale's direction and paper", () => {
  for (const locale of LOCALES) {
    const texts = LOCALE_TEXTS[locale];
    assertEquals(
      texts.direction,
      ["ar-SA", "ar-AE", "he-IL"].includes(locale) ? "rtl" : "ltr",
      locale,
    );
    assertEquals(
      texts.page_size,
      ["en-US", "en-CA"].includes(locale) ? "letter" : "a4",
      locale,
    );
  }
});

function locale_invoice(locale: string, currency: string): Invoice {
  const invoice = {
    invoice_number: "LOC-1",
    date: "2026-11-23",
    due_date: "2026-12-07",
    currency,
    locale,
    document_type: "invoice",
    sender: { name: "Seller", email: "s@seller.example" },
    bill_to: { name: "Buyer", email: "b@buyer.example" },
    items: [{
      description: "Work",
      quantity: 1,
      unit: "HUR",
      rate: "1234.56",
      amount: "1234.56",
    }],
    subtotal: "1234.56",
    total: "1234.56",
    has_tax: false,
    amount_due: "1234.56",
  };
  return invoice as unknown as Invoice;
}

for (const locale of LATIN_SCRIPT_LOCALES) {
  Deno.test(`${locale}: labels, a date and an amount as pdftotext reads them`, async () => {
    const expected = EXPECTED[locale];
    const texts = locale_texts(locale);
    const text = await pdf_text(
      render_invoice_pdf(locale_invoice(locale, expected.currency)),
    );
    const lines = text.split("\n");
    const labels = texts.labels;
    assertStringIncludes(text, labels.invoice.toLocaleUpperCase(locale));
    for (
      const key of [
        "invoice_number",
        "issue_date",
        "due_date",
        "from",
        "bill_to",
        "description",
        "quantity",
        "unit",
        "unit_price",
        "amount",
        "subtotal",
        "total",
      ] as LabelKey[]
    ) {
      assertStringIncludes(text, labels[key], `${locale}: ${key}`);
    }
    // The issue date line, the total with currency, the table amount.
    assert(
      lines.includes(`${labels.issue_date} ${expected.date}`),
      `${locale}: "${labels.issue_date} ${expected.date}" in\n${text}`,
    );
    assert(
      lines.includes(`${labels.total} ${expected.money}`),
      `${locale}: "${labels.total} ${expected.money}" in\n${text}`,
    );
    assert(
      lines.includes(
        `Work 1 ${texts.units.HUR} ${expected.table} ${expected.table}`,
      ),
      `${locale}: table row in\n${text}`,
    );
    assertStringIncludes(
      text,
      fill(labels.page_of, { page: "1", pages: "1" }),
    );
  });
}
