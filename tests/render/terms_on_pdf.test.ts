/**
 * Every term of the request is printed where a reader looks for it, and
 * the details of how a locale writes: the sign of negative Arabic amounts,
 * postcode and city in the address's country's order, grouped digits in
 * every amount column, "VAT" rather than "Sales tax" on VAT invoices, and
 * the tax-invoice titles of the markets that have one.
 */
import {
  assert,
  assertEquals,
  assertMatch,
  assertNotMatch,
} from "../assert.ts";
import { pdf_text } from "../helpers/pdf_text.ts";
import {
  type Body,
  every_term_invoice,
  plain_invoice,
  term_scenarios,
  TINY_PDF_BASE64,
} from "../fixtures/einvoice_terms.ts";
import { full_layout_request } from "../fixtures/layout_invoices.ts";
import { InvoiceRequestSchema } from "../../contract/mod.ts";
import { render_invoice_pdf } from "../../server/pdf/mod.ts";

/** The text of the PDF of `body`, whitespace squeezed to single spaces. */
async function squeezed(body: Body, mode?: "reading"): Promise<string> {
  const pdf = render_invoice_pdf(InvoiceRequestSchema.parse(body));
  return (await pdf_text(pdf, { mode })).replace(/[\s\u00A0\u202F]+/g, " ");
}

Deno.test("every term of the request is on the PDF: dates, references, parties, item details, notes, payment", async () => {
  const text = await squeezed(every_term_invoice());
  for (
    const [term, printed] of [
      ["delivery_date", "Delivery date 2026-10-31"],
      ["billing_period", "Service period 2026-10-01 – 2026-10-31"],
      ["tax_point_date", "Tax point date 2026-11-01"],
      ["preceding_invoices", "Original invoice RE-2026-0900 (2026-10-01)"],
      ["buyer_reference (BT-10)", "Your reference 04011000-12345-03"],
      ["project_reference (BT-11)", "Project PRJ-9"],
      ["contract_reference (BT-12)", "Contract V-2026-3"],
      ["purchase_order (BT-13)", "Purchase order PO-2026-17"],
      ["sales_order_reference (BT-14)", "Sales order AB-5511"],
      ["receiving_advice_reference (BT-15)", "Receiving advice WE-31"],
      ["despatch_advice_reference (BT-16)", "Despatch advice LS-2201"],
      ["tender_reference (BT-17)", "Tender or lot LOS-4"],
      ["invoiced_object (BT-18)", "Invoiced object ZAEHLER-1"],
      ["accounting_reference (BT-19)", "Your accounting ref. 4711-4000"],
      ["sender.contact_name", "Contact Erika Muster"],
      ["sender.trading_name", "Muster Shop"],
      ["sender.tax_number", "Tax number 12/345/67890"],
      ["sender.identifiers", "0088: 4000001000005"],
      ["bill_to.contact_name", "Contact Eingangsrechnungen"],
      ["deliver_to", "Deliver to"],
      ["deliver_to.name", "Stadtwerke Köln, Lager Nord"],
      ["deliver_to.address", "Industriestraße 5 Tor 3"],
      ["deliver_to.location_id", "0088: 4000002000004"],
      ["payee", "Payee"],
      ["payee.name", "Factoring Bank AG"],
      ["payee.identifier", "0088: 4000003000003"],
      ["payee.company_id", "Registration no. HRB 999"],
      ["tax_representative", "Tax representative"],
      ["tax_representative.name", "Steuer Vertretung GmbH"],
      ["tax_representative.vat_id", "DE 111 222 333"],
      ["items[].item_description", "Beratung zur E-Rechnung, vor Ort"],
      [
        "items[].item_id, buyer_item_id, standard_id",
        "Item no. BER-1 · Your item no. B-100 · GTIN 4000001000005",
      ],
      ["items[].period", "2026-10-30 – 2026-10-30"],
      ["items[].attributes", "Ort: Köln"],
      ["items[].note", "Termin am 30. Oktober"],
      ["items[].discounts", "Mengenrabatt −EUR 11.25"],
      ["items[].charges", "Verpackung +EUR 2.00"],
      ["additional_notes", "ADU: Es gelten unsere AGB."],
      ["additional_notes", "REG: Registergericht Berlin"],
      [
        "payment.additional_accounts",
        "Muster Technik GmbH (2) · DE02 1203 0000 0000 2020 51 · BYLADEM1001",
      ],
      ["payment.discount_terms", "2% discount if paid by 2026-11-16:"],
      ["payment.discount_terms", "3% discount if paid by 2026-11-09: EUR 3.00"],
      ["payment_terms", "Payment terms: Zahlbar innerhalb von 30 Tagen."],
      [
        "sender.legal_info",
        "Amtsgericht Charlottenburg HRB 12345 B; Geschäftsführer: Max Muster",
      ],
    ]
  ) {
    assert(text.includes(printed), `${term}: "${printed}" in\n${text}`);
  }
});

