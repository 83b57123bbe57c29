/**
 * A UBL 2.1 Invoice or CreditNote as our invoice request (see `convert.ts`).
 *
 * @module
 */
import type { View } from "./xml_view.ts";
import {
  account,
  document_type,
  email_or_placeholder,
  is_charge,
  notes_fields,
  number,
  type Request,
  split_payment_terms,
  subject_note,
} from "./request_parts.ts";

function address(view: View | undefined): Request {
  if (view === undefined) return {};
  const lines = [
    view.text("cbc:StreetName"),
    view.text("cbc:AdditionalStreetName"),
    view.text("cac:AddressLine/cbc:Line"),
  ].filter((line) => line !== undefined);
  return {
    address: lines.length > 0 ? lines : undefined,
    city: view.text("cbc:CityName"),
    zip: view.text("cbc:PostalZone"),
    state: view.text("cbc:CountrySubentity"),
    country: view.text("cac:Country/cbc:IdentificationCode"),
  };
}

function identifier(view: View, xpath: string): Request | undefined {
  const id = view.text(xpath);
  return id === undefined
    ? undefined
    : { scheme: view.attr(xpath, "schemeID"), id };
}

function party(view: View, role: "seller" | "buyer"): Request {
  const schemes = view.all("cac:PartyTaxScheme");
  const vat = schemes.find((s) => s.text("cac:TaxScheme/cbc:ID") === "VAT");
  const other = schemes.find((s) => s.text("cac:TaxScheme/cbc:ID") !== "VAT");
  const endpoint = view.text("cbc:EndpointID");
  return {
    name: view.text("cac:PartyLegalEntity/cbc:RegistrationName"),
    email: email_or_placeholder(view.text("cac:Contact/cbc:ElectronicMail")),
    ...address(view.one("cac:PostalAddress")),
    tax_id: vat?.text("cbc:CompanyID") ??
      (role === "seller" ? undefined : other?.text("cbc:CompanyID")),
    tax_number: role === "seller" ? other?.text("cbc:CompanyID") : undefined,
    company_id: view.text("cac:PartyLegalEntity/cbc:CompanyID"),
    company_id_scheme: view.attr(
      "cac:PartyLegalEntity/cbc:CompanyID",
      "schemeID",
    ),
    phone: view.text("cac:Contact/cbc:Telephone"),
    contact_name: view.text("cac:Contact/cbc:Name"),
    electronic_address: endpoint === undefined ? undefined : {
      scheme: view.attr("cbc:EndpointID", "schemeID"),
      id: endpoint,
    },
    trading_name: view.text("cac:PartyName/cbc:Name"),
    identifiers: view.all("cac:PartyIdentification").filter((p) =>
      p.attr("cbc:ID", "schemeID") !== "SEPA"
    ).map((p) => identifier(p, "cbc:ID")),
    legal_info: role === "seller"
      ? view.text("cac:PartyLegalEntity/cbc:CompanyLegalForm")
      : undefined,
  };
}

function adjustment(view: View, line: boolean): Request {
  return {
    description: view.text("cbc:AllowanceChargeReason") ??
      view.text("cbc:AllowanceChargeReasonCode") ?? "",
    amount: number(view.text("cbc:Amount")),
    percent: number(view.text("cbc:MultiplierFactorNumeric")),
    base_amount: number(view.text("cbc:BaseAmount")),
    reason_code: view.text("cbc:AllowanceChargeReasonCode"),
    ...(line ? {} : {
      tax_category: view.text("cac:TaxCategory/cbc:ID"),
      tax_rate: number(view.text("cac:TaxCategory/cbc:Percent")),
    }),
  };
}

