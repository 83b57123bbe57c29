/**
 * Writes PNGs of typical invoices (page images by poppler's pdftoppm) so a
 * person can look at them: to tests/artifacts/invoices/ a German VAT
 * invoice, a UK reverse-charge invoice, a US sales-tax invoice with a
 * discount and shipping, and a French credit note; to
 * tests/artifacts/layout/ twelve samples of the full invoice (A4 and
 * Letter, de-DE, en-US, ja-JP and ar-SA, 1 to 3 pages, with and without a
 * brand colour). The folder is git-ignored output.
 */

import { assert, assertEquals, assertGreater } from "../assert.ts";
import { pdf_page_count } from "../helpers/pdf_text.ts";
import {
  credit_note,
  german_vat_invoice,
  uk_reverse_charge_invoice,
  us_sales_tax_invoice,
} from "../fixtures/rendered_invoices.ts";
import { full_layout_invoice } from "../fixtures/layout_invoices.ts";
import { render_invoice_pdf } from "../../server/pdf/mod.ts";

const OUT = new URL("../artifacts/invoices/", import.meta.url);

Deno.test("PNGs of a German VAT, a UK reverse-charge, a US sales-tax invoice and a credit note", async () => {
  await Deno.mkdir(OUT, { recursive: true });
  const cases = {
    "de_vat_invoice": german_vat_invoice(),
    "uk_reverse_charge_invoice": uk_reverse_charge_invoice(),
    "us_sales_tax_invoice": us_sales_tax_invoice(),
    "fr_credit_note": credit_note(),
  };
  for (const [name, invoice] of Object.entries(cases)) {
    // Page images of an earlier run (maybe with more pages) go first.
    for (const entry of Deno.readDirSync(OUT)) {
      if (entry.name.startsWith(`${name}-`)) {
        await Deno.remove(new URL(entry.name, OUT));
      }
    }
    const pdf = render_invoice_pdf(invoice);
    const pdf_path = new URL(`${name}.pdf`, OUT).pathname;
    await Deno.writeFile(pdf_path, pdf);
    const pages = await pdf_page_count(pdf);
    const result = await new Deno.Command("pdftoppm", {
      args: ["-png", "-r", "110", pdf_path, new URL(name, OUT).pathname],
      stderr: "piped",
    }).output();
    assertEquals(result.code, 0, new TextDecoder().decode(result.stderr));
    const pngs = [...Deno.readDirSync(OUT)].filter((e) =>
      e.name.startsWith(`${name}-`) && e.name.endsWith(".png")
    );
    assertEquals(pngs.length, pages, `${name}: one PNG per page`);
    for (const png of pngs) {
      const bytes = await Deno.readFile(new URL(png.name, OUT));
      assertEquals([...bytes.subarray(1, 4)], [80, 78, 71]); // "PNG"
      assertGreater(bytes.length, 10_000);
    }
  }
});

/** The twelve layout samples: locale, paper, lines, brand colour. */
const LAYOUT_SAMPLES = [
  ["de-DE", "a4", 8, "#0A7C66"],
  ["de-DE", "letter", 30, undefined],
  ["de-DE", "a4", 55, "#B4005A"],
  ["en-US", "letter", 8, "#FFD700"],
  ["en-US", "a4", 30, "#1D4ED8"],
  ["en-US", "letter", 55, undefined],
  ["ja-JP", "a4", 8, "#C2410C"],
  ["ja-JP", "letter", 30, undefined],
  ["ja-JP", "a4", 55, "#0A7C66"],
  ["ar-SA", "letter", 8, "#0A7C66"],
  ["ar-SA", "a4", 30, undefined],
  ["ar-SA", "letter", 55, "#7C3AED"],
] as const;

Deno.test("PNGs of 12 layout samples: A4 and Letter, de-DE, en-US, ja-JP, ar-SA, 1 to 3 pages", async () => {
  const out = new URL("../artifacts/layout/", import.meta.url);
  await Deno.remove(out, { recursive: true }).catch(() => {});
  await Deno.mkdir(out, { recursive: true });
  for (const [locale, page_size, lines, brand_color] of LAYOUT_SAMPLES) {
    const name = `${locale}_${page_size}_${lines}_lines`;
    const pdf = render_invoice_pdf(
      full_layout_invoice({ locale, page_size, lines, brand_color }),
    );
    const pdf_path = new URL(`${name}.pdf`, out).pathname;
    await Deno.writeFile(pdf_path, pdf);
    const pages = await pdf_page_count(pdf);
    assert(pages >= 1 && pages <= 3, `${name}: ${pages} pages`);
    const result = await new Deno.Command("pdftoppm", {
      args: ["-png", "-r", "90", pdf_path, new URL(name, out).pathname],
      stderr: "piped",
    }).output();
    assertEquals(result.code, 0, new TextDecoder().decode(result.stderr));
    const pngs = [...Deno.readDirSync(out)].filter((e) =>
      e.name.startsWith(`${name}-`) && e.name.endsWith(".png")
    );
    assertEquals(pngs.length, pages, `${name}: one PNG per page`);
  }
});
