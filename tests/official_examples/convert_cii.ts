/**
 * A CII D16B invoice as our invoice request (see `convert.ts`).
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
} from "./request_parts.ts";

function date(view: View | undefined, xpath: string): string | undefined {
  const text = view?.text(xpath);
  if (text === undefined) return undefined;
  return `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}`;
}

function address(view: View | undefined): Request {
  if (view === undefined) return {};
  const lines = [
    view.text("ram:LineOne"),
    view.text("ram:LineTwo"),
    view.text("ram:LineThree"),
  ].filter((line) => line !== undefined);
  return {
    address: lines.length > 0 ? lines : undefined,
    city: view.text("ram:CityName"),
    zip: view.text("ram:PostcodeCode"),
    state: view.text("ram:CountrySubDivisionName"),
    country: view.text("ram:CountryID"),
  };
}

function identifiers(view: View): Request[] {
  return [
    ...view.all("ram:ID").map((id) => ({ id: id.text(".") })),
    ...view.all("ram:GlobalID").map((id) => ({
      scheme: id.attr(".", "schemeID"),
      id: id.text("."),
    })),
  ];
}

function party(view: View, role: "seller" | "buyer"): Request {
  const registration = (scheme: string) =>
    view.text(`ram:SpecifiedTaxRegistration/ram:ID[@schemeID='${scheme}']`);
  const endpoint = view.text("ram:URIUniversalCommunication/ram:URIID");
  return {
    name: view.text("ram:Name"),
    email: email_or_placeholder(
      view.text(
        "ram:DefinedTradeContact/ram:EmailURIUniversalCommunication/ram:URIID",
      ),
    ),
    ...address(view.one("ram:PostalTradeAddress")),
    tax_id: registration("VA") ??
      (role === "seller" ? undefined : registration("FC")),
    tax_number: role === "seller" ? registration("FC") : undefined,
    company_id: view.text("ram:SpecifiedLegalOrganization/ram:ID"),
    company_id_scheme: view.attr(
      "ram:SpecifiedLegalOrganization/ram:ID",
      "schemeID",
    ),
    phone: view.text(
      "ram:DefinedTradeContact/ram:TelephoneUniversalCommunication/ram:CompleteNumber",
    ),
    contact_name: view.text("ram:DefinedTradeContact/ram:PersonName"),
    electronic_address: endpoint === undefined ? undefined : {
      scheme: view.attr("ram:URIUniversalCommunication/ram:URIID", "schemeID"),
      id: endpoint,
    },
    trading_name: view.text(
      "ram:SpecifiedLegalOrganization/ram:TradingBusinessName",
    ),
    identifiers: identifiers(view),
    legal_info: role === "seller" ? view.text("ram:Description") : undefined,
  };
}

function adjustment(view: View, line: boolean): Request {
  return {
    description: view.text("ram:Reason") ?? view.text("ram:ReasonCode") ?? "",
    amount: number(view.text("ram:ActualAmount")),
    percent: number(view.text("ram:CalculationPercent")),
    base_amount: number(view.text("ram:BasisAmount")),
    reason_code: view.text("ram:ReasonCode"),
    ...(line ? {} : {
      tax_category: view.text("ram:CategoryTradeTax/ram:CategoryCode"),
      tax_rate: number(
        view.text("ram:CategoryTradeTax/ram:RateApplicablePercent"),
      ),
    }),
  };
}

function line(view: View): Request {
  const product = view.one("ram:SpecifiedTradeProduct")!;
  const agreement = view.one("ram:SpecifiedLineTradeAgreement")!;
  const settlement = view.one("ram:SpecifiedLineTradeSettlement")!;
  const quantity = Number(
    view.text("ram:SpecifiedLineTradeDelivery/ram:BilledQuantity") ?? "1",
  );
  const price = Number(
    agreement.text("ram:NetPriceProductTradePrice/ram:ChargeAmount"),
  );
  const gross = agreement.one("ram:GrossPriceProductTradePrice");
  const adjustments = settlement.all("ram:SpecifiedTradeAllowanceCharge");
  const indicator = (a: View) => a.text("ram:ChargeIndicator/udt:Indicator");
  const object = settlement.one("ram:AdditionalReferencedDocument");
  const global = product.one("ram:GlobalID");
  return {
    description: product.text("ram:Name"),
    quantity: Math.abs(quantity),
    rate: quantity < 0 ? -price : price,
    amount: number(
      settlement.text(
        "ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount",
      ),
    ),
    tax_category: settlement.text("ram:ApplicableTradeTax/ram:CategoryCode"),
    tax_rate: number(
      settlement.text("ram:ApplicableTradeTax/ram:RateApplicablePercent"),
    ),
    unit: view.attr(
      "ram:SpecifiedLineTradeDelivery/ram:BilledQuantity",
      "unitCode",
    ),
    item_id: product.text("ram:SellerAssignedID"),
    buyer_item_id: product.text("ram:BuyerAssignedID"),
    base_quantity: number(
      agreement.text("ram:NetPriceProductTradePrice/ram:BasisQuantity") ??
        gross?.text("ram:BasisQuantity"),
    ),
    gross_rate: number(gross?.text("ram:ChargeAmount")),
    discounts: adjustments.filter((a) => !is_charge(indicator(a))).map((a) =>
      adjustment(a, true)
    ),
    charges: adjustments.filter((a) => is_charge(indicator(a))).map((a) =>
      adjustment(a, true)
    ),
    item_description: product.text("ram:Description"),
    note: view.text(
      "ram:AssociatedDocumentLineDocument/ram:IncludedNote/ram:Content",
    ),
    period: settlement.one("ram:BillingSpecifiedPeriod") && {
      start: date(
        settlement,
        "ram:BillingSpecifiedPeriod/ram:StartDateTime/udt:DateTimeString",
      ),
      end: date(
        settlement,
        "ram:BillingSpecifiedPeriod/ram:EndDateTime/udt:DateTimeString",
      ),
    },
    order_line_reference: agreement.text(
      "ram:BuyerOrderReferencedDocument/ram:LineID",
    ),
    accounting_reference: settlement.text(
      "ram:ReceivableSpecifiedTradeAccountingAccount/ram:ID",
    ),
    object_id: object && {
      scheme: object.text("ram:ReferenceTypeCode"),
      id: object.text("ram:IssuerAssignedID"),
    },
    standard_id: global && {
      scheme: global.attr(".", "schemeID"),
      id: global.text("."),
    },
    classifications: product.all("ram:DesignatedProductClassification").map((
      c,
    ) => ({
      scheme: c.attr("ram:ClassCode", "listID"),
      code: c.text("ram:ClassCode"),
      version: c.attr("ram:ClassCode", "listVersionID"),
    })),
    origin_country: product.text("ram:OriginTradeCountry/ram:ID"),
    attributes: product.all("ram:ApplicableProductCharacteristic").map((p) => ({
      name: p.text("ram:Description"),
      value: p.text("ram:Value"),
    })),
  };
}

function payment(settlement: View): Request {
  const means = settlement.all("ram:SpecifiedTradeSettlementPaymentMeans");
  const accounts = means.filter((m) =>
    m.one("ram:PayeePartyCreditorFinancialAccount")
  ).map((m) => ({
    ...account(
      m.text("ram:PayeePartyCreditorFinancialAccount/ram:IBANID") ??
        m.text("ram:PayeePartyCreditorFinancialAccount/ram:ProprietaryID"),
    ),
    bic: m.text("ram:PayeeSpecifiedCreditorFinancialInstitution/ram:BICID"),
    account_name: m.text(
      "ram:PayeePartyCreditorFinancialAccount/ram:AccountName",
    ),
  }));
  const card = means.find((m) =>
    m.one("ram:ApplicableTradeSettlementFinancialCard")
  );
  const mandate = settlement.text(
    "ram:SpecifiedTradePaymentTerms/ram:DirectDebitMandateID",
  );
  const debtor = means.find((m) =>
    m.one("ram:PayerPartyDebtorFinancialAccount")
  );
  const terms = split_payment_terms(
    settlement.raw("ram:SpecifiedTradePaymentTerms/ram:Description"),
  );
  return {
    payment: {
      ...accounts[0],
      reference: settlement.text("ram:PaymentReference"),
      means_code: means[0]?.text("ram:TypeCode"),
      means_text: means[0]?.text("ram:Information"),
      additional_accounts: accounts.slice(1),
      card: card && {
        last4: card.text("ram:ApplicableTradeSettlementFinancialCard/ram:ID"),
        holder: card.text(
          "ram:ApplicableTradeSettlementFinancialCard/ram:CardholderName",
        ),
      },
      direct_debit: mandate !== undefined || debtor !== undefined
        ? {
          mandate_reference: mandate,
          creditor_id: settlement.text("ram:CreditorReferenceID"),
          debtor_iban: debtor?.text(
            "ram:PayerPartyDebtorFinancialAccount/ram:IBANID",
          ),
        }
        : undefined,
      discount_terms: terms.discount_terms,
    },
    payment_terms: terms.payment_terms,
  };
}

function references(agreement: View, settlement: View): Request {
  const documents = agreement.all("ram:AdditionalReferencedDocument");
  const typed = (code: string) =>
    documents.find((d) => d.text("ram:TypeCode") === code);
  const object = typed("130");
  return {
    buyer_reference: agreement.text("ram:BuyerReference"),
    purchase_order: agreement.text(
      "ram:BuyerOrderReferencedDocument/ram:IssuerAssignedID",
    ),
    sales_order_reference: agreement.text(
      "ram:SellerOrderReferencedDocument/ram:IssuerAssignedID",
    ),
    contract_reference: agreement.text(
      "ram:ContractReferencedDocument/ram:IssuerAssignedID",
    ),
    project_reference: agreement.text("ram:SpecifiedProcuringProject/ram:ID"),
    tender_reference: typed("50")?.text("ram:IssuerAssignedID"),
    invoiced_object: object && {
      scheme: object.text("ram:ReferenceTypeCode"),
      id: object.text("ram:IssuerAssignedID"),
    },
    accounting_reference: settlement.text(
      "ram:ReceivableSpecifiedTradeAccountingAccount/ram:ID",
    ),
    preceding_invoices: settlement.all("ram:InvoiceReferencedDocument").map((
      d,
    ) => ({
      number: d.text("ram:IssuerAssignedID"),
      date: date(d, "ram:FormattedIssueDateTime/qdt:DateTimeString"),
    })),
    tax_point_date: date(
      settlement,
      "ram:ApplicableTradeTax/ram:TaxPointDate/udt:DateString",
    ),
    attachments: documents.filter((d) => d.text("ram:TypeCode") === "916").map((
      d,
    ) => ({
      id: d.text("ram:IssuerAssignedID"),
      description: d.text("ram:Name"),
      filename: d.attr("ram:AttachmentBinaryObject", "filename"),
      mime_type: d.attr("ram:AttachmentBinaryObject", "mimeCode"),
      data: d.text("ram:AttachmentBinaryObject"),
      url: d.text("ram:URIID"),
    })),
  };
}

function delivery(view: View | undefined): Request {
  if (view === undefined) return {};
  const ship_to = view.one("ram:ShipToTradeParty");
  const ids = ship_to ? identifiers(ship_to) : [];
  return {
    delivery_date: date(
      view,
      "ram:ActualDeliverySupplyChainEvent/ram:OccurrenceDateTime/udt:DateTimeString",
    ),
    deliver_to: ship_to && {
      name: ship_to.text("ram:Name"),
      ...address(ship_to.one("ram:PostalTradeAddress")),
      location_id: ids[0],
    },
    despatch_advice_reference: view.text(
      "ram:DespatchAdviceReferencedDocument/ram:IssuerAssignedID",
    ),
    receiving_advice_reference: view.text(
      "ram:ReceivingAdviceReferencedDocument/ram:IssuerAssignedID",
    ),
  };
}

/** A CII root as a request. */
export function request_from_cii(root: View): Request {
  const transaction = root.one("rsm:SupplyChainTradeTransaction")!;
  const agreement = transaction.one("ram:ApplicableHeaderTradeAgreement")!;
  const settlement = transaction.one("ram:ApplicableHeaderTradeSettlement")!;
  const totals = settlement.one(
    "ram:SpecifiedTradeSettlementHeaderMonetarySummation",
  )!;
  const currency = settlement.text("ram:InvoiceCurrencyCode");
  const tax_currency = settlement.text("ram:TaxCurrencyCode");
  const payee = settlement.one("ram:PayeeTradeParty");
  const representative = agreement.one("ram:SellerTaxRepresentativeTradeParty");
  const period = settlement.one("ram:BillingSpecifiedPeriod");
  const type = root.text("rsm:ExchangedDocument/ram:TypeCode");
  const taxes = settlement.all("ram:ApplicableTradeTax");
  const payee_ids = payee ? identifiers(payee) : [];
  return {
    invoice_number: root.text("rsm:ExchangedDocument/ram:ID"),
    date: date(
      root,
      "rsm:ExchangedDocument/ram:IssueDateTime/udt:DateTimeString",
    ),
    due_date: date(
      settlement,
      "ram:SpecifiedTradePaymentTerms/ram:DueDateDateTime/udt:DateTimeString",
    ),
    document_type: document_type(type),
    currency,
    ...notes_fields(
      root.all("rsm:ExchangedDocument/ram:IncludedNote").map((n) => ({
        subject_code: n.text("ram:SubjectCode"),
        text: n.text("ram:Content") ?? "",
      })),
    ),
    sender: party(agreement.one("ram:SellerTradeParty")!, "seller"),
    bill_to: party(agreement.one("ram:BuyerTradeParty")!, "buyer"),
    items: transaction.all("ram:IncludedSupplyChainTradeLineItem").map(line),
    ...references(agreement, settlement),
    billing_period: period && {
      start: date(period, "ram:StartDateTime/udt:DateTimeString"),
      end: date(period, "ram:EndDateTime/udt:DateTimeString"),
    },
    ...delivery(transaction.one("ram:ApplicableHeaderTradeDelivery")),
    payee: payee && {
      name: payee.text("ram:Name"),
      identifier: payee_ids[0],
      company_id: payee.text("ram:SpecifiedLegalOrganization/ram:ID"),
      company_id_scheme: payee.attr(
        "ram:SpecifiedLegalOrganization/ram:ID",
        "schemeID",
      ),
    },
    tax_representative: representative && {
      name: representative.text("ram:Name"),
      vat_id: representative.text("ram:SpecifiedTaxRegistration/ram:ID"),
      ...address(representative.one("ram:PostalTradeAddress")),
    },
    ...payment(settlement),
    discounts: settlement.all("ram:SpecifiedTradeAllowanceCharge").filter((a) =>
      !is_charge(a.text("ram:ChargeIndicator/udt:Indicator"))
    ).map((a) => adjustment(a, false)),
    charges: settlement.all("ram:SpecifiedTradeAllowanceCharge").filter((a) =>
      is_charge(a.text("ram:ChargeIndicator/udt:Indicator"))
    ).map((a) => adjustment(a, false)),
    amount_paid: number(totals.text("ram:TotalPrepaidAmount")),
    rounding_amount: number(totals.text("ram:RoundingAmount")),
    tax_exemptions: taxes.filter((t) =>
      t.text("ram:ExemptionReason") || t.text("ram:ExemptionReasonCode")
    ).map((t) => ({
      tax_category: t.text("ram:CategoryCode"),
      reason: t.text("ram:ExemptionReason"),
      reason_code: t.text("ram:ExemptionReasonCode"),
    })),
    tax_currency,
    tax_point_date_code: settlement.text(
      "ram:ApplicableTradeTax/ram:DueDateTypeCode",
    ),
    tax_total_in_tax_currency: tax_currency === undefined ? undefined : number(
      totals.all("ram:TaxTotalAmount").find((t) =>
        t.attr(".", "currencyID") === tax_currency
      )?.text("."),
    ),
  };
}
