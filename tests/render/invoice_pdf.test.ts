/**
 * Tests of the PDF renderer through the tools a reader would use: pdftotext,
 * pdfinfo and qpdf (Debian packages `poppler-utils` and `qpdf`).
 *
 * None of these tests measure time.
 */

import {
  assert,
  assertEquals,
  assertGreater,
  assertMatch,
  assertNotEquals,
  assertStringIncludes,
} from "../assert.ts";
import {
  pdf_info,
  pdf_page_count,
  pdf_page_texts,
  pdf_text,
  pdf_words,
  qpdf_check,
} from "../helpers/pdf_text.ts";
import type { Invoice, InvoiceLineItem } from "../../contract/invoice_types.ts";
import {
  render_invoice_pdf,
  UNSUPPORTED_CHARACTER_PLACEHOLDER,
} from "../../server/pdf/mod.ts";

const POLISH = "Zażółć gęślą jaźń — Łódź, Kraków";
const ROMANIAN = "Ștefan Țărănescu, Științe și Tehnică";
const HUNGARIAN = "Árvíztűrő tükörfúrógép, Győr Ő ű";
const GREEK = "Ελληνικά: Υπηρεσίες σχεδιασμού, ΑΒΓΔ άέήίόύώ";
const CYRILLIC = "Разработка программного обеспечения, Ёлка, Ґанок, Їжак";

function full_invoice(): Invoice {
  return {
    invoice_number: "INV-2024-0042",
    date: "2024-03-31",
    due_date: "2024-04-30",
    currency: "EUR",
    sender: {
      name: "Zażółć Gęślą Sp. z o.o.",
      email: "billing@zazolc.example",
      address: "ul. Długa 5/7",
      city: "Łódź",
      state: "Łódzkie",
      zip: "90-001",
    },
    bill_to: {
      name: "Ștefan Mărgărit SRL",
      email: "stefan@margarit.example",
      address: "Strada Științei 12",
      city: "București",
      state: "Sector 1",
      zip: "010011",
    },
    items: [
      { description: POLISH, quantity: 2, rate: "1250.5", amount: "2501.00" },
      { description: ROMANIAN, quantity: 1, rate: "0.125", amount: "0.13" },
      {
        description: HUNGARIAN,
        quantity: 12000,
        rate: "99.99",
        amount: "1199880.00",
      },
      { description: GREEK, quantity: 3, rate: "-20", amount: "-60.00" },
      { description: CYRILLIC, quantity: 7, rate: "1000", amount: "7000.00" },
    ],
    notes:
      "Payment within 30 days.\nDziękujemy! Mulțumim! Köszönjük! Ευχαριστούμε! Спасибо!",
    subtotal: "1209321.13",
    total: "1209321.13",
    document_type: "invoice",
    has_tax: false,
    amount_due: "1209321.13",
  };
}

function items(
  count: number,
  description = (i: number) => `Service line ${i + 1}`,
): InvoiceLineItem[] {
  return Array.from({ length: count }, (_, i) => ({
    description: description(i),
    quantity: (i % 5) + 1,
    rate: "100.00",
    amount: `${((i % 5) + 1) * 100}.00`,
  }));
}

/**
 * Collapses all whitespace to single spaces: pdftotext puts wrapped lines
 * of a cell on separate lines, and a row's numbers follow its description.
 */
function squeeze(text: string): string {
  return text.replace(/\s+/g, " ");
}

/** Text of all pages without the repeated table header and page footer. */
function body_text(pages: string[]): string {
  return pages.map((page) =>
    page.split("\n").filter((line) =>
      !/ Page \d+ of \d+$/.test(line) && line !== "Description Qty Rate Amount"
    ).join("\n")
  ).join("\n");
}

Deno.test("a full invoice shows every field, Unicode strings exactly", async () => {
  const invoice = full_invoice();
  const text = squeeze(await pdf_text(render_invoice_pdf(invoice)));
  const expected = [
    "INVOICE",
    "INV-2024-0042",
    "2024-03-31",
    "2024-04-30",
    // Parties: every field, including the optional address lines.
    "Zażółć Gęślą Sp. z o.o.",
    "billing@zazolc.example",
    "ul. Długa 5/7",
    "Łódź, Łódzkie 90-001",
    "Ștefan Mărgărit SRL",
    "stefan@margarit.example",
    "Strada Științei 12",
    "București, Sector 1 010011",
    // Table header and rows: description, qty, rate, amount on one line.
    "Description Qty Rate Amount",
    `${POLISH} 2 1,250.50 2,501.00`,
    `${ROMANIAN} 1 0.125 0.13`,
    `${HUNGARIAN} 12,000 99.99 1,199,880.00`,
    `${GREEK} 3 -20.00 -60.00`,
    `${CYRILLIC} 7 1,000.00 7,000.00`,
    "Subtotal EUR 1,209,321.13",
    "Total EUR 1,209,321.13",
    "Notes",
    "Payment within 30 days.",
    "Dziękujemy! Mulțumim! Köszönjük! Ευχαριστούμε! Спасибо!",
    "Page 1 of 1",
  ];
  for (const fragment of expected) assertStringIncludes(text, fragment);
  assert(!text.includes("undefined"), "no 'undefined' in the text");
});

