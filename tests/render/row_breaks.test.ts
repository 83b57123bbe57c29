/**
 * Page breaks in the items table: a row moves to the next page whole instead
 * of starting at the bottom of one page and ending at the top of the next
 * (with its numbers on one page and its words on two). Only a row taller
 * than a page is still split.
 */
import { assert, assertGreater } from "../assert.ts";
import { pdf_page_texts, qpdf_check } from "../helpers/pdf_text.ts";
import { InvoiceRequestSchema } from "../../contract/mod.ts";
import { render_invoice_pdf } from "../../server/pdf/mod.ts";

function multi_line_invoice(count: number) {
  const filler =
    "Implementation work as agreed in the statement of work, including reviews, " +
    "meetings with the project team, documentation and hand-over notes for operations";
  return InvoiceRequestSchema.parse({
    invoice_number: "ROWS-40",
    date: "2026-11-01",
    due_date: "2026-11-30",
    sender: { name: "Acme Ltd", email: "billing@acme.example" },
    bill_to: { name: "Client GmbH", email: "ap@client.example" },
    items: Array.from({ length: count }, (_, index) => ({
      // 2 to 5 lines each, so row heights differ and some row meets each page end.
      description: `BEGIN${index + 1} ${
        Array.from({ length: (index % 4) + 1 }, () => filler).join(" ")
      } END${index + 1}`,
      quantity: 1,
      rate: index + 1,
      amount: index + 1,
    })),
  });
}

Deno.test("a row of the items table is never split across pages when it fits on one", async () => {
  for (const count of [40, 41, 43]) {
    const pdf = render_invoice_pdf(multi_line_invoice(count));
    const pages = (await pdf_page_texts(pdf)).map((page) =>
      page.replace(/\s+/g, " ")
    );
    assertGreater(pages.length, 2);
    for (let item = 1; item <= count; item++) {
      const begins = pages.findIndex((page) => page.includes(`BEGIN${item} `));
      const ends = pages.findIndex((page) => page.includes(` END${item} `));
      assert(begins >= 0 && ends >= 0, `item ${item} printed`);
      assert(
        begins === ends,
        `item ${item} of ${count} starts on page ${
          begins + 1
        } and ends on page ${ends + 1}`,
      );
    }
    assert((await qpdf_check(pdf)).ok);
  }
});