Deno.test("card and direct debit payments are on the PDF", async () => {
  const scenarios = new Map(term_scenarios());
  const card = await squeezed(scenarios.get("card payment")!);
  assert(card.includes("Card Card ending in 41234 · Erika Muster"), card);
  const debit = await squeezed(scenarios.get("direct debit")!);
  assert(
    debit.includes(
      "Direct debit Mandate MANDAT-1 · Creditor ID DE98ZZZ09999999999 · DE02 1203 0000 0000 2020 51",
    ),
    debit,
  );
});

Deno.test("a negative Arabic amount has its minus before the digits, as a Hebrew one", async () => {
  for (const [locale, currency] of [["ar-SA", "SAR"], ["he-IL", "ILS"]]) {
    const body = full_layout_request({ locale, lines: 2 });
    body.currency = currency;
    delete body.payment;
    // Logical order (pdftotext's reading mode), direction marks dropped.
    const text = (await squeezed(body, "reading"))
      .replace(/[\u200E\u200F\u202A-\u202E\u2066-\u2069]/g, "");
    assertMatch(text, /-100\.00/, `${locale}: amount paid`);
    assertNotMatch(text, /\d\.\d\d-/, `${locale}: a minus after the digits`);
  }
});

Deno.test("postcode and city follow the address's country, not the document's language", async () => {
  const body = full_layout_request({ locale: "en-US", lines: 1 });
  body.bill_to = {
    name: "Acme Inc.",
    email: "ap@acme.example",
    address: "1 Main Street",
    city: "Springfield",
    state: "IL",
    zip: "62701",
    country: "US",
  };
  const english = await squeezed(body);
  assert(english.includes("10115 Berlin"), english);
  assert(english.includes("Springfield, IL 62701"), english);
  const german = await squeezed({ ...body, locale: "de-DE" });
  assert(german.includes("10115 Berlin"), german);
  assert(german.includes("Springfield, IL 62701"), german);
});

Deno.test("es, it, pl and pt amount columns group every amount of four digits and more", async () => {
  for (
    const [locale, grouped] of [
      ["es-ES", "3.703,68"],
      ["it-IT", "3.703,68"],
      ["pl-PL", "3 703,68"],
      ["pt-PT", "3 703,68"],
    ]
  ) {
    const body = full_layout_request({ locale, lines: 1 });
    body.items = [
      { description: "A", quantity: 1, rate: 3703.68, amount: 3703.68 },
      { description: "B", quantity: 1, rate: 11851.8, amount: 11851.8 },
    ];
    const text = await squeezed(body);
    assert(text.includes(grouped), `${locale}: ${grouped} in\n${text}`);
    assert(!text.includes("3703,68"), `${locale}: ungrouped 3703,68`);
  }
});