Deno.test("optional fields that are absent leave no trace", async () => {
  const invoice: Invoice = {
    invoice_number: "7",
    date: "2024-01-05",
    due_date: "2024-01-05",
    sender: { name: "Jo Freelance", email: "jo@example.com" },
    bill_to: { name: "Al Client", email: "al@example.com", city: "Oslo" },
    items: [{ description: "Thing", quantity: 1, rate: "5", amount: "5.00" }],
    subtotal: "5.00",
    total: "5.00",
    document_type: "invoice",
    has_tax: false,
    amount_due: "5.00",
  };
  const text = squeeze(await pdf_text(render_invoice_pdf(invoice)));
  for (
    const fragment of [
      "Jo Freelance",
      "jo@example.com",
      "Al Client",
      "Oslo",
      "Thing 1 5.00 5.00",
      "Total 5.00",
    ]
  ) {
    assertStringIncludes(text, fragment);
  }
  for (const absent of ["undefined", "null", "Notes", "EUR", "USD"]) {
    assert(!text.includes(absent), `unexpected "${absent}"`);
  }
});

Deno.test("300 items paginate: header and 'Page X of Y' on every page, totals after the last row", async () => {
  const invoice = { ...full_invoice(), items: items(300), notes: undefined };
  const pdf = render_invoice_pdf(invoice);
  const pages = await pdf_page_texts(pdf);
  assertEquals(await pdf_page_count(pdf), pages.length);
  assertGreater(pages.length, 3);
  pages.forEach((page, i) => {
    assertStringIncludes(
      squeeze(page),
      "Description Qty Rate Amount",
      `header on page ${i + 1}`,
    );
    assertStringIncludes(page, `Page ${i + 1} of ${pages.length}`);
  });
  const all = pages.join("\n");
  for (let i = 0; i < 300; i++) {
    assertMatch(all, new RegExp(`^Service line ${i + 1} \\d `, "m"));
  }
  // Totals appear once, on the last page, below the last item.
  assertEquals(all.split("Subtotal").length, 2);
  const last = pages[pages.length - 1];
  assert(last.indexOf("Service line 300 ") >= 0, "last item on last page");
  assertGreater(last.indexOf("Subtotal"), last.indexOf("Service line 300 "));
  assertGreater(last.indexOf("Total EUR"), last.indexOf("Subtotal"));
});

Deno.test("totals are never alone on a page: they keep the last row with them", async () => {
  // Item counts around the first page break, so that for some of them the
  // last row is the last thing that fits on a page.
  for (let count = 14; count <= 30; count++) {
    const pages = await pdf_page_texts(
      render_invoice_pdf({
        ...full_invoice(),
        items: items(count),
        notes: undefined,
      }),
    );
    const with_totals = pages.filter((p) => p.includes("Subtotal"));
    assertEquals(with_totals.length, 1, `${count} items`);
    assertStringIncludes(
      with_totals[0],
      `Service line ${count} `,
      `${count} items`,
    );
  }
});

Deno.test("a 1,500-character word wraps inside its cell and survives whole", async () => {
  const word = "A".repeat(1500);
  const invoice = {
    ...full_invoice(),
    items: [
      { description: word, quantity: 1, rate: "10", amount: "10.00" },
      ...items(3),
    ],
  };
  const pdf = render_invoice_pdf(invoice);
  const compact = (await pdf_text(pdf)).replace(/\s+/g, "");
  assertStringIncludes(compact, word);
  assert(!compact.includes(word + "A"), "no extra letters");

  // Every word of every page lies inside the page's margins.
  const { pages, words } = await pdf_words(pdf);
  for (const w of words) {
    const page = pages[w.page - 1];
    assert(
      w.x_min >= 40 && w.x_max <= page.width - 40,
      `"${w.text.slice(0, 20)}" x ${w.x_min}–${w.x_max}`,
    );
    assert(
      w.y_min >= 0 && w.y_max <= page.height,
      `"${w.text.slice(0, 20)}" y ${w.y_min}–${w.y_max}`,
    );
  }
  // It was wrapped into many lines, all within the description column.
  const a_lines = words.filter((w) => /^A+$/.test(w.text));
  assertGreater(a_lines.length, 10);
});

