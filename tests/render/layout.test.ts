/**
 * The layout of the page: a full invoice of up to 8 lines fits one page on
 * A4 and on Letter; continuation pages start with a running header and the
 * items' column header; no page ends with a table header; the tax
 * breakdown is on the page of the totals; the legal footer is on every
 * page; the brand colour is in the page content; the paper follows
 * `page_size`, else the locale.
 */
import {
  assert,
  assertEquals,
  assertGreater,
  assertLess,
  assertMatch,
} from "../assert.ts";
import {
  pdf_page_count,
  pdf_page_texts,
  pdf_words,
  with_temp_pdf,
} from "../helpers/pdf_text.ts";
import {
  full_layout_invoice,
  full_layout_request,
} from "../fixtures/layout_invoices.ts";
import { InvoiceRequestSchema } from "../../contract/mod.ts";
import { fill, locale_texts } from "../../server/pdf/locales.ts";
import { render_invoice_pdf } from "../../server/pdf/mod.ts";

const LOCALES = ["de-DE", "en-US", "ja-JP", "ar-SA"] as const;
const LEGAL_START = "Müller & Söhne GmbH · Sitz Berlin";

Deno.test("the full invoice of 8 lines is one page on A4 and on Letter in de-DE, en-US, ja-JP and ar-SA", async () => {
  for (const locale of LOCALES) {
    for (const page_size of ["a4", "letter"] as const) {
      const pdf = render_invoice_pdf(
        full_layout_invoice({ locale, page_size, lines: 8 }),
      );
      assertEquals(await pdf_page_count(pdf), 1, `${locale} ${page_size}`);
    }
  }
});

Deno.test("page 2 of a 60-line invoice starts with the running header, then the column header", async () => {
  const pdf = render_invoice_pdf(
    full_layout_invoice({ locale: "en-US", lines: 60 }),
  );
  const { pages, words } = await pdf_words(pdf);
  assertGreater(pages.length, 1);
  const on_page_2 = words.filter((w) => w.page === 2);
  const find = (text: string) => {
    const word = on_page_2.find((w) => w.text === text);
    assert(word !== undefined, `"${text}" on page 2`);
    return word;
  };
  const labels = locale_texts("en-US").labels;
  // The running header: sender, invoice number, "Page 2 of N", at the top.
  const number = find("RE-2026-0042");
  const sender = find("Söhne");
  const page_of = fill(labels.page_of, {
    page: "2",
    pages: String(pages.length),
  }).split(" ");
  const page_word = find(page_of[page_of.length - 1]);
  for (const word of [number, sender, page_word]) {
    assertLess(word.y_max, 50, `${word.text} at the top`);
  }
  assertLess(sender.x_max, number.x_min);
  assertGreater(page_word.x_min, pages[1].width / 2);
  // Then the column header, then the first row of the page.
  const header = find(labels.description);
  const amount = on_page_2.filter((w) => w.text === labels.amount)
    .sort((a, b) => a.y_min - b.y_min)[0];
  assertGreater(header.y_min, number.y_max);
  assertLess(Math.abs(amount.y_min - header.y_min), 1, "one header row");
  const rows = on_page_2.filter((w) =>
    w.y_min > header.y_max && w.y_max < pages[1].height - 100
  );
  assertGreater(rows.length, 0);
  // Nothing between the running header and the column header.
  const between = on_page_2.filter((w) =>
    w.y_min > number.y_max && w.y_max < header.y_min
  );
  assertEquals(between.map((w) => w.text), []);
});

/** The items header line of `locale` as pdftotext reads it. */
function items_header(locale: string): string {
  const labels = locale_texts(locale).labels;
  const tax = locale_texts(locale).tax_label;
  return [
    labels.description,
    labels.quantity,
    labels.unit,
    labels.unit_price,
    fill(labels.line_tax, { tax }),
    labels.amount,
  ].join(" ");
}

