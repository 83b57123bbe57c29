/**
 * Every EN 16931 term the request can say reaches CII and UBL at its
 * element, every format of those invoices passes the official validation
 * artefacts, and the e-invoice defects found with the official examples stay
 * fixed (each has its own test below).
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import {
  GenerateRequestSchema,
  type Invoice,
  type InvoiceFormat,
  InvoiceRequestSchema,
} from "../../contract/mod.ts";
import { invoice_xml } from "../../server/einvoice/mod.ts";
import { validate_xml } from "../helpers/einvoice_kit.ts";
import { read_xml, type View } from "../official_examples/xml_view.ts";
import {
  type Body,
  every_term_invoice,
  plain_invoice,
  term_scenarios,
  TINY_PDF_BASE64,
} from "../fixtures/einvoice_terms.ts";

function generate(body: Body, format: InvoiceFormat): string {
  const { invoice } = GenerateRequestSchema.parse({ ...body, format });
  return invoice_xml(invoice, { format });
}

/** `read(root)` over the XML of `body` in `format`. */
function inspect<T>(
  body: Body,
  format: InvoiceFormat,
  read: (root: View) => T,
): T {
  return read_xml(generate(body, format), read);
}

const CII_AGREEMENT =
  "rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeAgreement";
const CII_SETTLEMENT =
  "rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement";
const CII_LINE =
  "rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem";

Deno.test("the normalized invoice carries every new term ready to print", () => {
  const invoice: Invoice = InvoiceRequestSchema.parse(every_term_invoice());
  assertEquals(invoice.items[0].quantity, 1.5);
  assertEquals(invoice.items[1].price_discount, "0.5");
  assertEquals(invoice.items[1].discounts, [{
    description: "Mengenrabatt",
    amount: "11.25",
    percent: "10",
    base_amount: "112.50",
    reason_code: "95",
  }]);
  assertEquals(invoice.total, "304.94");
  assertEquals(invoice.rounding_amount, "0.01");
  assertEquals(invoice.amount_due, "254.95");
  assertEquals(invoice.payment?.discount_terms, [
    {
      days: 14,
      date: "2026-11-16",
      percent: "2.00",
      base_amount: "254.95",
      amount: "5.10",
    },
    {
      days: 7,
      date: "2026-11-09",
      percent: "3.00",
      base_amount: "100.00",
      amount: "3.00",
    },
  ]);
  assertEquals(invoice.deliver_to?.address_lines, [
    "Industriestraße 5",
    "Tor 3",
  ]);
  assertEquals(invoice.tax_representative?.address_lines, ["Am Markt 1"]);
  assertEquals(invoice.attachments?.[0].size, atob(TINY_PDF_BASE64).length);
  assertEquals(invoice.sender.legal_info?.startsWith("Amtsgericht"), true);
});

