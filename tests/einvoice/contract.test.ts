/**
 * What each e-invoice format needs (contract/format_rules.ts), unit by unit:
 * the missing fields and their business terms, and electronic addresses.
 */
import { assertEquals } from "../assert.ts";
import { ElectronicAddressSchema } from "../../contract/einvoice.ts";
import {
  format_problems,
  type FormatCheckedInvoice,
} from "../../contract/format_rules.ts";
import { INVOICE_FORMATS, type InvoiceFormat } from "../../contract/formats.ts";

function complete(): FormatCheckedInvoice {
  return {
    currency: "EUR",
    has_tax: true,
    sender: {
      name: "S",
      email: "s@x.example",
      city: "Berlin",
      zip: "10115",
      country: "DE",
      tax_id: "DE123456789",
      contact_name: "Max",
      phone: "+49 30 1",
      electronic_address: { scheme: "9930", id: "DE123456789" },
    },
    bill_to: {
      name: "B",
      email: "b@x.example",
      city: "Köln",
      zip: "50667",
      country: "DE",
      electronic_address: { scheme: "0204", id: "991-1-2" },
    },
    items: [{ tax_category: "S" }],
    buyer_reference: "991-1-2",
    payment: { iban: "DE89370400440532013000" },
  };
}

function lines(invoice: FormatCheckedInvoice, format: InvoiceFormat): string[] {
  return format_problems(invoice, format).map((p) =>
    `${p.path.join(".")} ${p.message}`
  );
}

Deno.test("a complete invoice needs nothing for any format; pdf never needs anything", () => {
  for (const format of INVOICE_FORMATS) {
    assertEquals(lines(complete(), format), [], format);
  }
  assertEquals(
    format_problems(
      { ...complete(), has_tax: false, currency: undefined },
      "pdf",
    ),
    [],
  );
});

Deno.test("every missing field is listed, with path and business term", () => {
  const bare: FormatCheckedInvoice = {
    has_tax: false,
    sender: { name: "S", email: "s@x.example" },
    bill_to: { name: "B", email: "b@x.example" },
    items: [{}],
  };
  assertEquals(lines(bare, "cii"), [
    "currency is required for cii (BT-5)",
    "tax_category is required for cii (BT-151): every e-invoice line carries a VAT category; give `tax_category` and `tax_rate` on the invoice or on each item",
    "sender.country is required for cii (BT-40)",
    "bill_to.country is required for cii (BT-55)",
    "sender.tax_id is required for cii (BT-31), or sender.company_id (BT-30)",
  ]);
  const xr = lines(bare, "xrechnung-ubl");
  for (
    const expected of [
      "sender.electronic_address is required for xrechnung-ubl (BT-34)",
      "bill_to.electronic_address is required for xrechnung-ubl (BT-49)",
      "buyer_reference is required for xrechnung-ubl (BT-10): the Leitweg-ID of public buyers",
      "sender.contact_name is required for xrechnung-ubl (BT-41)",
      "sender.phone is required for xrechnung-ubl (BT-42)",
      "sender.city is required for xrechnung-ubl (BT-37)",
      "sender.zip is required for xrechnung-ubl (BT-38)",
      "bill_to.city is required for xrechnung-ubl (BT-52)",
      "bill_to.zip is required for xrechnung-ubl (BT-53)",
      "payment.iban is required for xrechnung-ubl (BT-84), or payment.account_id, card, direct_debit or means_code: XRechnung requires payment instructions (BG-16)",
    ]
  ) assertEquals(xr.includes(expected), true, expected);
  assertEquals(xr.length, 15);
  assertEquals(lines(bare, "ubl").slice(5), [
    "sender.electronic_address is required for ubl (BT-34)",
    "bill_to.electronic_address is required for ubl (BT-49)",
    "buyer_reference is required for ubl (BT-10), or purchase_order (BT-13)",
  ]);
  const ordered = {
    ...complete(),
    buyer_reference: undefined,
    purchase_order: "PO-1",
  };
  assertEquals(
    lines(
      { ...ordered, bill_to: { ...ordered.bill_to, country: "AT" } },
      "ubl",
    ),
    [],
  );
  // Between German parties Peppol applies XRechnung's rules (DE-R-*).
  assertEquals(lines(ordered, "ubl"), [
    "buyer_reference is required for ubl (BT-10): Peppol requires it between German parties (DE-R-015)",
  ]);
});