function line(view: View, credit: boolean): Request {
  const quantity = Number(
    view.text(credit ? "cbc:CreditedQuantity" : "cbc:InvoicedQuantity") ?? "1",
  );
  const price = Number(view.text("cac:Price/cbc:PriceAmount"));
  const item = view.one("cac:Item")!;
  const adjustments = view.all("cac:AllowanceCharge");
  const price_charge = view.one("cac:Price/cac:AllowanceCharge");
  return {
    description: item.text("cbc:Name"),
    quantity: Math.abs(quantity),
    rate: quantity < 0 ? -price : price,
    amount: number(view.text("cbc:LineExtensionAmount")),
    tax_category: item.text("cac:ClassifiedTaxCategory/cbc:ID"),
    tax_rate: number(item.text("cac:ClassifiedTaxCategory/cbc:Percent")),
    unit: view.attr(
      credit ? "cbc:CreditedQuantity" : "cbc:InvoicedQuantity",
      "unitCode",
    ),
    item_id: item.text("cac:SellersItemIdentification/cbc:ID"),
    buyer_item_id: item.text("cac:BuyersItemIdentification/cbc:ID"),
    base_quantity: number(view.text("cac:Price/cbc:BaseQuantity")),
    gross_rate: number(price_charge?.text("cbc:BaseAmount")),
    discounts: adjustments.filter((a) =>
      !is_charge(a.text("cbc:ChargeIndicator"))
    )
      .map((a) => adjustment(a, true)),
    charges: adjustments.filter((a) => is_charge(a.text("cbc:ChargeIndicator")))
      .map((a) => adjustment(a, true)),
    item_description: item.text("cbc:Description"),
    note: view.text("cbc:Note"),
    period: view.one("cac:InvoicePeriod") && {
      start: view.text("cac:InvoicePeriod/cbc:StartDate"),
      end: view.text("cac:InvoicePeriod/cbc:EndDate"),
    },
    order_line_reference: view.text("cac:OrderLineReference/cbc:LineID"),
    accounting_reference: view.text("cbc:AccountingCost"),
    object_id: identifier(view, "cac:DocumentReference/cbc:ID"),
    standard_id: identifier(item, "cac:StandardItemIdentification/cbc:ID"),
    classifications: item.all("cac:CommodityClassification").map((c) => ({
      scheme: c.attr("cbc:ItemClassificationCode", "listID"),
      code: c.text("cbc:ItemClassificationCode"),
      version: c.attr("cbc:ItemClassificationCode", "listVersionID"),
    })),
    origin_country: item.text("cac:OriginCountry/cbc:IdentificationCode"),
    attributes: item.all("cac:AdditionalItemProperty").map((p) => ({
      name: p.text("cbc:Name"),
      value: p.text("cbc:Value"),
    })),
    ...(price_charge !== undefined &&
        price_charge.text("cbc:BaseAmount") === undefined
      ? { gross_rate: price + Number(price_charge.text("cbc:Amount")) }
      : {}),
  };
}

function payment(root: View, credit: boolean): Request {
  const means = root.all("cac:PaymentMeans");
  const accounts = means.filter((m) => m.one("cac:PayeeFinancialAccount"))
    .map((m) => ({
      ...account(m.text("cac:PayeeFinancialAccount/cbc:ID")),
      bic: m.text(
        "cac:PayeeFinancialAccount/cac:FinancialInstitutionBranch/cbc:ID",
      ),
      account_name: m.text("cac:PayeeFinancialAccount/cbc:Name"),
    }));
  const card = means.find((m) => m.one("cac:CardAccount"));
  const mandate = means.find((m) => m.one("cac:PaymentMandate"));
  const creditor = root.all(
    "cac:AccountingSupplierParty/cac:Party/cac:PartyIdentification/cbc:ID[@schemeID='SEPA'] | cac:PayeeParty/cac:PartyIdentification/cbc:ID[@schemeID='SEPA']",
  )[0]?.text(".");
  const terms = split_payment_terms(root.raw("cac:PaymentTerms/cbc:Note"));
  void credit;
  return {
    payment: {
      ...accounts[0],
      reference: means[0]?.text("cbc:PaymentID"),
      means_code: means[0]?.text("cbc:PaymentMeansCode"),
      means_text: means[0]?.attr("cbc:PaymentMeansCode", "name"),
      additional_accounts: accounts.slice(1),
      card: card && {
        last4: card.text("cac:CardAccount/cbc:PrimaryAccountNumberID"),
        holder: card.text("cac:CardAccount/cbc:HolderName"),
      },
      direct_debit: mandate && {
        mandate_reference: mandate.text("cac:PaymentMandate/cbc:ID"),
        creditor_id: creditor,
        debtor_iban: mandate.text(
          "cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID",
        ),
      },
      discount_terms: terms.discount_terms,
    },
    payment_terms: terms.payment_terms,
  };
}

function references(root: View): Request {
  const documents = root.all("cac:AdditionalDocumentReference");
  const object = documents.find((d) =>
    d.text("cbc:DocumentTypeCode") === "130"
  );
  const project = root.text("cac:ProjectReference/cbc:ID") ??
    documents.find((d) => d.text("cbc:DocumentTypeCode") === "50")?.text(
      "cbc:ID",
    );
  const order = root.text("cac:OrderReference/cbc:ID");
  return {
    buyer_reference: root.text("cbc:BuyerReference"),
    purchase_order: order === "NA" ? undefined : order,
    sales_order_reference: root.text("cac:OrderReference/cbc:SalesOrderID"),
    contract_reference: root.text("cac:ContractDocumentReference/cbc:ID"),
    project_reference: project,
    receiving_advice_reference: root.text(
      "cac:ReceiptDocumentReference/cbc:ID",
    ),
    despatch_advice_reference: root.text(
      "cac:DespatchDocumentReference/cbc:ID",
    ),
    tender_reference: root.text("cac:OriginatorDocumentReference/cbc:ID"),
    invoiced_object: object && identifier(object, "cbc:ID"),
    accounting_reference: root.text("cbc:AccountingCost"),
    preceding_invoices: root.all(
      "cac:BillingReference/cac:InvoiceDocumentReference",
    ).map((d) => ({ number: d.text("cbc:ID"), date: d.text("cbc:IssueDate") })),
    tax_point_date: root.text("cbc:TaxPointDate"),
    attachments: documents.filter((d) =>
      !["130", "50"].includes(d.text("cbc:DocumentTypeCode") ?? "")
    ).map((d) => ({
      id: d.text("cbc:ID"),
      description: d.text("cbc:DocumentDescription"),
      filename: d.attr(
        "cac:Attachment/cbc:EmbeddedDocumentBinaryObject",
        "filename",
      ),
      mime_type: d.attr(
        "cac:Attachment/cbc:EmbeddedDocumentBinaryObject",
        "mimeCode",
      ),
      data: d.text("cac:Attachment/cbc:EmbeddedDocumentBinaryObject"),
      url: d.text("cac:Attachment/cac:ExternalReference/cbc:URI"),
    })),
  };
}