Deno.test("no page ends with the items header: the table starts on the next page with its first row", async () => {
  const header = items_header("de-DE");
  let checked = 0;
  // A bill-to address that wraps into 1 to 40 lines: the table starts a
  // line lower each time, at some point near the bottom of page 1.
  for (let extra = 0; extra < 40; extra++) {
    const body = full_layout_request({ locale: "de-DE", lines: 3 });
    // A first row taller than the totals: the header and the totals may
    // fit where the row does not.
    body.items[0].description = [
      body.items[0].description,
      ...Array.from({ length: 18 }, (_, i) => `Workshop day ${i + 1}`),
    ].join("\n");
    body.bill_to.address = [
      "Lindenallee 12",
      ...Array.from({ length: 4 }, (_, i) =>
        Array.from(
          { length: Math.max(0, Math.min(10, extra - 10 * i)) },
          (_, k) => `Hinterhaus Aufgang ${i}${k} Etage`,
        ).join(" ")),
    ].filter((line) => line !== "");
    const pdf = render_invoice_pdf(InvoiceRequestSchema.parse(body));
    const pages = await pdf_page_texts(pdf);
    for (const [index, page] of pages.entries()) {
      const lines = page.split("\n");
      const at = lines.indexOf(header);
      if (at < 0) continue;
      checked++;
      // The header is followed by an item row on the same page.
      assertMatch(
        lines[at + 1] ?? "",
        /^(Consulting|Design|Accessibility)/,
        `${extra} extra: page ${index + 1} ends with the items header`,
      );
    }
  }
  assertGreater(checked, 40 - 1);
});

Deno.test("the tax breakdown is on the page of the totals, for every length from 1 to 80 lines", async () => {
  const labels = locale_texts("de-DE").labels;
  const tax = locale_texts("de-DE").tax_label;
  const total = fill(labels.total_with_tax, { tax });
  const breakdown = fill(labels.tax_rate, { tax });
  for (let lines = 1; lines <= 80; lines++) {
    const pdf = render_invoice_pdf(
      full_layout_invoice({ locale: "de-DE", lines }),
    );
    const pages = await pdf_page_texts(pdf);
    const page_of = (text: string) =>
      pages.findIndex((page) =>
        page.split("\n").some((line) => line.startsWith(text))
      );
    const totals_page = page_of(`${total} `);
    assertGreater(totals_page, 0 - 1, `${lines} lines: totals`);
    assertEquals(
      page_of(breakdown),
      totals_page,
      `${lines} lines: breakdown on page ${page_of(breakdown) + 1}, ` +
        `totals on page ${totals_page + 1}`,
    );
  }
});

Deno.test("sender.legal_info is printed on every page, above the page line", async () => {
  const pdf = render_invoice_pdf(
    full_layout_invoice({ locale: "en-US", lines: 60 }),
  );
  const pages = await pdf_page_texts(pdf);
  assertGreater(pages.length, 2);
  for (const [index, page] of pages.entries()) {
    const lines = page.split("\n");
    const legal = lines.findIndex((line) => line.startsWith(LEGAL_START));
    assertGreater(legal, 0 - 1, `page ${index + 1}`);
    // The page line ("RE-2026-0042 · …  Page x of y") comes after it.
    assertMatch(lines[legal + 1], /^RE-2026-0042 · /);
  }
});

Deno.test("legal_info longer than 3 lines or 360 characters is refused, naming the limit", () => {
  const too_many_lines = full_layout_request();
  too_many_lines.sender.legal_info = "a\nb\nc\nd";
  const lines = InvoiceRequestSchema.safeParse(too_many_lines);
  assert(!lines.success);
  assertMatch(lines.error.issues[0].message, /at most 3 lines/);
  const too_long = full_layout_request();
  too_long.sender.legal_info = "x".repeat(361);
  const long = InvoiceRequestSchema.safeParse(too_long);
  assert(!long.success);
  assertMatch(long.error.issues[0].message, /at most 360 characters/);
  const fits = full_layout_request();
  fits.sender.legal_info = "a\nb\n" + "c".repeat(300);
  assert(InvoiceRequestSchema.safeParse(fits).success);
});