Deno.test("tax situations: VAT ids for AE and K, delivery date for K, O alone", () => {
  const reverse = complete();
  reverse.items = [{ tax_category: "AE" }];
  assertEquals(lines(reverse, "cii"), [
    "bill_to.tax_id is required for cii (BT-48): reverse charge and intra-community supply need the buyer's VAT identifier",
  ]);
  reverse.bill_to.tax_id = "12-3456789";
  reverse.sender.tax_id = "123/456/789";
  assertEquals(lines(reverse, "cii"), [
    "sender.tax_id must be a VAT identifier starting with its country code for cii (BT-31)",
    "bill_to.tax_id must be a VAT identifier starting with its country code for cii (BT-48)",
  ]);
  const intra = complete();
  intra.items = [{ tax_category: "K" }];
  intra.bill_to.tax_id = "FR40303265045";
  assertEquals(lines(intra, "cii"), [
    "delivery_date is required for cii (BT-72), or billing_period (BG-14): intra-community supplies state when they were delivered",
  ]);
  assertEquals(lines({ ...intra, delivery_date: "2026-01-01" }, "cii"), []);
  const outside = complete();
  outside.items = [{ tax_category: "O" }, { tax_category: "S" }];
  assertEquals(lines(outside, "cii"), [
    "tax_category O (not subject to VAT) cannot be combined with other categories in cii (BR-O-11)",
  ]);
  // Not subject to VAT needs no seller VAT id, but some seller identifier
  // (BR-CO-26): a legal registration number or a party identifier.
  outside.items = [{ tax_category: "O" }];
  outside.sender.tax_id = undefined;
  assertEquals(lines(outside, "cii"), [
    "sender.company_id is required for cii (BT-30), or sender.identifiers (BT-29): invoices not subject to VAT carry no VAT identifier, so another seller identifier (BR-CO-26)",
  ]);
  outside.sender.tax_id = "DE123456789"; // not written (BR-O-02), so no help
  assertEquals(lines(outside, "cii").length, 1);
  outside.sender.company_id = "HRB 1";
  assertEquals(lines(outside, "cii"), []);
  outside.sender.company_id = undefined;
  outside.sender.identifiers = [{ id: "5532331183" }];
  assertEquals(lines(outside, "cii"), []);
  const taxed = complete();
  taxed.sender.tax_id = undefined;
  taxed.sender.company_id = "HRB 1";
  assertEquals(lines(taxed, "cii"), [
    "sender.tax_id is required for cii (BT-31): lines in category S need the seller's VAT identifier (or sender.tax_number, BT-32)",
  ]);
  // A tax number (BT-32) is enough for S, with a legal registration (BR-CO-26).
  taxed.sender.tax_number = "12/345/67890";
  assertEquals(lines(taxed, "cii"), []);
  taxed.sender.company_id = undefined;
  assertEquals(lines(taxed, "cii"), [
    "sender.company_id is required for cii (BT-30), or sender.identifiers (BT-29), or a VAT identifier in sender.tax_id (BT-31): the seller must be identified (BR-CO-26)",
  ]);
  assertEquals(lines({ ...complete(), currency: "XYZ" }, "cii"), [
    "currency must be an ISO 4217 currency code for cii (BT-5)",
  ]);
});

Deno.test("electronic addresses: EAS schemes, GLN and Belgian check digits", () => {
  const ok = (v: unknown) => ElectronicAddressSchema.safeParse(v).success;
  assertEquals(ok({ scheme: "EM", id: "ap@x.example" }), true);
  assertEquals(ok({ scheme: "0204", id: "991-12345-67" }), true);
  assertEquals(ok({ scheme: "0088", id: "5790000436101" }), true);
  assertEquals(ok({ scheme: "0088", id: "5790000436102" }), false);
  assertEquals(ok({ scheme: "0088", id: "579000043610" }), false);
  assertEquals(ok({ scheme: "0208", id: "0123456749" }), true);
  assertEquals(ok({ scheme: "0208", id: "0123456748" }), false);
  assertEquals(ok({ scheme: "9999", id: "x" }), false);
  assertEquals(ok({ scheme: "EM", id: " " }), false);
  assertEquals(ok({ scheme: "EM", id: "a", extra: 1 }), false);
});

Deno.test("units must be Recommendation 20 codes the validators accept", () => {
  const invoice = complete();
  invoice.items = [
    { tax_category: "S", unit: "HUR" },
    { tax_category: "S", unit: "ZZZ" },
    { tax_category: "S" },
  ];
  assertEquals(lines(invoice, "ubl"), [
    "items.1.unit must be a UN/ECE Recommendation 20 unit code for ubl (BT-130), e.g. C62, HUR, DAY, KGM",
  ]);
  assertEquals(lines(invoice, "pdf"), []);
});

Deno.test("Peppol: identifier check digits by scheme and the national rules on the seller", () => {
  const danish = complete();
  danish.sender = {
    ...danish.sender,
    country: "DK",
    tax_id: "DK12345674",
    company_id: "12345674",
    identifiers: [{ scheme: "0088", id: "5790000436102" }],
  };
  danish.bill_to = { ...danish.bill_to, country: "DK" };
  danish.payment = { iban: "DK5000400440116243", means_code: "30" };
  assertEquals(lines(danish, "ubl"), [
    "sender.identifiers.0.id must be a GLN: 13 digits with a valid check digit (scheme 0088) for ubl (PEPPOL-COMMON)",
    "sender.company_id_scheme must be 0184 (Danish CVR number) when the seller is Danish (DK-R-014) for ubl",
    "payment.means_code must be one of 1, 10, 31, 42, 48, 49, 50, 58, 59, 93, 97 between Danish parties (DK-R-005) for ubl",
  ]);
  // Not Peppol's rules: the other formats take the same invoice.
  assertEquals(lines(danish, "cii"), []);
  const norwegian = complete();
  norwegian.sender = {
    ...norwegian.sender,
    country: "NO",
    tax_id: "NO974760673",
  };
  assertEquals(lines(norwegian, "ubl"), [
    "sender.tax_id must be NO, a valid 9-digit organization number and MVA when the seller is Norwegian (NO-R-001) for ubl",
  ]);
  norwegian.sender.tax_id = "NO 974 760 673 MVA";
  assertEquals(lines(norwegian, "ubl"), []);
  assertEquals(
    lines({ ...complete(), document_type: "self_billed_invoice" }, "ubl"),
    [
      "document_type must not be self_billed_invoice for ubl: Peppol BIS Billing has no self-billed invoices (PEPPOL-EN16931-P0100)",
    ],
  );
});