function delivery(root: View): Request {
  const view = root.one("cac:Delivery");
  if (view === undefined) return {};
  const location = view.one("cac:DeliveryLocation");
  const name = view.text("cac:DeliveryParty/cac:PartyName/cbc:Name");
  const deliver_to = location || name
    ? {
      name,
      ...address(location?.one("cac:Address")),
      location_id: location && identifier(location, "cbc:ID"),
    }
    : undefined;
  return {
    delivery_date: view.text("cbc:ActualDeliveryDate"),
    deliver_to,
  };
}

/** A UBL Invoice or CreditNote root as a request. */
export function request_from_ubl(root: View): Request {
  const credit = root.one("cbc:CreditNoteTypeCode") !== undefined;
  const tax_totals = root.all("cac:TaxTotal");
  const currency = root.text("cbc:DocumentCurrencyCode");
  const in_tax_currency = tax_totals.find((t) =>
    t.attr("cbc:TaxAmount", "currencyID") !== currency
  );
  const subtotals = tax_totals.flatMap((t) => t.all("cac:TaxSubtotal"));
  const payee = root.one("cac:PayeeParty");
  const representative = root.one("cac:TaxRepresentativeParty");
  const first_means = root.one("cac:PaymentMeans");
  return {
    invoice_number: root.text("cbc:ID"),
    date: root.text("cbc:IssueDate"),
    due_date: root.text("cbc:DueDate") ??
      first_means?.text("cbc:PaymentDueDate"),
    document_type: document_type(
      root.text(credit ? "cbc:CreditNoteTypeCode" : "cbc:InvoiceTypeCode"),
    ),
    currency,
    ...notes_fields(
      root.all("cbc:Note").map((n) => subject_note(n.text(".")!)),
    ),
    sender: party(root.one("cac:AccountingSupplierParty/cac:Party")!, "seller"),
    bill_to: party(root.one("cac:AccountingCustomerParty/cac:Party")!, "buyer"),
    items: root.all(credit ? "cac:CreditNoteLine" : "cac:InvoiceLine").map((
      l,
    ) => line(l, credit)),
    ...references(root),
    billing_period: root.one("cac:InvoicePeriod/cbc:StartDate") ||
        root.one("cac:InvoicePeriod/cbc:EndDate")
      ? {
        start: root.text("cac:InvoicePeriod/cbc:StartDate"),
        end: root.text("cac:InvoicePeriod/cbc:EndDate"),
      }
      : undefined,
    ...delivery(root),
    payee: payee && {
      name: payee.text("cac:PartyName/cbc:Name"),
      identifier: identifier(
        payee,
        "cac:PartyIdentification/cbc:ID[not(@schemeID='SEPA')]",
      ),
      company_id: payee.text("cac:PartyLegalEntity/cbc:CompanyID"),
      company_id_scheme: payee.attr(
        "cac:PartyLegalEntity/cbc:CompanyID",
        "schemeID",
      ),
    },
    tax_representative: representative && {
      name: representative.text("cac:PartyName/cbc:Name"),
      vat_id: representative.text("cac:PartyTaxScheme/cbc:CompanyID"),
      ...address(representative.one("cac:PostalAddress")),
    },
    ...payment(root, credit),
    discounts: root.all("cac:AllowanceCharge").filter((a) =>
      !is_charge(a.text("cbc:ChargeIndicator"))
    ).map((a) => adjustment(a, false)),
    charges: root.all("cac:AllowanceCharge").filter((a) =>
      is_charge(a.text("cbc:ChargeIndicator"))
    ).map((a) => adjustment(a, false)),
    amount_paid: number(root.text("cac:LegalMonetaryTotal/cbc:PrepaidAmount")),
    rounding_amount: number(
      root.text("cac:LegalMonetaryTotal/cbc:PayableRoundingAmount"),
    ),
    tax_exemptions: subtotals.filter((s) =>
      s.text("cac:TaxCategory/cbc:TaxExemptionReason") ||
      s.text("cac:TaxCategory/cbc:TaxExemptionReasonCode")
    ).map((s) => ({
      tax_category: s.text("cac:TaxCategory/cbc:ID"),
      reason: s.text("cac:TaxCategory/cbc:TaxExemptionReason"),
      reason_code: s.text("cac:TaxCategory/cbc:TaxExemptionReasonCode"),
    })),
    tax_currency: root.text("cbc:TaxCurrencyCode"),
    tax_point_date_code: root.text("cac:InvoicePeriod/cbc:DescriptionCode"),
    tax_total_in_tax_currency: number(in_tax_currency?.text("cbc:TaxAmount")),
  };
}