Deno.test("every new term is at its CII element", () => {
  inspect(every_term_invoice(), "cii", (root) => {
    const a = (xpath: string) => root.text(`${CII_AGREEMENT}/${xpath}`);
    const s = (xpath: string) => root.text(`${CII_SETTLEMENT}/${xpath}`);
    const seller = "ram:SellerTradeParty";
    assertEquals(a(`${seller}/ram:ID`), "S-42"); // BT-29
    assertEquals(
      root.attr(`${CII_AGREEMENT}/${seller}/ram:GlobalID`, "schemeID"),
      "0088",
    );
    assertEquals(
      a(`${seller}/ram:SpecifiedLegalOrganization/ram:TradingBusinessName`),
      "Muster Shop",
    ); // BT-28
    assertMatch(a(`${seller}/ram:Description`)!, /^Amtsgericht/); // BT-33
    assertEquals(
      a(`${seller}/ram:SpecifiedTaxRegistration/ram:ID[@schemeID='VA']`),
      "DE123456789",
    ); // BT-31
    assertEquals(
      a(`${seller}/ram:SpecifiedTaxRegistration/ram:ID[@schemeID='FC']`),
      "12/345/67890",
    ); // BT-32
    assertEquals(a("ram:BuyerTradeParty/ram:ID"), "K-7"); // BT-46
    assertEquals(
      a("ram:SellerTaxRepresentativeTradeParty/ram:SpecifiedTaxRegistration/ram:ID"),
      "DE111222333",
    ); // BT-63
    assertEquals(
      a("ram:SellerTaxRepresentativeTradeParty/ram:PostalTradeAddress/ram:CityName"),
      "Hamburg",
    );
    assertEquals(
      a("ram:SellerOrderReferencedDocument/ram:IssuerAssignedID"),
      "AB-5511",
    ); // BT-14
    assertEquals(
      a("ram:ContractReferencedDocument/ram:IssuerAssignedID"),
      "V-2026-3",
    ); // BT-12
    assertEquals(a("ram:SpecifiedProcuringProject/ram:ID"), "PRJ-9"); // BT-11
    assertEquals(
      a("ram:AdditionalReferencedDocument[ram:TypeCode='50']/ram:IssuerAssignedID"),
      "LOS-4",
    ); // BT-17
    assertEquals(
      a("ram:AdditionalReferencedDocument[ram:TypeCode='130']/ram:ReferenceTypeCode"),
      "AAB",
    ); // BT-18-1
    assertEquals(
      a("ram:AdditionalReferencedDocument[ram:IssuerAssignedID='STD-1']/ram:AttachmentBinaryObject"),
      TINY_PDF_BASE64,
    ); // BT-125
    assertEquals(
      a("ram:AdditionalReferencedDocument[ram:IssuerAssignedID='LINK-2']/ram:URIID"),
      "https://docs.example/leistung/2",
    ); // BT-124
    const delivery =
      `rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeDelivery`;
    assertEquals(
      root.text(`${delivery}/ram:ShipToTradeParty/ram:Name`),
      "Stadtwerke Köln, Lager Nord",
    ); // BT-70
    assertEquals(
      root.text(`${delivery}/ram:ShipToTradeParty/ram:GlobalID`),
      "4000002000004",
    ); // BT-71
    assertEquals(
      root.text(
        `${delivery}/ram:ShipToTradeParty/ram:PostalTradeAddress/ram:LineTwo`,
      ),
      "Tor 3",
    );
    assertEquals(
      root.text(
        `${delivery}/ram:DespatchAdviceReferencedDocument/ram:IssuerAssignedID`,
      ),
      "LS-2201",
    ); // BT-16
    assertEquals(
      root.text(
        `${delivery}/ram:ReceivingAdviceReferencedDocument/ram:IssuerAssignedID`,
      ),
      "WE-31",
    ); // BT-15
    assertEquals(s("ram:TaxCurrencyCode"), "USD"); // BT-6
    assertEquals(
      s("ram:SpecifiedTradeSettlementHeaderMonetarySummation/ram:TaxTotalAmount[@currencyID='USD']"),
      "55.12",
    ); // BT-111
    assertEquals(
      s("ram:SpecifiedTradeSettlementHeaderMonetarySummation/ram:RoundingAmount"),
      "0.01",
    ); // BT-114
    assertEquals(s("ram:PayeeTradeParty/ram:Name"), "Factoring Bank AG"); // BT-59
    assertEquals(
      s("ram:PayeeTradeParty/ram:SpecifiedLegalOrganization/ram:ID"),
      "HRB 999",
    ); // BT-61
    assertEquals(
      root.all(`${CII_SETTLEMENT}/ram:SpecifiedTradeSettlementPaymentMeans`)
        .length,
      2,
    ); // BG-17 ×2
    assertEquals(
      s("ram:SpecifiedTradeSettlementPaymentMeans/ram:Information"),
      "SEPA-Überweisung",
    ); // BT-82
    assertEquals(
      s("ram:ApplicableTradeTax/ram:TaxPointDate/udt:DateString"),
      "20261101",
    ); // BT-7
    assertEquals(
      s("ram:InvoiceReferencedDocument/ram:IssuerAssignedID"),
      "RE-2026-0900",
    ); // BT-25
    assertEquals(
      s("ram:InvoiceReferencedDocument/ram:FormattedIssueDateTime/qdt:DateTimeString"),
      "20261001",
    ); // BT-26
    assertEquals(
      s("ram:ReceivableSpecifiedTradeAccountingAccount/ram:ID"),
      "4711-4000",
    ); // BT-19
    assertEquals(
      s("ram:SpecifiedTradeAllowanceCharge[ram:Reason='Treuerabatt']/ram:BasisAmount"),
      "100.00",
    ); // BT-93
    assertEquals(
      s("ram:SpecifiedTradeAllowanceCharge[ram:Reason='Treuerabatt']/ram:ReasonCode"),
      "95",
    ); // BT-98
    assertEquals(
      s("ram:SpecifiedTradeAllowanceCharge[ram:Reason='Versand']/ram:ReasonCode"),
      "FC",
    ); // BT-105
    assertEquals(
      root.text("rsm:ExchangedDocument/ram:IncludedNote[2]/ram:SubjectCode"),
      "ADU",
    ); // BT-21
    const line = (n: number, xpath: string) =>
      root.text(`${CII_LINE}[${n}]/${xpath}`);
    assertEquals(
      line(1, "ram:SpecifiedLineTradeDelivery/ram:BilledQuantity"),
      "1.5",
    ); // BT-129
    assertEquals(
      line(
        1,
        "ram:AssociatedDocumentLineDocument/ram:IncludedNote/ram:Content",
      ),
      "Termin am 30. Oktober",
    ); // BT-127
    assertEquals(
      line(1, "ram:SpecifiedTradeProduct/ram:Description"),
      "Beratung zur E-Rechnung, vor Ort",
    ); // BT-154
    assertEquals(
      line(1, "ram:SpecifiedTradeProduct/ram:GlobalID"),
      "4000001000005",
    ); // BT-157
    assertEquals(
      line(
        1,
        "ram:SpecifiedTradeProduct/ram:DesignatedProductClassification/ram:ClassCode",
      ),
      "65434568",
    ); // BT-158
    assertEquals(
      line(1, "ram:SpecifiedTradeProduct/ram:OriginTradeCountry/ram:ID"),
      "DE",
    ); // BT-159
    assertEquals(
      line(
        1,
        "ram:SpecifiedTradeProduct/ram:ApplicableProductCharacteristic/ram:Value",
      ),
      "Köln",
    ); // BT-161
    assertEquals(
      line(
        1,
        "ram:SpecifiedLineTradeAgreement/ram:BuyerOrderReferencedDocument/ram:LineID",
      ),
      "3",
    ); // BT-132
    assertEquals(
      line(
        1,
        "ram:SpecifiedLineTradeSettlement/ram:ReceivableSpecifiedTradeAccountingAccount/ram:ID",
      ),
      "KST-4711",
    ); // BT-133
    assertEquals(
      line(
        1,
        "ram:SpecifiedLineTradeSettlement/ram:AdditionalReferencedDocument/ram:IssuerAssignedID",
      ),
      "Z-0815",
    ); // BT-128
    assertEquals(
      line(
        1,
        "ram:SpecifiedLineTradeSettlement/ram:BillingSpecifiedPeriod/ram:StartDateTime/udt:DateTimeString",
      ),
      "20261030",
    ); // BT-134
    assertEquals(
      line(
        2,
        "ram:SpecifiedLineTradeAgreement/ram:GrossPriceProductTradePrice/ram:ChargeAmount",
      ),
      "5",
    ); // BT-148
    assertEquals(
      line(
        2,
        "ram:SpecifiedLineTradeAgreement/ram:GrossPriceProductTradePrice/ram:AppliedTradeAllowanceCharge/ram:ActualAmount",
      ),
      "0.5",
    ); // BT-147
    assertEquals(
      line(
        2,
        "ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:BasisQuantity",
      ),
      "100",
    ); // BT-149
    assertEquals(
      line(
        2,
        "ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeAllowanceCharge[ram:Reason='Mengenrabatt']/ram:ActualAmount",
      ),
      "11.25",
    ); // BT-136
    assertEquals(
      line(
        2,
        "ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeAllowanceCharge[ram:Reason='Verpackung']/ram:ReasonCode",
      ),
      "ABL",
    ); // BT-145
  });
});