/** The page content streams of `pdf`, uncompressed (qpdf's QDF form). */
function page_content(pdf: Uint8Array): Promise<string> {
  return with_temp_pdf(pdf, async (path) => {
    const out = await new Deno.Command("qpdf", {
      args: ["--qdf", "--object-streams=disable", path, "-"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert(out.code === 0 || out.code === 3, "qpdf --qdf");
    return new TextDecoder("latin1").decode(out.stdout);
  });
}

/** WCAG 2 contrast of an sRGB colour (0–1 channels) against white. */
function contrast([r, g, b]: number[]): number {
  const linear = (c: number) =>
    c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  const l = 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  return 1.05 / (l + 0.05);
}

/** The colours of `op` ("rg" fill, "RG" stroke) in `content`, 0–1 channels. */
function colors(content: string, op: "rg" | "RG"): number[][] {
  return [
    ...content.matchAll(
      new RegExp(`([\\d.]+) ([\\d.]+) ([\\d.]+) ${op}\\b`, "g"),
    ),
  ]
    .map((m) => [Number(m[1]), Number(m[2]), Number(m[3])]);
}

/** Whether `list` has a colour within 0.01 a channel of `hex`'s. */
function has_color(list: number[][], hex: string): boolean {
  const want = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  return list.some((c) => c.every((v, i) => Math.abs(v - want[i]) <= 0.01));
}

Deno.test("brand_color: in the page content for the rule as given, darkened to 4.5:1 for text", async () => {
  // A dark green passes as it is, for text and rule.
  const dark = await page_content(render_invoice_pdf(
    full_layout_invoice({ locale: "en-US", brand_color: "#0a7c66" }),
  ));
  assert(has_color(colors(dark, "RG"), "#0A7C66"), "rule in dark green");
  assert(has_color(colors(dark, "rg"), "#0A7C66"), "text in dark green");
  // Gold is too light for text: the rule keeps it, the text is darker.
  const gold = await page_content(render_invoice_pdf(
    full_layout_invoice({ locale: "en-US", brand_color: "#FFD700" }),
  ));
  assert(has_color(colors(gold, "RG"), "#FFD700"), "rule in gold");
  assert(!has_color(colors(gold, "rg"), "#FFD700"), "no text in gold");
  // Gold darkened: red > green > blue = 0 as in gold, 4.5:1 or more.
  const darkened = colors(gold, "rg").filter(([r, g, b]) =>
    b === 0 && r > g && g > 0.7 * r && r < 1
  );
  assertGreater(darkened.length, 0, "a darkened gold fill");
  for (const color of darkened) {
    assert(contrast(color) >= 4.5, `contrast of ${color}`);
  }
  // Without brand_color, neither colour is there.
  const plain = await page_content(render_invoice_pdf(
    full_layout_invoice({ locale: "en-US" }),
  ));
  for (const op of ["rg", "RG"] as const) {
    assert(!has_color(colors(plain, op), "#FFD700"));
    assert(!has_color(colors(plain, op), "#0A7C66"));
  }
});

Deno.test("page_size: Letter for en-US and en-CA, A4 otherwise and without a locale; the request's page_size wins", async () => {
  const size = async (pdf: Uint8Array) => {
    const { pages } = await pdf_words(pdf);
    return [Math.round(pages[0].width), Math.round(pages[0].height)];
  };
  const letter = [612, 792];
  const a4 = [595, 842];
  assertEquals(
    await size(render_invoice_pdf(full_layout_invoice({ locale: "en-US" }))),
    letter,
  );
  assertEquals(
    await size(render_invoice_pdf(full_layout_invoice({ locale: "en-CA" }))),
    letter,
  );
  assertEquals(
    await size(render_invoice_pdf(full_layout_invoice({ locale: "de-DE" }))),
    a4,
  );
  assertEquals(await size(render_invoice_pdf(full_layout_invoice())), a4);
  assertEquals(
    await size(render_invoice_pdf(
      full_layout_invoice({ locale: "en-US", page_size: "a4" }),
    )),
    a4,
  );
  assertEquals(
    await size(render_invoice_pdf(
      full_layout_invoice({ locale: "ja-JP", page_size: "letter" }),
    )),
    letter,
  );
});
