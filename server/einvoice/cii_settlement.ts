/**
 * The CII header settlement: payee, payment means, tax breakdown, invoicing
 * period, document allowances and charges, payment terms, totals and
 * preceding invoices.
 *
 * @module
 */
import type { Invoice } from "../../contract/invoice_types.ts";
import type { XmlWriter } from "./xml_writer.ts";
import {
  exemption_reason,
  type Flavour,
  needs_exemption_reason,
  payment_means,
  payment_terms_text,
  preceding_invoices,
} from "./common.ts";
import { allowance_charge, date, party_identifiers } from "./cii_elements.ts";

function payee(xml: XmlWriter, invoice: Invoice): void {
  const payee = invoice.payee;
  if (payee === undefined) return;
  xml.open("ram:PayeeTradeParty"); // BG-10
  party_identifiers(xml, payee.identifier ? [payee.identifier] : []); // BT-60
  xml.leaf("ram:Name", payee.name); // BT-59
  if (payee.company_id !== undefined) {
    xml.open("ram:SpecifiedLegalOrganization")
      .leaf("ram:ID", payee.company_id, { schemeID: payee.company_id_scheme }) // BT-61
      .close();
  }
  xml.close();
}

function means(xml: XmlWriter, invoice: Invoice): void {
  for (const entry of payment_means(invoice)) {
    xml.open("ram:SpecifiedTradeSettlementPaymentMeans"); // BG-16
    xml.leaf("ram:TypeCode", entry.code); // BT-81
    xml.optional("ram:Information", entry.text); // BT-82
    if (entry.card !== undefined) {
      xml.open("ram:ApplicableTradeSettlementFinancialCard"); // BG-18
      xml.leaf("ram:ID", entry.card.last4); // BT-87
      xml.optional("ram:CardholderName", entry.card.holder); // BT-88
      xml.close();
    }
    if (entry.debtor_iban !== undefined) {
      xml.open("ram:PayerPartyDebtorFinancialAccount")
        .leaf("ram:IBANID", entry.debtor_iban) // BT-91
        .close();
    }
    const account = entry.account;
    if (account !== undefined) {
      xml.open("ram:PayeePartyCreditorFinancialAccount"); // BG-17
      xml.optional("ram:IBANID", account.iban); // BT-84
      xml.optional("ram:AccountName", account.account_name); // BT-85
      xml.optional("ram:ProprietaryID", account.account_id); // BT-84
      xml.close();
      if (account.bic !== undefined) {
        xml.open("ram:PayeeSpecifiedCreditorFinancialInstitution")
          .leaf("ram:BICID", account.bic) // BT-86
          .close();
      }
    }
    xml.close();
  }
}

function breakdown(xml: XmlWriter, invoice: Invoice): void {
  (invoice.tax_breakdown ?? []).forEach((row, index) => { // BG-23
    xml.open("ram:ApplicableTradeTax");
    xml.leaf("ram:CalculatedAmount", row.tax_amount); // BT-117
    xml.leaf("ram:TypeCode", "VAT");
    if (needs_exemption_reason(row.category)) {
      xml.optional("ram:ExemptionReason", exemption_reason(invoice, row)); // BT-120
    }
    xml.leaf("ram:BasisAmount", row.taxable_amount); // BT-116
    xml.leaf("ram:CategoryCode", row.category); // BT-118
    if (needs_exemption_reason(row.category)) {
      xml.optional("ram:ExemptionReasonCode", row.exemption_reason_code); // BT-121
    }
    // The tax point date is the invoice's; CII holds it once (CII-SR-461).
    if (invoice.tax_point_date !== undefined && index === 0) {
      xml.open("ram:TaxPointDate")
        .leaf("udt:DateString", invoice.tax_point_date.replaceAll("-", ""), {
          format: "102",
        }) // BT-7
        .close();
    }
    xml.leaf("ram:RateApplicablePercent", row.rate); // BT-119
    xml.close();
  });
}