Deno.test("a description longer than a page continues on the next page", async () => {
  const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(" ") +
    " " + "B".repeat(3000);
  const pdf = render_invoice_pdf({
    ...full_invoice(),
    items: [{ description: long, quantity: 1, rate: "1", amount: "1.00" }],
  });
  assertGreater(await pdf_page_count(pdf), 1);
  // The row's numbers are printed after the part of it on the first page.
  const text = body_text(await pdf_page_texts(pdf)).replace(
    "\n1 1.00 1.00\n",
    "\n",
  );
  const compact = text.replace(/\s+/g, "");
  assertStringIncludes(compact, long.replace(/\s+/g, ""));
  assert((await qpdf_check(pdf)).ok);
});

Deno.test("identical invoices give byte-identical PDFs; another invoice another /ID", () => {
  const first = render_invoice_pdf(full_invoice());
  const second = render_invoice_pdf(full_invoice());
  assertEquals(first, second);

  const id = (pdf: Uint8Array): string => {
    const match = /\/ID \[ <([0-9A-F]{32})> <\1> \]/.exec(
      new TextDecoder("latin1").decode(pdf),
    );
    if (match === null) throw new Error("no /ID");
    return match[1];
  };
  const changed = full_invoice();
  changed.items[0].quantity = 3;
  assertNotEquals(id(render_invoice_pdf(changed)), id(first));
  const renumbered = { ...full_invoice(), invoice_number: "INV-2024-0043" };
  assertNotEquals(id(render_invoice_pdf(renumbered)), id(first));
  // Key order of the input does not matter.
  const reverse_keys = <T extends object>(value: T): T =>
    Object.fromEntries(Object.entries(value).reverse()) as T;
  const original = full_invoice();
  const reordered: Invoice = {
    ...reverse_keys(original),
    sender: reverse_keys(original.sender),
    items: original.items.map(reverse_keys),
  };
  assertEquals(id(render_invoice_pdf(reordered)), id(first));
});

Deno.test("metadata: title, author, creation date from the invoice date", async () => {
  const info = await pdf_info(render_invoice_pdf(full_invoice()));
  assertEquals(info["Title"], "Invoice INV-2024-0042");
  assertEquals(info["Author"], "Zażółć Gęślą Sp. z o.o.");
  assertMatch(info["CreationDate"], /2024/);
  assertMatch(info["CreationDate"], /Mar 31/);
});

Deno.test("characters the font lacks become a placeholder, deterministically", async () => {
  const invoice: Invoice = {
    ...full_invoice(),
    sender: { name: "Tokyo 東京 Ltd 🚀", email: "hi@example.jp" },
    items: [
      {
        description: "Coffee ☕ 咖啡 time",
        quantity: 1,
        rate: "3",
        amount: "3.00",
      },
      {
        description: "Family 👨‍👩‍👧 emoji, flag 🇵🇱, Ethiopic ሰላም",
        quantity: 1,
        rate: "1",
        amount: "1.00",
      },
      {
        description: "Zero\u200Bwidth soft\u00ADhyphen tab\there",
        quantity: 1,
        rate: "1",
        amount: "1.00",
      },
    ],
  };
  const pdf = render_invoice_pdf(invoice);
  assertEquals(pdf, render_invoice_pdf(invoice));
  const p = UNSUPPORTED_CHARACTER_PLACEHOLDER;
  const text = squeeze(await pdf_text(pdf));
  // CJK is drawn (script fonts); emoji and scripts without a font are not.
  assertStringIncludes(text, `Tokyo 東京 Ltd ${p}`);
  assertStringIncludes(text, `Coffee ${p} 咖啡 time`);
  // One placeholder per user-perceived character (grapheme cluster).
  assertStringIncludes(
    text,
    `Family ${p} emoji, flag ${p}, Ethiopic ${p}${p}${p}`,
  );
  assertStringIncludes(text, "Zerowidth softhyphen tab here");
  assert((await qpdf_check(pdf)).ok);
});

