/**
 * Writes PNGs of four typical invoices to tests/artifacts/invoices/ (page
 * images by poppler's pdftoppm) so a person can look at them: a German VAT
 * invoice, a UK reverse-charge invoice, a US sales-tax invoice with a
 * discount and shipping, and a French credit note.
 */

import { assertEquals, assertGreater } from "../assert.ts";
import { pdf_page_count } from "../helpers/pdf_text.ts";
import {
  credit_note,
  german_vat_invoice,
  uk_reverse_charge_invoice,
  us_sales_tax_invoice,
} from "../fixtures/rendered_invoices.ts";
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