function totals(xml: XmlWriter, invoice: Invoice): void {
  const currency = invoice.currency ?? "";
  xml.open("ram:SpecifiedTradeSettlementHeaderMonetarySummation"); // BG-22
  xml.leaf("ram:LineTotalAmount", invoice.subtotal); // BT-106
  if ((invoice.charges ?? []).length > 0) {
    xml.leaf("ram:ChargeTotalAmount", invoice.charge_total ?? "0.00"); // BT-108
  }
  if ((invoice.discounts ?? []).length > 0) {
    xml.leaf("ram:AllowanceTotalAmount", invoice.discount_total ?? "0.00"); // BT-107
  }
  xml.leaf(
    "ram:TaxBasisTotalAmount",
    invoice.total_without_tax ?? invoice.subtotal,
  ); // BT-109
  xml.leaf("ram:TaxTotalAmount", invoice.tax_total ?? "0.00", {
    currencyID: currency,
  }); // BT-110
  if (
    invoice.tax_currency !== undefined &&
    invoice.tax_total_in_tax_currency !== undefined
  ) {
    xml.leaf("ram:TaxTotalAmount", invoice.tax_total_in_tax_currency, {
      currencyID: invoice.tax_currency,
    }); // BT-111
  }
  xml.optional("ram:RoundingAmount", invoice.rounding_amount); // BT-114
  xml.leaf("ram:GrandTotalAmount", invoice.total); // BT-112
  xml.optional("ram:TotalPrepaidAmount", invoice.amount_paid); // BT-113
  xml.leaf("ram:DuePayableAmount", invoice.amount_due); // BT-115
  xml.close();
}

/** Writes `ram:ApplicableHeaderTradeSettlement`. */
export function settlement(
  xml: XmlWriter,
  invoice: Invoice,
  flavour: Flavour,
): void {
  xml.open("ram:ApplicableHeaderTradeSettlement");
  xml.optional(
    "ram:CreditorReferenceID",
    invoice.payment?.direct_debit?.creditor_id,
  ); // BT-90
  xml.optional("ram:PaymentReference", invoice.payment?.reference); // BT-83
  xml.optional("ram:TaxCurrencyCode", invoice.tax_currency); // BT-6
  xml.leaf("ram:InvoiceCurrencyCode", invoice.currency ?? ""); // BT-5
  payee(xml, invoice);
  means(xml, invoice);
  breakdown(xml, invoice);
  if (invoice.billing_period !== undefined) {
    xml.open("ram:BillingSpecifiedPeriod"); // BG-14
    xml.open("ram:StartDateTime");
    date(xml, invoice.billing_period.start); // BT-73
    xml.close().open("ram:EndDateTime");
    date(xml, invoice.billing_period.end); // BT-74
    xml.close().close();
  }
  for (const entry of invoice.discounts ?? []) { // BG-20
    allowance_charge(xml, entry, { charge: false, document: true });
  }
  for (const entry of invoice.charges ?? []) { // BG-21
    allowance_charge(xml, entry, { charge: true, document: true });
  }
  xml.open("ram:SpecifiedTradePaymentTerms");
  xml.optional("ram:Description", payment_terms_text(invoice, flavour)); // BT-20
  xml.open("ram:DueDateDateTime"); // BT-9
  date(xml, invoice.due_date);
  xml.close();
  xml.optional(
    "ram:DirectDebitMandateID",
    invoice.payment?.direct_debit?.mandate_reference,
  ); // BT-89
  xml.close();
  totals(xml, invoice);
  for (const preceding of preceding_invoices(invoice)) {
    xml.open("ram:InvoiceReferencedDocument"); // BG-3
    xml.leaf("ram:IssuerAssignedID", preceding.number); // BT-25
    if (preceding.date !== undefined) {
      xml.open("ram:FormattedIssueDateTime")
        .leaf("qdt:DateTimeString", preceding.date.replaceAll("-", ""), {
          format: "102",
        }) // BT-26
        .close();
    }
    xml.close();
  }
  if (invoice.accounting_reference !== undefined) {
    xml.open("ram:ReceivableSpecifiedTradeAccountingAccount")
      .leaf("ram:ID", invoice.accounting_reference) // BT-19
      .close();
  }
  xml.close();
}
