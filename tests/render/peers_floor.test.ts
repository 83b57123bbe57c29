/**
 * The hand-written floor PDF of the peers benchmark
 * (`tests/bench/floor_pdf.ts`) is a valid PDF: qpdf finds its structure
 * clean (cross-reference offsets included) and pdftotext reads the
 * invoice's text from it, characters outside WinAnsi as `?`.
 */
import { assert, assertStringIncludes } from "../assert.ts";
import { pdf_text, qpdf_check } from "../helpers/pdf_text.ts";
import { floor_pdf } from "../bench/floor_pdf.ts";
import { render_cases } from "../bench/render_cases.ts";

Deno.test("the floor PDF passes qpdf --check and pdftotext reads the invoice", async () => {
  const invoice = render_cases().find((c) => c.name === "seed")!.invoice;
  const bytes = floor_pdf(invoice);
  const check = await qpdf_check(bytes);
  assert(check.ok, `${check.stdout}${check.stderr}`);
  const text = await pdf_text(bytes);
  assertStringIncludes(text, `Invoice ${invoice.invoice_number}`);
  assertStringIncludes(text, invoice.sender.name);
  // "Zażółć gęślą jaźń — Ελληνικά": ó and the dash are WinAnsi, the rest not.
  assertStringIncludes(text, "Za?ó?? g??l? ja?? — ????????");
  assertStringIncludes(text, `${invoice.total}`);
});