Deno.test("a VAT invoice says VAT in English, not the default 'Sales tax'; a US sales-tax invoice keeps it", async () => {
  // A German seller with a VAT id, English words.
  const vat = await squeezed(full_layout_request({ locale: "en-US" }));
  assert(vat.includes("VAT rate"), vat);
  assert(!vat.includes("Sales tax"), vat);
  const no_locale = full_layout_request();
  const text = await squeezed(no_locale);
  assert(text.includes("VAT rate") && !text.includes("Sales tax"), text);
  // A US seller with an EIN: sales tax.
  const us = full_layout_request({ locale: "en-US" });
  us.sender = {
    name: "Acme Inc.",
    email: "billing@acme.example",
    tax_id: "12-3456789",
    country: "US",
  };
  const sales = await squeezed(us);
  assert(sales.includes("Sales tax"), sales);
  // tax_label still wins.
  const gst = await squeezed({
    ...full_layout_request({ locale: "en-US" }),
    tax_label: "GST",
  });
  assert(gst.includes("GST rate") && !gst.includes("VAT rate"), gst);
});

Deno.test("tax-invoice titles for ar, he, th, zh and hi when the seller is tax-registered", async () => {
  for (
    const [locale, title] of [
      ["ar-SA", "فاتورة ضريبية"],
      ["he-IL", "חשבונית מס"],
      ["th-TH", "ใบกำกับภาษี"],
      ["zh-CN", "增值税发票"],
      ["zh-TW", "統一發票"],
      ["hi-IN", "कर बीजक"],
    ]
  ) {
    const registered = await squeezed(
      full_layout_request({ locale, lines: 1 }),
      "reading",
    );
    assert(registered.includes(title), `${locale}: ${title} in\n${registered}`);
    // Without a seller tax id, the plain invoice title.
    const body = full_layout_request({ locale, lines: 1 });
    delete body.sender.tax_id;
    const plain = await squeezed(body, "reading");
    assert(!plain.includes(title), `${locale}: no ${title} without a tax id`);
  }
  // Elsewhere the title stays "Invoice".
  const english = await squeezed(full_layout_request({ locale: "en-GB" }));
  assertEquals(english.split(" ")[0], "INVOICE");
});

Deno.test("rounding, the tax in the tax currency, the payment means, attachments, item references and electronic addresses are on the PDF", async () => {
  const text = await squeezed(every_term_invoice());
  for (
    const [term, printed] of [
      [
        "rounding_amount, before the amount due",
        "Amount paid EUR -50.00 Rounding EUR 0.01 Amount due EUR 254.95",
      ],
      [
        "tax_total_in_tax_currency, under the totals",
        "Amount due EUR 254.95 VAT in USD: USD 55.12",
      ],
      ["payment.means_text", "Payment details Payment method SEPA-Überweisung"],
      [
        "attachments",
        "Attachments stunden.pdf – Stundenzettel https://docs.example/leistung/2 – Leistungsnachweis",
      ],
      [
        "items[].order_line_reference, accounting_reference, object_id",
        "Order line 3 · Your accounting ref. KST-4711 · Object ID AAB: Z-0815",
      ],
      [
        "items[].classifications, origin_country",
        "Classification STI 65434568 (2) · Country of origin Germany",
      ],
      ["sender.electronic_address", "Electronic address 0204: 991-00001-01"],
      ["bill_to.electronic_address", "Electronic address 0204: 991-12345-67"],
    ]
  ) {
    assert(text.includes(printed), `${term}: "${printed}" in\n${text}`);
  }
  // The attached file is listed, not printed.
  assert(!text.includes(TINY_PDF_BASE64.slice(0, 16)), text);
});

Deno.test("the last terms in the locale's words: German labels and amounts", async () => {
  const text = await squeezed({ ...every_term_invoice(), locale: "de-DE" });
  for (
    const printed of [
      "Rundung 0,01 €",
      "USt. in USD: 55,12 $",
      "Zahlungsart SEPA-Überweisung",
      "Anlagen stunden.pdf – Stundenzettel",
      "Bestellposition 3",
      "Ursprungsland Deutschland",
      "Elektronische Adresse 0204: 991-00001-01",
    ]
  ) {
    assert(text.includes(printed), `"${printed}" in\n${text}`);
  }
});

Deno.test("a rounding amount without a payment still ends in the amount due", async () => {
  const text = await squeezed(plain_invoice({ rounding_amount: 0.2 }));
  assert(
    text.includes("Total EUR 142.80 Rounding EUR 0.20 Amount due EUR 143.00"),
    text,
  );
});