Deno.test("every new term is at its UBL element", () => {
  inspect(every_term_invoice(), "ubl", (root) => {
    const seller = "cac:AccountingSupplierParty/cac:Party";
    assertEquals(
      root.text(`${seller}/cac:PartyIdentification[2]/cbc:ID`),
      "S-42",
    ); // BT-29
    assertEquals(root.text(`${seller}/cac:PartyName/cbc:Name`), "Muster Shop"); // BT-28
    assertMatch(
      root.text(`${seller}/cac:PartyLegalEntity/cbc:CompanyLegalForm`)!,
      /^Amtsgericht/,
    ); // BT-33
    assertEquals(
      root.text(
        `${seller}/cac:PartyTaxScheme[cac:TaxScheme/cbc:ID='VAT']/cbc:CompanyID`,
      ),
      "DE123456789",
    ); // BT-31
    assertEquals(
      root.text(
        `${seller}/cac:PartyTaxScheme[cac:TaxScheme/cbc:ID!='VAT']/cbc:CompanyID`,
      ),
      "12/345/67890",
    ); // BT-32
    assertEquals(
      root.text(
        "cac:AccountingCustomerParty/cac:Party/cac:PartyIdentification/cbc:ID",
      ),
      "K-7",
    ); // BT-46
    assertEquals(
      root.text("cac:TaxRepresentativeParty/cac:PartyTaxScheme/cbc:CompanyID"),
      "DE111222333",
    ); // BT-63
    assertEquals(
      root.text("cac:PayeeParty/cac:PartyName/cbc:Name"),
      "Factoring Bank AG",
    ); // BT-59
    assertEquals(root.text("cac:OrderReference/cbc:SalesOrderID"), "AB-5511"); // BT-14
    assertEquals(root.text("cac:ContractDocumentReference/cbc:ID"), "V-2026-3"); // BT-12
    assertEquals(root.text("cac:ProjectReference/cbc:ID"), "PRJ-9"); // BT-11
    assertEquals(root.text("cac:OriginatorDocumentReference/cbc:ID"), "LOS-4"); // BT-17
    assertEquals(root.text("cac:ReceiptDocumentReference/cbc:ID"), "WE-31"); // BT-15
    assertEquals(root.text("cac:DespatchDocumentReference/cbc:ID"), "LS-2201"); // BT-16
    assertEquals(
      root.text(
        "cac:AdditionalDocumentReference[cbc:DocumentTypeCode='130']/cbc:ID",
      ),
      "ZAEHLER-1",
    ); // BT-18
    assertEquals(root.text("cbc:AccountingCost"), "4711-4000"); // BT-19
    assertEquals(root.text("cbc:TaxPointDate"), "2026-11-01"); // BT-7
    assertEquals(root.text("cbc:TaxCurrencyCode"), "USD"); // BT-6
    assertEquals(
      root.text("cac:TaxTotal[cbc:TaxAmount/@currencyID='USD']/cbc:TaxAmount"),
      "55.12",
    ); // BT-111
    assertEquals(
      root.text("cac:LegalMonetaryTotal/cbc:PayableRoundingAmount"),
      "0.01",
    ); // BT-114
    assertEquals(
      root.text(
        "cac:BillingReference/cac:InvoiceDocumentReference/cbc:IssueDate",
      ),
      "2026-10-01",
    ); // BT-26
    assertEquals(
      root.text("cac:Delivery/cac:DeliveryParty/cac:PartyName/cbc:Name"),
      "Stadtwerke Köln, Lager Nord",
    ); // BT-70
    assertEquals(
      root.attr("cac:Delivery/cac:DeliveryLocation/cbc:ID", "schemeID"),
      "0088",
    ); // BT-71
    assertEquals(
      root.attr("cac:PaymentMeans/cbc:PaymentMeansCode", "name"),
      "SEPA-Überweisung",
    ); // BT-82
    assertEquals(root.all("cac:PaymentMeans").length, 2);
    assertMatch(root.text("cbc:Note[2]")!, /^#ADU#Es gelten/); // BT-21, BT-22
    assertEquals(
      root.text(
        "cac:AdditionalDocumentReference[cbc:ID='LINK-2']/cac:Attachment/cac:ExternalReference/cbc:URI",
      ),
      "https://docs.example/leistung/2",
    ); // BT-124
    assertEquals(
      root.attr(
        "cac:AdditionalDocumentReference[cbc:ID='STD-1']/cac:Attachment/cbc:EmbeddedDocumentBinaryObject",
        "filename",
      ),
      "stunden.pdf",
    ); // BT-125-2
    const line = (n: number, xpath: string) =>
      root.text(`cac:InvoiceLine[${n}]/${xpath}`);
    assertEquals(line(1, "cbc:InvoicedQuantity"), "1.5"); // BT-129
    assertEquals(line(1, "cbc:Note"), "Termin am 30. Oktober"); // BT-127
    assertEquals(
      line(1, "cac:Item/cbc:Description"),
      "Beratung zur E-Rechnung, vor Ort",
    ); // BT-154
    assertEquals(
      line(1, "cac:Item/cac:StandardItemIdentification/cbc:ID"),
      "4000001000005",
    ); // BT-157
    assertEquals(
      root.attr(
        "cac:InvoiceLine[1]/cac:Item/cac:CommodityClassification/cbc:ItemClassificationCode",
        "listVersionID",
      ),
      "2",
    ); // BT-158-2
    assertEquals(
      line(1, "cac:Item/cac:OriginCountry/cbc:IdentificationCode"),
      "DE",
    ); // BT-159
    assertEquals(
      line(1, "cac:Item/cac:AdditionalItemProperty/cbc:Name"),
      "Ort",
    ); // BT-160
    assertEquals(line(1, "cac:OrderLineReference/cbc:LineID"), "3"); // BT-132
    assertEquals(line(1, "cbc:AccountingCost"), "KST-4711"); // BT-133
    assertEquals(line(1, "cac:DocumentReference/cbc:ID"), "Z-0815"); // BT-128
    assertEquals(line(1, "cac:InvoicePeriod/cbc:EndDate"), "2026-10-30"); // BT-135
    assertEquals(line(2, "cac:Price/cbc:BaseQuantity"), "100"); // BT-149
    assertEquals(line(2, "cac:Price/cac:AllowanceCharge/cbc:BaseAmount"), "5"); // BT-148
    assertEquals(line(2, "cac:Price/cac:AllowanceCharge/cbc:Amount"), "0.5"); // BT-147
    assertEquals(
      line(
        2,
        "cac:AllowanceCharge[cbc:ChargeIndicator='false']/cbc:MultiplierFactorNumeric",
      ),
      "10",
    ); // BT-138
    assertEquals(
      line(
        2,
        "cac:AllowanceCharge[cbc:ChargeIndicator='true']/cbc:AllowanceChargeReasonCode",
      ),
      "ABL",
    ); // BT-145
  });
});

Deno.test("the terms of the other invoices: exemption codes, cards, direct debits, credit notes", () => {
  const scenarios = new Map(term_scenarios());
  inspect(scenarios.get("exemptions per category")!, "ubl", (root) => {
    const code = (category: string) =>
      root.text(
        `cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory[cbc:ID='${category}']/cbc:TaxExemptionReasonCode`,
      );
    assertEquals(code("E"), "VATEX-EU-132-1I"); // BT-121, upper-cased
    assertEquals(code("AE"), "VATEX-EU-AE");
  });
  inspect(scenarios.get("card payment")!, "cii", (root) => {
    assertEquals(
      root.text(
        `${CII_SETTLEMENT}/ram:SpecifiedTradeSettlementPaymentMeans/ram:TypeCode`,
      ),
      "48",
    );
    assertEquals(
      root.text(
        `${CII_SETTLEMENT}/ram:SpecifiedTradeSettlementPaymentMeans/ram:ApplicableTradeSettlementFinancialCard/ram:ID`,
      ),
      "41234",
    ); // BT-87
  });
  inspect(scenarios.get("direct debit")!, "ubl", (root) => {
    assertEquals(root.text("cac:PaymentMeans/cbc:PaymentMeansCode"), "59");
    assertEquals(
      root.text("cac:PaymentMeans/cac:PaymentMandate/cbc:ID"),
      "MANDAT-1",
    ); // BT-89
    assertEquals(
      root.text(
        "cac:AccountingSupplierParty/cac:Party/cac:PartyIdentification/cbc:ID[@schemeID='SEPA']",
      ),
      "DE98ZZZ09999999999",
    ); // BT-90
  });
  inspect(scenarios.get("direct debit")!, "cii", (root) => {
    assertEquals(
      root.text(`${CII_SETTLEMENT}/ram:CreditorReferenceID`),
      "DE98ZZZ09999999999",
    ); // BT-90
    assertEquals(
      root.text(
        `${CII_SETTLEMENT}/ram:SpecifiedTradePaymentTerms/ram:DirectDebitMandateID`,
      ),
      "MANDAT-1",
    ); // BT-89
  });
});

Deno.test("corrected and self-billed invoices have their type codes (BT-3 384, 389)", () => {
  const body = {
    ...new Map(term_scenarios()).get("card payment")!,
    preceding_invoices: [{ number: "RE-2026-0001" }],
  };
  inspect(
    { ...body, document_type: "corrected_invoice" },
    "cii",
    (root) =>
      assertEquals(root.text("rsm:ExchangedDocument/ram:TypeCode"), "384"),
  );
  inspect(
    { ...body, document_type: "self_billed_invoice" },
    "xrechnung-ubl",
    (root) => assertEquals(root.text("cbc:InvoiceTypeCode"), "389"),
  );
});

// ---------------------------------------------------------------------------
// The defects the official examples found, one test each.

Deno.test("defect: the line break after a #SKONTO# line is kept in XRechnung (BR-DE-18)", () => {
  for (const format of ["xrechnung-cii", "xrechnung-ubl"] as const) {
    const terms = inspect(
      plain_invoice({ payment_terms: "#SKONTO#TAGE=14#PROZENT=2.00#" }),
      format,
      (root) =>
        root.raw(
          format === "xrechnung-cii"
            ? `${CII_SETTLEMENT}/ram:SpecifiedTradePaymentTerms/ram:Description`
            : "cac:PaymentTerms/cbc:Note",
        ),
    );
    assertEquals(terms, "#SKONTO#TAGE=14#PROZENT=2.00#\n", format);
  }
});

Deno.test("defect: VAT ids with spaces, dots or dashes are VAT ids, also for reverse charge", () => {
  const plain = plain_invoice();
  const body = plain_invoice({
    tax_rate: undefined,
    tax_category: "AE",
    tax_exemption_reason: "Steuerschuldnerschaft des Leistungsempfängers",
    sender: { ...plain.sender, tax_id: "DE 123.456-789" },
    bill_to: { ...plain.bill_to, country: "FR", tax_id: "FR 40 303 265 045" },
  });
  inspect(body, "cii", (root) => {
    assertEquals(
      root.text(
        `${CII_AGREEMENT}/ram:SellerTradeParty/ram:SpecifiedTaxRegistration/ram:ID[@schemeID='VA']`,
      ),
      "DE123456789",
    );
    assertEquals(
      root.text(
        `${CII_AGREEMENT}/ram:BuyerTradeParty/ram:SpecifiedTaxRegistration/ram:ID[@schemeID='VA']`,
      ),
      "FR40303265045",
    );
  });
});

Deno.test("defect: a rounding amount (BT-114) is accepted and in the amount due", () => {
  const body = {
    ...term_scenarios()[0][1],
    rounding_amount: -0.03,
    items: [{
      description: "A",
      quantity: 1,
      rate: 10.03,
      amount: 10.03,
      tax_category: "E",
    }],
    tax_exemptions: undefined,
    tax_exemption_reason: "Steuerfrei",
  };
  const invoice = InvoiceRequestSchema.parse(body);
  assertEquals([invoice.total, invoice.amount_due], ["10.03", "10.00"]);
  inspect(body, "ubl", (root) => {
    assertEquals(
      root.text("cac:LegalMonetaryTotal/cbc:PayableRoundingAmount"),
      "-0.03",
    );
    assertEquals(
      root.text("cac:LegalMonetaryTotal/cbc:PayableAmount"),
      "10.00",
    );
  });
});

Deno.test("defect: accounts that are not IBANs are accepted (BT-84)", () => {
  const body = {
    ...new Map(term_scenarios()).get("card payment")!,
    currency: "SEK",
    payment: {
      account_id: "SE1212341234123412",
      bic: "SEXDABCD",
      means_code: "30",
    },
  };
  inspect(
    body,
    "ubl",
    (root) =>
      assertEquals(
        root.text("cac:PaymentMeans/cac:PayeeFinancialAccount/cbc:ID"),
        "SE1212341234123412",
      ),
  );
  inspect(
    body,
    "cii",
    (root) =>
      assertEquals(
        root.text(
          `${CII_SETTLEMENT}/ram:SpecifiedTradeSettlementPaymentMeans/ram:PayeePartyCreditorFinancialAccount/ram:ProprietaryID`,
        ),
        "SE1212341234123412",
      ),
  );
});

Deno.test("defect: an amount paid above the total gives a negative amount due", () => {
  const body = plain_invoice({ amount_paid: 200 });
  inspect(body, "ubl", (root) => {
    assertEquals(
      root.text("cac:LegalMonetaryTotal/cbc:PrepaidAmount"),
      "200.00",
    );
    assertEquals(
      root.text("cac:LegalMonetaryTotal/cbc:PayableAmount"),
      "-57.20",
    );
  });
});

Deno.test("defect: invoices not subject to VAT need no seller VAT or company id, an identifier is enough", () => {
  const body = new Map(term_scenarios()).get(
    "not subject to VAT, seller identified by an identifier",
  )!;
  for (const format of ["cii", "ubl", "factur-x", "xrechnung-ubl"] as const) {
    const result = GenerateRequestSchema.safeParse({ ...body, format });
    assert(
      result.success,
      `${format}: ${JSON.stringify(result.error?.issues)}`,
    );
  }
  inspect(body, "cii", (root) => {
    assertEquals(
      root.text(`${CII_AGREEMENT}/ram:SellerTradeParty/ram:ID`),
      "5532331183",
    );
    assertEquals(
      root.one(
        `${CII_AGREEMENT}//ram:SpecifiedTaxRegistration/ram:ID[@schemeID='VA']`,
      ),
      undefined,
    );
  });
});

Deno.test("defect: discounts and charges of zero are accepted and written", () => {
  const body = plain_invoice({
    discounts: [{ description: "Aktion ohne Betrag", amount: 0 }],
    charges: [{ description: "Versand", percent: 0 }],
  });
  inspect(body, "ubl", (root) => {
    assertEquals(
      root.text(
        "cac:AllowanceCharge[cbc:AllowanceChargeReason='Aktion ohne Betrag']/cbc:Amount",
      ),
      "0.00",
    );
    assertEquals(
      root.text(
        "cac:AllowanceCharge[cbc:AllowanceChargeReason='Versand']/cbc:Amount",
      ),
      "0.00",
    );
  });
});

Deno.test("defect: Factur-X writes no empty XML element (PEPPOL-EN16931-R008)", () => {
  const xml = generate(plain_invoice(), "factur-x");
  assertEquals(xml.match(/<([\w:]+)[^>]*?(\/>|>\s*<\/\1>)/g), null);
  assertMatch(
    xml,
    /<ram:ApplicableHeaderTradeDelivery><ram:ShipToTradeParty><ram:Name>/,
  );
});

// ---------------------------------------------------------------------------

const FORMATS: [InvoiceFormat, string][] = [
  ["factur-x", "cii+facturx"],
  ["cii", "cii"],
  ["ubl", "ubl+peppol"],
  ["xrechnung-cii", "cii+xr-cii"],
  ["xrechnung-ubl", "ubl+xr-ubl"],
];

for (const [format, ruleset] of FORMATS) {
  Deno.test({
    name: `every term in ${format}: no schema error, no fatal rule`,
    async fn() {
      const files = new Map<string, string>([[
        "every-term",
        generate(every_term_invoice(), format),
      ]]);
      for (const [name, body] of term_scenarios()) {
        files.set(name.replace(/\W+/g, "-"), generate(body, format));
      }
      const run = await validate_xml(ruleset, files);
      console.log(`  ${format}: ${run.output.trim().split("\n").pop()}`);
      assertEquals(
        run.output.split("\n").filter((line) =>
          /^(fatal|error|schema)/.test(line)
        ),
        [],
      );
      assert(run.ok, run.output);
    },
  });
}