Deno.test("text that looks like PDF syntax is rendered literally", async () => {
  const nasty =
    ") ( \\ \\\\ endobj %%EOF stream endstream trailer << /Type /Catalog >> xref 0 obj";
  const invoice: Invoice = {
    ...full_invoice(),
    invoice_number: "INV-(1)\\2",
    sender: { ...full_invoice().sender, name: "Acme (Europe) \\ Ltd %%EOF" },
    items: [{ description: nasty, quantity: 1, rate: "1", amount: "1.00" }],
    notes: "endobj\n%%EOF\n(unbalanced",
  };
  const pdf = render_invoice_pdf(invoice);
  const check = await qpdf_check(pdf);
  assert(check.ok, check.stdout + check.stderr);
  const text = squeeze(await pdf_text(pdf));
  assertStringIncludes(text, `${nasty} 1 1.00 1.00`);
  assertStringIncludes(text, "INV-(1)\\2");
  assertStringIncludes(text, "Acme (Europe) \\ Ltd %%EOF");
  assertStringIncludes(text, "Notes endobj %%EOF (unbalanced");
  const info = await pdf_info(pdf);
  assertEquals(info["Title"], "Invoice INV-(1)\\2");
  assertEquals(info["Author"], "Acme (Europe) \\ Ltd %%EOF");
});

Deno.test("qpdf --check passes for small, large, Unicode and hostile invoices", async () => {
  const cases: Invoice[] = [
    full_invoice(),
    {
      ...full_invoice(),
      items: items(1),
      notes: undefined,
      currency: undefined,
    },
    { ...full_invoice(), items: items(300) },
    { ...full_invoice(), notes: "x".repeat(20000) },
  ];
  for (const invoice of cases) {
    const result = await qpdf_check(render_invoice_pdf(invoice));
    assert(result.ok, result.stdout + result.stderr);
  }
});

Deno.test("fonts are embedded subsets with Unicode maps", async () => {
  const pdf = render_invoice_pdf(full_invoice());
  const path = await Deno.makeTempFile({ suffix: ".pdf" });
  try {
    await Deno.writeFile(path, pdf);
    const out = await new Deno.Command("pdffonts", {
      args: [path],
      stdout: "piped",
    }).output();
    const lines = new TextDecoder().decode(out.stdout).trim().split("\n").slice(
      2,
    );
    assertEquals(lines.length, 2);
    for (const line of lines) {
      // name, type "CID TrueType", encoding "Identity-H", emb yes, sub yes, uni yes
      assertMatch(
        line,
        /^[A-Z]{6}\+NotoSans-(Regular|Bold)\s+CID TrueType\s+Identity-H\s+yes\s+yes\s+yes/,
      );
    }
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("huge amounts and many-digit quantities stay on one line in their columns", async () => {
  const invoice: Invoice = {
    ...full_invoice(),
    currency: "USD",
    items: [{
      description: "Big",
      quantity: 1000000,
      rate: "99999.99",
      amount: "99999990000.00",
    }],
    subtotal: "99999990000.00",
    total: "99999990000.00",
  };
  const text = await pdf_text(render_invoice_pdf(invoice));
  assertStringIncludes(text, "Big 1,000,000 99,999.99 99,999,990,000.00\n");
  assertStringIncludes(text, "Subtotal USD 99,999,990,000.00\n");
  assertStringIncludes(text, "Total USD 99,999,990,000.00\n");
});

Deno.test("font subsets are reused per glyph set: any render order gives the same files, each with its own text", async () => {
  const a = full_invoice();
  const b: Invoice = {
    ...full_invoice(),
    invoice_number: "QX-77",
    notes: "Ŵŷ Ÿ ĳ — ǅ ǈ ǋ",
    items: [{ description: "Ğ ğ Ħ ħ", quantity: 1, rate: "1", amount: "1" }],
  };
  const a_first = render_invoice_pdf(a);
  const b_first = render_invoice_pdf(b);
  const a_again = render_invoice_pdf(a);
  const b_again = render_invoice_pdf(b);
  // A subset built for one glyph set is never served for another, and a
  // reused one gives exactly the bytes of a fresh one.
  assertEquals(a_again, a_first);
  assertEquals(b_again, b_first);
  assertNotEquals(b_first, a_first);
  const text_b = await pdf_text(b_again);
  assertStringIncludes(text_b, "Ŵŷ Ÿ ĳ — ǅ ǈ ǋ");
  assertStringIncludes(text_b, "Ğ ğ Ħ ħ");
  assertStringIncludes(await pdf_text(a_again), POLISH);
});
